package dev.rdmasim.traces.perf;

/**
 * A latency row in microseconds, as perftest computes it: the samples are the times between consecutive posts
 * of the client (a round trip; halved for send and write ping-pong, whole for read), sorted, the two largest
 * dropped; {@code tMaxUs} is the smaller of those two dropped (what perftest prints as t_max), {@code
 * tTypicalUs} the median of the rest, average and (population) standard deviation over the rest, and the 99%
 * and 99.9% percentiles of the rest by nearest rank (the least sample with that share of the rest at or below it).
 */
public record LatResult(PerfTest test, int bytes, int iterations, double tMinUs, double tMaxUs, double tTypicalUs,
        double tAvgUs, double tStdevUs, double tP99Us, double tP999Us, long simTimePs, double wallSeconds)
        implements PerfResult {
}
