package dev.rdmasim.kernel;

import java.util.Objects;

/**
 * Something that happens at a point in simulated time. Events are created once (typically as final
 * fields of the block that owns them) and rescheduled as often as needed, so the hot path allocates
 * nothing per occurrence.
 *
 * <p>Order among events is (time, priority, insertion sequence): a lower priority value runs first,
 * and events with equal time and priority run in the order they were scheduled.
 */
public final class Event {
    /** Priority of ordinary events. */
    public static final int DEFAULT_PRIORITY = 0;
    public static final int MIN_PRIORITY = -(1 << 15);
    public static final int MAX_PRIORITY = (1 << 15) - 1;

    private final Simulator sim;
    private final String name;
    private final Runnable action;
    private final int priority;

    // Queue bookkeeping, owned by the EventQueue implementation.
    long time;
    long order;
    int slot = -1;
    /** Next event in a calendar-queue bucket; owned by the calendar queues. */
    Event next;
    /** Last event of the bucket this event heads; owned by {@link CalendarEventQueue}. */
    Event tail;
    /** Times this event ran, and the host nanoseconds its action took, while the simulator timed events. */
    long timedCount;
    long timedNs;

    Event(Simulator sim, String name, int priority, Runnable action) {
        this.sim = Objects.requireNonNull(sim, "sim");
        this.name = Objects.requireNonNull(name, "name");
        this.action = Objects.requireNonNull(action, "action");
        if (priority < MIN_PRIORITY || priority > MAX_PRIORITY) {
            throw new IllegalArgumentException("event '" + name + "': priority " + priority
                    + " outside [" + MIN_PRIORITY + ", " + MAX_PRIORITY + "]");
        }
        this.priority = priority;
    }

    public String name() {
        return name;
    }

    public int priority() {
        return priority;
    }

    public boolean scheduled() {
        return slot >= 0;
    }

    /** The time this event is scheduled for; only meaningful while {@link #scheduled()}. */
    public long time() {
        if (slot < 0) {
            throw new IllegalStateException("event '" + name + "' is not scheduled");
        }
        return time;
    }

    /** Schedules at absolute time {@code timePs}; refused if in the past or already scheduled. */
    public void schedule(long timePs) {
        sim.schedule(this, timePs);
    }

    /** Schedules {@code delayPs} after the current time. */
    public void scheduleIn(long delayPs) {
        if (delayPs < 0) {
            throw new IllegalArgumentException("event '" + name + "': negative delay " + delayPs + " ps");
        }
        sim.schedule(this, sim.now() + delayPs);
    }

    /** Moves a scheduled event (or schedules an idle one) to {@code timePs}, with a fresh sequence number. */
    public void reschedule(long timePs) {
        if (scheduled()) {
            sim.cancel(this);
        }
        sim.schedule(this, timePs);
    }

    /** Removes the event from the queue; returns false if it was not scheduled. */
    public boolean cancel() {
        if (!scheduled()) {
            return false;
        }
        sim.cancel(this);
        return true;
    }

    void fire() {
        action.run();
    }

    @Override
    public String toString() {
        return scheduled() ? name + "@" + time + "ps" : name + "(idle)";
    }
}
