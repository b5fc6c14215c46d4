package dev.rdmasim.sweep;

import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.stats.Formula;
import dev.rdmasim.kernel.stats.Stat;
import dev.rdmasim.kernel.stats.StatsGroup;
import dev.rdmasim.kernel.stats.TimeAverage;
import dev.rdmasim.sweep.PointResult.Bound;
import dev.rdmasim.sweep.PointResult.Metric;
import dev.rdmasim.traces.perf.BwResult;
import dev.rdmasim.traces.perf.LatResult;
import dev.rdmasim.traces.perf.Perf;
import dev.rdmasim.traces.perf.PerfOptions;
import dev.rdmasim.traces.perf.PerfResult;
import dev.rdmasim.traces.replay.Replay;
import dev.rdmasim.traces.replay.ReplayOptions;
import dev.rdmasim.traces.replay.ReplayResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Runs one point on a fresh simulation in the calling thread: the function every executor applies.
 * Simulations share no mutable state, so points run safely on parallel threads.
 *
 * <p>Metrics of a perf point, per message size (suffixed {@code _<bytes>B} when the point runs several sizes):
 * bandwidth tests {@code bw_avg_gbps}, {@code bw_peak_gbps}, {@code msg_rate_mpps}, {@code sim_time_ps}; latency
 * tests {@code t_min_us}, {@code t_max_us}, {@code t_typical_us}, {@code t_avg_us}, {@code t_stdev_us},
 * {@code t_p99_us}, {@code t_p999_us}, {@code sim_time_ps}. Of a trace point: {@code sim_time_ps}, {@code calls},
 * {@code completions}, {@code completions_<status>} per NTSTATUS seen ({@code completions_success}, ...),
 * {@code bytes_moved}, {@code throughput_gbps}, {@code latency_p50_ns}, {@code latency_p99_ns} (when a request
 * completed). Busy fractions: every statistic named {@code busy} (a time average) or {@code busyFraction} (a
 * formula), over the measured part of the run (from the workload's first post to its end, the setup left out),
 * named by its block's path ({@code nicA.tx}, {@code hostA.cpu}, ...). Bounds: every bounded resource's fraction of
 * the same part spent at its limit ({@link dev.rdmasim.kernel.stats.Bound}), named by its block and statistic.
 */
public final class PointRunner {
    private PointRunner() {
    }

    /** Runs {@code point}; throws {@link SweepFailure} naming the point when its workload fails. */
    public static PointResult run(Point point) {
        long start = System.nanoTime();
        List<Metric> metrics = new ArrayList<>();
        List<Metric> busy = new ArrayList<>();
        List<Bound> bounds = new ArrayList<>();
        BusyWindow window = new BusyWindow(busy, bounds);
        try {
            PointSetup setup = PointSetup.of(point);
            if (point.workload().isPerf()) {
                runPerf(point, setup, metrics, window);
            } else {
                runTrace(point, setup, metrics, window);
            }
        } catch (RuntimeException e) {
            throw new SweepFailure("point " + point.index() + " (" + describe(point) + ") failed: " + message(e), e);
        }
        return new PointResult(point, metrics, busy, bounds, (System.nanoTime() - start) / 1e9);
    }

    private static String describe(Point p) {
        String d = p.describe();
        return d.isEmpty() ? "seed " + p.seed() : d;
    }

    private static String message(RuntimeException e) {
        // The workload's own failures explain themselves; anything else is a bug, so its type is worth showing.
        boolean known = e instanceof dev.rdmasim.traces.perf.PerfFailure || e instanceof IllegalArgumentException
                || e instanceof dev.rdmasim.traces.format.TraceError;
        return known ? e.getMessage() : e.getClass().getSimpleName() + ": " + e.getMessage();
    }

    private static void runPerf(Point point, PointSetup setup, List<Metric> metrics, BusyWindow window) {
        PerfOptions options = setup.perfOptions(point);
        List<PerfResult> results = Perf.run(options, r -> { }, null, window::start, window::end);
        boolean suffixed = options.sizes().size() > 1;
        for (PerfResult r : results) {
            String s = suffixed ? "_" + r.bytes() + "B" : "";
            if (r instanceof BwResult b) {
                metrics.add(new Metric("bw_avg_gbps" + s, "Gb/s", b.bwAvgGbps()));
                metrics.add(new Metric("bw_peak_gbps" + s, "Gb/s", b.bwPeakGbps()));
                metrics.add(new Metric("msg_rate_mpps" + s, "Mpps", b.msgRateMpps()));
                metrics.add(new Metric("lat_p50_us" + s, "us", b.latP50Us()));
                metrics.add(new Metric("lat_p99_us" + s, "us", b.latP99Us()));
                metrics.add(new Metric("lat_p999_us" + s, "us", b.latP999Us()));
            } else {
                LatResult l = (LatResult) r;
                metrics.add(new Metric("t_min_us" + s, "us", l.tMinUs()));
                metrics.add(new Metric("t_max_us" + s, "us", l.tMaxUs()));
                metrics.add(new Metric("t_typical_us" + s, "us", l.tTypicalUs()));
                metrics.add(new Metric("t_avg_us" + s, "us", l.tAvgUs()));
                metrics.add(new Metric("t_stdev_us" + s, "us", l.tStdevUs()));
                metrics.add(new Metric("t_p99_us" + s, "us", l.tP99Us()));
                metrics.add(new Metric("t_p999_us" + s, "us", l.tP999Us()));
            }
            metrics.add(new Metric("sim_time_ps" + s, "ps", r.simTimePs()));
        }
    }

    /**
     * Replays the trace's text as it came with the point. Nothing is written: the replay has no output directory,
     * and the trace is read from memory. Only a point whose base profile is a file's text (a point sent to another
     * machine) writes that text into a private temporary directory, removed afterwards, for the profile loader.
     */
    private static void runTrace(Point point, PointSetup setup, List<Metric> metrics, BusyWindow window) {
        Path dir = null;
        try {
            String traceName = point.workload().traceName();
            Path baseDir = Path.of(traceName).toAbsolutePath().getParent();
            String profile = point.profile();
            if (point.profileText() != null) {
                dir = Files.createTempDirectory("rdmasim-sweep-point-");
                Path file = dir.resolve(Path.of(profile).getFileName().toString());
                Files.writeString(file, point.profileText(), StandardCharsets.UTF_8);
                profile = file.toString();
                baseDir = dir;
            }
            // No output directory: a point's metrics come from the result, and no file is written for them.
            ReplayOptions o = new ReplayOptions(null, profile, setup.overrides, point.seed(), false, null, false, false,
                    null, false, setup.qpLine);
            ReplayResult r = Replay.runText(traceName, point.workload().traceText(), baseDir, o,
                    inspection -> window.end(inspection.topology().host(0).driver().sim()), null,
                    new Replay.Progress() {
                        @Override
                        public void measuring(Simulator sim) {
                            window.start(sim);
                        }
                    });
            metrics.add(new Metric("sim_time_ps", "ps", r.simTimePs()));
            metrics.add(new Metric("calls", "calls", r.calls()));
            metrics.add(new Metric("completions", "completions", r.completions()));
            for (Map.Entry<String, Long> e : r.statusCounts().entrySet()) {
                String status = e.getKey().replaceFirst("^STATUS_", "").toLowerCase(Locale.ROOT);
                metrics.add(new Metric("completions_" + status, "completions", e.getValue()));
            }
            metrics.add(new Metric("bytes_moved", "B", r.bytes()));
            metrics.add(new Metric("throughput_gbps", "Gb/s", r.gbps()));
            if (!Double.isNaN(r.latencyP50Ns())) {
                metrics.add(new Metric("latency_p50_ns", "ns", r.latencyP50Ns()));
                metrics.add(new Metric("latency_p99_ns", "ns", r.latencyP99Ns()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot replay " + point.workload().traceName() + ": " + e.getMessage(), e);
        } finally {
            if (dir != null) {
                deleteTree(dir);
            }
        }
    }

    /**
     * Every block's busy fraction and every bound's full fraction over the measured part of a run: from the start
     * of the workload (after the setup, whose hundreds of microseconds would otherwise dilute a short run) to its
     * end. A block's statistic (a {@code busy} time average or a {@code busyFraction} formula, both since time zero)
     * times the time gives its busy picoseconds so far; a bound's full picoseconds are counted as such; the fraction
     * is their growth over the window's length.
     */
    public static final class BusyWindow {
        private final Map<String, Double> atStart = new HashMap<>();
        private final Map<String, Long> fullAtStart = new HashMap<>();
        private final List<Metric> busy;
        private final List<Bound> bounds;
        private long startPs = -1;

        /** A window whose {@link #end} adds the fractions to these lists. */
        public BusyWindow(List<Metric> busy, List<Bound> bounds) {
            this.busy = busy;
            this.bounds = bounds;
        }

        /** The measured part starts now. */
        public void start(Simulator sim) {
            startPs = sim.now();
            for (Metric m : busy(sim)) {
                atStart.put(m.name(), m.value() * startPs);
            }
            for (StatsGroup g : sim.stats().groups()) {
                for (dev.rdmasim.kernel.stats.Bound b : g.bounds()) {
                    fullAtStart.put(key(g, b), b.fullTimePs());
                }
            }
        }

        /** The measured part ends now: adds every block's busy and every bound's full fraction over it. */
        public void end(Simulator sim) {
            long now = sim.now();
            long from = startPs < 0 ? 0 : startPs; // no workload call ran: the whole run
            double span = now - from;
            for (Metric m : busy(sim)) {
                double v = span <= 0 ? m.value() : (m.value() * now - atStart.getOrDefault(m.name(), 0.0)) / span;
                busy.add(new Metric(m.name(), "fraction", clamp(v)));
            }
            for (StatsGroup g : sim.stats().groups()) {
                for (dev.rdmasim.kernel.stats.Bound b : g.bounds()) {
                    String key = key(g, b);
                    double v = span <= 0 ? b.fullFraction()
                            : (b.fullTimePs() - fullAtStart.getOrDefault(key, 0L)) / span;
                    bounds.add(new Bound(g.path(), b.fractionName(), b.what(), clamp(v)));
                }
            }
        }

        private static double clamp(double v) {
            return Math.max(0, Math.min(1, v));
        }

        private static String key(StatsGroup g, dev.rdmasim.kernel.stats.Bound b) {
            return g.path() + "." + b.fractionName();
        }
    }

    /** Each block's busy statistic now (averaged since time zero), in the statistics' registration order. */
    static List<Metric> busy(Simulator sim) {
        List<Metric> out = new ArrayList<>();
        for (StatsGroup g : sim.stats().groups()) {
            // A group may fold pending time into its statistics on refresh, as a dump does before writing.
            g.refresh();
            for (Stat s : g.stats()) {
                double v;
                if (s.name().equals("busy") && s instanceof TimeAverage t) {
                    v = t.average();
                } else if (s.name().equals("busyFraction") && s instanceof Formula f) {
                    v = f.value();
                } else {
                    continue;
                }
                if (Double.isFinite(v)) {
                    out.add(new Metric(g.path(), "fraction", v));
                }
            }
        }
        return out;
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // A leftover temporary file does not change any result.
        }
    }
}
