package dev.rdmasim.sweep.report;

import dev.rdmasim.traces.validate.Validation;
import dev.rdmasim.traces.validate.Validation.Curve;
import dev.rdmasim.traces.validate.Validation.Figure;
import dev.rdmasim.traces.validate.Validation.Measurement;
import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The figures of {@code rdmasim validate --out}: for each group of rows that measured one setup at several sizes,
 * the model's curve over message sizes as a line and the hardware's published figures as markers of the same
 * colour, on a log-2 size axis. Drawn in the sweep plots' style ({@link Plots}), and, like them, the same curves
 * give the same bytes.
 */
public final class ValidationPlots {
    /** Latency rows ({@code lat_typical_us}). */
    public static final String LATENCY = "latency-vs-size.png";
    /** Bandwidth rows ({@code bw_avg_gbps}). */
    public static final String BANDWIDTH = "bandwidth-vs-size.png";

    private static final BasicStroke LINE = new BasicStroke(2f, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND);

    private ValidationPlots() {
    }

    /**
     * Writes {@link #LATENCY} and {@link #BANDWIDTH} into {@code dir} (which must exist), each only when some curve
     * has its figure, and returns the files written in that order.
     */
    public static List<Path> write(Path dir, List<Curve> curves) throws IOException {
        List<Path> out = new ArrayList<>();
        for (Figure f : List.of(Figure.LAT_TYPICAL_US, Figure.BW_AVG_GBPS)) {
            List<Curve> of = curves.stream().filter(c -> c.group().figure() == f).toList();
            if (of.isEmpty()) {
                continue;
            }
            Path png = dir.resolve(f == Figure.LAT_TYPICAL_US ? LATENCY : BANDWIDTH);
            Files.write(png, BitmapEncoder.getBitmapBytes(chart(f, of), BitmapEncoder.BitmapFormat.PNG));
            out.add(png);
        }
        return out;
    }

    static XYChart chart(Figure f, List<Curve> curves) {
        boolean lat = f == Figure.LAT_TYPICAL_US;
        XYChart c = new XYChartBuilder().width(Plots.WIDTH).height(Plots.HEIGHT)
                .title(lat ? "Latency (perftest t_typical): model and published hardware"
                        : "Bandwidth (perftest BW average): model and published hardware")
                .xAxisTitle("message size (bytes, log2)")
                .yAxisTitle(lat ? "latency (us)" : "bandwidth (Gb/s)").build();
        Plots.styleAxes(c.getStyler());
        c.getStyler().setMarkerSize(9);
        c.getStyler().setYAxisMin(0.0);
        // Sizes are drawn at log2(size); the ticks name the power of two they stand for.
        c.setCustomXAxisTickLabelsFormatter(v -> {
            double r = Math.rint(v);
            return Math.abs(v - r) > 1e-9 ? "" : size(Math.pow(2, r));
        });
        Set<String> used = new HashSet<>();
        for (int i = 0; i < curves.size(); i++) {
            Curve curve = curves.get(i);
            Color color = Plots.PALETTE[i % Plots.PALETTE.length];
            String name = unique(curve.group().label(), curve.group(), used);
            double[] x = new double[curve.sizes().size()];
            double[] y = new double[x.length];
            for (int k = 0; k < x.length; k++) {
                x[k] = log2(curve.sizes().get(k));
                y[k] = curve.model().get(k);
            }
            XYSeries model = c.addSeries(name + " (model)", x, y);
            model.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
            model.setLineColor(color);
            model.setLineStyle(LINE);
            model.setMarker(SeriesMarkers.NONE);
            List<Measurement> rows = curve.group().rows();
            double[] hx = new double[rows.size()];
            double[] hy = new double[rows.size()];
            for (int k = 0; k < hx.length; k++) {
                hx[k] = log2(rows.get(k).size());
                hy[k] = rows.get(k).hardware();
            }
            XYSeries hw = c.addSeries(name + " (hardware)", hx, hy);
            hw.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
            hw.setMarker(Plots.MARKERS[i % Plots.MARKERS.length]);
            hw.setMarkerColor(color);
        }
        return c;
    }

    /** Two groups of one hardware and test (other settings) would share a legend name: the settings tell them apart. */
    private static String unique(String label, Validation.Group g, Set<String> used) {
        String name = label;
        if (!used.add(name)) {
            name = label + " [" + g.profile() + (g.set().isEmpty() ? "" : ", " + String.join(", ", g.set()))
                    + (g.inline() >= 0 ? ", inline " + g.inline() : "") + "]";
            for (int n = 2; !used.add(name); n++) {
                name = label + " #" + n;
            }
        }
        return name;
    }

    private static double log2(int size) {
        // Exact at powers of two, so the rows' sizes sit on the ticks.
        return Integer.bitCount(size) == 1 ? Integer.numberOfTrailingZeros(size) : Math.log(size) / Math.log(2);
    }

    /** {@code 512}, {@code 4K}, {@code 1M}: binary multiples, short enough for a tick every power of two. */
    static String size(double bytes) {
        long b = Math.round(bytes);
        if (b >= 1 << 20 && b % (1 << 20) == 0) {
            return (b >> 20) + "M";
        }
        if (b >= 1 << 10 && b % (1 << 10) == 0) {
            return (b >> 10) + "K";
        }
        return Long.toString(b);
    }
}
