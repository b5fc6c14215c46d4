package dev.rdmasim.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** The d-ary heap's limits, its refusals, and removals from inside the heap among equal times. */
class DaryHeapEventQueueTest {

    private final Simulator owner = new Simulator();
    private long order;

    private Event add(EventQueue q, long time) {
        Event e = new Event(owner, "e" + order, Event.DEFAULT_PRIORITY, () -> { });
        e.time = time;
        e.order = order++;
        q.add(e);
        return e;
    }

    @Test
    void arityRangesFromTwoToSixteenAndCapacityFromOne() {
        assertThat(new DaryHeapEventQueue(2, 1).isEmpty()).isTrue();
        assertThat(new DaryHeapEventQueue(16, 1).isEmpty()).isTrue();
        assertThatThrownBy(() -> new DaryHeapEventQueue(1, 4)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("heap arity must be in [2, 16], got 1");
        assertThatThrownBy(() -> new DaryHeapEventQueue(17, 4)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("heap arity must be in [2, 16], got 17");
        assertThatThrownBy(() -> new DaryHeapEventQueue(4, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("initial capacity must be positive, got 0");
    }

    /** Arity 16 orders as the others do, with enough events for three levels and growth from one slot. */
    @Test
    void aSixteenWayHeapGrowsAndKeepsOrder() {
        DaryHeapEventQueue q = new DaryHeapEventQueue(16, 1);
        SplittableRandom rnd = new SplittableRandom(16);
        for (int i = 0; i < 600; i++) {
            add(q, rnd.nextInt(200));
        }
        assertThat(q.size()).isEqualTo(600);
        assertThat(drain(q)).hasSize(600).isSortedAccordingTo(DaryHeapEventQueueTest::compare);
    }

    private static int compare(Event a, Event b) {
        return a.time != b.time ? Long.compare(a.time, b.time) : Long.compare(a.order, b.order);
    }

    private static List<Event> drain(EventQueue q) {
        List<Event> out = new ArrayList<>();
        for (Event e = q.poll(); e != null; e = q.poll()) {
            assertThat(e.scheduled()).isFalse();
            out.add(e);
        }
        assertThat(q.peek()).isNull();
        return out;
    }

    /**
     * All at one instant, so only the sequence orders them: removing entries from inside the heap moves its
     * last entry into the hole, and that entry must go up or down by sequence alone.
     */
    @ParameterizedTest(name = "arity {0}")
    @ValueSource(ints = {2, 3, 4, 8})
    void removalsAmongEqualTimesKeepTheSequenceOrder(int arity) {
        for (long seed = 1; seed <= 10; seed++) {
            DaryHeapEventQueue q = new DaryHeapEventQueue(arity, 1);
            SplittableRandom rnd = new SplittableRandom(seed);
            List<Event> live = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                live.add(add(q, rnd.nextInt(3)));
            }
            // Remove a third, from anywhere; then add more, some before all that is left.
            for (int i = 0; i < 100; i++) {
                Event e = live.remove(rnd.nextInt(live.size()));
                q.remove(e);
                assertThat(e.scheduled()).isFalse();
            }
            for (int i = 0; i < 50; i++) {
                live.add(add(q, rnd.nextInt(3)));
            }
            for (int i = 0; i < 60; i++) {
                Event e = live.remove(rnd.nextInt(live.size()));
                q.remove(e);
            }
            live.sort(DaryHeapEventQueueTest::compare);
            assertThat(q.size()).isEqualTo(live.size());
            assertThat(q.peek()).isSameAs(live.get(0));
            assertThat(drain(q)).as("seed %d", seed).containsExactlyElementsOf(live);
        }
    }

    /**
     * An entry moved into a hole can belong above it: removing a deep entry whose subtree holds later times
     * than the heap's last entry sends that entry up past its new parent.
     */
    @Test
    void anEntryMovedIntoAHoleCanRiseAboveIt() {
        DaryHeapEventQueue q = new DaryHeapEventQueue(2, 8);
        // Heap by hand (binary): slot 0: 0; 1: 10; 2: 1; 3: 11; 4: 12; 5: 2; 6: 3, added in this order.
        Event[] e = new Event[7];
        long[] times = {0, 10, 1, 11, 12, 2, 3};
        for (int i = 0; i < times.length; i++) {
            e[i] = add(q, times[i]);
        }
        // Removing slot 3 (time 11) moves the last entry (time 3) into slot 3, below slot 1 (time 10): it rises.
        q.remove(e[3]);
        assertThat(q.size()).isEqualTo(6);
        List<Long> out = new ArrayList<>();
        for (Event x : drain(q)) {
            out.add(x.time);
        }
        assertThat(out).containsExactly(0L, 1L, 2L, 3L, 10L, 12L);
    }

    @Test
    void removingWhatIsNotQueuedHereIsRefused() {
        DaryHeapEventQueue q = new DaryHeapEventQueue(2, 1);
        Event idle = new Event(owner, "idle", 0, () -> { });
        assertThatThrownBy(() -> q.remove(idle)).isInstanceOf(IllegalStateException.class)
                .hasMessage("event 'idle' is not in this queue");
        add(q, 5);
        // Queued elsewhere, at a slot this full heap has not got.
        DaryHeapEventQueue other = new DaryHeapEventQueue(2, 4);
        add(other, 1);
        Event second = add(other, 2);
        assertThat(second.slot).isEqualTo(1);
        assertThatThrownBy(() -> q.remove(second)).isInstanceOf(IllegalStateException.class)
                .hasMessage("event 'e2' is not in this queue");
        // Queued elsewhere at a slot this heap uses for another event.
        Event first = other.peek();
        assertThat(first.slot).isZero();
        assertThatThrownBy(() -> q.remove(first)).isInstanceOf(IllegalStateException.class);
        assertThat(q.size()).isEqualTo(1);
        assertThat(other.size()).isEqualTo(2);
    }

    @Test
    void clearUnschedulesEveryEventAndTheHeapIsReusable() {
        DaryHeapEventQueue q = new DaryHeapEventQueue(4, 2);
        List<Event> all = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            all.add(add(q, 100 - i));
        }
        q.clear();
        assertThat(q.size()).isZero();
        assertThat(q.peek()).isNull();
        assertThat(q.poll()).isNull();
        for (Event e : all) {
            assertThat(e.scheduled()).isFalse();
        }
        Event again = add(q, 7);
        assertThat(q.peek()).isSameAs(again);
        assertThat(drain(q)).containsExactly(again);
    }
}
