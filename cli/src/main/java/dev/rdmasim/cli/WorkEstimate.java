package dev.rdmasim.cli;

import java.time.Duration;
import java.util.Optional;

/**
 * The time left of a run whose steps cost unequal work, such as the sizes of {@code perf -a} (2 B to 8 MiB: the
 * last size alone is half the packets). The time left is the work left at the rate of the last step done, less the
 * time the current step has run: counting steps, the small sizes done first would promise seconds where minutes
 * are left.
 */
final class WorkEstimate {
    /** {@code done[i]}: the work of steps 0..i-1. */
    private final double[] done;
    private final long startNanos;
    private int steps;
    private long lastStepNanos;
    private double nanosPerWork = Double.NaN;

    /** {@code work[i]} estimates what step i costs, in any unit (only ratios matter). */
    WorkEstimate(double[] work, long startNanos) {
        done = new double[work.length + 1];
        for (int i = 0; i < work.length; i++) {
            done[i + 1] = done[i] + Math.max(work[i], Double.MIN_NORMAL);
        }
        this.startNanos = startNanos;
        this.lastStepNanos = startNanos;
    }

    /** Steps {@code 0..n-1} are done at {@code nowNanos}. */
    synchronized void stepsDone(int n, long nowNanos) {
        if (n <= steps || n >= done.length) {
            return;
        }
        nanosPerWork = (nowNanos - lastStepNanos) / (done[n] - done[steps]);
        steps = n;
        lastStepNanos = nowNanos;
    }

    /** The time left at {@code nowNanos}; empty until a step is done. */
    synchronized Optional<Duration> left(long nowNanos) {
        if (Double.isNaN(nanosPerWork)) {
            return Optional.empty();
        }
        double left = (done[done.length - 1] - done[steps]) * nanosPerWork - (nowNanos - lastStepNanos);
        return Optional.of(Duration.ofNanos((long) Math.max(0, left)));
    }

    long startNanos() {
        return startNanos;
    }
}
