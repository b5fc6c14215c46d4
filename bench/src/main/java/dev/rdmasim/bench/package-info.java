/**
 * JMH benchmarks. The {@code *Hold} benchmarks run the classic hold model (N pending events, each
 * rescheduling itself at an exponential increment) on our kernel and on the SSJ and DSOL event
 * lists, all fed from one shared table of increments so they simulate the same trajectory.
 * {@code AdapterWriteBench} runs the whole adapter pair and {@code WriteFloorBench} only the byte work a WRITE
 * cannot avoid; {@code RoceCodecBench} the frame codec. {@code dev.rdmasim.adapter.pcie.LinkBench}, in the link's
 * own package to reach its package-private interface, runs one direction of the PCIe link alone.
 * {@code WindowBarrierBench} prices the synchronisation a simulation split over two threads would pay per window.
 * Not JMH: {@code AdapterSpeed} times the adapter pair in quarter-second slices (and each event's cost by name), and
 * {@code CountedWrites} runs a fixed number of WRITEs for counting instructions under cachegrind.
 */
package dev.rdmasim.bench;
