package dev.rdmasim.kernel.hw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.tlm.RxPort;
import dev.rdmasim.kernel.tlm.TxPort;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What {@link Inbox#take()} returns, several takes in one cycle, what stays for later cycles, and
 * the retry a refused sender gets once the taken items leave at commit.
 */
class InboxTakeTest {

    /** Takes up to {@code perCycle} items each evaluated cycle and logs them with the cycle. */
    static final class Taker extends ClockedModule {
        final Inbox<String> inbox;
        final List<String> log = new ArrayList<>();
        final List<Integer> sizeSeen = new ArrayList<>();
        final int perCycle;

        Taker(Module parent, ClockDomain clock, int capacity, int perCycle) {
            super(parent, "taker", clock);
            this.inbox = new Inbox<>(this, "in", capacity);
            this.perCycle = perCycle;
        }

        @Override
        protected void evaluate() {
            sizeSeen.add(inbox.size());
            for (int i = 0; i < perCycle && inbox.peek() != null; i++) {
                String peeked = inbox.peek();
                String taken = inbox.take();
                assertThat(taken).isSameAs(peeked);
                log.add(cycle() + ":" + taken);
            }
        }
    }

    @Test
    void twoTakesInOneCycleReturnSuccessiveItemsAndTheRestWaits() {
        Simulator sim = new Simulator();
        Top top = new Top(sim);
        ClockDomain clk = ClockDomain.ofPeriod(sim, "clk", 1_000);
        Taker t = new Taker(top, clk, 4, 2);
        int[] retries = {0};
        TxPort<String> tx = new TxPort<>(sim, "src.out", () -> retries[0]++);
        RxPort.connect(tx, t.inbox.rx);
        sim.event("send", () -> {
            for (String s : new String[] {"a", "b", "c", "d"}) {
                assertThat(tx.trySend(s)).isTrue();
            }
            assertThat(tx.trySend("e")).as("inbox of 4 is full").isFalse();
            assertThat(t.inbox.size()).isEqualTo(4);
            assertThat(t.inbox.peek()).as("not visible before the next edge").isNull();
        }).schedule(100);
        sim.run();
        assertThat(t.log).containsExactly("1:a", "1:b", "2:c", "2:d");
        // Sizes at evaluate: 4 held at cycle 1; a and b left at its commit.
        assertThat(t.sizeSeen).containsExactly(4, 2);
        assertThat(t.inbox.size()).isZero();
        assertThat(retries[0]).as("the refused sender is told once").isEqualTo(1);
        assertThat(tx.blocked()).isFalse();
    }

    @Test
    void untakenItemsStayAndWakeTheOwnerAgain() {
        Simulator sim = new Simulator();
        Top top = new Top(sim);
        ClockDomain clk = ClockDomain.ofPeriod(sim, "clk", 1_000);
        Taker t = new Taker(top, clk, 3, 1);
        TxPort<String> tx = new TxPort<>(sim, "src.out", () -> { });
        RxPort.connect(tx, t.inbox.rx);
        sim.event("send", () -> {
            tx.trySend("x");
            tx.trySend("y");
            tx.trySend("z");
        }).schedule(0);
        sim.run();
        assertThat(t.log).containsExactly("1:x", "2:y", "3:z");
        assertThat(t.sizeSeen).containsExactly(3, 2, 1);
    }

    /**
     * An owner that looks at an item and leaves it for later is not woken again by the inbox: delivery woke it
     * once, and only a take (which frees room) wakes it while items remain. A cycle without a take tells no
     * sender to retry.
     */
    @Test
    void anOwnerThatLeavesItsItemSleepsUntilItsOwnWakeUp() {
        Simulator sim = new Simulator();
        Top top = new Top(sim);
        ClockDomain clk = ClockDomain.ofPeriod(sim, "clk", 1_000);
        List<Long> evaluated = new ArrayList<>();
        List<String> got = new ArrayList<>();
        ClockedModule m = new ClockedModule(top, "m", clk) {
            final Inbox<String> in = new Inbox<>(this, "in", 1);

            {
                int[] retries = {0};
                TxPort<String> tx = new TxPort<>(sim, "src.out", () -> retries[0]++);
                RxPort.connect(tx, in.rx);
                sim.event("send", () -> {
                    assertThat(tx.trySend("a")).isTrue();
                    assertThat(tx.trySend("b")).isFalse();
                }).schedule(100);
                sim.event("check", () -> assertThat(retries[0]).as("no retry before the take").isZero())
                        .schedule(5_500);
            }

            @Override
            protected void evaluate() {
                evaluated.add(cycle());
                if (cycle() == 1) {
                    wakeIn(5);
                } else if (in.peek() != null) {
                    got.add(in.take() + "@" + cycle());
                }
            }
        };
        sim.run();
        assertThat(got).containsExactly("a@6");
        assertThat(evaluated).containsExactly(1L, 6L);
        assertThat(m.clock().edgesProcessed()).isEqualTo(2);
    }

    @Test
    void wrapsAroundTheRingInOrder() {
        Simulator sim = new Simulator();
        Top top = new Top(sim);
        ClockDomain clk = ClockDomain.ofPeriod(sim, "clk", 1_000);
        Taker t = new Taker(top, clk, 3, 2);
        TxPort<String> tx = new TxPort<>(sim, "src.out", () -> { });
        RxPort.connect(tx, t.inbox.rx);
        // Two items per 1.5 cycles against two takes per cycle: head and tail both wrap several times.
        for (int i = 0; i < 10; i++) {
            int n = i;
            sim.event("send" + i, () -> {
                assertThat(tx.trySend("p" + n)).isTrue();
                assertThat(tx.trySend("q" + n)).isTrue();
            }).schedule(1_500L * i + 200);
        }
        sim.run();
        List<String> items = t.log.stream().map(s -> s.substring(s.indexOf(':') + 1)).toList();
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            expected.add("p" + i);
            expected.add("q" + i);
        }
        assertThat(items).isEqualTo(expected);
    }

    @Test
    void anItemArrivingExactlyAtAnEdgeIsSeenOnlyFromTheNextEdge() {
        Simulator sim = new Simulator();
        Top top = new Top(sim);
        ClockDomain clk = ClockDomain.ofPeriod(sim, "clk", 1_000);
        Taker t = new Taker(top, clk, 2, 1);
        TxPort<String> tx = new TxPort<>(sim, "src.out", () -> { });
        RxPort.connect(tx, t.inbox.rx);
        // The taker runs at edge 1 (time 1000) anyway; the item arrives at that very picosecond.
        sim.event("early", t::wake).schedule(500);
        sim.event("onEdge", () -> tx.trySend("e")).schedule(1_000);
        sim.run();
        assertThat(t.sizeSeen).containsExactly(1, 1);
        assertThat(t.log).containsExactly("2:e");
    }

    @Test
    void takingWithNothingVisibleFailsLoudly() {
        Simulator sim = new Simulator();
        Top top = new Top(sim);
        ClockDomain clk = ClockDomain.ofPeriod(sim, "clk", 1_000);
        List<Throwable> errors = new ArrayList<>();
        ClockedModule m = new ClockedModule(top, "m", clk) {
            final Inbox<String> in = new Inbox<>(this, "in", 1);

            @Override
            protected void evaluate() {
                try {
                    in.take();
                } catch (IllegalStateException e) {
                    errors.add(e);
                }
            }
        };
        sim.event("w", m::wake).schedule(0);
        sim.run();
        assertThat(errors).singleElement().extracting(Throwable::getMessage).asString()
                .contains("inbox 'in' of 'top.m' has no visible item to take");
        assertThatThrownBy(() -> new Inbox<String>(m, "zero", 0))
                .hasMessageContaining("capacity must be at least 1");
    }
}
