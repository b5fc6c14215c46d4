package dev.rdmasim.traces.replay;

import java.nio.file.Path;
import java.util.Map;

/**
 * What a replay did: simulated time, how many lines and completions, bytes moved and the outputs written.
 *
 * @param simTimePs     simulated time at the end (setup included)
 * @param firstCallPs   when the first call after the setup ran (0 if none)
 * @param statusCounts  completions (and refused calls) by NTSTATUS name, in name order
 * @param completionsCsv and the other paths: the files written, null for those the run did not write
 */
public record ReplayResult(long simTimePs, long firstCallPs, long events, long calls, long completions, long bytes,
        Map<String, Long> statusCounts, double latencyP50Ns, double latencyP99Ns, Path completionsCsv,
        Path summaryJson, Path lifecycleCsv, Path vcd, Path timeline, Path pcap, Path notificationsCsv) {
    /** Payload throughput of the initiator requests, from the first call to the end, Gb/s. */
    public double gbps() {
        long span = simTimePs - firstCallPs;
        return span <= 0 ? 0 : bytes * 8.0 / (span / 1000.0);
    }
}
