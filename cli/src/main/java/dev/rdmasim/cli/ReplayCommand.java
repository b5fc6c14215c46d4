package dev.rdmasim.cli;

import dev.rdmasim.adapter.config.Profiles;
import dev.rdmasim.kernel.Time;
import dev.rdmasim.ndk.NtStatus;
import dev.rdmasim.traces.format.TraceError;
import dev.rdmasim.traces.replay.OptionError;
import dev.rdmasim.traces.replay.Replay;
import dev.rdmasim.traces.replay.ReplayOptions;
import dev.rdmasim.traces.replay.ReplayResult;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code rdmasim replay TRACE}: runs a trace of NDK calls against two modeled adapters and writes what happened. */
@Command(name = "replay",
        mixinStandardHelpOptions = true,
        description = {"Replays a trace of NDK calls (docs/trace-format.md) against two modeled hosts and adapters.",
            "Writes completions.csv, summary.json and lifecycle.csv into the output directory, and on request"
                + " wave.vcd (--vcd), timeline.json (--timeline, Chrome Trace Event format for Perfetto) and"
                + " wire.pcap (--pcap). A bad trace line is reported as FILE:LINE:COLUMN and nothing is written."})
final class ReplayCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "TRACE", description = "The trace file.")
    Path trace;

    @Option(names = "--out", paramLabel = "DIR", description = "Output directory (default: rdmasim-out/<trace name>).")
    Path out;

    @CommandLine.Mixin
    RunOptions opts = new RunOptions();

    @Option(names = "--vcd", description = "Write wave.vcd (GTKWave).")
    boolean vcd;

    @Option(names = "--vcd-signals", paramLabel = "GLOB",
            description = "Comma-separated globs of the signals to trace, e.g. 'nicA.tx.*' (implies --vcd).")
    String vcdSignals = "";

    @Option(names = "--timeline", description = "Write timeline.json (Chrome Trace Event format; opens in Perfetto).")
    boolean timeline;

    @Option(names = "--pcap", description = "Write wire.pcap (every frame on the cable; Wireshark, tshark).")
    boolean pcap;

    @Option(names = "--no-lifecycle",
            description = "Do not write lifecycle.csv (a row of about 130 bytes per request; for replays of millions).")
    boolean noLifecycle;

    @Option(names = "--record", paramLabel = "FILE",
            description = "Also write the NDK calls the replay made as a trace (replays to the same completions).")
    Path record;

    @Override
    public void run() {
        if (!Files.isRegularFile(trace)) {
            throw new UserError("no trace file " + trace);
        }
        try {
            Profiles.resolve(opts.profile).withOverrides(opts.overrides);
        } catch (IllegalArgumentException e) {
            throw new UserError(e.getMessage());
        }
        Path dir = out != null ? out : Path.of("rdmasim-out", baseName(trace));
        OutputPaths.directory("--out", dir);
        if (record != null) {
            OutputPaths.file("--record", record);
        }
        boolean wave = vcd || !vcdSignals.isEmpty();
        ReplayOptions o = new ReplayOptions(dir, opts.profile, opts.overrides, opts.seed, wave, vcdSignals, timeline, pcap, record,
                !noLifecycle);
        ReplayResult r;
        long wall = System.nanoTime();
        try (ProgressDisplay bar = new ProgressDisplay("replay", "calls")) {
            r = Replay.run(trace, o, i -> { }, null, new Replay.Progress() {
                @Override
                public void started(long totalCalls) {
                    bar.total(totalCalls);
                }

                @Override
                public void progress(long callsDone) {
                    bar.at(callsDone);
                }
            });
        } catch (TraceError e) {
            throw new UserError(e.getMessage());
        } catch (OptionError e) {
            throw new UserError((vcdSignals.isEmpty() ? "" : "--vcd-signals: ") + e.getMessage());
        } catch (IOException e) {
            throw new UserError("cannot write the outputs of " + trace + " into " + dir + ": " + OutputPaths.describe(e));
        }
        double seconds = (System.nanoTime() - wall) / 1e9;
        PrintWriter p = spec.commandLine().getOut();
        p.printf(Locale.US, "replay %s: %d calls, %d completions in %s of simulated time (%d events, %.2f s)%n",
                trace, r.calls(), r.completions(), Time.format(r.simTimePs()), r.events(), seconds);
        p.print("  by status       ");
        r.statusCounts().forEach((name, n) -> p.printf(Locale.US, " %s %d", name.replace("STATUS_", ""), n));
        p.println();
        p.printf(Locale.US, "  moved           %d B by initiator requests, %.2f Gb/s from the first call (at %s) to the end%n",
                r.bytes(), r.gbps(), Time.format(r.firstCallPs()));
        if (!Double.isNaN(r.latencyP50Ns())) {
            p.printf(Locale.US, "  latency         post to completion: median %.0f ns, p99 %.0f ns%n",
                    r.latencyP50Ns(), r.latencyP99Ns());
        }
        p.printf(Locale.US, "  completions     %s%n", r.completionsCsv());
        p.printf(Locale.US, "  summary         %s%n", r.summaryJson());
        if (r.lifecycleCsv() != null) {
            p.printf(Locale.US, "  lifecycle       %s%n", r.lifecycleCsv());
        }
        if (r.notificationsCsv() != null) {
            p.printf(Locale.US, "  notifications   %s%n", r.notificationsCsv());
        }
        if (r.vcd() != null) {
            p.printf(Locale.US, "  waveform        %s   (gtkwave %s)%n", r.vcd(), r.vcd());
        }
        if (r.timeline() != null) {
            p.printf(Locale.US, "  timeline        %s   (open in https://ui.perfetto.dev)%n", r.timeline());
        }
        if (r.pcap() != null) {
            p.printf(Locale.US, "  packets         %s   (wireshark %s)%n", r.pcap(), r.pcap());
        }
        if (record != null) {
            p.printf(Locale.US, "  recorded trace  %s%n", record);
        }
        p.flush();
        if (r.statusCounts().keySet().stream().anyMatch(s -> !s.equals(NtStatus.name(NtStatus.STATUS_SUCCESS)))) {
            p.println("  (some requests did not succeed: see the status column of completions.csv)");
        }
    }

    private static String baseName(Path p) {
        String n = p.getFileName().toString();
        int dot = n.lastIndexOf('.');
        return dot > 0 ? n.substring(0, dot) : n;
    }
}
