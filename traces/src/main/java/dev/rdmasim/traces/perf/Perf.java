package dev.rdmasim.traces.perf;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Runs perftest-style workloads on a fresh simulation: two hosts of {@link PerfOptions#effectiveProfile()},
 * cabled, {@code -q} QPs connected from host A (the client) to host B (the server) through a listener and
 * connectors, then each message size in turn on those connections. Everything goes through the NDK calls.
 * Equal options (seed included) give equal results, except the wall-clock seconds.
 */
public final class Perf {
    private Perf() {
    }

    /** Runs every size of {@code options}; one result per size, in order. */
    public static List<PerfResult> run(PerfOptions options) {
        return run(options, r -> { });
    }

    /**
     * As {@link #run(PerfOptions)}, handing each result to {@code onResult} as soon as its size is done (a
     * command prints rows as they come, a sweep records progress).
     *
     * @throws PerfFailure when a call or completion fails or the workload stops making progress
     */
    public static List<PerfResult> run(PerfOptions options, Consumer<? super PerfResult> onResult) {
        PerfRun run = new PerfRun(options);
        List<PerfResult> out = new ArrayList<>();
        for (int size : options.sizes()) {
            PerfResult r = run.runSize(size);
            out.add(r);
            onResult.accept(r);
        }
        run.finish();
        return out;
    }
}
