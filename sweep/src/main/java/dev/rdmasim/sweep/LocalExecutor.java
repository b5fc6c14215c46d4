package dev.rdmasim.sweep;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Runs points on a fixed pool of threads of this JVM, one simulation per thread at a time. Results are handed to
 * the sink on the calling thread, in completion order. When a point fails, points not yet started are dropped,
 * those running finish and are still reported (so a resumed sweep need not run them again), then the failure is
 * thrown. The threads are daemons: an abandoned sweep does not keep the JVM alive.
 */
final class LocalExecutor implements PointExecutor {
    private final int jobs;
    private final ExecutorService pool;

    LocalExecutor(int jobs) {
        if (jobs < 1) {
            throw new IllegalArgumentException("jobs must be at least 1, got " + jobs);
        }
        this.jobs = jobs;
        AtomicInteger n = new AtomicInteger();
        this.pool = Executors.newFixedThreadPool(jobs, r -> {
            Thread t = new Thread(r, "rdmasim-sweep-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public void execute(List<Point> points, Consumer<PointResult> onResult) {
        CompletionService<PointResult> done = new ExecutorCompletionService<>(pool);
        List<Future<PointResult>> futures = new ArrayList<>(points.size());
        for (Point p : points) {
            futures.add(done.submit(() -> PointRunner.run(p)));
        }
        RuntimeException failure = null;
        try {
            // Every submitted task comes back through the completion queue, cancelled ones included.
            for (int i = 0; i < points.size(); i++) {
                Future<PointResult> f = done.take();
                if (f.isCancelled()) {
                    continue;
                }
                try {
                    onResult.accept(f.get());
                } catch (ExecutionException e) {
                    if (failure == null) {
                        failure = failure(e.getCause());
                        futures.forEach(x -> x.cancel(false));
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            futures.forEach(x -> x.cancel(true));
            throw new SweepFailure("the sweep was interrupted", e);
        } catch (RuntimeException | Error e) {
            // The sink failed (e.g. it could not persist a result): stop here.
            futures.forEach(x -> x.cancel(false));
            throw e;
        }
        if (failure != null) {
            throw failure;
        }
    }

    private static RuntimeException failure(Throwable cause) {
        if (cause instanceof SweepFailure f) {
            return f;
        }
        return new SweepFailure("a point failed: " + cause, cause);
    }

    @Override
    public int parallelism() {
        return jobs;
    }

    @Override
    public String describe() {
        return "local, " + jobs + (jobs == 1 ? " thread" : " threads");
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }
}
