package dev.rdmasim.traces.perf;

/** A perf run could not complete: a call or a completion failed, or the workload stopped making progress. */
public final class PerfFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public PerfFailure(String message) {
        super(message);
    }
}
