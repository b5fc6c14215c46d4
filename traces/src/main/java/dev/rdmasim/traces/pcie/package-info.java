/**
 * PCIe DMA workloads in the manner of pcie-bench (Neugebauer et al., SIGCOMM 2018): the adapter's DMA engine streams
 * reads or writes of one size to host memory and the benchmark reports bandwidth and read latency. Entry point:
 * {@link dev.rdmasim.traces.pcie.PcieBench#run}; see {@code docs/cli.md}.
 */
package dev.rdmasim.traces.pcie;
