package dev.rdmasim.kernel.hw;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.Stat;
import org.junit.jupiter.api.Test;

/**
 * A queue whose consumer never takes runs only while something changes: the cycle an item enters and the next one,
 * where the item is on offer; then it sleeps, however long the item stays. Full cycles count only those evaluations.
 */
class FifoIdleTest {

    /** Never ready, never evaluates anything. */
    static final class Closed extends ClockedModule {
        final InPort<Integer> in = inPort("in", false);

        Closed(Module parent, ClockDomain clock) {
            super(parent, "closed", clock);
        }

        @Override
        protected void evaluate() {
        }
    }

    private static long counter(Module m, String name) {
        for (Stat s : m.stats().stats()) {
            if (s.name().equals(name)) {
                return ((Counter) s).value();
            }
        }
        throw new AssertionError("no statistic " + name);
    }

    @Test
    void aFullQueueWithAStuckConsumerIsEvaluatedOnlyWhileItsStateChanges() {
        Simulator sim = new Simulator(1);
        Top top = new Top(sim);
        ClockDomain clk = ClockDomain.ofPeriod(sim, "clk", 1_000);
        TestProducer p = new TestProducer(top, "p", clk, 1, 0, 1);
        Fifo<Integer> q = new Fifo<>(top, "q", clk, 1, 1, false, false);
        Closed c = new Closed(top, clk);
        Channels.connect(p.out, q.enq);
        Channels.connect(q.deq, c.in);
        p.wake();
        sim.event("late", () -> { }).schedule(100_000);
        sim.run();
        // p offers at 1; the item enters at 2 and is on offer from 3, when the queue is full; nothing moves after.
        assertThat(q.size()).isEqualTo(1);
        assertThat(counter(q, "enqueued")).isEqualTo(1);
        assertThat(counter(q, "fullCycles")).isEqualTo(1);
        assertThat(q.deq.valid()).isTrue();
        assertThat(clk.edgesProcessed()).isEqualTo(3);
    }
}
