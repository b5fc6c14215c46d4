package dev.rdmasim.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The calendar queue's work rather than its order: the day width it picks for a known spacing, the ring
 * size as the pending set grows and shrinks, when it rebuilds, and how many steps its searches take. A
 * wrong width or a missed rebuild still runs every event in order, so {@link EventQueueTest} cannot see
 * it; these figures are worked out by hand from the queue's rules (32 to 128 buckets per pending event,
 * days of an eighth of the earliest events' mean gap to the nearest power of two, a re-estimate when a
 * window of 4096 polls averages more than 4 steps).
 */
class CalendarWorkTest {

    private final Simulator owner = new Simulator();
    private long order;

    /** Queues an event at {@code time} directly, in the order of the calls (all of one priority). */
    private Event add(CalendarEventQueue q, long time) {
        Event e = new Event(owner, "e" + order, Event.DEFAULT_PRIORITY, () -> { });
        e.time = time;
        e.order = order++;
        q.add(e);
        return e;
    }

    private CalendarEventQueue queueOf(long... times) {
        CalendarEventQueue q = new CalendarEventQueue();
        for (long t : times) {
            add(q, t);
        }
        return q;
    }

    @Test
    void aNewQueueHasTheSmallestRingAndAKilobyteDay() {
        CalendarEventQueue q = new CalendarEventQueue();
        assertThat(q.buckets()).isEqualTo(64);
        assertThat(q.dayShift()).isEqualTo(10);
        assertThat(q.rebuilds()).isZero();
    }

    /** Buckets for {@code n} pending events after growth: 32 per event or more, a power of two, 64 to 2^22. */
    private static int grownRing(int n) {
        int b = 64;
        while (b < 32L * n && b < 1 << 22) {
            b *= 2;
        }
        return b;
    }

    @Test
    void theRingDoublesWhenThePendingCountPassesA32ndOfItUpToItsCap() {
        CalendarEventQueue q = new CalendarEventQueue();
        int last = q.buckets();
        int doublings = 0;
        for (int n = 1; n <= 140_000; n++) {
            add(q, n * 7L);
            if (q.buckets() != last) {
                doublings++;
                last = q.buckets();
            }
            if (q.buckets() != grownRing(n)) {
                assertThat(q.buckets()).as("buckets with %d pending", n).isEqualTo(grownRing(n));
            }
        }
        // By hand: 2 pending fit 64 buckets, the 3rd doubles it; 65,536 fit 2^21, the next one reaches the cap.
        assertThat(grownRing(2)).isEqualTo(64);
        assertThat(grownRing(3)).isEqualTo(128);
        assertThat(grownRing(65_536)).isEqualTo(1 << 21);
        assertThat(grownRing(65_537)).isEqualTo(1 << 22);
        assertThat(q.buckets()).isEqualTo(1 << 22);
        assertThat(doublings).isEqualTo(16);
        assertThat(q.rebuilds()).isEqualTo(16);
    }

    /**
     * Above 4096 buckets the ring halves when the pending count drops below a 128th of it; 4096 buckets and
     * fewer never shrink, so a queue that keeps emptying does not rebuild each time.
     */
    @Test
    void theRingHalvesBelowA128thOfItButNotUnder4096Buckets() {
        CalendarEventQueue q = new CalendarEventQueue();
        for (int n = 1; n <= 129; n++) {
            add(q, n * 1_000L);
        }
        assertThat(q.buckets()).isEqualTo(8192);
        long rebuilds = q.rebuilds();
        for (int n = 129; n > 64; n--) {
            q.poll();
        }
        assertThat(q.size()).isEqualTo(64);
        assertThat(q.buckets()).as("64 pending is not below 8192 / 128").isEqualTo(8192);
        assertThat(q.rebuilds()).isEqualTo(rebuilds);
        q.poll();
        assertThat(q.buckets()).as("63 pending").isEqualTo(4096);
        assertThat(q.rebuilds()).isEqualTo(rebuilds + 1);
        while (q.poll() != null) {
            assertThat(q.buckets()).isEqualTo(4096);
        }
        assertThat(q.rebuilds()).isEqualTo(rebuilds + 1);
        // Refilled and emptied again: a small ring grows but does not shrink.
        for (int n = 1; n <= 10; n++) {
            add(q, 1_000_000L + n);
        }
        while (q.poll() != null) {
            assertThat(q.buckets()).isEqualTo(4096);
        }
        assertThat(q.rebuilds()).isEqualTo(rebuilds + 1);
    }

    /** From the cap down, each halving waits for a 128th of the ring. */
    @Test
    void aLargeRingShrinksStepByStep() {
        CalendarEventQueue q = new CalendarEventQueue();
        for (int n = 1; n <= 70_000; n++) {
            add(q, n * 3L);
        }
        assertThat(q.buckets()).isEqualTo(1 << 22);
        List<Integer> shrunkAt = new ArrayList<>();
        int last = q.buckets();
        while (q.poll() != null) {
            if (q.buckets() != last) {
                assertThat(q.buckets()).isEqualTo(last / 2);
                last = q.buckets();
                shrunkAt.add(q.size());
            }
        }
        // 2^22 / 128 = 32768: the ring halves with 32767 left, then at 16383, ... down to 4096 buckets at 63.
        assertThat(shrunkAt).containsExactly(32_767, 16_383, 8_191, 4_095, 2_047, 1_023, 511, 255, 127, 63);
        assertThat(q.buckets()).isEqualTo(4096);
    }

    /**
     * 100 events at one instant share a bucket: a poll takes the head and a re-queue goes behind the tail,
     * both without a step, so the only steps in a window are the list hops of the removals made on purpose.
     */
    private CalendarEventQueue oneBucketOfHundred(List<Event> line) {
        CalendarEventQueue q = new CalendarEventQueue();
        for (int i = 0; i < 100; i++) {
            line.add(add(q, 0));
        }
        assertThat(q.buckets()).isEqualTo(4096);
        assertThat(q.windowSteps()).isZero();
        return q;
    }

    /** Walks {@code hops} list hops by removing events from inside the bucket and queuing them again. */
    private void hop(CalendarEventQueue q, List<Event> line, long hops) {
        long target = q.windowSteps() + hops;
        while (q.windowSteps() < target) {
            int k = (int) Math.min(line.size() - 1, target - q.windowSteps());
            Event e = line.remove(k);
            q.remove(e);
            requeue(q, line, e);
        }
        assertThat(q.windowSteps()).isEqualTo(target);
    }

    private void requeue(CalendarEventQueue q, List<Event> line, Event e) {
        e.order = order++;
        q.add(e);
        line.add(e);
    }

    /** Polls {@code count} times, queuing each event again at the same instant behind the rest. */
    private void polls(CalendarEventQueue q, List<Event> line, int count) {
        for (int i = 0; i < count; i++) {
            Event e = q.poll();
            assertThat(e).isSameAs(line.remove(0));
            requeue(q, line, e);
        }
    }

    /**
     * Every 4096 polls the queue compares the steps of the window with 4 a poll: 16,384 hops is not more
     * and leaves the ring alone; 16,385 re-estimates the width with a rebuild. The hops of a window add up
     * wherever they fall in it, and a new window starts from none.
     */
    @Test
    void aWindowAveragingMoreThanFourStepsAPollRebuilds() {
        List<Event> line = new ArrayList<>();
        CalendarEventQueue q = oneBucketOfHundred(line);
        long rebuilds = q.rebuilds();
        polls(q, line, 1_000);
        hop(q, line, 8_192);
        polls(q, line, 3_095);
        hop(q, line, 8_192);
        assertThat(q.windowSteps()).isEqualTo(16_384);
        polls(q, line, 1);
        assertThat(q.windowSteps()).as("a new window").isZero();
        assertThat(q.rebuilds()).as("16,384 steps in 4096 polls").isEqualTo(rebuilds);

        polls(q, line, 2_000);
        hop(q, line, 8_193);
        polls(q, line, 2_095);
        hop(q, line, 8_192);
        polls(q, line, 1);
        assertThat(q.rebuilds()).as("16,385 steps in 4096 polls").isEqualTo(rebuilds + 1);
        assertThat(q.windowSteps()).isZero();
        assertThat(q.buckets()).as("a re-estimate keeps the ring").isEqualTo(4096);

        // The rebuild started a new window: 4095 polls later nothing is looked at yet.
        hop(q, line, 20_000);
        polls(q, line, 4_095);
        assertThat(q.rebuilds()).isEqualTo(rebuilds + 1);
        polls(q, line, 1);
        assertThat(q.rebuilds()).isEqualTo(rebuilds + 2);
    }

    /** A slow window with a single event left is not worth a rebuild. */
    @Test
    void aSlowWindowEndingWithOneEventDoesNotRebuild() {
        List<Event> line = new ArrayList<>();
        CalendarEventQueue q = oneBucketOfHundred(line);
        long rebuilds = q.rebuilds();
        polls(q, line, 4_095);
        hop(q, line, 20_000);
        while (line.size() > 2) {
            q.remove(line.remove(0));
        }
        assertThat(q.poll()).isSameAs(line.remove(0));
        assertThat(q.size()).isEqualTo(1);
        assertThat(q.rebuilds()).isEqualTo(rebuilds);
        assertThat(q.windowSteps()).isZero();

        // With two left after the last poll of a slow window, it rebuilds.
        line.clear();
        CalendarEventQueue r = oneBucketOfHundred(line);
        long before = r.rebuilds();
        polls(r, line, 4_095);
        hop(r, line, 20_000);
        while (line.size() > 3) {
            r.remove(line.remove(0));
        }
        r.poll();
        assertThat(r.size()).isEqualTo(2);
        assertThat(r.rebuilds()).isEqualTo(before + 1);
    }

    /**
     * The width is re-estimated at each growth from the earliest events (at most 25): their mean gap, gaps
     * over twice the mean dropped, an eighth of it, to the nearest power of two. Times start far from 0 so
     * that only the gaps count. Five events: the ring doubles at the 3rd and the 5th, the 5th sees them all.
     */
    @ParameterizedTest(name = "gaps {0}: shift {1}")
    @CsvSource(delimiter = ';', value = {
        // mean 256, an eighth 32 = 2^5
        "256 256 256 256; 5",
        // an eighth 192 = 2^7.58, rounded up; 179.25 = 2^7.49, rounded down
        "1536 1536 1536 1536; 8",
        "1434 1434 1434 1434; 7",
        // the 1,000,000 gap is over twice the mean (250,048) and dropped: 64 / 8 = 2^3
        "64 64 64 1000000; 3",
        // a gap of exactly twice the mean (512) is kept: 2048 / 4 / 8 = 64 = 2^6
        "512 512 0 1024; 6",
        // one instant: an eighth of nothing is below a picosecond, days of one picosecond
        "0 0 0 0; 0",
        "5 5 5 5; 0",
        // 2^50 / 8 = 2^47, capped at 2^40 so that a year of days stays within a long
        "1125899906842624 1125899906842624 1125899906842624 1125899906842624; 40"})
    void theDayWidthIsAnEighthOfTheMeanGapOfTheEarliestEvents(String gaps, int shift) {
        CalendarEventQueue q = new CalendarEventQueue();
        long t = 1_000_000_000L;
        add(q, t);
        for (String gap : gaps.split(" ")) {
            t += Long.parseLong(gap);
            add(q, t);
        }
        assertThat(q.buckets()).isEqualTo(256);
        assertThat(q.rebuilds()).isEqualTo(2);
        assertThat(q.dayShift()).isEqualTo(shift);
    }

    @Test
    void theOrderOfArrivalDoesNotMatterOnlyTheTimes() {
        CalendarEventQueue q = queueOf(1_000_000_000L + 1_000_064, 1_000_000_000L + 128, 1_000_000_000L,
                1_000_000_000L + 192, 1_000_000_000L + 64);
        assertThat(q.dayShift()).isEqualTo(3);
    }

    /** Only the earliest 25 are sampled: the later, widely spaced events do not widen the days. */
    @Test
    void theWidthComesFromTheEarliest25() {
        CalendarEventQueue q = new CalendarEventQueue();
        long t = 5_000_000L;
        for (int i = 0; i < 25; i++) {
            add(q, t + 256L * i);
        }
        for (int i = 1; i <= 8; i++) {
            add(q, t + 256L * 24 + 1_000_000_000L * i);
        }
        assertThat(q.size()).isEqualTo(33);
        assertThat(q.buckets()).isEqualTo(2048);
        assertThat(q.dayShift()).isEqualTo(5);
    }

    /**
     * Five events 64 ps apart from day 256,000 (bucket 0): days of 8 ps (an eighth of 64), 256 buckets, so
     * four bitmap words of 64 days; the first four are polled, the fifth (day 256,032, bucket 32) is left.
     */
    private CalendarEventQueue fourWordsAndOneEvent() {
        long t0 = 256_000L * 8;
        CalendarEventQueue q = queueOf(t0, t0 + 64, t0 + 128, t0 + 192, t0 + 256);
        assertThat(q.buckets()).isEqualTo(256);
        assertThat(q.dayShift()).isEqualTo(3);
        for (int i = 0; i < 4; i++) {
            assertThat(q.poll().time).isEqualTo(t0 + 64L * i);
        }
        assertThat(q.size()).isEqualTo(1);
        assertThat(q.windowSteps()).isZero();
        return q;
    }

    /** Polls the one event and queues it again {@code days} days later. */
    private Event hold(CalendarEventQueue q, long days) {
        Event e = q.poll();
        e.time += days * 8;
        e.order = order++;
        q.add(e);
        return e;
    }

    /** The next event in the rest of the current bitmap word, or anywhere in the next one, costs no step. */
    @Test
    void theNextEventWithinTheNextBitmapWordCostsNoStep() {
        CalendarEventQueue q = fourWordsAndOneEvent();
        long time = q.peek().time;
        for (int i = 0; i < 2_000; i++) {
            // 1 to 63 days on: the same word or the next; 2,016 days every 63 polls, so the ring wraps often.
            long days = 1 + i % 63;
            Event e = hold(q, days);
            time += days * 8;
            assertThat(e.time).isEqualTo(time);
        }
        assertThat(q.windowSteps()).isZero();
        assertThat(q.rebuilds()).isEqualTo(2);
    }

    /** Further on, the search counts one step for each bitmap word it moves past. */
    @Test
    void theSearchCountsAStepForEachWordItLeaves() {
        CalendarEventQueue q = fourWordsAndOneEvent();
        // Bucket 32 to 132: words 0 to 2 (the queue looks at the rest of word 0 and at word 1 before the far search).
        assertThat(bucket(hold(q, 100))).isEqualTo(132);
        assertThat(q.windowSteps()).isZero();
        assertThat(bucket(hold(q, 120))).isEqualTo(252);
        assertThat(q.windowSteps()).as("found in word 2, two words on").isEqualTo(2);
        assertThat(bucket(hold(q, 150))).isEqualTo(146);
        assertThat(q.windowSteps()).as("found in word 3, the next one").isEqualTo(2);
        // A peek searches as a poll does; the poll after it finds the current day's bucket at once.
        assertThat(q.peek().time).isEqualTo(256_032L * 8 + 370 * 8);
        assertThat(q.windowSteps()).as("from word 3 round to word 2, three words on").isEqualTo(5);
        q.poll();
        assertThat(q.windowSteps()).isEqualTo(5);
    }

    private static long bucket(Event e) {
        return e.time >>> 3 & 255;
    }

    /**
     * An event a year or more ahead sits in its day's bucket but is skipped: a search that goes all the way
     * round the year counts the skip, each of the five word moves (the starting word is looked at again, for
     * the days before the current one), then jumps straight to the earliest event.
     */
    @Test
    void anEventYearsAheadIsReachedByAJumpAfterOneRoundOfTheYear() {
        CalendarEventQueue q = fourWordsAndOneEvent();
        // 3 years and 5 days on: bucket 37, in the rest of the current word, but its year has not come.
        Event far = hold(q, 3 * 256 + 5);
        assertThat(q.windowSteps()).isZero();
        assertThat(q.poll()).isSameAs(far);
        assertThat(q.windowSteps()).isEqualTo(1 + 5);
        // After the jump the current day is the far event's: the next day costs nothing.
        far.order = order++;
        far.time += 8;
        q.add(far);
        assertThat(q.poll()).isSameAs(far);
        assertThat(q.windowSteps()).isEqualTo(6);
    }

    /** 253 days on is 3 days before the current bucket: found after going round, without a jump. */
    @Test
    void anEventJustUnderAYearAheadIsFoundInTheStartingWordAgain() {
        CalendarEventQueue q = fourWordsAndOneEvent();
        assertThat(bucket(hold(q, 253))).isEqualTo(29);
        assertThat(bucket(hold(q, 256))).isEqualTo(29);
        assertThat(q.windowSteps()).isEqualTo(4);
        q.poll();
        assertThat(q.windowSteps()).as("a year on exactly: the same bucket, after a whole round and a jump").isEqualTo(4 + 6);
    }

    /** A skipped bucket is counted once per look: a year-ahead event before a near one in the same word. */
    @Test
    void aSkippedBucketCostsAStep() {
        CalendarEventQueue q = fourWordsAndOneEvent();
        Event near = q.peek();
        // Bucket 40 a year and 8 days on, bucket 50 18 days on: the search skips 40 and takes 50.
        Event far = add(q, near.time + (256 + 8) * 8);
        near.order = order;
        q.remove(near);
        near.time += 18 * 8;
        near.order = order++;
        q.add(near);
        assertThat(q.poll()).isSameAs(near);
        assertThat(q.windowSteps()).isEqualTo(1);
        assertThat(q.poll()).isSameAs(far);
    }

    /**
     * Within one day's bucket the list is kept sorted: an event at or after the tail goes behind it free, one
     * before it walks from the head, a step per event passed; a removal walks to the event the same way.
     */
    @Test
    void aBucketListCostsAStepPerEventPassed() {
        CalendarEventQueue q = fourWordsAndOneEvent();
        q.poll();
        long day = 300_000L * 8;
        Event e2 = add(q, day + 2);
        Event e4 = add(q, day + 4);
        Event e6 = add(q, day + 6);
        assertThat(q.windowSteps()).isZero();
        Event e5 = add(q, day + 5);
        assertThat(q.windowSteps()).as("past 2 and 4").isEqualTo(2);
        Event e1 = add(q, day + 1);
        assertThat(q.windowSteps()).as("a new head").isEqualTo(2);
        Event e7 = add(q, day + 7);
        assertThat(q.windowSteps()).as("behind the tail").isEqualTo(2);
        Event e4b = add(q, day + 4);
        assertThat(q.windowSteps()).as("past 1, 2 and the earlier 4").isEqualTo(5);
        q.remove(e5);
        assertThat(q.windowSteps()).as("to 5 past 1, 2, 4, 4").isEqualTo(9);
        q.remove(e7);
        assertThat(q.windowSteps()).as("to the tail past five").isEqualTo(14);
        Event e7b = add(q, day + 7);
        assertThat(q.windowSteps()).as("behind the new tail").isEqualTo(14);
        q.remove(e1);
        assertThat(q.windowSteps()).as("the head").isEqualTo(14);
        assertThat(q.size()).isEqualTo(5);
        assertThat(List.of(q.poll(), q.poll(), q.poll(), q.poll(), q.poll())).containsExactly(e2, e4, e4b, e6, e7b);
        assertThat(q.poll()).isNull();
    }

    /** The first and the last bucket of the ring are buckets like the others for a removal. */
    @Test
    void eventsInTheFirstAndLastBucketsCanBeRemoved() {
        CalendarEventQueue q = fourWordsAndOneEvent();
        long base = 512_000L * 8;
        Event first = add(q, base);
        Event last = add(q, base + 255 * 8);
        Event middle = add(q, base + 100 * 8);
        assertThat(first.slot).isZero();
        assertThat(last.slot).isEqualTo(255);
        q.remove(first);
        q.remove(last);
        assertThat(first.scheduled()).isFalse();
        assertThat(last.scheduled()).isFalse();
        q.poll();
        assertThat(q.poll()).isSameAs(middle);
        assertThat(q.poll()).isNull();
    }

    @Test
    void removingAnEventNotQueuedHereIsRefused() {
        CalendarEventQueue q = fourWordsAndOneEvent();
        Event mine = q.peek();
        Event idle = new Event(owner, "idle", 0, () -> { });
        assertThatThrownBy(() -> q.remove(idle)).isInstanceOf(IllegalStateException.class)
                .hasMessage("event 'idle' is not in this queue");
        // Queued in a larger ring, at a bucket this one has not got.
        CalendarEventQueue big = new CalendarEventQueue();
        Event beyond = null;
        for (int i = 0; i < 40; i++) {
            Event e = add(big, 1_000L * i);
            if (e.slot > 255) {
                beyond = e;
            }
        }
        assertThat(big.buckets()).isEqualTo(2048);
        assertThat(beyond).isNotNull();
        Event outside = beyond;
        assertThatThrownBy(() -> q.remove(outside)).isInstanceOf(IllegalStateException.class)
                .hasMessage("event '" + outside.name() + "' is not in this queue");
        // Queued elsewhere, in a bucket that is empty here.
        Event emptyHere = add(new CalendarEventQueue(), 5 * 8);
        assertThat(emptyHere.slot).isNotEqualTo(mine.slot);
        assertThatThrownBy(() -> q.remove(emptyHere)).isInstanceOf(IllegalStateException.class);
        assertThat(q.windowSteps()).as("a refused removal walks no list").isZero();
        // An event of another queue that claims the bucket number of this queue's event: the walk reaches the end.
        Event sameBucket = add(new CalendarEventQueue(), mine.time);
        sameBucket.slot = mine.slot;
        assertThatThrownBy(() -> q.remove(sameBucket)).isInstanceOf(IllegalStateException.class)
                .hasMessage("event '" + sameBucket.name() + "' is not in this queue");
        assertThat(q.size()).isEqualTo(1);
        assertThat(q.poll()).isSameAs(mine);
    }

    /** A cleared queue forgets its events and their buckets: new events alone come out, and only once. */
    @Test
    void aClearedQueueHoldsOnlyWhatIsAddedAfter() {
        CalendarEventQueue q = new CalendarEventQueue();
        List<Event> old = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            old.add(add(q, 1_000L * i));
        }
        q.clear();
        assertThat(q.size()).isZero();
        assertThat(q.peek()).isNull();
        for (Event e : old) {
            assertThat(e.scheduled()).isFalse();
        }
        // The same times again, into the same buckets, then others between them.
        List<Event> fresh = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            fresh.add(add(q, 1_000L * i));
            fresh.add(add(q, 1_000L * i + 500));
        }
        List<Event> out = new ArrayList<>();
        for (Event e = q.poll(); e != null; e = q.poll()) {
            out.add(e);
        }
        assertThat(out).containsExactlyElementsOf(fresh);
        // Old events can be queued again after a clear, as new.
        q.add(old.get(3));
        assertThat(q.poll()).isSameAs(old.get(3));
        assertThat(q.poll()).isNull();
    }

    /**
     * A rebuild puts the current day at the earliest event and the scan at that day's bucket: 37 here, not the
     * ring's start, so the polls that follow each find their bucket in the current or the next word for free.
     */
    @Test
    void afterARebuildTheScanStartsAtTheEarliestEventsBucket() {
        long t0 = (256_000L + 37) * 8;
        CalendarEventQueue q = queueOf(t0, t0 + 64, t0 + 128, t0 + 192, t0 + 256);
        assertThat(q.dayShift()).isEqualTo(3);
        for (int i = 0; i < 5; i++) {
            assertThat(q.poll().time).isEqualTo(t0 + 64L * i);
        }
        assertThat(q.windowSteps()).isZero();
    }

    /**
     * Later events in buckets before the current one, in the current word, are the next lap's: the search
     * passes over them to the next word without a step.
     */
    @Test
    void laterEventsBehindTheCurrentBucketDoNotSlowTheSearch() {
        CalendarEventQueue q = fourWordsAndOneEvent();
        Event near = q.peek();
        // Bucket 10: 234 days on from bucket 32, in word 0 behind the current bucket.
        Event later = add(q, near.time + 234 * 8);
        assertThat(later.slot).isEqualTo(10);
        assertThat(bucket(hold(q, 38))).isEqualTo(70);
        assertThat(q.poll()).isSameAs(near);
        assertThat(q.windowSteps()).isZero();
        assertThat(q.poll()).isSameAs(later);
    }

    /**
     * Removals that leave 2, 1 or no events in a large ring, then a poll below its shrink mark: the ring halves
     * with what is left; two events still give a width (their gap), one or none keep the width there was.
     */
    @ParameterizedTest(name = "{0} left")
    @CsvSource({"2, 4", "1, 5", "0, 5"})
    void aShrinkWithFewEventsLeftKeepsOrEstimatesTheWidth(int left, int shift) {
        CalendarEventQueue q = new CalendarEventQueue();
        long t0 = 9_000_000L;
        List<Event> all = new ArrayList<>();
        for (int i = 0; i < 129; i++) {
            all.add(add(q, t0 + 256L * i));
        }
        assertThat(q.buckets()).isEqualTo(8192);
        assertThat(q.dayShift()).as("256 / 8 = 2^5").isEqualTo(5);
        for (int i = 0; i < 128 - left; i++) {
            q.remove(all.get(i));
        }
        // The last two made 128 ps apart: an eighth is 16 = 2^4.
        Event last = all.get(128);
        q.remove(last);
        last.time = all.get(127).time + 128;
        last.order = order++;
        q.add(last);
        assertThat(q.size()).isEqualTo(left + 1);
        assertThat(q.buckets()).isEqualTo(8192);
        long rebuilds = q.rebuilds();
        Event first = q.poll();
        assertThat(first).isSameAs(all.get(128 - left));
        assertThat(q.buckets()).isEqualTo(4096);
        assertThat(q.rebuilds()).isEqualTo(rebuilds + 1);
        assertThat(q.dayShift()).isEqualTo(shift);
        // What is left comes out in order, and the next event after an empty rebuild is found without a step.
        List<Event> rest = new ArrayList<>();
        for (Event e = q.poll(); e != null; e = q.poll()) {
            rest.add(e);
        }
        assertThat(rest).containsExactlyElementsOf(all.subList(129 - left, 129));
        long steps = q.windowSteps();
        Event next = add(q, first.time + 8 * 32);
        assertThat(q.poll()).isSameAs(next);
        assertThat(q.windowSteps()).isEqualTo(steps);
    }
}
