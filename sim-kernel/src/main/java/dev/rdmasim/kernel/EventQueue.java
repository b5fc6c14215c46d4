package dev.rdmasim.kernel;

/**
 * The pending-event set. Implementations order events by ({@code time}, {@code order}) where
 * {@code order} packs priority and insertion sequence; they must keep each event's {@code slot}
 * non-negative while it is queued and set it to -1 when it leaves the queue.
 */
public interface EventQueue {
    void add(Event e);

    /** The next event, or null when empty. Does not remove it. */
    Event peek();

    /** Removes and returns the next event, or null when empty. */
    Event poll();

    /** Removes a queued event. */
    void remove(Event e);

    int size();

    default boolean isEmpty() {
        return size() == 0;
    }

    /** Drops every event (slots are reset). */
    void clear();
}
