package dev.rdmasim.cli;

import dev.rdmasim.adapter.config.Profiles;
import dev.rdmasim.kernel.Time;
import dev.rdmasim.kernel.demo.KernelDemo;
import dev.rdmasim.kernel.wave.SignalGlobError;
import dev.rdmasim.traces.Examples;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code rdmasim demo}: the README's first command. Replays a shipped example trace (from the jar, so it runs from any
 * directory) with every output, prints the replay's summary, then the commands that open each output. The
 * subcommands are the demonstrations that predate the trace replay: a WRITE stream built on the adapter model
 * directly (whose figures docs/performance.md quotes) and the kernel's own demonstration.
 */
@Command(name = "demo",
        mixinStandardHelpOptions = true,
        description = {"Replays a shipped example trace with every output and says where to look next.",
            "The example is quickstart unless --example names another (--list shows them all); it runs with --vcd"
                + " --timeline --pcap, then the replay's summary is followed by where to look: the waveform, the"
                + " timeline, the packets, the request narrated stage by stage, and the CSV files.",
            "Subcommands: adapter (a WRITE stream on the adapter model itself) and kernel (the simulation kernel's"
                + " own demonstration)."},
        subcommands = {DemoCommand.AdapterDemoCommand.class, DemoCommand.Kernel.class})
final class DemoCommand implements java.util.concurrent.Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--example", paramLabel = "NAME",
            description = "The shipped example to replay (default: ${DEFAULT-VALUE}; --list shows them all).")
    String example = "quickstart";

    @Option(names = "--list", description = "List the shipped examples and the idea each one shows, then exit.")
    boolean list;

    @Option(names = "--out", paramLabel = "DIR", description = {"Output directory; the example's trace is written there too",
        "(default: rdmasim-out/demo for the quickstart, rdmasim-out/demo-NAME for another example)."})
    Path out;

    @CommandLine.Mixin
    RunOptions opts = new RunOptions();

    @Override
    public Integer call() {
        PrintWriter o = spec.commandLine().getOut();
        if (list) {
            for (String name : Examples.names()) {
                o.printf(Locale.US, "%-20s %s%n", name, Examples.idea(name));
            }
            o.flush();
            return 0;
        }
        String name;
        try {
            name = Examples.resolve(example);
            Profiles.resolve(opts.profile).withOverrides(opts.overrides);
        } catch (IllegalArgumentException e) {
            throw new UserError(e.getMessage());
        }
        Path out = this.out != null ? this.out
                : Path.of("rdmasim-out", name.equals(Examples.names().get(0)) ? "demo" : "demo-" + name);
        Path trace;
        Optional<String> save = Examples.gtkwaveSave(name);
        OutputPaths.directory("--out", out);
        Path saveFile = out.resolve(name + ".gtkw");
        try {
            trace = Examples.extract(name, out);
            if (save.isPresent()) {
                Files.writeString(saveFile, save.get());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the example into " + out, e);
        }
        o.printf(Locale.US, "demo: the shipped example %s%n  %s%n%n", trace.getFileName(), Examples.idea(name));
        o.flush();
        List<String> args = new ArrayList<>(List.of(trace.toString(), "--out", out.toString(), "--vcd", "--timeline",
                "--pcap", "--profile", opts.profile, "--seed", Long.toString(opts.seed)));
        for (String kv : opts.overrides) {
            args.addAll(List.of("--set", kv));
        }
        CommandLine replay = new CommandLine(new ReplayCommand());
        replay.setOut(o);
        replay.setErr(spec.commandLine().getErr());
        replay.setExecutionExceptionHandler(spec.commandLine().getExecutionExceptionHandler());
        int code = replay.execute(args.toArray(String[]::new));
        if (code != 0) {
            return code;
        }
        String cmd = Main.command();
        o.println();
        List<String> lookAt = Examples.lookAt(name);
        if (!lookAt.isEmpty()) {
            o.println("what to look at (from the trace's comment):");
            for (String line : lookAt) {
                o.println("  " + (line.startsWith("Look at: ") ? line.substring("Look at: ".length()) : line));
            }
        }
        o.println();
        o.println("where to look next:");
        next(o, "the request, stage by stage", cmd + " explain " + trace + " --request 1");
        next(o, "waveform (GTKWave)", "gtkwave " + out.resolve("wave.vcd") + (save.isPresent() ? " " + saveFile : ""));
        next(o, "timeline (Perfetto)", "open https://ui.perfetto.dev, then Open trace file: " + out.resolve("timeline.json"));
        next(o, "packets (tshark, Wireshark)", "tshark -r " + out.resolve("wire.pcap") + " -V   (or: wireshark "
                + out.resolve("wire.pcap") + ")");
        next(o, "one row per completion", out.resolve("completions.csv").toString());
        next(o, "each request's stage times", out.resolve("lifecycle.csv") + "   (picoseconds; empty: stage skipped)");
        next(o, "every block's statistics", out.resolve("summary.json").toString());
        next(o, "the trace, to read and edit", trace + "   (then: " + cmd + " replay " + trace + ")");
        next(o, "the other examples", cmd + " demo --list, then " + cmd + " demo --example NAME");
        o.flush();
        return 0;
    }

    private static void next(PrintWriter o, String what, String how) {
        o.printf(Locale.US, "  %-29s %s%n", what, how);
    }

    @Command(name = "adapter",
            mixinStandardHelpOptions = true,
            description = {"Streams RDMA WRITEs from host A to host B straight on the adapter model.",
                "The WRITEs go through two modeled adapters (PCIe link, WQE fetch, payload DMA, RoCEv2 frames on a"
                    + " cable, responder DMA, ACKs, CQEs). Writes a waveform, a packet capture and statistics, and"
                    + " shows where the time of a request goes."})
    static final class AdapterDemoCommand implements Runnable {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Option(names = "--out", paramLabel = "DIR", description = "Output directory (default: ${DEFAULT-VALUE}).")
        Path out = Path.of("rdmasim-out", "demo-adapter");

        @Option(names = "--seed", paramLabel = "N", description = "Run seed (default: ${DEFAULT-VALUE}).")
        long seed = 1;

        @Option(names = "--profile", paramLabel = "NAME|FILE",
                description = "Adapter profile: a shipped name (default, cx3-like, connectib-like, cx5-like, cx6-like) or a YAML file (default: ${DEFAULT-VALUE}).")
        String profile = "default";

        @Option(names = "--set", paramLabel = "KEY=VALUE", description = {"Override a profile parameter (repeatable).", "Example: --set pcie.mps=128"})
        java.util.List<String> overrides = new java.util.ArrayList<>();

        @Option(names = {"-s", "--size"}, paramLabel = "BYTES", description = "Message size in bytes (default: ${DEFAULT-VALUE}).")
        int size = 4096;

        @Option(names = {"-n", "--messages"}, paramLabel = "N", description = "WRITEs to complete (default: ${DEFAULT-VALUE}).")
        long messages = 2_000;

        @Option(names = "--depth", paramLabel = "N", description = "WRITEs kept outstanding (default: ${DEFAULT-VALUE}).")
        int depth = 32;

        @CommandLine.Mixin
        OutputOptions output = new OutputOptions();

        @Override
        public void run() {
            if (size < 1 || messages < 1 || depth < 1) {
                throw new UserError("--size, --messages and --depth must be at least 1");
            }
            if (depth > 32_768) {
                throw new UserError("--depth must be at most 32768 (the largest send ring, 2^15 WQEs), got " + depth);
            }
            dev.rdmasim.adapter.config.Profile p;
            try {
                p = dev.rdmasim.adapter.config.Profiles.resolve(profile).withOverrides(overrides);
            } catch (IllegalArgumentException e) {
                throw new UserError(e.getMessage());
            }
            OutputPaths.directory("--out", out);
            dev.rdmasim.cli.demo.AdapterDemo.Result r;
            try {
                r = dev.rdmasim.cli.demo.AdapterDemo.run(out, seed, p, size, messages, depth, output.signals);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write demo output to " + out, e);
            } catch (SignalGlobError e) {
                throw new UserError("--vcd-signals: " + e.getMessage());
            } catch (IllegalArgumentException e) {
                throw new UserError(e.getMessage());
            }
            PrintWriter o = spec.commandLine().getOut();
            o.printf(Locale.US, "adapter demo: %d RDMA WRITEs of %d B from nicA to nicB, %d outstanding, profile %s%n",
                    r.messages(), r.messageBytes(), depth, r.profile());
            o.printf(Locale.US, "  simulated time   %s (%d events)%n", Time.format(r.simTimePs()), r.events());
            o.printf(Locale.US, "  throughput       %.2f Gb/s of payload, %.3f M WRITEs/s%n", r.gbps(), r.mmsgs());
            o.printf(Locale.US, "  latency          doorbell to CQE: median %.0f ns, p99 %.0f ns%n", r.p50Ns(), r.p99Ns());
            o.println("  where the time goes (mean per request):");
            for (var st : r.stages()) {
                o.printf(Locale.US, "    %-14s -> %-14s %9.1f ns%n", st.from(), st.to(), st.meanNs());
            }
            o.printf(Locale.US, "  waveform         %s   (gtkwave %s)%n", r.vcd(), r.vcd());
            o.printf(Locale.US, "  packets          %s   (wireshark %s)%n", r.pcap(), r.pcap());
            o.printf(Locale.US, "  statistics       %s%n", r.statsJson());
            output.printStats(o, r.statsText());
        }
    }

    @Command(name = "kernel",
            mixinStandardHelpOptions = true,
            description = {"Runs the simulation kernel's own demonstration and writes its waveform and statistics.",
                "A producer on a 250 MHz clock feeds a 4-entry FIFO, a clock-domain crossing into 1 GHz, a 3-cycle"
                    + " delay line and a consumer that stalls at random."})
    static final class Kernel implements Runnable {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Option(names = "--out", paramLabel = "DIR", description = "Output directory (default: ${DEFAULT-VALUE}).")
        Path out = Path.of("rdmasim-out", "demo-kernel");

        @Option(names = "--seed", paramLabel = "N", description = "Run seed (default: ${DEFAULT-VALUE}).")
        long seed = 1;

        @Option(names = "--tokens", paramLabel = "N", description = "Tokens to push through (default: ${DEFAULT-VALUE}).")
        long tokens = 10_000;

        @CommandLine.Mixin
        OutputOptions output = new OutputOptions();

        @Override
        public void run() {
            if (tokens < 1) {
                throw new UserError("--tokens must be at least 1, got " + tokens);
            }
            OutputPaths.directory("--out", out);
            KernelDemo.Result r;
            try {
                r = KernelDemo.run(out, seed, tokens, output.signals);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write demo output to " + out, e);
            } catch (SignalGlobError e) {
                throw new UserError("--vcd-signals: " + e.getMessage());
            }
            PrintWriter o = spec.commandLine().getOut();
            o.printf(Locale.US, "kernel demo: %d tokens from a 250 MHz producer to a 1 GHz consumer%n", r.tokens());
            o.printf(Locale.US, "  simulated time   %s (%d events)%n", Time.format(r.simTimePs()), r.events());
            o.printf(Locale.US, "  throughput       %.1f Mtokens/s%n", r.throughputMtps());
            o.printf(Locale.US, "  latency          mean %.1f ns, p99 %s%n", r.meanLatencyNs(), Time.format(r.p99LatencyPs()));
            o.printf(Locale.US, "  waveform         %s   (gtkwave %s)%n", r.vcd(), r.vcd());
            o.printf(Locale.US, "  statistics       %s%n", r.statsJson());
            output.printStats(o, r.statsText());
        }
    }
}
