package dev.rdmasim.kernel;

import java.util.Comparator;
import java.util.TreeSet;

/**
 * A reference implementation on {@link TreeSet}: obviously correct, slower, and allocating. Tests
 * replay the same schedule on it and on the fast queues to prove they order events identically.
 */
public final class SortedSetEventQueue implements EventQueue {
    private final TreeSet<Event> set = new TreeSet<>(
            Comparator.<Event>comparingLong(e -> e.time).thenComparingLong(e -> e.order));

    @Override
    public void add(Event e) {
        set.add(e);
        e.slot = 0;
    }

    @Override
    public Event peek() {
        return set.isEmpty() ? null : set.first();
    }

    @Override
    public Event poll() {
        Event e = set.pollFirst();
        if (e != null) {
            e.slot = -1;
        }
        return e;
    }

    @Override
    public void remove(Event e) {
        if (!set.remove(e)) {
            throw new IllegalStateException("event '" + e.name() + "' is not in this queue");
        }
        e.slot = -1;
    }

    @Override
    public int size() {
        return set.size();
    }

    @Override
    public void clear() {
        set.forEach(e -> e.slot = -1);
        set.clear();
    }
}
