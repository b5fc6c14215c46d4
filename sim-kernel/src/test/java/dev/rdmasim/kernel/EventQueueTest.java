package dev.rdmasim.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every queue implementation runs events in exactly (time, priority, sequence) order. */
class EventQueueTest {

    static Stream<Arguments> queues() {
        return Stream.of(
                Arguments.of("binary heap", (Supplier<EventQueue>) () -> new DaryHeapEventQueue(2, 1)),
                Arguments.of("4-ary heap", (Supplier<EventQueue>) DaryHeapEventQueue::new),
                Arguments.of("8-ary heap", (Supplier<EventQueue>) () -> new DaryHeapEventQueue(8, 4)),
                Arguments.of("calendar", (Supplier<EventQueue>) CalendarEventQueue::new),
                Arguments.of("adaptive", (Supplier<EventQueue>) AdaptiveEventQueue::new),
                Arguments.of("sorted set", (Supplier<EventQueue>) SortedSetEventQueue::new));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("queues")
    void fifoAmongEqualTimeAndPriority(String name, Supplier<EventQueue> queue) {
        Simulator sim = new Simulator(1, queue.get());
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            int id = i;
            sim.event("e" + i, () -> order.add(id)).schedule(50);
        }
        sim.run();
        assertThat(order).hasSize(100).isSorted();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("queues")
    void manyEventsAtOneTimeAndThenMore(String name, Supplier<EventQueue> queue) {
        Simulator sim = new Simulator(1, queue.get());
        List<Integer> order = new ArrayList<>();
        boolean[] again = new boolean[5_000];
        for (int i = 0; i < 5_000; i++) {
            int id = i;
            Event[] self = new Event[1];
            self[0] = sim.event("e" + i, () -> {
                order.add(id);
                if (id % 2 == 0 && !again[id]) {
                    again[id] = true;
                    self[0].schedule(1_000 + id % 3); // back into the same or the next instants
                }
            });
            self[0].schedule(1_000);
        }
        sim.run();
        assertThat(order).hasSize(7_500);
        assertThat(order.subList(0, 5_000)).isSorted();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("queues")
    void lowerPriorityValueRunsFirstAtTheSameTime(String name, Supplier<EventQueue> queue) {
        Simulator sim = new Simulator(1, queue.get());
        List<String> order = new ArrayList<>();
        sim.event("late", 10, () -> order.add("late")).schedule(5);
        sim.event("normal", () -> order.add("normal")).schedule(5);
        sim.event("early", -10, () -> order.add("early")).schedule(5);
        sim.event("before", 100, () -> order.add("before")).schedule(4);
        sim.run();
        assertThat(order).containsExactly("before", "early", "normal", "late");
    }

    /** A random program of schedule / cancel / reschedule run on each queue and on the reference. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("queues")
    void matchesReferenceUnderRandomOperations(String name, Supplier<EventQueue> queue) {
        for (long seed = 1; seed <= 20; seed++) {
            assertThat(trace(queue.get(), seed)).as("seed %d", seed).isEqualTo(trace(new SortedSetEventQueue(), seed));
        }
    }

    private static List<String> trace(EventQueue q, long seed) {
        Simulator sim = new Simulator(seed, q);
        SplittableRandom rnd = new SplittableRandom(seed);
        List<String> log = new ArrayList<>();
        Event[] events = new Event[200];
        for (int i = 0; i < events.length; i++) {
            int id = i;
            events[i] = sim.event("e" + i, rnd.nextInt(3) - 1, () -> {
                log.add(sim.now() + ":" + id);
                if (log.size() >= 5_000) {
                    return;
                }
                // Each firing perturbs the queue the same way on every implementation.
                Event other = events[(id * 7 + (int) (sim.now() % 13)) % events.length];
                switch ((int) (sim.now() % 4)) {
                    case 0 -> other.cancel();
                    case 1 -> other.reschedule(sim.now() + (sim.now() % 17));
                    default -> {
                        if (!other.scheduled()) {
                            other.scheduleIn(sim.now() % 5);
                        }
                    }
                }
                if (!events[id].scheduled()) {
                    events[id].scheduleIn(1 + (sim.now() * 31 + id) % 40);
                }
            });
            events[i].schedule(rnd.nextInt(30));
        }
        sim.run();
        return log;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("queues")
    void eventAddedAfterPeekingALaterOneStillRunsFirst(String name, Supplier<EventQueue> queue) {
        Simulator sim = new Simulator(1, queue.get());
        List<Long> fired = new ArrayList<>();
        sim.event("far", () -> fired.add(sim.now())).schedule(50_000_000);
        sim.runUntil(1_000);
        assertThat(sim.nextEventTime()).isEqualTo(50_000_000);
        sim.event("near", () -> fired.add(sim.now())).schedule(2_000);
        sim.event("nearer", () -> fired.add(sim.now())).schedule(1_500);
        sim.run();
        assertThat(fired).containsExactly(1_500L, 2_000L, 50_000_000L);
    }

    /** Bursts, long gaps and growth and shrinkage of the pending set, checked against the reference. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("queues")
    void matchesReferenceAcrossChangingDistributions(String name, Supplier<EventQueue> queue) {
        for (long seed = 1; seed <= 5; seed++) {
            assertThat(phases(queue.get(), seed)).as("seed %d", seed).isEqualTo(phases(new SortedSetEventQueue(), seed));
        }
    }

    private static List<String> phases(EventQueue q, long seed) {
        Simulator sim = new Simulator(seed, q);
        SplittableRandom rnd = new SplittableRandom(seed);
        List<String> log = new ArrayList<>();
        List<Event> pool = new ArrayList<>();
        long[] scales = {1, 1_000, 1, 1_000_000_000L, 10, 0};
        for (long scale : scales) {
            int n = 1 + rnd.nextInt(3_000);
            for (int i = 0; i < n; i++) {
                int id = pool.size();
                Event e = sim.event("p" + id, rnd.nextInt(2), () -> log.add(sim.now() + ":" + id));
                pool.add(e);
                e.schedule(sim.now() + (scale == 0 ? 0 : (long) (rnd.nextDouble() * scale * 100)));
            }
            sim.runUntil(sim.now() + scale * 50);
            for (int i = 0; i < pool.size(); i += 7) {
                pool.get(i).cancel();
            }
        }
        sim.run();
        return log;
    }

    @Test
    void removingFromTheMiddleKeepsOrder() {
        DaryHeapEventQueue q = new DaryHeapEventQueue(4, 2);
        Simulator sim = new Simulator(1, q);
        List<Long> fired = new ArrayList<>();
        Event[] ev = new Event[64];
        SplittableRandom rnd = new SplittableRandom(3);
        for (int i = 0; i < ev.length; i++) {
            ev[i] = sim.event("e" + i, () -> fired.add(sim.now()));
            ev[i].schedule(rnd.nextInt(1000));
        }
        for (int i = 0; i < ev.length; i += 3) {
            assertThat(ev[i].cancel()).isTrue();
            assertThat(ev[i].scheduled()).isFalse();
        }
        sim.run();
        assertThat(fired).hasSize(64 - 22).isSorted();
    }

    @Test
    void clearUnschedulesEverything() {
        DaryHeapEventQueue q = new DaryHeapEventQueue();
        Simulator sim = new Simulator(1, q);
        Event e = sim.event("e", () -> { });
        e.schedule(3);
        q.clear();
        assertThat(e.scheduled()).isFalse();
        assertThat(q.isEmpty()).isTrue();
    }

    /**
     * Near and far events mixed (most a few ns ahead, some a million times further, a few 2^40 ps away, so the
     * calendar's years wrap and its far events wait for their year), with cancels and reschedules and a pending set
     * that grows, shrinks and grows again; then the queue is cleared and used again. Checked against the reference.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("queues")
    void matchesReferenceWithNearAndFarEventsAndAClear(String name, Supplier<EventQueue> queue) {
        for (long seed = 1; seed <= 8; seed++) {
            assertThat(mixed(queue.get(), seed)).as("seed %d", seed).isEqualTo(mixed(new SortedSetEventQueue(), seed));
        }
    }

    private static List<String> mixed(EventQueue q, long seed) {
        Simulator sim = new Simulator(seed, q);
        SplittableRandom rnd = new SplittableRandom(seed);
        List<String> log = new ArrayList<>();
        List<Event> pool = new ArrayList<>();
        int[] sizes = {4_000, 12, 2_500, 1};
        for (int round = 0; round < 2; round++) {
            for (int size : sizes) {
                while (pool.size() < size) {
                    int id = pool.size();
                    Event[] self = new Event[1];
                    self[0] = sim.event("m" + id, rnd.nextInt(3) - 1, () -> {
                        log.add(sim.now() + ":" + id);
                        if (log.size() % 3 != 0) {
                            self[0].scheduleIn(gap(rnd));
                        }
                        Event other = pool.get((int) ((sim.now() ^ id) % pool.size()));
                        if (other != self[0] && log.size() % 5 == 0) {
                            if (other.scheduled()) {
                                other.cancel();
                            } else {
                                other.schedule(sim.now() + gap(rnd));
                            }
                        }
                    });
                    pool.add(self[0]);
                    self[0].schedule(sim.now() + gap(rnd));
                }
                sim.run(size * 6L);
                while (pool.size() > size) {
                    pool.remove(pool.size() - 1).cancel();
                }
            }
            log.add("pending " + q.size());
            q.clear();
            for (Event e : pool) {
                assertThat(e.scheduled()).isFalse();
            }
            pool.clear();
        }
        sim.run();
        return log;
    }

    private static long gap(SplittableRandom rnd) {
        int kind = rnd.nextInt(100);
        if (kind < 2) {
            return rnd.nextLong(1L << 40);
        }
        if (kind < 12) {
            return rnd.nextLong(1_000_000_000L);
        }
        return kind < 20 ? 0 : rnd.nextLong(1_000);
    }

    @Test
    void rejectsBadArity() {
        assertThatThrownBy(() -> new DaryHeapEventQueue(1, 4)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("arity");
    }

    /** The contract's small cases: an empty queue, a refused removal, the count, and a clear. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("queues")
    void emptyRefusedCountedAndCleared(String name, Supplier<EventQueue> queue) {
        EventQueue q = queue.get();
        Simulator sim = new Simulator(1, q);
        assertThat(q.peek()).isNull();
        assertThat(q.poll()).isNull();
        assertThat(q.size()).isZero();
        assertThat(q.isEmpty()).isTrue();
        Event idle = sim.event("idle", () -> { });
        assertThatThrownBy(() -> q.remove(idle)).isInstanceOf(IllegalStateException.class)
                .hasMessage("event 'idle' is not in this queue");
        List<Event> queued = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Event e = sim.event("q" + i, () -> { });
            e.schedule(10 * i);
            queued.add(e);
        }
        assertThat(q.size()).isEqualTo(5);
        assertThat(q.isEmpty()).isFalse();
        assertThat(q.peek()).isSameAs(queued.get(0));
        q.remove(queued.get(2));
        assertThat(queued.get(2).scheduled()).isFalse();
        assertThat(q.size()).isEqualTo(4);
        assertThatThrownBy(() -> q.remove(queued.get(2))).isInstanceOf(IllegalStateException.class);
        q.clear();
        assertThat(q.size()).isZero();
        assertThat(q.peek()).isNull();
        assertThat(q.poll()).isNull();
        for (Event e : queued) {
            assertThat(e.scheduled()).isFalse();
        }
        queued.get(4).schedule(7);
        assertThat(q.size()).isEqualTo(1);
        assertThat(q.poll()).isSameAs(queued.get(4));
    }
}
