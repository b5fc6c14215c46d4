package dev.rdmasim.kernel;

import java.util.Arrays;

/**
 * A calendar queue with many narrow days and a bitmap of non-empty buckets.
 *
 * <p>Days are made narrow enough that most buckets hold zero or one event, so an insertion is
 * almost always "empty bucket" or "behind the tail", and the next non-empty day is found with
 * {@link Long#numberOfTrailingZeros} on the bitmap rather than by a loop over empty buckets whose
 * trip count the CPU cannot predict. Each bucket keeps a list sorted by (time, order); an event whose
 * day lies a whole year or more ahead shares the bucket of its day modulo the year and is skipped
 * until its year comes.
 *
 * <p>Reference stores are kept few because each one pays a garbage-collector write barrier (G1's
 * also bloats the compiled code enough to stop the JIT inlining the scheduling path): the bitmap,
 * not the head array, says whether a bucket is empty (a stale head is simply overwritten later, so
 * an event that left the queue may stay reachable from the ring until then), and a bucket's tail
 * lives in its head event rather than in a second array.
 *
 * <p>The ring grows and shrinks with the number of pending events; the day width is re-estimated
 * from the spacing of the earliest events whenever it does, or when operations start to take many
 * steps (the event distribution drifted).
 */
public final class CalendarEventQueue implements EventQueue {
    /**
     * The ring holds 32 to 128 buckets per pending event (log2 of the middle: 6), so that with days of
     * an eighth of the earliest events' mean gap the year spans several times the spread of pending
     * times and few events wait a year in their bucket. Measured on the hold model: fewer buckets
     * (4 to 16 per event) or wider days (a quarter gap and up) ran 10 to 30 % slower.
     */
    private static final int LG_SPREAD = 6;
    /** log2 of the day width as a fraction of the earliest events' mean gap. */
    private static final int LG_NARROW = 3;
    private static final int MIN_BUCKETS = 64;
    private static final int SMALL_RING = 4096;
    /** Cap on the ring (16 MiB of heads); beyond it buckets simply hold more events. */
    private static final int MAX_BUCKETS = 1 << 22;
    private static final int SAMPLE = 25;
    /** Average steps per operation above which the width is re-estimated. */
    private static final int STEP_BUDGET = 4;
    private static final int WINDOW = 4096;

    /** Head of each bucket; meaningful only where the bucket's bit is set. */
    private Event[] heads;
    /** Bit b of word b / 64 is set iff bucket b is non-empty. */
    private long[] bits;
    private int mask;
    private int shift;
    private int size;
    /** Pending-event counts at which the ring doubles or halves. */
    private int growAt;
    private int shrinkAt;
    /** Bucket of the current day and that day's number ({@code time >>> shift}). */
    private int cur;
    private long curDay;
    /** Slow-path steps (skipped buckets, list hops, bitmap words) and polls in the current window. */
    private long steps;
    private int ops;
    /** Rebuilds so far; counted off the insert and poll paths, for tests of the queue's work. */
    private long rebuilds;

    public CalendarEventQueue() {
        allocate(MIN_BUCKETS, 10, 0);
    }

    private void allocate(int buckets, int newShift, long startTime) {
        heads = new Event[buckets];
        bits = new long[buckets >>> 6];
        mask = buckets - 1;
        shift = newShift;
        cur = (int) (startTime >>> shift) & mask;
        curDay = startTime >>> shift;
        growAt = buckets == MAX_BUCKETS ? Integer.MAX_VALUE : buckets >>> (LG_SPREAD - 1);
        // Small rings never shrink, so a queue that keeps emptying does not rebuild each time.
        shrinkAt = buckets <= SMALL_RING ? -1 : buckets >>> (LG_SPREAD + 1);
    }

    private static boolean before(Event a, Event b) {
        return a.time < b.time || (a.time == b.time && a.order < b.order);
    }

    @Override
    public void add(Event e) {
        long day = e.time >>> shift;
        if (day < curDay) {
            // Earlier than the day a peek advanced to: the scan must start from this event's day.
            curDay = day;
            cur = (int) day & mask;
        }
        insert(e, (int) day & mask);
        if (++size > growAt) {
            rebuild(heads.length * 2);
        }
    }

    /** Inserts into bucket {@code b}, keeping it sorted. Events outside the queue have a null next. */
    private void insert(Event e, int b) {
        e.slot = b;
        long w = bits[b >>> 6];
        long bit = 1L << b;
        if ((w & bit) == 0) {
            bits[b >>> 6] = w | bit;
            heads[b] = e;
            e.tail = e;
            return;
        }
        Event h = heads[b];
        Event t = h.tail;
        if (!before(e, t)) {
            t.next = e;
            h.tail = e;
        } else {
            insertBefore(e, b, h);
        }
    }

    /** Slow path: {@code e} goes before the tail of bucket {@code b}, whose head is {@code h}. */
    private void insertBefore(Event e, int b, Event h) {
        Event p = null;
        Event x = h;
        while (!before(e, x)) {
            p = x;
            x = x.next;
            steps++;
        }
        e.next = x;
        if (p == null) {
            e.tail = h.tail;
            heads[b] = e;
        } else {
            p.next = e;
        }
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
        if (n == null) {
            bits[b >>> 6] &= ~(1L << b);
        } else {
            heads[b] = n;
            n.tail = e.tail;
            e.next = null;
        }
        e.slot = -1;
        if (--size < shrinkAt) {
            rebuild(heads.length / 2);
        } else if (++ops == WINDOW) {
            checkSteps();
        }
        return e;
    }

    /** Moves the current day forward to the bucket holding the earliest event and returns it. */
    private int locateMin() {
        int c = cur;
        long word = bits[c >>> 6] & (-1L << c);
        if (word != 0) {
            int b = (c & ~63) + Long.numberOfTrailingZeros(word);
            long day = curDay + (b - c);
            if (heads[b].time >>> shift <= day) {
                cur = b;
                curDay = day;
                return b;
            }
        } else {
            // The next word, where the scan goes every 64 days.
            int nw = ((c >>> 6) + 1) & (bits.length - 1);
            word = bits[nw];
            if (word != 0) {
                int b = (nw << 6) + Long.numberOfTrailingZeros(word);
                long day = curDay + ((b - c) & mask);
                if (heads[b].time >>> shift <= day) {
                    cur = b;
                    curDay = day;
                    return b;
                }
            }
        }
        return locateFar();
    }

    /** The next event is not in the rest of the current bitmap word, or is a year ahead. */
    private int locateFar() {
        int c = cur;
        int words = bits.length;
        int w = c >>> 6;
        long word = bits[w] & (-1L << c);
        for (int k = 0; k <= words; k++) {
            while (word != 0) {
                int b = (w << 6) + Long.numberOfTrailingZeros(word);
                long day = curDay + ((b - c) & mask);
                if (heads[b].time >>> shift <= day) {
                    cur = b;
                    curDay = day;
                    return b;
                }
                word &= word - 1;
                steps++;
            }
            w = (w + 1) & (words - 1);
            word = bits[w];
            if (k == words - 1) {
                // Back at the starting word: only the buckets before the current day remain.
                word &= ~(-1L << c);
            }
            steps++;
        }
        // A whole year without an event: jump straight to the earliest one.
        Event min = null;
        for (int i = 0; i < words; i++) {
            for (long x = bits[i]; x != 0; x &= x - 1) {
                Event h = heads[(i << 6) + Long.numberOfTrailingZeros(x)];
                if (min == null || before(h, min)) {
                    min = h;
                }
            }
        }
        cur = min.slot;
        curDay = min.time >>> shift;
        return cur;
    }

    @Override
    public void remove(Event e) {
        int b = e.slot;
        if (b < 0 || b > mask || (bits[b >>> 6] & (1L << b)) == 0) {
            throw new IllegalStateException("event '" + e.name() + "' is not in this queue");
        }
        Event h = heads[b];
        Event p = null;
        Event x = h;
        while (x != e) {
            if (x == null) {
                throw new IllegalStateException("event '" + e.name() + "' is not in this queue");
            }
            p = x;
            x = x.next;
            steps++;
        }
        Event n = e.next;
        if (p == null) {
            if (n == null) {
                bits[b >>> 6] &= ~(1L << b);
            } else {
                heads[b] = n;
                n.tail = e.tail;
            }
        } else {
            p.next = n;
            if (n == null) {
                h.tail = p;
            }
        }
        e.next = null;
        e.slot = -1;
        size--;
    }

    private void checkSteps() {
        boolean slow = steps > (long) STEP_BUDGET * WINDOW;
        ops = 0;
        steps = 0;
        if (slow && size > 1) {
            rebuild(heads.length);
        }
    }

    /** All queued events, bucket by bucket; each leaves with a null next. */
    private Event[] drain() {
        Event[] all = new Event[size];
        int k = 0;
        for (int i = 0; i < bits.length; i++) {
            for (long x = bits[i]; x != 0; x &= x - 1) {
                for (Event e = heads[(i << 6) + Long.numberOfTrailingZeros(x)]; e != null;) {
                    Event n = e.next;
                    e.next = null;
                    all[k++] = e;
                    e = n;
                }
            }
        }
        return all;
    }

    /** Redistributes all events over {@code buckets} buckets with a freshly estimated day width. */
    private void rebuild(int buckets) {
        rebuilds++;
        Event[] all = drain();
        // In (time, order) order every event simply goes behind its bucket's tail.
        Arrays.sort(all, (x, y) -> x.time != y.time ? Long.compare(x.time, y.time) : Long.compare(x.order, y.order));
        long start = all.length == 0 ? curDay << shift : all[0].time;
        allocate(buckets, estimateShift(all), start);
        for (Event e : all) {
            int b = (int) (e.time >>> shift) & mask;
            e.slot = b;
            if ((bits[b >>> 6] & (1L << b)) == 0) {
                bits[b >>> 6] |= 1L << b;
                heads[b] = e;
            } else {
                heads[b].tail.next = e;
            }
            heads[b].tail = e;
        }
        ops = 0;
        steps = 0;
    }

    /** Day width from the mean gap between the earliest of {@code sorted} events, outliers dropped. */
    private int estimateShift(Event[] sorted) {
        int n = Math.min(sorted.length, SAMPLE);
        if (n < 2) {
            return shift;
        }
        long[] t = new long[n];
        for (int i = 0; i < n; i++) {
            t[i] = sorted[i].time;
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
        double width = used == 0 ? 1 : sum / used / (1 << LG_NARROW);
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

    /** log2 of the day width in picoseconds (diagnostic, read-only). */
    int dayShift() {
        return shift;
    }

    /** Buckets in the ring (diagnostic, read-only). */
    int buckets() {
        return heads.length;
    }

    /** Rebuilds since the queue was made: growth, shrinkage and re-estimates (diagnostic, read-only). */
    long rebuilds() {
        return rebuilds;
    }

    /** Slow-path steps counted in the current window of polls (diagnostic, read-only). */
    long windowSteps() {
        return steps;
    }

    @Override
    public void clear() {
        for (Event e : drain()) {
            e.slot = -1;
            e.tail = null;
        }
        Arrays.fill(heads, null);
        Arrays.fill(bits, 0);
        size = 0;
    }
}
