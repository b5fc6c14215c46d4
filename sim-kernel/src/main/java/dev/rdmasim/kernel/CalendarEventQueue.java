package dev.rdmasim.kernel;

import java.util.Arrays;

/**
 * A calendar queue (R. Brown, CACM 1988): a ring of buckets, each one "day" of {@code 2^shift}
 * picoseconds wide, holding a list sorted by (time, order). Insert and remove-min take expected O(1)
 * steps when the day width matches the spacing of pending events, so the cost per event does not
 * grow with the number of pending events as a heap's does.
 *
 * <p>The ring doubles or halves with the number of pending events and the day width is re-estimated
 * from the spacing of the earliest events whenever it does, or when operations start to take many
 * steps (the event distribution drifted). Appends behind a bucket's tail are O(1), so many events at
 * one time, or events scheduled in time order, stay cheap.
 */
public final class CalendarEventQueue implements EventQueue {
    private static final int MIN_BUCKETS = 16;
    private static final int SAMPLE = 25;
    /** Average steps per operation above which the width is re-estimated. */
    private static final int STEP_BUDGET = 16;
    private static final int WINDOW = 4096;

    private Event[] heads;
    private Event[] tails;
    private int mask;
    private int shift;
    private int size;
    /** Bucket of the current day and the exclusive end of that day. */
    private int cur;
    private long curTop;
    /** Steps (bucket visits, list hops) and operations in the current measurement window. */
    private long steps;
    private int ops;

    public CalendarEventQueue() {
        allocate(MIN_BUCKETS, 10, 0);
    }

    private void allocate(int buckets, int newShift, long startTime) {
        heads = new Event[buckets];
        tails = new Event[buckets];
        mask = buckets - 1;
        shift = newShift;
        cur = bucketOf(startTime);
        curTop = ((startTime >>> shift) + 1) << shift;
    }

    private int bucketOf(long time) {
        return (int) (time >>> shift) & mask;
    }

    private static boolean before(Event a, Event b) {
        return a.time < b.time || (a.time == b.time && a.order < b.order);
    }

    @Override
    public void add(Event e) {
        if (e.time < curTop - (1L << shift)) {
            // Earlier than the day a peek advanced to: the scan must start from this event's day.
            cur = bucketOf(e.time);
            curTop = ((e.time >>> shift) + 1) << shift;
        }
        insert(e);
        if (++size > 2 * heads.length) {
            rebuild(heads.length * 2);
        } else {
            account();
        }
    }

    private void insert(Event e) {
        int b = bucketOf(e.time);
        e.slot = b;
        Event tail = tails[b];
        if (tail == null) {
            heads[b] = e;
            tails[b] = e;
            e.next = null;
            return;
        }
        if (!before(e, tail)) {
            tail.next = e;
            tails[b] = e;
            e.next = null;
            return;
        }
        Event h = heads[b];
        if (before(e, h)) {
            e.next = h;
            heads[b] = e;
            return;
        }
        Event p = h;
        Event n = p.next;
        while (!before(e, n)) {
            p = n;
            n = n.next;
            steps++;
        }
        e.next = n;
        p.next = e;
    }

    @Override
    public Event peek() {
        return size == 0 ? null : heads[locateMin()];
    }

    @Override
    public Event poll() {
        if (size == 0) {
            return null;
        }
        int b = locateMin();
        Event e = heads[b];
        Event n = e.next;
        heads[b] = n;
        if (n == null) {
            tails[b] = null;
        }
        e.next = null;
        e.slot = -1;
        size--;
        if (size < heads.length / 2 && heads.length > MIN_BUCKETS) {
            rebuild(heads.length / 2);
        } else {
            account();
        }
        return e;
    }

    /** Moves the current day forward to the bucket holding the earliest event and returns it. */
    private int locateMin() {
        int b = cur;
        long top = curTop;
        for (int n = 0; n <= mask; n++) {
            Event h = heads[b];
            if (h != null && h.time < top) {
                cur = b;
                curTop = top;
                steps += n;
                return b;
            }
            b = (b + 1) & mask;
            top += 1L << shift;
        }
        steps += mask + 1;
        // A whole year without an event: jump straight to the earliest one.
        Event min = null;
        for (Event h : heads) {
            if (h != null && (min == null || before(h, min))) {
                min = h;
            }
        }
        cur = min.slot;
        curTop = ((min.time >>> shift) + 1) << shift;
        return cur;
    }

    @Override
    public void remove(Event e) {
        int b = e.slot;
        if (b < 0 || b > mask) {
            throw new IllegalStateException("event '" + e.name() + "' is not in this queue");
        }
        Event p = null;
        Event x = heads[b];
        while (x != e) {
            if (x == null) {
                throw new IllegalStateException("event '" + e.name() + "' is not in this queue");
            }
            p = x;
            x = x.next;
            steps++;
        }
        if (p == null) {
            heads[b] = e.next;
        } else {
            p.next = e.next;
        }
        if (tails[b] == e) {
            tails[b] = p;
        }
        e.next = null;
        e.slot = -1;
        size--;
        account();
    }

    private void account() {
        if (++ops == WINDOW) {
            boolean slow = steps > (long) STEP_BUDGET * WINDOW;
            ops = 0;
            steps = 0;
            if (slow && size > 1) {
                rebuild(heads.length);
            }
        }
    }

    /** Redistributes all events over {@code buckets} buckets with a freshly estimated day width. */
    private void rebuild(int buckets) {
        Event[] all = new Event[size];
        int k = 0;
        for (Event h : heads) {
            for (Event x = h; x != null; x = x.next) {
                all[k++] = x;
            }
        }
        long start = size == 0 ? curTop - (1L << shift) : Long.MAX_VALUE;
        for (Event x : all) {
            start = Math.min(start, x.time);
        }
        allocate(buckets, estimateShift(all), start);
        for (Event x : all) {
            insert(x);
        }
        ops = 0;
        steps = 0;
    }

    /** Brown's estimate: three times the mean gap between the earliest events, outliers dropped. */
    private int estimateShift(Event[] all) {
        int n = Math.min(all.length, SAMPLE);
        if (n < 2) {
            return shift;
        }
        // The n earliest times, in order, by insertion into a small sorted array.
        long[] t = new long[n];
        int filled = 0;
        for (Event x : all) {
            long v = x.time;
            if (filled < n) {
                int i = filled++;
                while (i > 0 && t[i - 1] > v) {
                    t[i] = t[i - 1];
                    i--;
                }
                t[i] = v;
            } else if (v < t[n - 1]) {
                int i = n - 1;
                while (i > 0 && t[i - 1] > v) {
                    t[i] = t[i - 1];
                    i--;
                }
                t[i] = v;
            }
        }
        double mean = (t[n - 1] - t[0]) / (double) (n - 1);
        double sum = 0;
        int used = 0;
        for (int i = 1; i < n; i++) {
            long gap = t[i] - t[i - 1];
            if (gap <= 2 * mean) {
                sum += gap;
                used++;
            }
        }
        double width = used == 0 ? 1 : 3 * sum / used;
        if (width < 1) {
            width = 1;
        }
        // Nearest power of two, capped so a year stays representable.
        int s = (int) Math.round(Math.log(width) / Math.log(2));
        return Math.max(0, Math.min(s, 40));
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public void clear() {
        for (Event h : heads) {
            for (Event x = h; x != null;) {
                Event n = x.next;
                x.next = null;
                x.slot = -1;
                x = n;
            }
        }
        Arrays.fill(heads, null);
        Arrays.fill(tails, null);
        size = 0;
    }
}
