package dev.rdmasim.sweep.report;

import dev.rdmasim.sweep.report.SweepTable.Axis;
import dev.rdmasim.sweep.report.SweepTable.Role;
import dev.rdmasim.sweep.report.SweepTable.Row;
import dev.rdmasim.sweep.report.SweepTable.Stat;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which figures a sweep gets, decided from what was swept; {@link Plots} draws them and {@link Report} embeds
 * them, so both agree on file names without one calling the other.
 *
 * <p>Rules (documented for users in docs/sweep.md ("Plots and report")):
 * <ul>
 * <li>Only dimensions (swept keys with more than one value, and the message sizes of points that ran several)
 *     are plotted; with none, there is no figure.</li>
 * <li>The x axis is the message size, else the queue depth, else the inline size, else the first other key;
 *     for latency workloads the queue depth comes before the message size.</li>
 * <li>One series per value of the next dimension, preferring inline size, then queue depth, then message size,
 *     then other keys in sweep order.</li>
 * <li>Every further dimension makes one figure per combination of its values (at most {@value #MAX_FACETS}).</li>
 * <li>One figure per figure of merit ({@link Measure}): throughput and message rate for bandwidth workloads,
 *     median and 99% latency together for latency workloads.</li>
 * <li>With exactly two dimensions, a heat map of the main figure of merit as well.</li>
 * </ul>
 */
final class PlotPlan {
    static final int MAX_FACETS = 16;

    enum Scale {
        /** Positions are log2 of the values, ticks labelled with the values at whole powers of two. */
        LOG2,
        LINEAR,
        /** Evenly spaced in the order given, labelled as written. */
        CATEGORY
    }

    /**
     * One series: means at x, and the repetitions' min and max when they differ (else null).
     *
     * @param color  index into the palette (one per series value)
     * @param secondary whether it is a measure's second metric (99% latency), drawn as a pale band
     */
    record Line(String name, int color, boolean secondary, double[] x, double[] y, double[] lo, double[] hi) {
    }

    sealed interface Figure permits LineFigure, HeatFigure {
        /** File name without extension. */
        String stem();

        String title();

        String xLabel();

        String yLabel();
    }

    record LineFigure(String stem, String title, String xLabel, String yLabel, Scale scale, List<String> categories,
            List<Line> lines) implements Figure {
    }

    /**
     * @param cells {x index, y index, value} of every cell that has a value
     */
    record HeatFigure(String stem, String title, String xLabel, String yLabel, List<String> xs, List<String> ys,
            List<double[]> cells, String valueLabel) implements Figure {
    }

    final SweepTable table;
    final List<Measure> measures;
    final Axis x;
    final Axis series;
    final List<Axis> facets;
    final List<Figure> figures = new ArrayList<>();
    /** Sentences for the report: why there is no figure, or which were left out. */
    final List<String> notes = new ArrayList<>();

    PlotPlan(SweepTable t) {
        this.table = t;
        this.measures = Measure.of(t);
        List<Axis> rest = new ArrayList<>(t.dims);
        boolean latencyFirst = !measures.isEmpty() && measures.get(0).slug().equals("latency");
        this.x = take(rest, latencyFirst ? new Role[] {Role.DEPTH, Role.SIZE, Role.INLINE, Role.OTHER}
                : new Role[] {Role.SIZE, Role.DEPTH, Role.INLINE, Role.OTHER});
        this.series = take(rest, new Role[] {Role.INLINE, Role.DEPTH, Role.SIZE, Role.OTHER});
        this.facets = List.copyOf(rest);
        if (x == null) {
            notes.add("No swept parameter has more than one value, so there is nothing to plot against.");
            return;
        }
        if (measures.isEmpty()) {
            notes.add("The points reported no metric, so there is nothing to plot.");
            return;
        }
        Map<List<String>, Row> byDims = new HashMap<>();
        for (Row row : t.rows) {
            byDims.put(dimCoords(row), row);
        }
        List<List<String>> combos = combinations(facets);
        if (combos.size() > MAX_FACETS) {
            notes.add("Only the first " + MAX_FACETS + " of " + combos.size() + " combinations of "
                    + String.join(", ", facets.stream().map(Axis::key).toList()) + " are plotted.");
            combos = combos.subList(0, MAX_FACETS);
        }
        for (Measure m : measures) {
            for (List<String> combo : combos) {
                LineFigure f = lineFigure(m, combo, byDims);
                if (f != null) {
                    figures.add(f);
                }
            }
        }
        if (t.dims.size() == 2) {
            HeatFigure h = heatFigure(measures.get(0), byDims);
            if (h != null) {
                figures.add(h);
            }
        }
    }

    /** The row's values on the table's dimensions, the key rows are looked up by. */
    private List<String> dimCoords(Row row) {
        return table.dims.stream().map(row::coord).toList();
    }

    private static Axis take(List<Axis> dims, Role[] priority) {
        for (Role role : priority) {
            for (Axis a : dims) {
                if (a.role() == role) {
                    dims.remove(a);
                    return a;
                }
            }
        }
        return null;
    }

    /** Every combination of the axes' values, the last axis varying fastest. */
    static List<List<String>> combinations(List<Axis> axes) {
        List<List<String>> out = new ArrayList<>();
        out.add(List.of());
        for (Axis a : axes) {
            List<List<String>> next = new ArrayList<>();
            for (List<String> prefix : out) {
                for (String v : a.ordered()) {
                    List<String> c = new ArrayList<>(prefix);
                    c.add(v);
                    next.add(c);
                }
            }
            out = next;
        }
        return out;
    }

    static Scale scale(Axis a) {
        if (!a.numeric()) {
            return Scale.CATEGORY;
        }
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (double v : a.numbers()) {
            min = Math.min(min, v);
            max = Math.max(max, v);
        }
        boolean positive = min > 0;
        return positive && (a.role() == Role.SIZE || max / min >= 8) ? Scale.LOG2 : Scale.LINEAR;
    }

    private static double position(Axis a, Scale s, String value) {
        return switch (s) {
            case LOG2 -> Math.log(a.number(value)) / Math.log(2);
            case LINEAR -> a.number(value);
            case CATEGORY -> a.ordered().indexOf(value);
        };
    }

    private String prefix() {
        return table.results.workload().label() + " on " + table.results.profile() + ": ";
    }

    private LineFigure lineFigure(Measure m, List<String> combo, Map<List<String>, Row> byDims) {
        Scale scale = scale(x);
        List<String> seriesValues = series == null ? List.of("") : series.ordered();
        List<Line> lines = new ArrayList<>();
        for (int si = 0; si < seriesValues.size(); si++) {
            for (int mi = 0; mi < m.metrics().size(); mi++) {
                Line line = line(m, mi, si, seriesValues.get(si), combo, scale, byDims);
                if (line != null) {
                    lines.add(line);
                }
            }
        }
        if (lines.isEmpty()) {
            return null;
        }
        StringBuilder stem = new StringBuilder(m.slug()).append("-vs-").append(x.slug());
        List<String> facetText = new ArrayList<>();
        for (int i = 0; i < facets.size(); i++) {
            stem.append('_').append(facets.get(i).slug()).append('-').append(Num.slug(combo.get(i)));
            facetText.add(facets.get(i).slug() + "=" + combo.get(i));
        }
        String title = prefix() + m.title() + " vs " + x.name()
                + (facetText.isEmpty() ? "" : " (" + String.join(", ", facetText) + ")");
        return new LineFigure(stem.toString(), title, x.label(), m.yLabel(), scale, x.ordered(), lines);
    }

    private Line line(Measure m, int mi, int si, String seriesValue, List<String> combo, Scale scale,
            Map<List<String>, Row> byDims) {
        String metric = m.metrics().get(mi);
        List<double[]> pts = new ArrayList<>();
        boolean spread = false;
        for (String xv : x.ordered()) {
            Row row = byDims.get(coords(xv, seriesValue, combo));
            Stat s = row == null ? null : row.stat(metric);
            if (s != null) {
                pts.add(new double[] {position(x, scale, xv), s.mean(), s.min(), s.max()});
                spread |= s.spread();
            }
        }
        if (pts.isEmpty()) {
            return null;
        }
        List<String> name = new ArrayList<>();
        if (!m.metricNames().get(mi).isEmpty()) {
            name.add(m.metricNames().get(mi));
        }
        if (series != null) {
            name.add(series.slug() + "=" + seriesValue);
        }
        String label = name.isEmpty() ? m.title() : String.join(", ", name);
        return new Line(label, si, mi > 0, column(pts, 0), column(pts, 1),
                spread ? column(pts, 2) : null, spread ? column(pts, 3) : null);
    }

    private static double[] column(List<double[]> rows, int c) {
        double[] out = new double[rows.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = rows.get(i)[c];
        }
        return out;
    }

    /** The dimension coordinates of the row at x value {@code xv}, series value and facet combination. */
    private List<String> coords(String xv, String seriesValue, List<String> combo) {
        List<String> out = new ArrayList<>();
        for (Axis d : table.dims) {
            if (d == x) {
                out.add(xv);
            } else if (d == series) {
                out.add(seriesValue);
            } else {
                out.add(combo.get(facets.indexOf(d)));
            }
        }
        return out;
    }

    private HeatFigure heatFigure(Measure m, Map<List<String>, Row> byDims) {
        List<String> xs = x.ordered();
        List<String> ys = series.ordered();
        List<double[]> cells = new ArrayList<>();
        for (int i = 0; i < xs.size(); i++) {
            for (int j = 0; j < ys.size(); j++) {
                Row row = byDims.get(coords(xs.get(i), ys.get(j), List.of()));
                Stat s = row == null ? null : row.stat(m.main());
                if (s != null) {
                    cells.add(new double[] {i, j, s.mean()});
                }
            }
        }
        if (cells.isEmpty()) {
            return null;
        }
        return new HeatFigure("heatmap-" + m.slug(), prefix() + m.label(0), x.label(), series.label(), xs, ys,
                cells, m.label(0));
    }
}
