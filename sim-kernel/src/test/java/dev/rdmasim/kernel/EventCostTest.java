package dev.rdmasim.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Timing events counts each run by name and changes nothing the simulation does. */
class EventCostTest {

    @Test
    void countsAndTimesEachNameAndResets() {
        Simulator sim = new Simulator();
        sim.timeEvents(true);
        int[] left = {3};
        Event[] tick = new Event[1];
        tick[0] = sim.event("tick", () -> {
            if (--left[0] > 0) {
                tick[0].scheduleIn(10);
            }
        });
        Event b1 = sim.event("shared", () -> { });
        Event b2 = sim.event("shared", () -> { });
        Event slow = sim.event("slow", () -> {
            long until = System.nanoTime() + 2_000_000;
            while (System.nanoTime() < until) {
                Thread.onSpinWait();
            }
        });
        sim.event("never", () -> { });
        tick[0].schedule(0);
        b1.schedule(5);
        b2.schedule(7);
        slow.schedule(1);
        sim.run();
        List<EventCost> costs = sim.eventCosts();
        // Most host time first: the 2 ms action; the other two cost about the same, so either may come next.
        assertThat(costs).extracting(EventCost::name).containsExactlyInAnyOrder("slow", "shared", "tick");
        assertThat(costs.get(0).name()).isEqualTo("slow");
        assertThat(costs.get(0).hostNs()).isGreaterThanOrEqualTo(2_000_000);
        assertThat(costs.get(0).nsEach()).isEqualTo((double) costs.get(0).hostNs());
        assertThat(costs).filteredOn(c -> c.name().equals("shared")).singleElement()
                .extracting(EventCost::count).isEqualTo(2L);
        assertThat(costs).filteredOn(c -> c.name().equals("tick")).singleElement()
                .extracting(EventCost::count).isEqualTo(3L);
        assertThat(costs.stream().mapToLong(EventCost::count).sum()).isEqualTo(sim.eventsExecuted());

        sim.resetEventCosts();
        assertThat(sim.eventCosts()).isEmpty();
        sim.timeEvents(false);
        b1.scheduleIn(1);
        sim.run();
        assertThat(sim.eventCosts()).as("not timed while off").isEmpty();
        sim.timeEvents(true);
        b1.scheduleIn(1);
        assertThat(sim.runUntil(sim.now() + 1)).isTrue();
        assertThat(sim.eventCosts()).singleElement().extracting(EventCost::count).isEqualTo(1L);
    }

    @Test
    void anActionThatThrowsIsStillCounted() {
        Simulator sim = new Simulator();
        sim.timeEvents(true);
        sim.event("boom", () -> {
            throw new IllegalStateException("boom");
        }).schedule(0);
        try {
            sim.run();
        } catch (IllegalStateException expected) {
            // the run stops; the event ran once
        }
        assertThat(sim.eventCosts()).singleElement().extracting(EventCost::count).isEqualTo(1L);
    }

    @Test
    void timedRunsStopAfterMaxEventsAndSettleDeferredWork() {
        Simulator sim = new Simulator();
        sim.timeEvents(true);
        Event[] e = new Event[3];
        for (int i = 0; i < e.length; i++) {
            e[i] = sim.event("e", () -> { });
            e[i].schedule(10 * (i + 1));
        }
        long[] settledAt = {-1};
        sim.addDeferredWork(new DeferredWork() {
            @Override
            public long deferredUntilPs() {
                return settledAt[0] < 0 ? 500 : NONE;
            }

            @Override
            public void settle() {
                settledAt[0] = sim.now();
                e[0].schedule(sim.now()); // work the settling makes: the run goes on to it
            }
        });
        assertThat(sim.run(2)).isEqualTo(2);
        assertThat(sim.now()).isEqualTo(20);
        assertThat(e[2].scheduled()).isTrue();
        assertThat(sim.run(10)).as("the last event, then the one the settling scheduled").isEqualTo(2);
        assertThat(settledAt[0]).as("settled where it was due, as an untimed run does").isEqualTo(500);
        assertThat(sim.eventCosts()).singleElement().extracting(EventCost::count).isEqualTo(4L);
    }

    @Test
    void nsEachIsTheAverage() {
        assertThat(new EventCost("x", 4, 10).nsEach()).isEqualTo(2.5);
        assertThat(new EventCost("x", 0, 0).nsEach()).isZero();
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6})
    void timedRunsFireTheSameEventsInTheSameOrder(long seed) {
        assertThat(trajectory(seed, true)).isEqualTo(trajectory(seed, false));
    }

    /** A seeded web of events rescheduling each other; the order they fire in and at what times. */
    private static List<String> trajectory(long seed, boolean timed) {
        Simulator sim = new Simulator(seed);
        sim.timeEvents(timed);
        SplittableRandom rnd = new SplittableRandom(seed);
        List<String> fired = new ArrayList<>();
        Event[] events = new Event[12];
        int[] budget = {3_000};
        for (int i = 0; i < events.length; i++) {
            int id = i;
            events[i] = sim.event("e" + (i % 5), i % 3 - 1, () -> {
                fired.add(id + "@" + sim.now());
                if (budget[0]-- > 0) {
                    Event next = events[rnd.nextInt(events.length)];
                    if (!next.scheduled()) {
                        next.scheduleIn(rnd.nextInt(4) * 100L);
                    }
                }
            });
        }
        for (Event e : events) {
            e.schedule(rnd.nextInt(50));
        }
        // Both loops: run in stretches, then to a time.
        sim.run(500);
        sim.runUntil(sim.now() + 10_000);
        sim.run();
        return fired;
    }
}
