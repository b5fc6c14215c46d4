package dev.rdmasim.sweep.report;

import java.util.ArrayList;
import java.util.List;

/**
 * A figure of merit: one or more metrics drawn against one y axis (latency's median and 99th percentile share a
 * figure). Chosen from the metric names a workload produces.
 *
 * @param slug        for file names: {@code throughput}, {@code msgrate}, {@code latency}, ...
 * @param title       in words, for titles and the report
 * @param yLabel      axis title with its unit
 * @param metrics     metric base names drawn, in order
 * @param metricNames each metric's legend name (empty when the measure has one metric)
 * @param higherIsBetter whether more is better (throughput) or less is (latency)
 */
record Measure(String slug, String title, String yLabel, List<String> metrics, List<String> metricNames,
        boolean higherIsBetter) {

    /** The workload's figures of merit that the table has values for; the first is the main one. */
    static List<Measure> of(SweepTable t) {
        List<Measure> out = new ArrayList<>();
        String tput = throughputMetric(t);
        if (tput != null) {
            out.add(new Measure("throughput", "throughput", "throughput (Gb/s)", List.of(tput), List.of(""), true));
        }
        if (t.has("msg_rate_mpps")) {
            out.add(new Measure("msgrate", "message rate", "message rate (Mpps)", List.of("msg_rate_mpps"),
                    List.of(""), true));
        }
        latency(t, out, "t_typical_us", "t_p99_us", "latency (\u00b5s)");
        latency(t, out, "latency_p50_ns", "latency_p99_ns", "latency (ns)");
        if (out.isEmpty() && !t.units.isEmpty()) {
            // An unknown workload: its first figure, whatever it is.
            String name = t.units.keySet().iterator().next();
            String unit = t.unit(name);
            out.add(new Measure(Num.slug(name), name, unit.isEmpty() ? name : name + " (" + unit + ")",
                    List.of(name), List.of(""), true));
        }
        return out;
    }

    /** The throughput metric (Gb/s) of a perf bandwidth test or a trace, or null when the workload has none. */
    static String throughputMetric(SweepTable t) {
        for (String m : List.of("bw_avg_gbps", "throughput_gbps")) {
            if (t.has(m)) {
                return m;
            }
        }
        return null;
    }

    private static void latency(SweepTable t, List<Measure> out, String median, String p99, String yLabel) {
        List<String> metrics = new ArrayList<>();
        List<String> names = new ArrayList<>();
        if (t.has(median)) {
            metrics.add(median);
            names.add("median");
        }
        if (t.has(p99)) {
            metrics.add(p99);
            names.add("99%");
        }
        if (!metrics.isEmpty()) {
            out.add(new Measure("latency", "latency", yLabel, metrics, names, false));
        }
    }

    /** The metric a single number of this measure stands for (the first: throughput, median latency). */
    String main() {
        return metrics.get(0);
    }

    /** Label of the i-th metric in tables: {@code throughput (Gb/s)}, {@code median latency (µs)}. */
    String label(int i) {
        String name = metricNames.get(i);
        return name.isEmpty() ? yLabel : name + " " + yLabel;
    }
}
