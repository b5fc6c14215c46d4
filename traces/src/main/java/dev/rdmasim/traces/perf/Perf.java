package dev.rdmasim.traces.perf;

import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.traces.record.TraceRecorder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
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
        return run(options, onResult, null);
    }

    /**
     * As {@link #run(PerfOptions, Consumer)}, recording every NDK call of the run (setup, posts, and every poll,
     * empty ones included, since each costs the host's poll time) as a trace at {@code record} (null: none).
     * The trace is complete only when the run is: a failed run leaves none.
     */
    public static List<PerfResult> run(PerfOptions options, Consumer<? super PerfResult> onResult, Path record) {
        return run(options, onResult, record, sim -> { }, sim -> { });
    }

    /**
     * As {@link #run(PerfOptions, Consumer, Path)}, handing the simulation to {@code atStart} once the hosts are
     * connected, just before the first size runs, and to {@code atEnd} once every size is done, before the
     * connections close: what a tool reads from the statistics at both instants covers the measured part alone
     * (setup takes hundreds of microseconds, as long as a short run).
     */
    public static List<PerfResult> run(PerfOptions options, Consumer<? super PerfResult> onResult, Path record,
            Consumer<? super Simulator> atStart, Consumer<? super Simulator> atEnd) {
        TraceRecorder recorder = null;
        if (record != null) {
            try {
                recorder = new TraceRecorder(record, "recorded by rdmasim perf " + options.test().label() + " (seed "
                        + options.seed() + "); polls are the workload's own, empty ones included");
            } catch (IOException e) {
                throw new UncheckedIOException("cannot record into " + record, e);
            }
        }
        boolean ok = false;
        try {
            PerfRun run = new PerfRun(options, recorder);
            atStart.accept(run.sim());
            List<PerfResult> out = new ArrayList<>();
            for (int size : options.sizes()) {
                PerfResult r = run.runSize(size);
                out.add(r);
                onResult.accept(r);
            }
            atEnd.accept(run.sim());
            run.finish();
            if (recorder != null) {
                recorder.close();
            }
            ok = true;
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the recorded trace " + record, e);
        } finally {
            if (!ok && recorder != null) {
                recorder.abandon();
            }
        }
    }
}
