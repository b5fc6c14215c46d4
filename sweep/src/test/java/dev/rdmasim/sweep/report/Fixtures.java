package dev.rdmasim.sweep.report;

import dev.rdmasim.sweep.Point;
import dev.rdmasim.sweep.PointResult;
import dev.rdmasim.sweep.PointResult.Bound;
import dev.rdmasim.sweep.PointResult.Metric;
import dev.rdmasim.sweep.SweepResults;
import dev.rdmasim.sweep.Workload;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** Synthetic sweep results, built the way the engine orders them: cartesian product, last key fastest. */
final class Fixtures {
    private Fixtures() {
    }

    static final Workload WRITE_BW = Workload.perf("write_bw", List.of("-n", "1000"));
    static final Workload WRITE_LAT = Workload.perf("write_lat", List.of("-n", "1000"));

    /** One point's swept values by key, and which repetition it is. */
    record Cell(Map<String, String> values, int repeat) {
        long num(String key) {
            return Long.parseLong(values.get(key));
        }
    }

    /** What one run reported. */
    record Run(List<Metric> metrics, List<Metric> busy, List<Bound> bounds) {
        Run(List<Metric> metrics, List<Metric> busy) {
            this(metrics, busy, List.of());
        }
    }

    static SweepResults sweep(Workload w, List<String> keys, List<List<String>> values, int repeats,
            Function<Cell, Run> run) {
        List<List<String>> combos = new ArrayList<>();
        combos.add(List.of());
        for (List<String> vs : values) {
            List<List<String>> next = new ArrayList<>();
            for (List<String> c : combos) {
                for (String v : vs) {
                    List<String> n = new ArrayList<>(c);
                    n.add(v);
                    next.add(n);
                }
            }
            combos = next;
        }
        List<PointResult> results = new ArrayList<>();
        int index = 0;
        for (List<String> combo : combos) {
            for (int rep = 0; rep < repeats; rep++) {
                Map<String, String> byKey = new LinkedHashMap<>();
                for (int k = 0; k < keys.size(); k++) {
                    byKey.put(keys.get(k), combo.get(k));
                }
                Run r = run.apply(new Cell(byKey, rep));
                Point p = new Point(index++, keys, combo, w, "default", null, List.of(), rep, 42 + rep);
                results.add(new PointResult(p, r.metrics(), r.busy(), r.bounds(), 0.5 + index));
            }
        }
        return new SweepResults(keys, values, w, "default", results);
    }

    /** A bandwidth test's metrics for one size ({@code suffix} "" or "_64B"). */
    static List<Metric> bw(double gbps, int bytes, String suffix) {
        return List.of(new Metric("bw_peak_gbps" + suffix, "Gb/s", gbps * 1.01),
                new Metric("bw_avg_gbps" + suffix, "Gb/s", gbps),
                new Metric("msg_rate_mpps" + suffix, "Mpps", gbps * 1e3 / 8 / bytes),
                new Metric("sim_time_ps" + suffix, "ps", 1e9));
    }

    static List<Metric> lat(double typical, double p99, String suffix) {
        return List.of(new Metric("t_min_us" + suffix, "us", typical * 0.9),
                new Metric("t_typical_us" + suffix, "us", typical),
                new Metric("t_p99_us" + suffix, "us", p99),
                new Metric("sim_time_ps" + suffix, "ps", 1e9));
    }

    static List<Metric> busy(double tx, double pcie) {
        return List.of(new Metric("A.nic.transmitter", "fraction", tx), new Metric("A.pcie.up", "fraction", pcie),
                new Metric("link.AtoB", "fraction", Math.min(tx, pcie) / 2));
    }

    /** The prefetch window and the read tags of adapter A, full these fractions of the time. */
    static List<Bound> bounds(double prefetch, double tags) {
        return List.of(new Bound("A.nic.fetch", "prefetchFullFraction", "prefetch window", prefetch),
                new Bound("A.pcie.dma", "readTagsFullFraction", "PCIe read tags", tags));
    }

    static List<String> vals(String... v) {
        return List.of(v);
    }
}
