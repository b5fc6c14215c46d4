package dev.rdmasim.sweep.hazelcast;

import dev.rdmasim.sweep.Point;
import dev.rdmasim.sweep.PointResult;
import java.io.Serializable;
import java.util.concurrent.Callable;

/**
 * One point, sent to one member. It never throws: whatever the point does comes back as a {@link Outcome}, so that
 * a failed future always means the member or the connection failed, never the point.
 */
final class PointTask implements Callable<PointTask.Outcome>, Serializable {
    private static final long serialVersionUID = 1L;

    private final Point point;
    private final PointFunction function;

    PointTask(Point point, PointFunction function) {
        this.point = point;
        this.function = function;
    }

    @Override
    public Outcome call() {
        try {
            return new Outcome(function.apply(point), null, false);
        } catch (Throwable t) {
            // An interrupt here comes from the member shutting down its executor (or our cancel): not the point's fault.
            if (Thread.currentThread().isInterrupted() || interruption(t)) {
                return new Outcome(null, null, true);
            }
            return new Outcome(null, new RemoteFailure(t), false);
        }
    }

    private static boolean interruption(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof InterruptedException) {
                return true;
            }
        }
        return false;
    }

    /**
     * What running the point gave: its result, or the exception it threw, or neither because the member interrupted
     * it (it is shutting down, and the point must run elsewhere).
     */
    record Outcome(PointResult result, RemoteFailure failure, boolean interrupted) implements Serializable {
    }
}
