package dev.rdmasim.sweep.report;

import dev.rdmasim.sweep.SweepResults;
import dev.rdmasim.sweep.report.PlotPlan.Figure;
import dev.rdmasim.sweep.report.PlotPlan.HeatFigure;
import dev.rdmasim.sweep.report.PlotPlan.Line;
import dev.rdmasim.sweep.report.PlotPlan.LineFigure;
import dev.rdmasim.sweep.report.PlotPlan.Scale;
import java.awt.BasicStroke;
import java.awt.Color;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.HeatMapChart;
import org.knowm.xchart.HeatMapChartBuilder;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.AxesChartStyler;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.Marker;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Draws a sweep's figures as PNG and SVG with XChart. Which figures are drawn is decided from what was swept (see
 * {@link PlotPlan} and docs/sweep.md ("Plots and report")). The same results give the same bytes: XChart draws with no clock or
 * randomness, and the SVG's clip path ids (identity hash codes in VectorGraphics2D) are renumbered in order.
 */
public final class Plots {
    /** Size of every figure in pixels (PNG) or user units (SVG). */
    public static final int WIDTH = 800;
    public static final int HEIGHT = 500;

    /** A secondary line (99% latency): opacity and width of its band. */
    static final int SECONDARY_ALPHA = 0x66;
    static final float SECONDARY_WIDTH = 8f;

    /** One color per series value, distinguishable in print and for the common color deficiencies. */
    static final Color[] PALETTE = {
        new Color(0x1f77b4), new Color(0xff7f0e), new Color(0x2ca02c), new Color(0xd62728), new Color(0x9467bd),
        new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f), new Color(0xbcbd22), new Color(0x17becf)};
    static final Marker[] MARKERS = {
        SeriesMarkers.CIRCLE, SeriesMarkers.DIAMOND, SeriesMarkers.SQUARE, SeriesMarkers.TRIANGLE_UP,
        SeriesMarkers.TRIANGLE_DOWN};

    private static final Pattern CLIP_ID = Pattern.compile("(id=\"|url\\(#)clip(-?\\d+)");
    private static final Pattern SVG_START = Pattern.compile("<svg\\b[^>]*>");

    private Plots() {
    }

    /**
     * Writes every figure of the sweep into {@code dir} (created when missing) as {@code STEM.png} and
     * {@code STEM.svg}, and returns the files written in a fixed order (each figure's PNG, then its SVG). A sweep
     * with nothing to plot (no parameter with two values, no metric) writes nothing; {@link Report} says why.
     */
    public static List<Path> write(Path dir, SweepResults r) throws IOException {
        PlotPlan plan = new PlotPlan(new SweepTable(r));
        Files.createDirectories(dir);
        List<Path> out = new ArrayList<>();
        for (Figure f : plan.figures) {
            Chart<?, ?> chart = chart(f);
            Path png = dir.resolve(f.stem() + ".png");
            Files.write(png, BitmapEncoder.getBitmapBytes(chart, BitmapEncoder.BitmapFormat.PNG));
            out.add(png);
            ByteArrayOutputStream svg = new ByteArrayOutputStream();
            VectorGraphicsEncoder.saveVectorGraphic(chart, svg, VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
            Path svgFile = dir.resolve(f.stem() + ".svg");
            Files.writeString(svgFile, tidySvg(svg.toString(StandardCharsets.UTF_8), f), StandardCharsets.UTF_8);
            out.add(svgFile);
        }
        return out;
    }

    private static Chart<?, ?> chart(Figure f) {
        return f instanceof LineFigure l ? lineChart(l) : heatChart((HeatFigure) f);
    }

    private static void style(Styler s) {
        s.setChartBackgroundColor(Color.WHITE);
        s.setPlotBackgroundColor(Color.WHITE);
        s.setPlotBorderColor(Color.GRAY);
        s.setLegendBorderColor(Color.LIGHT_GRAY);
        s.setLegendPosition(Styler.LegendPosition.OutsideE);
        s.setChartTitleBoxVisible(false);
    }

    static void styleAxes(AxesChartStyler s) {
        style(s);
        s.setLocale(Locale.ROOT);
        s.setPlotGridLinesColor(new Color(0xdddddd));
        s.setAxisTickMarksColor(Color.GRAY);
    }

    private static XYChart lineChart(LineFigure f) {
        XYChart c = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(f.title()).xAxisTitle(f.xLabel())
                .yAxisTitle(f.yLabel()).build();
        styleAxes(c.getStyler());
        c.getStyler().setErrorBarsColorSeriesColor(true);
        c.getStyler().setMarkerSize(7);
        Function<Double, String> ticks = ticks(f);
        if (ticks != null) {
            c.setCustomXAxisTickLabelsFormatter(ticks);
        }
        boolean negative = false;
        boolean flatZero = true;
        for (Line line : f.lines()) {
            Color color = PALETTE[line.color() % PALETTE.length];
            XYSeries s = c.addSeries(line.name(), line.x(), line.y());
            if (line.secondary()) {
                // The 99% latency often equals the median (a deterministic model repeats itself): drawn as a wide
                // pale band without markers, it stays visible where the two coincide, the median showing through.
                s.setLineColor(new Color(color.getRed(), color.getGreen(), color.getBlue(), SECONDARY_ALPHA));
                s.setLineStyle(new BasicStroke(SECONDARY_WIDTH, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND));
                s.setMarker(SeriesMarkers.NONE);
            } else {
                s.setLineStyle(SeriesLines.SOLID);
                s.setLineColor(color);
                s.setMarkerColor(color);
                s.setMarker(MARKERS[line.color() % MARKERS.length]);
            }
            for (double y : line.y()) {
                negative |= y < 0;
                flatZero &= y == 0;
            }
            if (line.lo() != null) {
                // XChart's error bars are symmetric: draw the repetitions' min..max as bars around the midpoint,
                // on a series of their own that has no line, marker or legend entry.
                int n = line.x().length;
                double[] mid = new double[n];
                double[] half = new double[n];
                for (int i = 0; i < n; i++) {
                    mid[i] = (line.lo()[i] + line.hi()[i]) / 2;
                    half[i] = (line.hi()[i] - line.lo()[i]) / 2;
                    negative |= line.lo()[i] < 0;
                }
                XYSeries range = c.addSeries(line.name() + " (min..max)", line.x(), mid, half);
                range.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
                range.setMarker(SeriesMarkers.NONE);
                range.setMarkerColor(color);
                range.setLineColor(color);
                range.setShowInLegend(false);
            }
        }
        if (!negative) {
            c.getStyler().setYAxisMin(0.0); // throughputs and latencies read best from zero
        }
        if (flatZero) {
            c.getStyler().setYAxisMax(1.0); // an axis with a scale, not a lone 0
        }
        return c;
    }

    /** Tick labels for log2 and category axes (null: XChart's own numbers). */
    private static Function<Double, String> ticks(LineFigure f) {
        if (f.scale() == Scale.LINEAR) {
            return null;
        }
        return v -> {
            double r = Math.rint(v);
            if (Math.abs(v - r) > 1e-9) {
                return ""; // a tick between two powers of two or two categories
            }
            if (f.scale() == Scale.LOG2) {
                return Num.fmt(Math.pow(2, r));
            }
            int i = (int) r;
            return i >= 0 && i < f.categories().size() ? f.categories().get(i) : "";
        };
    }

    private static HeatMapChart heatChart(HeatFigure f) {
        HeatMapChart c = new HeatMapChartBuilder().width(WIDTH).height(HEIGHT).title(f.title())
                .xAxisTitle(f.xLabel()).yAxisTitle(f.yLabel()).build();
        styleAxes(c.getStyler());
        c.getStyler().setShowValue(true);
        // XChart 3.8.8 labels cells and the colour legend with a DecimalFormat of this pattern (it ignores the
        // value formatter); cells carry three significant digits, so labels fit their cells.
        c.getStyler().setHeatMapValueDecimalPattern("0.###");
        c.getStyler().setHeatMapDecimalValueFormatter(Num::fmt);
        c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        List<Number[]> cells = new ArrayList<>();
        for (double[] cell : f.cells()) {
            double v = threeDigits(cell[2]);
            cells.add(new Number[] {(int) cell[0], (int) cell[1], v});
            min = Math.min(min, v);
            max = Math.max(max, v);
        }
        // A flat map still needs a colour range.
        c.getStyler().setMin(min);
        c.getStyler().setMax(max > min ? max : min + 1);
        c.addSeries(f.valueLabel(), f.xs(), f.ys(), cells);
        return c;
    }

    private static double threeDigits(double v) {
        return v == 0 || !Double.isFinite(v) ? v
                : new java.math.BigDecimal(v).round(new java.math.MathContext(3)).doubleValue();
    }

    /**
     * Makes VectorGraphics2D's SVG reproducible and self-describing: clip path ids (identity hash codes) become
     * {@code clip1, clip2, ...} in order of appearance, and a {@code <title>} and {@code <desc>} carry the chart's
     * title, axis titles and series names, which XChart otherwise draws only as glyph outlines.
     */
    static String tidySvg(String svg, Figure f) {
        Map<String, String> ids = new LinkedHashMap<>();
        Matcher m = CLIP_ID.matcher(svg);
        StringBuilder b = new StringBuilder(svg.length());
        while (m.find()) {
            String id = ids.computeIfAbsent(m.group(2), k -> "clip" + (ids.size() + 1));
            m.appendReplacement(b, Matcher.quoteReplacement(m.group(1) + id));
        }
        m.appendTail(b);
        String out = b.toString();
        Matcher start = SVG_START.matcher(out);
        if (!start.find()) {
            throw new IllegalStateException("XChart wrote an SVG without an <svg> element");
        }
        String meta = "\n  <title>" + xml(f.title()) + "</title>\n  <desc>" + xml(describe(f)) + "</desc>";
        return out.substring(0, start.end()) + meta + out.substring(start.end());
    }

    private static String describe(Figure f) {
        StringBuilder b = new StringBuilder("x axis: ").append(f.xLabel()).append("; y axis: ").append(f.yLabel());
        if (f instanceof LineFigure l) {
            b.append("; series: ").append(String.join(", ", l.lines().stream().map(Line::name).toList()));
        } else if (f instanceof HeatFigure h) {
            b.append("; colour: ").append(h.valueLabel());
        }
        return b.toString();
    }

    private static String xml(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
