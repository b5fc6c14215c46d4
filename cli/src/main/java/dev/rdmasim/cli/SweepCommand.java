package dev.rdmasim.cli;

import dev.rdmasim.sweep.PointExecutor;
import dev.rdmasim.sweep.PointExecutorProvider;
import dev.rdmasim.sweep.PointResult;
import dev.rdmasim.sweep.Sweep;
import dev.rdmasim.sweep.SweepFailure;
import dev.rdmasim.sweep.SweepFile;
import dev.rdmasim.sweep.SweepResults;
import dev.rdmasim.sweep.SweepSpec;
import dev.rdmasim.sweep.SweepSpecException;
import dev.rdmasim.sweep.report.Plots;
import dev.rdmasim.sweep.report.Report;
import dev.rdmasim.traces.perf.PerfArgs;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code rdmasim sweep}: a design-space sweep of a perf test or a trace over parameter values (docs/sweep.md). */
@Command(name = "sweep",
        mixinStandardHelpOptions = true,
        description = {"Runs a perf test or a trace at every combination of parameter values.",
            "The first --param is outermost. Writes results.csv, results.json, plots and report.md into --out. Run"
                + " the same command again after an interruption: only the missing points run.",
            "Perf flags every point shares go after '--' (--perf write_bw -- -n 20000) or in one string"
                + " (--perf \"write_bw -n 20000\")."},
        footer = {"", "Examples:",
            "  rdmasim sweep --param qp.initiatorQueueDepth=1..256*2 \\",
            "      --param qp.inlineDataSize=0,64 --perf write_bw --out depth-inline \\",
            "      -- -s 64 -n 20000",
            "  rdmasim sweep --file traces/examples/sweeps/write-depth-inline.yaml \\",
            "      --out depth-inline"})
final class SweepCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--param", paramLabel = "KEY=VALUES",
            description = {"A swept key and its values (repeatable): a profile parameter, a QP parameter or a perf flag."
                    + " Values: a comma-separated list of values and of ranges, FROM..TO*FACTOR or FROM..TO+STEP.",
                "Examples: pcie.mps=128,256", "  qp.inlineDataSize=0..256+64", "  -s=64,4096", "  -t=1..1024*2"})
    List<String> params = new ArrayList<>();

    @Option(names = "--perf", paramLabel = "TEST",
            description = "Run a perf test (send_bw, write_bw, read_bw, send_lat, write_lat, read_lat) at each point.")
    String perf;

    @Parameters(paramLabel = "PERF_FLAG", arity = "0..*",
            description = "Perf flags every point shares, after '--' (e.g. -- -n 20000 -s 64).")
    List<String> perfFlags = new ArrayList<>();

    @Option(names = "--trace", paramLabel = "FILE", description = "Replay a trace at each point.")
    Path trace;

    @Option(names = "--file", paramLabel = "SWEEP.yaml",
            description = "The whole sweep as a YAML file (workload, profile, set, seed, repeat, params).")
    Path file;

    @Option(names = "--profile", paramLabel = "NAME|FILE", description = "Base profile (default: default).")
    String profile;

    @Option(names = "--set", paramLabel = "KEY=VALUE", description = "A fixed profile override every point shares (repeatable).")
    List<String> overrides = new ArrayList<>();

    @Option(names = "--seed", paramLabel = "N", description = "Seed of each point's first run (default: 1).")
    Long seed;

    @Option(names = "--repeat", paramLabel = "R", description = "Runs per point, seeds N, N+1, ... (default: 1).")
    Integer repeat;

    @Option(names = "--jobs", paramLabel = "N", description = "Points run at once (default: the number of processors).")
    Integer jobs;

    @Option(names = "--executor", paramLabel = "NAME",
            description = "Where points run: local (threads of this machine) or another engine (default: ${DEFAULT-VALUE}).")
    String executor = "local";

    @Option(names = "--members", paramLabel = "HOST:PORT,...", split = ",", hideParamSyntax = true,
            description = "Machines of a distributed executor, comma-separated.")
    List<String> members = new ArrayList<>();

    @Option(names = "--out", paramLabel = "DIR", required = true,
            description = "Output directory; a rerun into the same directory resumes the sweep.")
    Path out;

    /** The plots and the report the finishers wrote, for the summary. */
    private final List<Path> written = new ArrayList<>();

    /** What writes more outputs once results.csv and results.json are there: the plots, then the report. */
    List<Sweep.Finisher> finishers() {
        return List.of((dir, results) -> written.addAll(Plots.write(dir, results)),
                (dir, results) -> written.add(Report.write(dir, results)));
    }

    @Override
    public Integer call() {
        SweepSpec sweep = spec();
        OutputPaths.directory("--out", out);
        int n = jobs != null ? jobs : Runtime.getRuntime().availableProcessors();
        if (n < 1) {
            throw new UserError("--jobs must be at least 1, got " + n);
        }
        PointExecutor engine;
        try {
            engine = PointExecutorProvider.named(executor).create(n, members);
        } catch (IllegalArgumentException e) {
            throw new UserError(e.getMessage());
        }
        PrintWriter o = spec.commandLine().getOut();
        String where = engine.describe();
        Sweep.Outcome r;
        try (engine; Bar bar = new Bar()) {
            r = Sweep.run(sweep, out, engine, bar, finishers());
        } catch (SweepSpecException e) {
            throw new UserError(e.getMessage());
        } catch (SweepFailure e) {
            o.flush();
            spec.commandLine().getErr().println("rdmasim: sweep failed: " + e.getMessage());
            spec.commandLine().getErr().println("  (finished points are kept in " + out.resolve(Sweep.POINTS_DIR)
                    + ": the same command resumes the sweep)");
            return 1;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the sweep into " + out, e);
        }
        summary(o, sweep, r, where);
        return 0;
    }

    /** The sweep the options describe; any mistake is a {@link UserError}. */
    SweepSpec spec() {
        try {
            if (file != null) {
                List<String> given = new ArrayList<>();
                for (String opt : List.of("--param", "--perf", "--trace", "--profile", "--set", "--seed", "--repeat")) {
                    if (spec.commandLine().getParseResult().hasMatchedOption(opt)) {
                        given.add(opt);
                    }
                }
                if (!perfFlags.isEmpty()) {
                    given.add("perf flags");
                }
                if (!given.isEmpty()) {
                    throw new UserError("--file holds the whole sweep: give " + String.join(", ", given)
                            + " in the file instead");
                }
                if (!Files.isRegularFile(file)) {
                    throw new UserError("no sweep file " + file);
                }
                return SweepFile.read(file);
            }
            if (perf != null && trace != null) {
                throw new UserError("give one workload: --perf " + perf + " or --trace " + trace + ", not both");
            }
            if (perf == null && trace == null) {
                throw new UserError("give the workload: --perf TEST or --trace FILE (or the whole sweep with --file)");
            }
            SweepSpec.Builder b;
            if (perf != null) {
                List<String> words = PerfArgs.split(perf);
                if (words.isEmpty()) {
                    throw new UserError("--perf needs a test, e.g. --perf write_bw");
                }
                List<String> flags = new ArrayList<>(words.subList(1, words.size()));
                flags.addAll(perfFlags);
                b = SweepSpec.perf(words.get(0), flags);
            } else {
                if (!perfFlags.isEmpty()) {
                    throw new UserError("perf flags (" + String.join(" ", perfFlags) + ") need --perf, not --trace");
                }
                if (!Files.isRegularFile(trace)) {
                    throw new UserError("no trace file " + trace);
                }
                b = SweepSpec.trace(trace);
            }
            for (String p : params) {
                b.param(p);
            }
            if (profile != null) {
                b.profile(profile, null);
            }
            overrides.forEach(b::set);
            if (seed != null) {
                b.seed(seed);
            }
            if (repeat != null) {
                b.repeat(repeat);
            }
            return b.build();
        } catch (SweepSpecException e) {
            throw new UserError(e.getMessage());
        }
    }

    private void summary(PrintWriter o, SweepSpec s, Sweep.Outcome r, String where) {
        StringBuilder shape = new StringBuilder();
        for (SweepSpec.Param p : s.params()) {
            shape.append(shape.length() == 0 ? "" : " x ").append(p.key()).append(" (").append(p.values().size())
                    .append(p.values().size() == 1 ? " value)" : " values)");
        }
        if (s.repeat() > 1) {
            shape.append(shape.length() == 0 ? "" : " x ").append(s.repeat()).append(" runs");
        }
        o.printf(Locale.US, "sweep %s on %s: %d points%s%n", s.workload().label(), s.profile(), s.size(),
                shape.length() == 0 ? "" : " = " + shape);
        o.printf(Locale.US, "  ran             %d points (%d already done) on %s in %.1f s%s%n", r.ran(), r.resumed(),
                where, r.wallSeconds(),
                r.ran() > 0 ? String.format(Locale.US, " (%.2f points/s)", r.ran() / r.wallSeconds()) : "");
        best(o, r.results());
        o.printf(Locale.US, "  results         %s%n", r.csv());
        o.printf(Locale.US, "                  %s%n", r.json());
        for (Path f : written) {
            String name = f.getFileName().toString();
            if (name.endsWith(".md")) {
                o.printf(Locale.US, "  report          %s   (what the sweep shows, with the plots)%n", f);
            }
        }
        String label = "  plots           ";
        for (Path f : written) {
            String name = f.getFileName().toString();
            if (name.endsWith(".png")) {
                String svg = name.substring(0, name.length() - 4) + ".svg";
                boolean both = written.stream().anyMatch(g -> g.getFileName().toString().equals(svg));
                o.printf(Locale.US, "%s%s%s%n", label, f, both ? "   (and .svg)" : "");
                label = "                  ";
            }
        }
        o.flush();
    }

    /** The best point by the workload's headline figure, when every point has it. */
    private static void best(PrintWriter o, SweepResults results) {
        String[][] headlines = {{"bw_avg_gbps", "max"}, {"t_typical_us", "min"}, {"throughput_gbps", "max"}};
        for (String[] h : headlines) {
            PointResult best = null;
            double bestValue = Double.NaN;
            String unit = "";
            for (PointResult p : results.results()) {
                for (PointResult.Metric m : p.metrics()) {
                    if (m.name().equals(h[0]) && (best == null
                            || (h[1].equals("max") ? m.value() > bestValue : m.value() < bestValue))) {
                        best = p;
                        bestValue = m.value();
                        unit = m.unit();
                    }
                }
            }
            if (best != null) {
                String where = best.point().describe();
                o.printf(Locale.US, "  best %-10s %s %.4g %s%s%n", h[1].equals("max") ? "(highest)" : "(lowest)",
                        h[0], bestValue, unit, where.isEmpty() ? "" : " at " + where);
                return;
            }
        }
    }

    /** A progress bar with points done, points per second and time left, on a terminal only. */
    private static final class Bar implements Sweep.Progress, AutoCloseable {
        private final boolean terminal = System.console() != null;
        private ProgressBar bar;

        @Override
        public void update(int done, int total, double pointsPerSecond, double secondsLeft) {
            if (!terminal) {
                return;
            }
            if (bar == null) {
                bar = new ProgressBarBuilder().setTaskName("sweep").setInitialMax(total).setUnit(" points", 1)
                        .setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(500).hideEta().build();
            }
            bar.stepTo(done);
            if (!Double.isNaN(pointsPerSecond)) {
                long left = Math.round(secondsLeft);
                bar.setExtraMessage(String.format(Locale.US, "%.2f points/s, %d:%02d:%02d left", pointsPerSecond,
                        left / 3600, left / 60 % 60, left % 60));
            }
        }

        @Override
        public void close() {
            if (bar != null) {
                bar.close();
            }
        }
    }
}
