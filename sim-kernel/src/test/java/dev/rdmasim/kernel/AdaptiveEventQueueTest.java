package dev.rdmasim.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The adaptive queue around its two limits: the ring fills to {@link AdaptiveEventQueue#SMALL_MAX} and moves to the
 * calendar with one more event, the calendar moves back below {@link AdaptiveEventQueue#SMALL_MIN}, and a pending set
 * that wanders between them moves nothing; every run is checked against the reference queue.
 */
class AdaptiveEventQueueTest {

    private static Event at(Simulator sim, List<String> log, String name, long t) {
        Event e = sim.event(name, () -> log.add(sim.now() + ":" + name));
        e.schedule(t);
        return e;
    }

    private static List<Long> times(List<String> log) {
        return log.stream().map(x -> Long.parseLong(x.substring(0, x.indexOf(':')))).toList();
    }

    @Test
    void movesToTheCalendarWithOneEventMoreThanTheRingHoldsAndBackBelowTheLowLimit() {
        AdaptiveEventQueue q = new AdaptiveEventQueue();
        Simulator sim = new Simulator(1, q);
        List<String> log = new ArrayList<>();
        // Scheduled in reverse time order: every insertion walks the whole ring.
        for (int i = AdaptiveEventQueue.SMALL_MAX; i > 0; i--) {
            at(sim, log, "e" + i, 100L * i);
        }
        assertThat(q.inRing()).isTrue();
        assertThat(q.size()).isEqualTo(AdaptiveEventQueue.SMALL_MAX);
        at(sim, log, "extra", 50);
        assertThat(q.inRing()).isFalse();
        assertThat(q.moves()).isEqualTo(1);
        assertThat(q.size()).isEqualTo(AdaptiveEventQueue.SMALL_MAX + 1);
        assertThat(q.peek().name()).isEqualTo("extra");
        // Down to SMALL_MIN events the calendar keeps them; one fewer and they are back in the ring.
        int toRun = AdaptiveEventQueue.SMALL_MAX + 1 - AdaptiveEventQueue.SMALL_MIN;
        sim.run(toRun);
        assertThat(q.inRing()).isFalse();
        assertThat(q.size()).isEqualTo(AdaptiveEventQueue.SMALL_MIN);
        sim.run(1);
        assertThat(q.inRing()).isTrue();
        assertThat(q.moves()).isEqualTo(2);
        sim.run();
        List<String> expected = new ArrayList<>();
        expected.add("50:extra");
        for (int i = 1; i <= AdaptiveEventQueue.SMALL_MAX; i++) {
            expected.add(100L * i + ":e" + i);
        }
        assertThat(log).isEqualTo(expected);
    }

    @Test
    void aRemovalInTheCalendarCanMoveTheRestBack() {
        AdaptiveEventQueue q = new AdaptiveEventQueue();
        Simulator sim = new Simulator(1, q);
        List<String> log = new ArrayList<>();
        List<Event> events = new ArrayList<>();
        for (int i = 0; i <= AdaptiveEventQueue.SMALL_MAX; i++) {
            events.add(at(sim, log, "e" + i, 7L * i));
        }
        assertThat(q.inRing()).isFalse();
        for (int i = 0; q.size() >= AdaptiveEventQueue.SMALL_MIN; i++) {
            assertThat(q.inRing()).isFalse();
            assertThat(events.get(2 * i % events.size()).cancel()).isTrue();
        }
        assertThat(q.size()).isLessThan(AdaptiveEventQueue.SMALL_MIN);
        assertThat(q.inRing()).isTrue();
        sim.run();
        assertThat(times(log)).isSorted().hasSize(AdaptiveEventQueue.SMALL_MIN - 1);
    }

    @Test
    void removalsFromEitherHalfOfTheRingKeepOrder() {
        AdaptiveEventQueue q = new AdaptiveEventQueue();
        Simulator sim = new Simulator(1, q);
        List<String> log = new ArrayList<>();
        List<Event> events = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            events.add(at(sim, log, "e" + i, 10L * i));
        }
        sim.run(3); // the ring's head is no longer at index 0
        for (int i : new int[] {4, 18, 3, 19, 10}) {
            assertThat(events.get(i).cancel()).isTrue();
        }
        at(sim, log, "late", 1_000);
        at(sim, log, "mid", 95);
        sim.run();
        assertThat(log).containsExactly("0:e0", "10:e1", "20:e2", "50:e5", "60:e6", "70:e7", "80:e8", "90:e9",
                "95:mid", "110:e11", "120:e12", "130:e13", "140:e14", "150:e15", "160:e16", "170:e17", "1000:late");
        assertThat(q.inRing()).isTrue();
    }

    @Test
    void aRingEmptiedByPollsPeeksAndPollsNothing() {
        AdaptiveEventQueue q = new AdaptiveEventQueue();
        Simulator sim = new Simulator(1, q);
        List<String> log = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            at(sim, log, "e" + i, 5L * i);
        }
        sim.run();
        assertThat(log).hasSize(3);
        // The ring still holds references to the events it gave out; none may come back.
        assertThat(q.size()).isZero();
        assertThat(q.peek()).isNull();
        assertThat(q.poll()).isNull();
    }

    @Test
    void clearingTheCalendarUnschedulesEverythingAndTheRingTakesOver() {
        AdaptiveEventQueue q = new AdaptiveEventQueue();
        Simulator sim = new Simulator(1, q);
        List<String> log = new ArrayList<>();
        List<Event> events = new ArrayList<>();
        for (int i = 0; i <= AdaptiveEventQueue.SMALL_MAX; i++) {
            events.add(at(sim, log, "e" + i, 3L * i));
        }
        assertThat(q.inRing()).isFalse();
        q.clear();
        assertThat(q.size()).isZero();
        assertThat(q.peek()).isNull();
        assertThat(q.inRing()).isTrue();
        assertThat(events).noneMatch(Event::scheduled);
        at(sim, log, "after", 1_000);
        sim.run();
        assertThat(log).containsExactly("1000:after");
    }

    static Stream<Long> seeds() {
        return LongStream.rangeClosed(1, 16).boxed();
    }

    /**
     * A pending set that wanders between the two limits and across them, with cancels, reschedules and events at one
     * instant, runs exactly as on the reference queue; while it stays between the limits nothing moves.
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void wanderingPendingSetMatchesTheReference(long seed) {
        AdaptiveEventQueue q = new AdaptiveEventQueue();
        List<String> adaptive = wander(q, seed);
        assertThat(adaptive).isEqualTo(wander(new SortedSetEventQueue(), seed));
        assertThat(q.moves()).as("moves").isGreaterThanOrEqualTo(4);
    }

    private static List<String> wander(EventQueue q, long seed) {
        Simulator sim = new Simulator(seed, q);
        SplittableRandom rnd = new SplittableRandom(seed);
        List<String> log = new ArrayList<>();
        Event[] events = new Event[48];
        for (int i = 0; i < events.length; i++) {
            int id = i;
            events[i] = sim.event("w" + i, rnd.nextInt(3) - 1, () -> {
                log.add(sim.now() + ":" + id);
                int r = (int) ((sim.now() * 31 + id) % 10);
                if (r < 6) {
                    events[id].scheduleIn((sim.now() + id) % 3 == 0 ? 0 : 1 + (sim.now() * 7 + id) % 90);
                }
                Event other = events[(int) ((id * 13 + sim.now()) % events.length)];
                if (r == 7 && other.scheduled()) {
                    other.cancel();
                } else if (r == 8) {
                    other.reschedule(sim.now() + (sim.now() + id) % 50);
                }
            });
        }
        for (int phase = 0; phase < 6; phase++) {
            // Phases alternate between filling towards every event pending and draining towards none.
            int target = phase % 2 == 0 ? 40 + rnd.nextInt(9) : 2 + rnd.nextInt(5);
            for (Event e : events) {
                if (q.size() >= target) {
                    break;
                }
                if (!e.scheduled()) {
                    e.schedule(sim.now() + rnd.nextInt(120));
                }
            }
            sim.run(2_000);
            while (q.size() > target) {
                Event e = events[rnd.nextInt(events.length)];
                if (e.scheduled()) {
                    e.cancel();
                }
            }
            log.add("pending " + q.size());
        }
        sim.run(10_000);
        return log;
    }

    @Test
    void aPendingSetBetweenTheLimitsMovesNothing() {
        AdaptiveEventQueue q = new AdaptiveEventQueue();
        Simulator sim = new Simulator(1, q);
        List<String> log = new ArrayList<>();
        List<Event> events = new ArrayList<>();
        for (int i = 0; i < AdaptiveEventQueue.SMALL_MAX + 1; i++) {
            events.add(at(sim, log, "e" + i, 1 + i));
        }
        assertThat(q.moves()).isEqualTo(1);
        // Down to SMALL_MIN and up to SMALL_MAX + 1, back and forth: the events stay in the calendar.
        for (int round = 0; round < 10; round++) {
            for (int i = 0; q.size() > AdaptiveEventQueue.SMALL_MIN; i++) {
                events.get(i).cancel();
            }
            for (int i = 0; q.size() <= AdaptiveEventQueue.SMALL_MAX; i++) {
                if (!events.get(i).scheduled()) {
                    events.get(i).schedule(1 + i);
                }
            }
        }
        assertThat(q.moves()).isEqualTo(1);
        assertThat(q.inRing()).isFalse();
        sim.run();
        assertThat(times(log)).isSorted().hasSize(AdaptiveEventQueue.SMALL_MAX + 1);
    }
}
