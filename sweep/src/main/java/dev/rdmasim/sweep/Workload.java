package dev.rdmasim.sweep;

import java.io.Serializable;
import java.util.List;
import java.util.Objects;

/**
 * What every point of a sweep runs: a perftest-style workload or a trace. Plain strings only, so a point can
 * travel to another machine: a trace goes with its text rather than a path the worker may not have.
 *
 * @param perfTest  the perf test ({@code write_bw}, ...) or null for a trace workload
 * @param perfArgs  the perf flags every point shares, as on the command line ({@code -n 1000000})
 * @param traceName the trace's file name (for messages and outputs) or null for a perf workload
 * @param traceText the trace's whole text, or null for a perf workload
 */
public record Workload(String perfTest, List<String> perfArgs, String traceName, String traceText)
        implements Serializable {
    public Workload {
        perfArgs = List.copyOf(perfArgs);
        if ((perfTest == null) == (traceText == null)) {
            throw new IllegalArgumentException("a workload is either a perf test or a trace");
        }
    }

    public static Workload perf(String test, List<String> args) {
        return new Workload(Objects.requireNonNull(test), args, null, null);
    }

    public static Workload trace(String name, String text) {
        return new Workload(null, List.of(), Objects.requireNonNull(name), Objects.requireNonNull(text));
    }

    public boolean isPerf() {
        return perfTest != null;
    }

    /** A short label: the perf test or the trace's name. */
    public String label() {
        return isPerf() ? perfTest : traceName;
    }
}
