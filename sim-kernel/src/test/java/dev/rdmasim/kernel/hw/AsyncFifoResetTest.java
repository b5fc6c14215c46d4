package dev.rdmasim.kernel.hw;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.wave.SignalFilter;
import dev.rdmasim.kernel.wave.VcdWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A clock-domain crossing shows nothing on its read side before the synchronizer passes an item, and a reset empties
 * it (size and occupancy waveform) so that a new run goes through it from the start.
 */
class AsyncFifoResetTest {

    @Test
    void anItemWrittenButNotYetSynchronizedIsNeitherValidNorOnOffer() {
        Simulator sim = new Simulator(1);
        Top top = new Top(sim);
        ClockDomain w = ClockDomain.ofPeriod(sim, "w", 1_000);
        ClockDomain r = ClockDomain.ofPeriod(sim, "r", 1_000, 500);
        TestProducer p = new TestProducer(top, "p", w, 1, 0, 1);
        TestConsumer c = new TestConsumer(top, "c", r, 0, 1);
        AsyncFifo<Integer> f = new AsyncFifo<>(top, "x", w, r, 2, 2);
        Channels.connect(p.out, f.enq);
        Channels.connect(f.deq, c.in);
        List<String> seen = new ArrayList<>();
        // p offers at edge 1 (1000 ps), the crossing writes it at edge 2 (2000 ps); the read clock's synchronizer
        // presents it from its second edge after that, 3500 ps, where the consumer takes it.
        for (long t : new long[] {2_100, 3_100}) {
            sim.event("look" + t, () -> seen.add(t + ": " + f.size() + " " + f.deq.valid() + " " + f.deq.bits()))
                    .schedule(t);
        }
        p.wake();
        sim.run();
        assertThat(seen).containsExactly("2100: 1 false null", "3100: 1 false null");
        assertThat(c.items.toArray()).containsExactly(0);
        assertThat(c.cycles.toArray()).containsExactly(3);
    }

    @Test
    void resetEmptiesTheCrossingAndItsOccupancyAndANewRunGoesThrough() {
        Simulator sim = new Simulator(1);
        StringWriter out = new StringWriter();
        VcdWriter vcd = new VcdWriter(out, sim::now, SignalFilter.ALL);
        sim.attachWave(vcd);
        Top top = new Top(sim);
        ClockDomain w = ClockDomain.ofPeriod(sim, "w", 1_000);
        ClockDomain r = ClockDomain.ofPeriod(sim, "r", 1_500);
        TestProducer p = new TestProducer(top, "p", w, 3, 0, 1);
        Refusing c = new Refusing(top, r);
        AsyncFifo<Integer> f = new AsyncFifo<>(top, "x", w, r, 2, 2);
        Channels.connect(p.out, f.enq);
        Channels.connect(f.deq, c.in);
        p.wake();
        sim.run();
        assertThat(f.size()).isEqualTo(2);
        assertThat(p.sent()).isEqualTo(2);

        sim.event("reset", top::reset).schedule(sim.now() + 10_000);
        sim.run();
        assertThat(f.size()).isZero();
        assertThat(f.deq.valid()).isFalse();

        c.open = true;
        sim.event("again", () -> {
            p.wake();
            c.wake();
        }).schedule(sim.now() + 10_000);
        sim.run();
        vcd.close();
        assertThat(c.got).as("the items held at the reset are gone").containsExactly(0, 1, 2);
        assertThat(f.size()).isZero();
        List<Long> occ = HwWaveAndChecksTest.parse(out.toString()).get("top.x_wr.count");
        // Filled to 2, emptied by the reset, then each item of the new run in and out.
        assertThat(occ.subList(0, 4)).containsExactly(0L, 1L, 2L, 0L);
        assertThat(occ.get(occ.size() - 1)).isZero();
    }

    /** Ready only once opened; logs what it takes. */
    static final class Refusing extends ClockedModule {
        final InPort<Integer> in = inPort("in", false);
        final List<Integer> got = new ArrayList<>();
        boolean open;

        Refusing(Module parent, ClockDomain clock) {
            super(parent, "c", clock);
        }

        @Override
        protected void evaluate() {
            if (in.fire()) {
                got.add(in.bits());
            }
            in.setReady(open);
        }
    }
}
