package dev.rdmasim.bench;

import umontreal.ssj.simevents.Event;
import umontreal.ssj.simevents.Simulator;
import umontreal.ssj.simevents.eventlist.EventList;

/**
 * The hold model on SSJ's simulator with a chosen event list.
 *
 * <p>SSJ can only run until {@code stop()}, so we subclass its {@link Simulator} to get a loop that
 * fires a fixed number of events. The loop goes through the protected {@code removeFirstEvent()},
 * exactly as {@code Simulator.start()} does: that is what advances SSJ's clock to the event's time
 * and marks the event unscheduled. Taking events straight off {@code getEventList()} would skip
 * both, so {@code Event.schedule(delay)} would measure delays from a stale clock (and refuse to
 * reschedule an event it still believes is scheduled).
 */
public final class SsjHoldModel implements HoldModel {
    private final CountingSimulator sim = new CountingSimulator();
    private int cursor;

    public SsjHoldModel(EventList list, int pending) {
        sim.init(list);
        for (int i = 0; i < pending; i++) {
            new Hold(sim).schedule(HoldIncrements.asDouble(cursor++));
        }
    }

    /** SSJ's own run loop, bounded by an event count instead of a stop event. */
    private static final class CountingSimulator extends Simulator {
        long run(long events) {
            long n = 0;
            Event e;
            while (n < events && (e = removeFirstEvent()) != null) {
                n++;
                e.actions();
            }
            return n;
        }
    }

    private final class Hold extends Event {
        Hold(Simulator sim) {
            super(sim);
        }

        @Override
        public void actions() {
            // Relative to sim.time(), which removeFirstEvent() set to this event's time.
            schedule(HoldIncrements.asDouble(cursor++));
        }
    }

    @Override
    public void run(long events) {
        long ran = sim.run(events);
        if (ran != events) {
            throw new IllegalStateException("ran " + ran + " of " + events + " events");
        }
    }

    @Override
    public double now() {
        return sim.time();
    }

    @Override
    public double nextTime() {
        Event first = sim.getEventList().getFirst();
        return first == null ? Double.POSITIVE_INFINITY : first.time();
    }

    /** SSJ's event lists have no size(), so this walks the list: fine for tests, O(N). */
    @Override
    public int pending() {
        int n = 0;
        for (Event ignored : sim.getEventList()) {
            n++;
        }
        return n;
    }
}
