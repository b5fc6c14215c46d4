package dev.rdmasim.traces.perf;

/** The figures of one message size of a perf run. */
public sealed interface PerfResult permits BwResult, LatResult {
    PerfTest test();

    /** Message size in bytes. */
    int bytes();

    /** Iterations reported (bandwidth tests: messages over all QPs, as perftest counts them). */
    int iterations();

    /** Simulated time of the measured part, from the first post to the last completion, in picoseconds. */
    long simTimePs();

    /** Wall-clock seconds this size took to simulate (the one figure that differs between equal runs). */
    double wallSeconds();
}
