package dev.rdmasim.sweep;

import java.util.List;
import java.util.function.Consumer;

/**
 * Runs sweep points somewhere: threads of this JVM, or members of a cluster. The one seam between the sweep
 * and an execution engine; engines live in their own modules and never in the kernel or the model.
 *
 * <p>Each point is run by {@link PointRunner#run(Point)} wherever the engine puts it. Results may arrive in
 * any order and on any thread; the sweep orders them by {@link Point#index()}.
 */
public interface PointExecutor extends AutoCloseable {
    /**
     * Runs every point, handing each result to {@code onResult} as it completes (calls are serialised by the
     * executor: the sink need not be thread-safe). Returns when all are done.
     *
     * @throws SweepFailure when a point fails; points already reported stay reported
     */
    void execute(List<Point> points, Consumer<PointResult> onResult);

    /** How many points run at once. */
    int parallelism();

    /** For the sweep's summary: e.g. {@code local, 8 threads} or {@code hazelcast, 3 members}. */
    String describe();

    @Override
    void close();
}
