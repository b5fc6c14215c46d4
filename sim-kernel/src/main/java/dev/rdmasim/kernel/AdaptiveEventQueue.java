package dev.rdmasim.kernel;

/**
 * The simulator's default queue: a sorted ring while few events are pending, a {@link CalendarEventQueue} beyond.
 *
 * <p>A model of blocks that each keep one or two events armed has few events pending at any time (the two-adapter
 * WRITE stream: 5 to 9), and there a calendar pays for its generality: a year of 64 days holds a handful of events,
 * so a poll often scans the bitmap past the end of the year. A sorted ring of a few entries does each operation in
 * a handful of comparisons: a poll takes the head, an insertion walks back from the tail (new events are mostly
 * the latest). Above {@link #SMALL_MAX} pending events the ring's insertions would cost more than the calendar's, so
 * the events move to the calendar, and they move back once fewer than {@link #SMALL_MIN} remain; the gap between the
 * two keeps a queue that hovers around one limit from moving back and forth. Either way the order is exactly
 * (time, order), so the choice never changes a run.
 */
public final class AdaptiveEventQueue implements EventQueue {
    /** Most events the ring holds; one more moves them all to the calendar. */
    static final int SMALL_MAX = 32;
    /** Below this many pending events the calendar's events move back to the ring. */
    static final int SMALL_MIN = 8;
    private static final int RING = 64;
    private static final int MASK = RING - 1;

    /** Pending events in (time, order) order from {@code head}, while {@link #small}. */
    private final Event[] ring = new Event[RING];
    private int head;
    private int count;
    private boolean small = true;
    private final CalendarEventQueue calendar = new CalendarEventQueue();
    /** Moves between the ring and the calendar, for tests of the hysteresis. */
    private long moves;

    private static boolean before(Event a, Event b) {
        return a.time < b.time || (a.time == b.time && a.order < b.order);
    }

    @Override
    public void add(Event e) {
        if (!small) {
            calendar.add(e);
            return;
        }
        if (count == SMALL_MAX) {
            toCalendar();
            calendar.add(e);
            return;
        }
        // Walk back from the tail past every event that comes after e.
        final Event[] r = ring;
        int i = count;
        int h = head;
        while (i > 0) {
            Event p = r[(h + i - 1) & MASK];
            if (!before(e, p)) {
                break;
            }
            r[(h + i) & MASK] = p;
            i--;
        }
        r[(h + i) & MASK] = e;
        e.slot = 0;
        count++;
    }

    @Override
    public Event peek() {
        if (!small) {
            return calendar.peek();
        }
        return count == 0 ? null : ring[head];
    }

    @Override
    public Event poll() {
        if (!small) {
            Event e = calendar.poll();
            if (calendar.size() < SMALL_MIN) {
                toRing();
            }
            return e;
        }
        if (count == 0) {
            return null;
        }
        Event e = ring[head];
        // The stale reference stays until overwritten: events live as long as their blocks anyway.
        head = (head + 1) & MASK;
        count--;
        e.slot = -1;
        return e;
    }

    @Override
    public void remove(Event e) {
        if (!small) {
            calendar.remove(e);
            if (calendar.size() < SMALL_MIN) {
                toRing();
            }
            return;
        }
        final Event[] r = ring;
        int i = 0;
        while (i < count && r[(head + i) & MASK] != e) {
            i++;
        }
        if (i == count || e.slot < 0) {
            throw new IllegalStateException("event '" + e.name() + "' is not in this queue");
        }
        // Close the gap from the nearer end.
        if (i < count / 2) {
            for (int j = i; j > 0; j--) {
                r[(head + j) & MASK] = r[(head + j - 1) & MASK];
            }
            head = (head + 1) & MASK;
        } else {
            for (int j = i; j < count - 1; j++) {
                r[(head + j) & MASK] = r[(head + j + 1) & MASK];
            }
        }
        count--;
        e.slot = -1;
    }

    /** The ring is full: its events, in order, go to the calendar. */
    private void toCalendar() {
        for (int i = 0; i < count; i++) {
            calendar.add(ring[(head + i) & MASK]); // which sets each event's slot
        }
        count = 0;
        head = 0;
        small = false;
        moves++;
    }

    /** Few events are left in the calendar: they come back to the ring, in order. */
    private void toRing() {
        head = 0;
        count = 0;
        for (Event e = calendar.poll(); e != null; e = calendar.poll()) {
            ring[count++] = e;
            e.slot = 0;
        }
        small = true;
        moves++;
    }

    @Override
    public int size() {
        return small ? count : calendar.size();
    }

    /** Whether the events are in the ring now (diagnostic, read-only). */
    boolean inRing() {
        return small;
    }

    /** Moves between ring and calendar so far (diagnostic, read-only). */
    long moves() {
        return moves;
    }

    @Override
    public void clear() {
        if (small) {
            for (int i = 0; i < count; i++) {
                Event e = ring[(head + i) & MASK];
                e.slot = -1;
                ring[(head + i) & MASK] = null;
            }
            count = 0;
            head = 0;
        } else {
            calendar.clear();
            small = true;
        }
    }
}
