package dev.rdmasim.kernel;

import java.util.Arrays;

/**
 * An implicit d-ary min-heap. Keys are kept in primitive arrays parallel to the event array so a
 * comparison touches only contiguous {@code long}s; a wider node (d = 4 by default) makes the heap
 * shallower and its sift-down cache-friendlier than a binary heap.
 */
public final class DaryHeapEventQueue implements EventQueue {
    private final int arity;
    private long[] times;
    private long[] orders;
    private Event[] events;
    private int size;

    public DaryHeapEventQueue() {
        this(4, 1024);
    }

    public DaryHeapEventQueue(int arity, int initialCapacity) {
        if (arity < 2 || arity > 16) {
            throw new IllegalArgumentException("heap arity must be in [2, 16], got " + arity);
        }
        if (initialCapacity < 1) {
            throw new IllegalArgumentException("initial capacity must be positive, got " + initialCapacity);
        }
        this.arity = arity;
        times = new long[initialCapacity];
        orders = new long[initialCapacity];
        events = new Event[initialCapacity];
    }

    @Override
    public void add(Event e) {
        if (size == events.length) {
            int cap = size * 2;
            times = Arrays.copyOf(times, cap);
            orders = Arrays.copyOf(orders, cap);
            events = Arrays.copyOf(events, cap);
        }
        siftUp(size++, e.time, e.order, e);
    }

    @Override
    public Event peek() {
        return size == 0 ? null : events[0];
    }

    @Override
    public Event poll() {
        if (size == 0) {
            return null;
        }
        Event top = events[0];
        removeAt(0);
        return top;
    }

    @Override
    public void remove(Event e) {
        int i = e.slot;
        if (i < 0 || i >= size || events[i] != e) {
            throw new IllegalStateException("event '" + e.name() + "' is not in this queue");
        }
        removeAt(i);
    }

    private void removeAt(int i) {
        Event removed = events[i];
        removed.slot = -1;
        int last = --size;
        if (i != last) {
            long t = times[last];
            long o = orders[last];
            Event moved = events[last];
            events[last] = null;
            // The moved entry may belong above or below i.
            if (i > 0 && less(t, o, times[(i - 1) / arity], orders[(i - 1) / arity])) {
                siftUp(i, t, o, moved);
            } else {
                siftDown(i, t, o, moved);
            }
        } else {
            events[last] = null;
        }
    }

    private static boolean less(long t1, long o1, long t2, long o2) {
        return t1 < t2 || (t1 == t2 && o1 < o2);
    }

    private void siftUp(int i, long t, long o, Event e) {
        while (i > 0) {
            int parent = (i - 1) / arity;
            long pt = times[parent];
            if (t > pt || (t == pt && o >= orders[parent])) {
                break;
            }
            place(i, pt, orders[parent], events[parent]);
            i = parent;
        }
        place(i, t, o, e);
    }

    private void siftDown(int i, long t, long o, Event e) {
        final int n = size;
        while (true) {
            int first = i * arity + 1;
            if (first >= n) {
                break;
            }
            int end = Math.min(first + arity, n);
            int best = first;
            long bt = times[first];
            long bo = orders[first];
            for (int c = first + 1; c < end; c++) {
                long ct = times[c];
                if (ct < bt || (ct == bt && orders[c] < bo)) {
                    best = c;
                    bt = ct;
                    bo = orders[c];
                }
            }
            if (t < bt || (t == bt && o < bo)) {
                break;
            }
            place(i, bt, bo, events[best]);
            i = best;
        }
        place(i, t, o, e);
    }

    private void place(int i, long t, long o, Event e) {
        times[i] = t;
        orders[i] = o;
        events[i] = e;
        e.slot = i;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public void clear() {
        for (int i = 0; i < size; i++) {
            events[i].slot = -1;
            events[i] = null;
        }
        size = 0;
    }
}
