/**
 * Perftest-style workloads ({@code send_bw}, {@code write_bw}, {@code read_bw}, {@code send_lat},
 * {@code write_lat}, {@code read_lat}) run through the NDK calls on two cabled hosts: {@link
 * dev.rdmasim.traces.perf.Perf#run} takes {@link dev.rdmasim.traces.perf.PerfOptions} and returns one
 * {@link dev.rdmasim.traces.perf.PerfResult} per message size, with bandwidth and latency figures computed
 * from posting and completion times the way perftest reports them.
 */
package dev.rdmasim.traces.perf;
