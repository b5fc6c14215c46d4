package dev.rdmasim.bench;

import dev.rdmasim.kernel.AdaptiveEventQueue;
import dev.rdmasim.kernel.CalendarEventQueue;
import dev.rdmasim.kernel.DaryHeapEventQueue;
import dev.rdmasim.kernel.EventQueue;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.Simulator;

/** The hold model on our kernel: N reusable events, each rescheduling itself when it fires. */
public final class KernelHoldModel implements HoldModel {
    private final Simulator sim;
    private int cursor;

    public KernelHoldModel(int pending, String queue) {
        sim = new Simulator(1L, queue(queue, pending));
        for (int i = 0; i < pending; i++) {
            Hold action = new Hold();
            action.event = sim.event("hold", action);
            action.event.scheduleIn(HoldIncrements.ps(cursor++));
        }
    }

    /** {@code adaptive} (the simulator's default), {@code calendar} or {@code heapD} (a d-ary heap, e.g. {@code heap4}). */
    static EventQueue queue(String name, int pending) {
        if (name.equals("adaptive")) {
            return new AdaptiveEventQueue();
        }
        if (name.equals("calendar")) {
            return new CalendarEventQueue();
        }
        if (name.startsWith("heap")) {
            return new DaryHeapEventQueue(Integer.parseInt(name.substring(4)), pending);
        }
        throw new IllegalArgumentException("unknown queue '" + name + "': expected adaptive, calendar or heapD");
    }

    /** The event's action; it needs its own event to reschedule it. */
    private final class Hold implements Runnable {
        Event event;

        @Override
        public void run() {
            event.scheduleIn(HoldIncrements.ps(cursor++));
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
        return sim.now();
    }

    @Override
    public double nextTime() {
        return sim.nextEventTime();
    }

    @Override
    public int pending() {
        return sim.pendingEvents();
    }
}
