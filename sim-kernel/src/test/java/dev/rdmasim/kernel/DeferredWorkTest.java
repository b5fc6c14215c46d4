package dev.rdmasim.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Work done without events is settled when the queue runs dry, at its last instant, before the run ends. */
class DeferredWorkTest {
    /** Items due at given instants; settling does those due by now, and may make a further one known. */
    private static final class Items implements DeferredWork {
        final Simulator sim;
        final List<Long> due = new ArrayList<>();
        final List<String> done = new ArrayList<>();
        final String name;
        /** Settling the item at this instant reveals one at the second value (like a TLP that waited to start). */
        long revealAt = -1;
        long revealed = -1;

        Items(Simulator sim, String name) {
            this.sim = sim;
            this.name = name;
        }

        @Override
        public long deferredUntilPs() {
            return due.isEmpty() ? NONE : due.get(due.size() - 1);
        }

        @Override
        public void settle() {
            while (!due.isEmpty() && due.get(0) <= sim.now()) {
                long t = due.remove(0);
                done.add(name + " " + t + " at " + sim.now());
                if (t == revealAt) {
                    due.add(revealed);
                }
            }
        }
    }

    @Test
    void aRunEndsAtTheLastDeferredInstantWithEverythingSettledThere() {
        Simulator sim = new Simulator(1);
        Items a = new Items(sim, "a");
        Items b = new Items(sim, "b");
        sim.addDeferredWork(a);
        sim.addDeferredWork(b);
        List<Long> fired = new ArrayList<>();
        sim.event("e", () -> fired.add(sim.now())).schedule(1_000);
        a.due.add(500L);
        a.due.add(2_000L);
        b.due.add(3_000L);

        sim.run();

        assertThat(fired).containsExactly(1_000L);
        assertThat(sim.now()).as("the last deferred instant").isEqualTo(3_000);
        assertThat(a.done).containsExactly("a 500 at 3000", "a 2000 at 3000");
        assertThat(b.done).containsExactly("b 3000 at 3000");
        assertThat(sim.eventsExecuted()).as("settling is not an event").isEqualTo(1);
    }

    @Test
    void workThatSettlingRevealsIsSettledInTurn() {
        Simulator sim = new Simulator(1);
        Items a = new Items(sim, "a");
        sim.addDeferredWork(a);
        a.due.add(100L);
        a.revealAt = 100;
        a.revealed = 700;

        assertThat(sim.step()).as("no event ran").isFalse();

        assertThat(sim.now()).isEqualTo(700);
        assertThat(a.done).containsExactly("a 100 at 100", "a 700 at 700");
    }

    @Test
    void deferredWorkInThePastIsSettledWithoutMovingTheClockBack() {
        Simulator sim = new Simulator(1);
        Items a = new Items(sim, "a");
        sim.addDeferredWork(a);
        sim.event("e", () -> a.due.add(10L)).schedule(50);

        sim.run();

        assertThat(sim.now()).isEqualTo(50);
        assertThat(a.done).containsExactly("a 10 at 50");
    }

    @Test
    void nothingDeferredLeavesTheClockAtTheLastEvent() {
        Simulator sim = new Simulator(1);
        sim.addDeferredWork(new Items(sim, "a"));
        sim.event("e", () -> { }).schedule(42);
        sim.run();
        assertThat(sim.now()).isEqualTo(42);
    }

    @Test
    void aLimitedRunOrAStopLeavesDeferredWorkAlone() {
        Simulator sim = new Simulator(1);
        Items a = new Items(sim, "a");
        sim.addDeferredWork(a);
        a.due.add(5_000L);
        Event first = sim.event("first", sim::stop);
        first.schedule(10);
        sim.event("second", () -> { }).schedule(20);

        sim.run();
        assertThat(sim.now()).as("stopped after the first event").isEqualTo(10);
        assertThat(a.done).isEmpty();
        assertThat(sim.run(1)).isEqualTo(1);
        assertThat(a.done).as("the limit was reached before the queue ran dry").isEmpty();
        assertThat(sim.runUntil(100)).isTrue();
        assertThat(a.done).as("runUntil does not settle").isEmpty();
        sim.run();
        assertThat(a.done).containsExactly("a 5000 at 5000");
    }

    @Test
    void workLeftDueAfterSettlingIsAnInvariantViolation() {
        Simulator sim = new Simulator(1);
        sim.addDeferredWork(new DeferredWork() {
            @Override
            public long deferredUntilPs() {
                return 7;
            }

            @Override
            public void settle() {
            }

            @Override
            public String toString() {
                return "stuck";
            }
        });
        assertThatThrownBy(sim::run).isInstanceOf(InvariantViolation.class)
                .hasMessageContaining("stuck").hasMessageContaining("7 ps");
    }
}
