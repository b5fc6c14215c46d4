/**
 * Test support shared by the modules' tests (published as sim-kernel's test jar): {@link
 * dev.rdmasim.kernel.testing.ExternalTool} finds the programs some tests run on the simulator's outputs (GTKWave's
 * vcd2fst, Wireshark's tshark) and skips or fails a test when one is missing.
 */
package dev.rdmasim.kernel.testing;
