package dev.rdmasim.cli;

import dev.rdmasim.kernel.Time;
import dev.rdmasim.kernel.demo.KernelDemo;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Locale;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code rdmasim demo}: runnable examples that show where to look next. */
@Command(name = "demo",
        mixinStandardHelpOptions = true,
        description = {"Runs a shipped demonstration and shows where to look next.",
            "Without a subcommand, runs the kernel demo (the adapter demo arrives with the adapter model)."},
        subcommands = {DemoCommand.Kernel.class})
final class DemoCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        new CommandLine(new Kernel()).execute();
    }

    @Command(name = "kernel",
            mixinStandardHelpOptions = true,
            description = {"A producer on a 250 MHz clock feeds a 4-entry FIFO, a clock-domain crossing into 1 GHz,",
                "a 3-cycle delay line and a consumer that stalls at random. Writes a waveform and statistics."})
    static final class Kernel implements Runnable {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Option(names = "--out", paramLabel = "DIR", description = "Output directory (default: ${DEFAULT-VALUE}).")
        Path out = Path.of("rdmasim-out", "demo-kernel");

        @Option(names = "--seed", paramLabel = "N", description = "Run seed (default: ${DEFAULT-VALUE}).")
        long seed = 1;

        @Option(names = "--tokens", paramLabel = "N", description = "Tokens to push through (default: ${DEFAULT-VALUE}).")
        long tokens = 10_000;

        @Option(names = "--vcd-signals", paramLabel = "GLOB",
                description = "Comma-separated globs of signals to trace, e.g. 'demo.sink*,demo.source.sent' (default: all).")
        String signals = "";

        @Option(names = "--stats", description = "Also print every statistic.")
        boolean printStats;

        @Override
        public void run() {
            if (tokens < 1) {
                throw new UserError("--tokens must be at least 1, got " + tokens);
            }
            KernelDemo.Result r;
            try {
                r = KernelDemo.run(out, seed, tokens, signals);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write demo output to " + out, e);
            }
            PrintWriter o = spec.commandLine().getOut();
            o.printf(Locale.ROOT, "kernel demo: %d tokens from a 250 MHz producer to a 1 GHz consumer%n", r.tokens());
            o.printf(Locale.ROOT, "  simulated time   %s (%d events)%n", Time.format(r.simTimePs()), r.events());
            o.printf(Locale.ROOT, "  throughput       %.1f Mtokens/s%n", r.throughputMtps());
            o.printf(Locale.ROOT, "  latency          mean %.1f ns, p99 %s%n", r.meanLatencyNs(), Time.format(r.p99LatencyPs()));
            o.printf(Locale.ROOT, "  waveform         %s   (gtkwave %s)%n", r.vcd(), r.vcd());
            o.printf(Locale.ROOT, "  statistics       %s%n", r.statsJson());
            if (printStats) {
                o.println();
                o.print(r.statsText());
            } else {
                o.println("  (--stats prints every statistic)");
            }
            o.flush();
        }
    }
}
