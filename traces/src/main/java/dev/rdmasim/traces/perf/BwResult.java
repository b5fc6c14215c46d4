package dev.rdmasim.traces.perf;

/**
 * A bandwidth row, as perftest computes it from the time each request was posted and the time its completion
 * was polled: average over the whole run (first post to last completion), peak over the best run of
 * consecutive requests that starts at a post list and ends at a signaled completion. Beside it, what perftest
 * cannot give: the latency of each request under that load, from its post to the poll that took its completion
 * (an unsignaled request completes with the signaled one after it), as nearest-rank percentiles.
 *
 * @param bwPeakGbps  bytes of the best window over its time, in Gb/s (10^9 bit/s)
 * @param bwAvgGbps   all bytes over the whole run time, in Gb/s
 * @param msgRateMpps messages over the whole run time, in millions per second
 * @param latP50Us    median post-to-completion latency under load, in microseconds
 * @param latP99Us    its 99th percentile
 * @param latP999Us   its 99.9th percentile
 */
public record BwResult(PerfTest test, int bytes, int iterations, double bwPeakGbps, double bwAvgGbps,
        double msgRateMpps, double latP50Us, double latP99Us, double latP999Us, long simTimePs, double wallSeconds)
        implements PerfResult {
}
