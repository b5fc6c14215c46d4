package dev.rdmasim.kernel.hw;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.tlm.RxPort;
import dev.rdmasim.kernel.tlm.TxPort;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Transaction-level traffic into a clocked block: an event-driven sender with random gaps, an inbox,
 * and a clocked consumer that takes at most one item per cycle and sometimes stalls. Backpressure
 * goes through refusal and retry; the scoreboard checks that nothing is lost or reordered and that
 * no item is seen before the edge after its arrival.
 */
class InboxTest {

    static final class Taker extends ClockedModule {
        final Inbox<long[]> inbox;
        final List<Long> got = new ArrayList<>();
        private final double stall;

        Taker(Module parent, String name, ClockDomain clock, int capacity, double stall) {
            super(parent, name, clock);
            this.inbox = new Inbox<>(this, "in", capacity);
            this.stall = stall;
        }

        @Override
        protected void evaluate() {
            long[] item = inbox.peek();
            if (item == null) {
                return;
            }
            if (random().nextDouble() < stall) {
                wake();
                return;
            }
            inbox.take();
            long edge = clock().edgeTime(cycle());
            assertThat(item[1]).as("arrival before the edge that sees it").isLessThan(edge);
            got.add(item[0]);
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6})
    void backpressureLosesNothing(long seed) {
        Simulator sim = new Simulator(seed);
        Top top = new Top(sim);
        ClockDomain clk = ClockDomain.ofMHz(sim, "clk", 500);
        Taker t = new Taker(top, "taker", clk, 1 + (int) (seed % 3), 0.4);
        SplittableRandom rnd = new SplittableRandom(seed);
        int total = 3_000;
        long[] next = {0};
        Event[] send = new Event[1];
        TxPort<long[]> tx = new TxPort<>(sim, "sender.out", () -> send[0].scheduleIn(0));
        RxPort.connect(tx, t.inbox.rx);
        send[0] = sim.event("sender.send", () -> {
            if (tx.trySend(new long[] {next[0], sim.now()})) {
                next[0]++;
                if (next[0] < total) {
                    send[0].scheduleIn(rnd.nextInt(3) * 1_000L);
                }
            }
            // Refused: the retry callback reschedules us.
        });
        send[0].schedule(0);
        sim.run();
        assertThat(t.got).hasSize(total);
        for (int i = 0; i < total; i++) {
            assertThat(t.got.get(i)).isEqualTo(i);
        }
        assertThat(tx.refused()).isPositive();
        assertThat(tx.blocked()).isFalse();
    }
}
