package dev.rdmasim.sweep;

/**
 * Runs one point on a fresh simulation in the calling thread: the function every executor applies.
 * Simulations share no mutable state, so points run safely on parallel threads.
 */
public final class PointRunner {
    private PointRunner() {
    }

    /** Runs {@code point}; throws {@link SweepFailure} naming the point when its workload fails. */
    public static PointResult run(Point point) {
        throw new UnsupportedOperationException("not yet built");
    }
}
