/**
 * The register-transfer layer of the kernel: clock domains, two-phase clocked modules with
 * registers, ready/valid channels with separate producer and consumer ends, queues (with flow and
 * pipe options, fixed-latency delay lines, clock-domain crossings) and inboxes where
 * transaction-level traffic enters a clocked block.
 *
 * <p>The rule that makes results independent of evaluation order: during {@code evaluate()} a
 * module reads only committed state (its registers, the signals its peers drive, and which
 * transfers fire this cycle, latched before any module runs) and writes only next state.
 */
package dev.rdmasim.kernel.hw;
