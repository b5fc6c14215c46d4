package dev.rdmasim.kernel.hw;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.kernel.Simulator;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Where the queues that {@link Fifo#of} and {@link Fifo#delay} build for a port live, and what they are called (the
 * names their statistics and waveforms carry): beside the port's module, named after the module and the port; for a
 * module at top level, under the module itself, named after the port alone. Items pass through either way.
 */
class QueueNamesTest {

    /** Offers 0, 1, 2, ... one per cycle from its first evaluation on, up to {@code total}. */
    static final class Source extends ClockedModule {
        final OutPort<Integer> out = outPort("out");
        private final RegLong next = regLong("next", 0);
        private final int total;

        Source(Simulator sim, String name, ClockDomain clock, int total) {
            super(sim, name, clock);
            this.total = total;
        }

        Source(Module parent, String name, ClockDomain clock, int total) {
            super(parent, name, clock);
            this.total = total;
        }

        @Override
        protected void evaluate() {
            long n = next.get() + (out.fire() ? 1 : 0);
            next.set(n);
            if (n < total && (!out.valid() || out.fire())) {
                out.offer((int) n);
            }
        }
    }

    @Test
    void queuesOfATopLevelModuleLiveUnderItAndAreNamedAfterThePort() {
        Simulator sim = new Simulator();
        ClockDomain c = ClockDomain.ofPeriod(sim, "c", 1_000);
        Source a = new Source(sim, "a", c, 5);
        Source b = new Source(sim, "b", c, 5);
        Top top = new Top(sim);
        Source n = new Source(top, "n", c, 5);
        OutPort<Integer> qa = Fifo.of(a.out, 2, false, false);
        OutPort<Integer> qb = Fifo.delay(b.out, 3);
        OutPort<Integer> qn = Fifo.of(n.out, 2, false, false);
        assertThat(qa.owner().fullName()).isEqualTo("a.out_q");
        assertThat(qa.owner().parent()).isSameAs(a);
        assertThat(qb.owner().fullName()).isEqualTo("b.out_pipe");
        assertThat(qb.owner().parent()).isSameAs(b);
        assertThat(qn.owner().fullName()).isEqualTo("top.n_out_q");
        assertThat(qn.owner().parent()).isSameAs(top);

        List<String> got = new ArrayList<>();
        ClockedModule sink = new ClockedModule(top, "sink", c) {
            final InPort<Integer> fromA = inPort("fromA", true);
            final InPort<Integer> fromB = inPort("fromB", true);
            final InPort<Integer> fromN = inPort("fromN", true);

            {
                Channels.connect(qa, fromA);
                Channels.connect(qb, fromB);
                Channels.connect(qn, fromN);
            }

            @Override
            protected void evaluate() {
                if (fromA.fire()) {
                    got.add("a" + fromA.bits());
                }
                if (fromB.fire()) {
                    got.add("b" + fromB.bits());
                }
                if (fromN.fire()) {
                    got.add("n" + fromN.bits());
                }
            }
        };
        sim.event("start", () -> {
            a.wake();
            b.wake();
            n.wake();
        }).schedule(0);
        sim.run();
        assertThat(sink.fullName()).isEqualTo("top.sink");
        assertThat(got).filteredOn(s -> s.startsWith("a")).containsExactly("a0", "a1", "a2", "a3", "a4");
        assertThat(got).filteredOn(s -> s.startsWith("b")).containsExactly("b0", "b1", "b2", "b3", "b4");
        assertThat(got).filteredOn(s -> s.startsWith("n")).containsExactly("n0", "n1", "n2", "n3", "n4");
    }
}
