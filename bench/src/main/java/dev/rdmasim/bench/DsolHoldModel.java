package dev.rdmasim.bench;

import nl.tudelft.simulation.dsol.eventlists.EventListInterface;
import nl.tudelft.simulation.dsol.formalisms.eventscheduling.AbstractSimEvent;
import nl.tudelft.simulation.dsol.formalisms.eventscheduling.SimEventInterface;

/**
 * The hold model on a DSOL event list alone, without DSOL's simulator: we remove the first event,
 * take its time as the clock and add a successor ourselves.
 *
 * <p>DSOL events are immutable (their time and tie-breaking id are fixed at construction, and the
 * list is ordered by them), so each firing schedules a new event object, as DSOL's own simulator
 * does. The event type is a minimal {@link AbstractSimEvent} rather than {@code SimEvent}, whose
 * reflective method call would measure reflection rather than the event list.
 */
public final class DsolHoldModel implements HoldModel {
    private final EventListInterface<Double> list;
    private double now;
    private int cursor;

    public DsolHoldModel(EventListInterface<Double> list, int pending) {
        this.list = list;
        for (int i = 0; i < pending; i++) {
            list.add(new Hold(HoldIncrements.asDouble(cursor++)));
        }
    }

    private final class Hold extends AbstractSimEvent<Double> {
        Hold(double time) {
            super(time);
        }

        @Override
        public void execute() {
            list.add(new Hold(now + HoldIncrements.asDouble(cursor++)));
        }
    }

    @Override
    public void run(long events) {
        for (long n = 0; n < events; n++) {
            SimEventInterface<Double> e = list.removeFirst();
            if (e == null) {
                throw new IllegalStateException("ran " + n + " of " + events + " events");
            }
            now = e.getAbsoluteExecutionTime();
            e.execute();
        }
    }

    @Override
    public double now() {
        return now;
    }

    @Override
    public double nextTime() {
        SimEventInterface<Double> first = list.first();
        return first == null ? Double.POSITIVE_INFINITY : first.getAbsoluteExecutionTime();
    }

    @Override
    public int pending() {
        return list.size();
    }
}
