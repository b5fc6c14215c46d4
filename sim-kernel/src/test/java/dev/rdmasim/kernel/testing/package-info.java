/**
 * Test support shared by the modules' tests (published as sim-kernel's test jar): {@link
 * dev.rdmasim.kernel.testing.ExternalTool} finds the programs some tests run on the simulator's outputs (GTKWave's
 * vcd2fst, Wireshark's tshark) and skips or fails a test when one is missing; {@link
 * dev.rdmasim.kernel.testing.VcdChanges} reads a waveform dump back as each signal's timed changes.
 */
package dev.rdmasim.kernel.testing;
