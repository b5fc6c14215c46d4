package dev.rdmasim.kernel.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.hw.Channels;
import dev.rdmasim.kernel.hw.ClockDomain;
import dev.rdmasim.kernel.hw.ClockedModule;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.hw.OutPort;
import org.junit.jupiter.api.Test;

/** The demo's sink on its own, fed by a producer the test controls. */
class SinkTest {

    /** Offers the given token ids one after another, each stamped at the edge it becomes visible. */
    private static final class Feeder extends ClockedModule {
        final OutPort<Token> out = outPort("out");
        private final long[] ids;
        private int next;

        Feeder(Module parent, ClockDomain clock, long... ids) {
            super(parent, "feeder", clock);
            this.ids = ids;
        }

        @Override
        protected void evaluate() {
            if (out.fire()) {
                next++;
            }
            if (next < ids.length && (!out.valid() || out.fire())) {
                out.offer(new Token(ids[next], clock().edgeTime(cycle() + 1)));
            } else if (next == ids.length && out.fire()) {
                out.retract();
            }
        }
    }

    private static Sink sinkFedWith(Simulator sim, long total, long... ids) {
        Module top = new Module(sim, "t") {
        };
        ClockDomain clock = ClockDomain.ofMHz(sim, "core", 1000);
        Sink sink = new Sink(top, "sink", clock, total, 0.0, 1);
        Feeder feeder = new Feeder(top, clock, ids);
        Channels.connect(feeder.out, sink.in);
        feeder.wake();
        sink.wake();
        return sink;
    }

    @Test
    void tokensInOrderAreCountedWithTheirLatency() {
        Simulator sim = new Simulator(1);
        Sink sink = sinkFedWith(sim, 3, 0, 1, 2);
        sim.run();

        assertThat(sink.received()).isEqualTo(3);
        // Each is taken in the cycle it becomes visible: no time between its stamp and its receipt.
        assertThat(sink.latency().max()).isZero();
    }

    @Test
    void aTokenOutOfOrderIsAnInvariantViolation() {
        Simulator sim = new Simulator(1);
        sinkFedWith(sim, 3, 0, 2, 1);

        assertThatThrownBy(() -> sim.runUntil(100_000)).isInstanceOf(InvariantViolation.class)
                .hasMessageContaining("sink expected token 1 but got 2");
    }
}
