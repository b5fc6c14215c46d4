package dev.rdmasim.traces.perf;

/**
 * A bandwidth row, as perftest computes it from the time each request was posted and the time its completion
 * was polled: average over the whole run (first post to last completion), peak over the best run of
 * consecutive requests that starts at a post list and ends at a signaled completion.
 *
 * @param bwPeakGbps  bytes of the best window over its time, in Gb/s (10^9 bit/s)
 * @param bwAvgGbps   all bytes over the whole run time, in Gb/s
 * @param msgRateMpps messages over the whole run time, in millions per second
 */
public record BwResult(PerfTest test, int bytes, int iterations, double bwPeakGbps, double bwAvgGbps,
        double msgRateMpps, long simTimePs, double wallSeconds) implements PerfResult {
}
