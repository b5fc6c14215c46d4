package dev.rdmasim.sweep.report;

import static dev.rdmasim.sweep.report.Fixtures.WRITE_BW;
import static dev.rdmasim.sweep.report.Fixtures.WRITE_LAT;
import static dev.rdmasim.sweep.report.Fixtures.busy;
import static dev.rdmasim.sweep.report.Fixtures.bw;
import static dev.rdmasim.sweep.report.Fixtures.lat;
import static dev.rdmasim.sweep.report.Fixtures.sweep;
import static dev.rdmasim.sweep.report.Fixtures.vals;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.rdmasim.sweep.PointResult.Metric;
import dev.rdmasim.sweep.SweepResults;
import dev.rdmasim.sweep.Workload;
import dev.rdmasim.sweep.report.Fixtures.Run;
import dev.rdmasim.sweep.report.PlotPlan.Figure;
import dev.rdmasim.sweep.report.PlotPlan.HeatFigure;
import dev.rdmasim.sweep.report.PlotPlan.Line;
import dev.rdmasim.sweep.report.PlotPlan.LineFigure;
import dev.rdmasim.sweep.report.PlotPlan.Scale;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PlotPlanTest {
    private static List<String> stems(SweepResults r) {
        return plan(r).figures.stream().map(Figure::stem).toList();
    }

    private static PlotPlan plan(SweepResults r) {
        return new PlotPlan(new SweepTable(r));
    }

    private static LineFigure line(PlotPlan p, String stem) {
        return (LineFigure) p.figures.stream().filter(f -> f.stem().equals(stem)).findFirst().orElseThrow();
    }

    @Test
    void oneParameterGivesLinePlotsOfEachFigureOfMeritAgainstIt() {
        SweepResults r = sweep(WRITE_BW, vals("qp.initiatorQueueDepth"), List.of(vals("1", "4", "16", "64", "256")),
                1, c -> new Run(bw(c.num("qp.initiatorQueueDepth"), 64, ""), busy(0.5, 0.2)));
        PlotPlan p = plan(r);
        assertThat(stems(r)).containsExactly("throughput-vs-depth", "msgrate-vs-depth");
        LineFigure f = line(p, "throughput-vs-depth");
        assertThat(f.scale()).isEqualTo(Scale.LOG2);
        assertThat(f.xLabel()).isEqualTo("initiator queue depth (WQEs)");
        assertThat(f.yLabel()).isEqualTo("throughput (Gb/s)");
        assertThat(f.title()).isEqualTo("write_bw on default: throughput vs queue depth");
        assertThat(f.lines()).hasSize(1);
        Line l = f.lines().get(0);
        assertThat(l.x()).containsExactly(0, 2, 4, 6, 8);
        assertThat(l.y()).containsExactly(1, 4, 16, 64, 256);
        assertThat(l.lo()).isNull();
        assertThat(line(p, "msgrate-vs-depth").yLabel()).isEqualTo("message rate (Mpps)");
    }

    @Test
    void twoParametersGiveSeriesPerInlineSizeAndAHeatMap() {
        SweepResults r = sweep(WRITE_BW, vals("qp.inlineDataSize", "qp.initiatorQueueDepth"),
                List.of(vals("0", "64", "220B"), vals("16", "1", "4")), 1,
                c -> new Run(bw(c.num("qp.initiatorQueueDepth") * 10 + (c.values().get("qp.inlineDataSize")
                        .equals("0") ? 0 : 1), 64, ""), busy(0.5, 0.2)));
        PlotPlan p = plan(r);
        assertThat(stems(r)).containsExactly("throughput-vs-depth", "msgrate-vs-depth", "heatmap-throughput");
        LineFigure f = line(p, "throughput-vs-depth");
        assertThat(f.lines()).extracting(Line::name).containsExactly("inline=0", "inline=64", "inline=220B");
        // Depths are sorted numerically whatever order the sweep gave them in.
        assertThat(f.lines().get(0).x()).containsExactly(0, 2, 4);
        assertThat(f.lines().get(0).y()).containsExactly(10, 40, 160);
        assertThat(f.lines().get(2).y()).containsExactly(11, 41, 161);
        HeatFigure h = (HeatFigure) p.figures.get(2);
        assertThat(h.xs()).containsExactly("1", "4", "16");
        assertThat(h.ys()).containsExactly("0", "64", "220B");
        assertThat(h.xLabel()).isEqualTo("initiator queue depth (WQEs)");
        assertThat(h.yLabel()).isEqualTo("inline size (B)");
        assertThat(h.cells()).hasSize(9);
        assertThat(h.cells()).anySatisfy(c -> assertThat(c).containsExactly(2, 1, 161));
    }

    @Test
    void messageSizeSweepIsTheXAxisOnALog2Scale() {
        SweepResults r = sweep(WRITE_BW, vals("-I", "-s"), List.of(vals("0", "128"), vals("64", "256", "4096")), 1,
                c -> new Run(bw(c.num("-s") / 100.0, (int) c.num("-s"), ""), busy(0.5, 0.2)));
        PlotPlan p = plan(r);
        assertThat(stems(r)).containsExactly("throughput-vs-size", "msgrate-vs-size", "heatmap-throughput");
        LineFigure f = line(p, "throughput-vs-size");
        assertThat(f.xLabel()).isEqualTo("message size (B)");
        assertThat(f.scale()).isEqualTo(Scale.LOG2);
        assertThat(f.lines()).extracting(Line::name).containsExactly("inline=0", "inline=128");
        assertThat(f.lines().get(0).x()).containsExactly(new double[] {6, 8, 12}, within(1e-12));
    }

    @Test
    void sizesFromMetricSuffixesAreAnAxisToo() {
        SweepResults r = sweep(WRITE_BW, vals("qp.inlineDataSize"), List.of(vals("0", "64")), 1, c -> {
            List<Metric> m = new ArrayList<>();
            for (int s : new int[] {64, 1024, 4096}) {
                m.addAll(bw(s / 100.0 + c.num("qp.inlineDataSize"), s, "_" + s + "B"));
            }
            return new Run(m, busy(0.3, 0.4));
        });
        SweepTable t = new SweepTable(r);
        assertThat(t.rows).hasSize(6);
        assertThat(t.dims).extracting(SweepTable.Axis::key).containsExactly("qp.inlineDataSize", "message size");
        PlotPlan p = plan(r);
        assertThat(stems(r)).containsExactly("throughput-vs-size", "msgrate-vs-size", "heatmap-throughput");
        LineFigure f = line(p, "throughput-vs-size");
        assertThat(f.lines()).extracting(Line::name).containsExactly("inline=0", "inline=64");
        assertThat(f.lines().get(1).y()).containsExactly(64 / 100.0 + 64, 1024 / 100.0 + 64, 4096 / 100.0 + 64);
    }

    @Test
    void latencyIsPlottedAgainstQueueDepthWithMedianAndTailTogether() {
        SweepResults r = sweep(WRITE_LAT, vals("-s", "-t"), List.of(vals("64", "4096"), vals("1", "8", "64")), 1,
                c -> new Run(lat(1 + c.num("-t") / 10.0, 2 + c.num("-t") / 5.0, ""), busy(0.1, 0.1)));
        PlotPlan p = plan(r);
        assertThat(stems(r)).containsExactly("latency-vs-depth", "heatmap-latency");
        LineFigure f = line(p, "latency-vs-depth");
        assertThat(f.yLabel()).isEqualTo("latency (\u00b5s)");
        assertThat(f.lines()).extracting(Line::name)
                .containsExactly("median, size=64", "99%, size=64", "median, size=4096", "99%, size=4096");
        assertThat(f.lines()).extracting(Line::secondary).containsExactly(false, true, false, true);
        assertThat(f.lines()).extracting(Line::color).containsExactly(0, 0, 1, 1);
        assertThat(f.lines().get(1).y()).containsExactly(2.2, 3.6, 14.8);
    }

    @Test
    void furtherParametersGiveOneFigurePerCombination() {
        SweepResults r = sweep(WRITE_BW, vals("pcie.mps", "-s", "qp.inlineDataSize"),
                List.of(vals("128", "256"), vals("64", "4096"), vals("0", "64")), 1,
                c -> new Run(bw(c.num("-s") / 100.0, 64, ""), busy(0.5, 0.2)));
        assertThat(stems(r)).containsExactly("throughput-vs-size_pcie.mps-128", "throughput-vs-size_pcie.mps-256",
                "msgrate-vs-size_pcie.mps-128", "msgrate-vs-size_pcie.mps-256");
        assertThat(plan(r).figures.get(1).title()).isEqualTo("write_bw on default: throughput vs message size"
                + " (pcie.mps=256)");
    }

    @Test
    void tooManyCombinationsAreCappedWithANote() {
        List<String> many = new ArrayList<>();
        for (int i = 1; i <= 20; i++) {
            many.add(String.valueOf(i * 100));
        }
        SweepResults r = sweep(WRITE_BW, vals("nic.x", "-s", "-I"), List.of(many, vals("64", "128"), vals("0", "64")),
                1, c -> new Run(bw(1, 64, ""), List.of()));
        PlotPlan p = plan(r);
        assertThat(p.figures).hasSize(2 * PlotPlan.MAX_FACETS);
        assertThat(p.notes).containsExactly("Only the first 16 of 20 combinations of nic.x are plotted.");
    }

    @Test
    void nothingSweptGivesNoFigureAndSaysWhy() {
        SweepResults one = sweep(WRITE_BW, vals("-s"), List.of(vals("64")), 1,
                c -> new Run(bw(10, 64, ""), busy(0.5, 0.2)));
        assertThat(plan(one).figures).isEmpty();
        assertThat(plan(one).notes).containsExactly(
                "No swept parameter has more than one value, so there is nothing to plot against.");
        SweepResults noMetric = sweep(WRITE_BW, vals("-s"), List.of(vals("64", "128")), 1,
                c -> new Run(List.of(), List.of()));
        assertThat(plan(noMetric).figures).isEmpty();
        assertThat(plan(noMetric).notes).containsExactly("The points reported no metric, so there is nothing to plot.");
    }

    @Test
    void repetitionsArePlottedAsMeansWithTheirRange() {
        SweepResults r = sweep(WRITE_BW, vals("-t"), List.of(vals("1", "2")), 3,
                c -> new Run(bw(10 * c.num("-t") + c.repeat(), 64, ""), busy(0.5, 0.2)));
        Line l = line(plan(r), "throughput-vs-depth").lines().get(0);
        assertThat(l.y()).containsExactly(11, 21);
        assertThat(l.lo()).containsExactly(10, 20);
        assertThat(l.hi()).containsExactly(12, 22);
        assertThat(line(plan(r), "throughput-vs-depth").scale()).isEqualTo(Scale.LINEAR);
    }

    @Test
    void traceWorkloadsPlotThroughputAndLatencyInNanoseconds() {
        Workload trace = Workload.trace("x.trace", "host A\n");
        SweepResults r = sweep(trace, vals("link.rate"), List.of(vals("25G", "100G", "10G")), 1,
                c -> new Run(List.of(new Metric("calls", "calls", 10), new Metric("throughput_gbps", "Gb/s", 5),
                        new Metric("latency_p50_ns", "ns", 900), new Metric("latency_p99_ns", "ns", 1500)),
                        List.of()));
        PlotPlan p = plan(r);
        assertThat(stems(r)).containsExactly("throughput-vs-link.rate", "latency-vs-link.rate");
        LineFigure f = line(p, "throughput-vs-link.rate");
        // Rates parse to numbers: sorted, and 10G..100G spans 10x so the axis is log2.
        assertThat(f.categories()).containsExactly("10G", "25G", "100G");
        assertThat(f.scale()).isEqualTo(Scale.LOG2);
        assertThat(line(p, "latency-vs-link.rate").yLabel()).isEqualTo("latency (ns)");
        assertThat(f.title()).startsWith("x.trace on default: ");
    }

    @Test
    void wordsAreEvenlySpacedCategoriesInTheGivenOrder() {
        SweepResults r = sweep(WRITE_BW, vals("nic.mode"), List.of(vals("fast", "slow")), 1,
                c -> new Run(bw(1, 64, ""), List.of()));
        LineFigure f = line(plan(r), "throughput-vs-nic.mode");
        assertThat(f.scale()).isEqualTo(Scale.CATEGORY);
        assertThat(f.lines().get(0).x()).containsExactly(0, 1);
        assertThat(f.xLabel()).isEqualTo("nic.mode");
    }
}
