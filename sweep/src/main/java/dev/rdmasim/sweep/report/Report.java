package dev.rdmasim.sweep.report;

import dev.rdmasim.sweep.Limit;
import dev.rdmasim.sweep.SweepResults;
import dev.rdmasim.sweep.Workload;
import dev.rdmasim.sweep.report.PlotPlan.Figure;
import dev.rdmasim.sweep.report.SweepTable.Axis;
import dev.rdmasim.sweep.report.SweepTable.Role;
import dev.rdmasim.sweep.report.SweepTable.Row;
import dev.rdmasim.sweep.report.SweepTable.Stat;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes {@code report.md}: what was swept, the queue depth that reaches 95 % of the best throughput, the inline
 * size at which inline stops paying off, every point with its figures and what limits it (a busy block, a full
 * bounded resource, or latency), and the plots that {@link Plots#write} draws for the same results. The text is a
 * function of the results alone (no wall-clock times), with numbers formatted the same in every locale.
 */
public final class Report {
    /** A depth is enough when its throughput is at least this fraction of the best. */
    static final double DEPTH_FRACTION = 0.95;
    /** An inline size is as good as the best when within this fraction of it. */
    static final double INLINE_TOLERANCE = 0.02;
    /** Relative slack for comparisons, so that e.g. exactly 95 % counts as reaching 95 %. */
    private static final double EPS = 1e-9;
    private static final String NONE = "\u2014";

    private Report() {
    }

    /** Writes {@code dir/report.md} (creating {@code dir} when missing) and returns its path. */
    public static Path write(Path dir, SweepResults r) throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve("report.md");
        Files.writeString(file, text(r), StandardCharsets.UTF_8);
        return file;
    }

    /** The report's markdown text. */
    public static String text(SweepResults r) {
        SweepTable t = new SweepTable(r);
        PlotPlan plan = new PlotPlan(t);
        StringBuilder b = new StringBuilder();
        b.append("# Sweep report: ").append(r.workload().label()).append(" on ").append(r.profile()).append("\n\n");
        sweep(b, t, plan);
        depth(b, t);
        inline(b, t, plan);
        points(b, t, plan);
        plots(b, plan);
        return b.toString();
    }

    private static void sweep(StringBuilder b, SweepTable t, PlotPlan plan) {
        SweepResults r = t.results;
        b.append("## The sweep\n\n| | |\n|---|---|\n");
        b.append("| workload | ").append(workload(r.workload())).append(" |\n");
        b.append("| profile | ").append(cell(r.profile())).append(" |\n");
        b.append("| points | ").append(t.rows.stream().map(Row::index).distinct().count());
        if (t.maxRepeats > 1) {
            b.append(", each run ").append(t.maxRepeats).append(" times (").append(r.results().size())
                    .append(" runs)");
        }
        b.append(" |\n");
        b.append("| main figure | ").append(plan.measures.isEmpty() ? "none (no metric reported)"
                : cell(plan.measures.get(0).label(0))).append(" |\n\n");
        if (r.keys().isEmpty()) {
            b.append("No parameter was swept.\n\n");
        } else {
            b.append("Swept parameters, outermost first (the last varies fastest):\n\n| parameter | values |\n|---|---|\n");
            for (int k = 0; k < r.keys().size(); k++) {
                b.append("| ").append(cell(r.keys().get(k))).append(" | ")
                        .append(cell(String.join(", ", r.values().get(k)))).append(" |\n");
            }
            b.append('\n');
        }
        if (t.suffixSizes() != null) {
            b.append("Each point ran the message sizes ").append(String.join(", ", t.suffixSizes().values()))
                    .append(" B (its metric names carry a `_<bytes>B` suffix); each size is a row below.\n\n");
        }
        if (t.maxRepeats > 1) {
            b.append("Figures are means over a point's repetitions; tables add the range `(min..max)` when the"
                    + " repetitions differ. Busy fractions are means too.\n\n");
        }
    }

    private static String workload(Workload w) {
        if (!w.isPerf()) {
            return "trace `" + w.traceName() + "`";
        }
        return "perf test `" + w.perfTest() + "`"
                + (w.perfArgs().isEmpty() ? "" : " with `" + String.join(" ", w.perfArgs()) + "`");
    }

    // ---------------------------------------------------------------- queue depth

    private static void depth(StringBuilder b, SweepTable t) {
        b.append("## Queue depth for 95 % of the best throughput\n\n");
        Axis depth = t.dim(Role.DEPTH);
        String metric = Measure.throughputMetric(t);
        if (depth == null) {
            b.append(notSwept(t, Role.DEPTH, "The initiator queue depth")).append("\n\n");
            return;
        }
        if (metric == null) {
            b.append("The workload reports no throughput (`bw_avg_gbps` or `throughput_gbps`), so there is no best"
                    + " throughput to reach; see the latency figures in the table of points.\n\n");
            return;
        }
        b.append("For each combination of the other swept parameters: the best mean throughput over the swept"
                + " depths of `").append(depth.key()).append("`, and the smallest depth whose throughput is at"
                + " least 95 % of it (`").append(metric).append("`).\n\n");
        List<Axis> others = others(t, depth);
        header(b, others, "best throughput (Gb/s)", "at depth", "smallest depth reaching 95 %",
                "its throughput (Gb/s)", "of best");
        for (Group g : groups(t, depth, others)) {
            List<double[]> v = values(g, metric);
            b.append(g.prefix());
            if (v.isEmpty()) {
                b.append(cells(NONE, NONE, "no throughput reported", NONE, NONE));
                continue;
            }
            double[] best = best(v, true);
            if (best[1] <= 0) {
                b.append(cells("0", NONE, "no throughput at any depth", NONE, NONE));
                continue;
            }
            double[] enough = null;
            for (double[] p : v) {
                if (p[1] >= DEPTH_FRACTION * best[1] * (1 - EPS)) {
                    enough = p;
                    break;
                }
            }
            b.append(cells(Num.fmt(best[1]), g.along(best), g.along(enough), Num.fmt(enough[1]),
                    Num.percent(enough[1] / best[1])));
        }
        b.append('\n');
    }

    // ---------------------------------------------------------------- inline

    private static void inline(StringBuilder b, SweepTable t, PlotPlan plan) {
        b.append("## Where inline stops paying off\n\n");
        Axis inline = t.dim(Role.INLINE);
        if (inline == null) {
            b.append(notSwept(t, Role.INLINE, "The inline size")).append("\n\n");
            return;
        }
        if (plan.measures.isEmpty()) {
            b.append("The points reported no metric, so inline sizes cannot be compared.\n\n");
            return;
        }
        Measure m = plan.measures.get(0);
        String what = m.label(0);
        boolean up = m.higherIsBetter();
        boolean dma = inline.numeric() && inline.values().stream().anyMatch(v -> inline.number(v) == 0);
        b.append("**Definition.** For each combination of the other swept parameters, the inline sizes of `")
                .append(inline.key()).append("` are taken in ascending order. Inline *stops paying off* at the")
                .append(" smallest inline size whose ").append(what).append(up ? " is at least 98 % of the highest"
                        : " is at most 102 % of the lowest")
                .append(" over all swept inline sizes: no larger inline size improves on it by more than about 2 %.");
        if (dma) {
            b.append(" *Worse than DMA* lists the inline sizes whose ").append(what).append(" is more than 2 % ")
                    .append(up ? "below" : "above").append(" that of inline size 0 (no inline: the adapter reads")
                    .append(" the payload from host memory by DMA).");
        }
        b.append("\n\n");
        List<Axis> others = others(t, inline);
        List<String> heads = new ArrayList<>(List.of("best " + what, "at inline (B)", "inline stops paying off at (B)",
                "its " + what, "gain over the smallest inline size"));
        if (dma) {
            heads.add("worse than DMA (B)");
        }
        header(b, others, heads.toArray(String[]::new));
        for (Group g : groups(t, inline, others)) {
            List<double[]> v = values(g, m.main());
            b.append(g.prefix());
            List<String> row = new ArrayList<>();
            if (v.isEmpty()) {
                row.addAll(List.of(NONE, NONE, "no " + m.title() + " reported", NONE, NONE));
            } else if (up && best(v, true)[1] <= 0) {
                row.addAll(List.of("0", NONE, "no " + m.title() + " at any inline size", NONE, NONE));
            } else {
                double[] best = best(v, up);
                double[] stop = null;
                for (double[] p : v) {
                    if (up ? p[1] >= best[1] * (1 - INLINE_TOLERANCE) * (1 - EPS)
                            : p[1] <= best[1] * (1 + INLINE_TOLERANCE) * (1 + EPS)) {
                        stop = p;
                        break;
                    }
                }
                double[] first = v.get(0);
                String stopText = g.along(stop) + (stop == first ? " (larger inline sizes gain nothing)" : "");
                row.addAll(List.of(Num.fmt(best[1]), g.along(best), stopText, Num.fmt(stop[1]),
                        change(first[1], stop[1], up)));
            }
            if (dma) {
                row.add(worseThanDma(g, inline, v, up));
            }
            b.append(cells(row.toArray(String[]::new)));
        }
        b.append('\n');
    }

    /** "+12.5 %" better, "-3.0 %" worse, relative to {@code from}. */
    private static String change(double from, double to, boolean up) {
        if (from == 0) {
            return NONE;
        }
        double gain = up ? to / from - 1 : 1 - to / from;
        return (gain >= 0 ? "+" : "") + Num.percent(gain);
    }

    private static String worseThanDma(Group g, Axis inline, List<double[]> v, boolean up) {
        double[] dma = null;
        for (double[] p : v) {
            if (inline.number(g.along(p)) == 0) {
                dma = p;
            }
        }
        if (dma == null) {
            return NONE;
        }
        List<String> worse = new ArrayList<>();
        for (double[] p : v) {
            if (up ? p[1] < dma[1] * (1 - INLINE_TOLERANCE) : p[1] > dma[1] * (1 + INLINE_TOLERANCE)) {
                worse.add(g.along(p));
            }
        }
        return worse.isEmpty() ? "none" : String.join(", ", worse);
    }

    private static String notSwept(SweepTable t, Role role, String what) {
        for (Axis a : t.axes) {
            if (a.role() == role) {
                return what + " was not swept (`" + a.key() + "` has the one value " + a.values().get(0) + ").";
            }
        }
        return what + " was not swept.";
    }

    // ---------------------------------------------------------------- groups along one axis

    /**
     * The rows that differ only in {@code along}, sorted along it, for one combination of the other dimensions.
     *
     * @param others the combination's values, one per other dimension
     */
    private record Group(List<String> others, List<Row> rows, Axis alongAxis) {
        String prefix() {
            StringBuilder b = new StringBuilder("|");
            for (String o : others) {
                b.append(' ').append(cell(o)).append(" |");
            }
            return b.toString();
        }

        /** The value along the axis of an entry of {@link #values}. */
        String along(double[] entry) {
            return rows.get((int) entry[0]).coord(alongAxis);
        }
    }

    private static List<Axis> others(SweepTable t, Axis along) {
        return t.dims.stream().filter(a -> a != along).toList();
    }

    private static List<Group> groups(SweepTable t, Axis along, List<Axis> others) {
        List<Group> out = new ArrayList<>();
        List<String> order = along.ordered();
        for (List<String> combo : PlotPlan.combinations(others)) {
            List<Row> rows = new ArrayList<>();
            for (Row row : t.rows) {
                boolean match = true;
                for (int i = 0; i < others.size() && match; i++) {
                    match = row.coord(others.get(i)).equals(combo.get(i));
                }
                if (match) {
                    rows.add(row);
                }
            }
            rows.sort((x, y) -> Integer.compare(order.indexOf(x.coord(along)), order.indexOf(y.coord(along))));
            if (!rows.isEmpty()) {
                out.add(new Group(combo, rows, along));
            }
        }
        return out;
    }

    /** {row position in the group, mean} of each row that reported {@code metric}, in the group's order. */
    private static List<double[]> values(Group g, String metric) {
        List<double[]> out = new ArrayList<>();
        for (int i = 0; i < g.rows().size(); i++) {
            Stat s = g.rows().get(i).stat(metric);
            if (s != null) {
                out.add(new double[] {i, s.mean()});
            }
        }
        return out;
    }

    /** The entry with the highest (or lowest) mean; the first of equals. */
    private static double[] best(List<double[]> v, boolean highest) {
        double[] best = v.get(0);
        for (double[] p : v) {
            if (highest ? p[1] > best[1] : p[1] < best[1]) {
                best = p;
            }
        }
        return best;
    }

    // ---------------------------------------------------------------- points

    private static void points(StringBuilder b, SweepTable t, PlotPlan plan) {
        b.append("## Points\n\n");
        b.append("Every point with its figures and its bottleneck: the block whose busy fraction over the run is"
                + " the highest, when it is busy at least half the time. Otherwise, when a bounded resource (a"
                + " window, tag pool, slot pool, queue or buffer) is at its limit at least half the time, requests"
                + " wait on it although no block is busy, and the bottleneck names it, with the fraction of the time"
                + " it is full (the busy column keeps the busiest block's figure). When neither, no block or bound"
                + " limits the rate: the point is *latency-bound* (its requests wait on round trips), and says"
                + " so.\n\n");
        if (t.suffixSizes() != null) {
            b.append("A point that ran several message sizes has one row per size; its busy fractions cover its"
                    + " whole run, so they repeat on each of its rows.\n\n");
        }
        List<String> heads = new ArrayList<>();
        heads.add("point");
        List<Axis> shown = t.axes.stream().filter(a -> t.dims.contains(a)).toList();
        shown.forEach(a -> heads.add(a.label()));
        List<String> metrics = new ArrayList<>();
        for (Measure m : plan.measures) {
            for (int i = 0; i < m.metrics().size(); i++) {
                metrics.add(m.metrics().get(i));
                heads.add(m.label(i));
            }
        }
        heads.add("bottleneck");
        heads.add("busy");
        header(b, List.of(), heads.toArray(String[]::new));
        boolean missing = false;
        boolean noBusy = false;
        for (Row row : t.rows) {
            List<String> c = new ArrayList<>();
            c.add(String.valueOf(row.index()));
            shown.forEach(a -> c.add(row.coord(a)));
            for (String metric : metrics) {
                Stat s = row.stat(metric);
                missing |= s == null;
                c.add(s == null ? NONE : Num.fmt(s.mean())
                        + (s.spread() ? " (" + Num.fmt(s.min()) + ".." + Num.fmt(s.max()) + ")" : ""));
            }
            Limit limit = row.limit();
            noBusy |= row.bottleneck() == null && limit.kind() != Limit.Kind.BOUND;
            if (limit.kind() == Limit.Kind.BOUND) {
                c.add("`" + limit.block() + "`: " + limit.what() + " full " + Num.percent(limit.fraction())
                        + " of the time");
                c.add(row.bottleneck() == null ? NONE : Num.percent(row.busy()) + " (`" + row.bottleneck() + "`)");
            } else {
                c.add(row.bottleneck() == null ? NONE : "`" + row.bottleneck() + "`");
                c.add(row.bottleneck() == null ? NONE
                        : Num.percent(row.busy()) + (limit.kind() == Limit.Kind.LATENCY ? ", latency-bound" : ""));
            }
            b.append('|').append(cells(c.toArray(String[]::new)));
        }
        b.append('\n');
        if (missing) {
            b.append(NONE).append(" in a figure column: that point did not report the metric.\n\n");
        }
        if (noBusy) {
            b.append(NONE).append(" as bottleneck: that point reported no busy fraction for any block.\n\n");
        }
    }

    // ---------------------------------------------------------------- plots

    private static void plots(StringBuilder b, PlotPlan plan) {
        b.append("## Plots\n\n");
        for (String note : plan.notes) {
            b.append(note).append("\n\n");
        }
        for (Figure f : plan.figures) {
            b.append("![").append(f.title().replace("]", ")")).append("](").append(f.stem()).append(".png)\n\n")
                    .append("[SVG](").append(f.stem()).append(".svg)\n\n");
        }
    }

    // ---------------------------------------------------------------- markdown

    private static void header(StringBuilder b, List<Axis> first, String... rest) {
        StringBuilder sep = new StringBuilder("|");
        b.append('|');
        for (Axis a : first) {
            b.append(' ').append(cell(a.label())).append(" |");
            sep.append("---|");
        }
        for (String h : rest) {
            b.append(' ').append(cell(h)).append(" |");
            sep.append("---|");
        }
        b.append('\n').append(sep).append('\n');
    }

    /** The rest of a table row after its leading '|' cells: {@code " a | b |\n"}. */
    private static String cells(String... values) {
        StringBuilder b = new StringBuilder();
        for (String v : values) {
            b.append(' ').append(cell(v)).append(" |");
        }
        return b.append('\n').toString();
    }

    private static String cell(String s) {
        return s.replace("|", "\\|").replace("\n", " ");
    }
}
