package dev.rdmasim.cli;

import java.io.PrintWriter;
import picocli.CommandLine.Option;

/** Options every command that writes a waveform and statistics shares (a picocli mixin). */
final class OutputOptions {
    @Option(names = "--vcd-signals", paramLabel = "GLOB",
            description = {"Comma-separated globs of signal names to trace (default: all).", "Example: 'nicA.tx.*,nicA.pcie.*'"})
    String signals = "";

    @Option(names = "--stats", description = "Also print every statistic.")
    boolean printStats;

    /** Prints the statistics table when asked for, else a hint that it exists. */
    void printStats(PrintWriter o, String statsText) {
        if (printStats) {
            o.println();
            o.print(statsText);
        } else {
            o.println("  (--stats prints every statistic)");
        }
        o.flush();
    }
}
