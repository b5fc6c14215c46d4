package dev.rdmasim.sweep.report;

import static dev.rdmasim.sweep.report.Fixtures.WRITE_BW;
import static dev.rdmasim.sweep.report.Fixtures.WRITE_LAT;
import static dev.rdmasim.sweep.report.Fixtures.bounds;
import static dev.rdmasim.sweep.report.Fixtures.busy;
import static dev.rdmasim.sweep.report.Fixtures.bw;
import static dev.rdmasim.sweep.report.Fixtures.lat;
import static dev.rdmasim.sweep.report.Fixtures.sweep;
import static dev.rdmasim.sweep.report.Fixtures.vals;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.sweep.PointResult.Metric;
import dev.rdmasim.sweep.SweepResults;
import dev.rdmasim.sweep.report.Fixtures.Run;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportTest {
    private static final List<String> DEPTHS = vals("1", "2", "4", "8", "16", "32", "64");
    /** Throughput by size at DEPTHS: size 64 first reaches 95 % at depth 16, size 4096 at depth 4. */
    private static final Map<Long, double[]> TPUT_BY_DEPTH = Map.of(
            64L, new double[] {10, 20, 40, 70, 96, 99, 100},
            4096L, new double[] {50, 90, 97, 98, 99, 100, 100});

    private static double tput(long size, long depth) {
        return TPUT_BY_DEPTH.get(size)[DEPTHS.indexOf(String.valueOf(depth))];
    }

    private static String section(String report, String heading) {
        int start = report.indexOf("## " + heading);
        assertThat(start).as(heading).isNotNegative();
        int end = report.indexOf("\n## ", start + 3);
        return report.substring(start, end < 0 ? report.length() : end);
    }

    @Test
    void smallestDepthReachingNinetyFivePercentPerSize() {
        SweepResults swept = sweep(WRITE_BW, vals("-s", "qp.initiatorQueueDepth"), List.of(vals("64", "4096"), DEPTHS),
                1, c -> new Run(bw(tput(c.num("-s"), c.num("qp.initiatorQueueDepth")), 64, ""), busy(0.9, 0.4)));
        // The same figures from points that each ran both sizes (suffixed metric names).
        SweepResults suffixed = sweep(WRITE_BW, vals("qp.initiatorQueueDepth"), List.of(DEPTHS), 1, c -> {
            List<Metric> m = new ArrayList<>();
            for (long s : new long[] {64, 4096}) {
                m.addAll(bw(tput(s, c.num("qp.initiatorQueueDepth")), 64, "_" + s + "B"));
            }
            return new Run(m, busy(0.9, 0.4));
        });
        for (SweepResults r : List.of(swept, suffixed)) {
            String depth = section(Report.text(r), "Queue depth");
            assertThat(depth).contains("| message size (B) | best throughput (Gb/s) | at depth |"
                    + " smallest depth reaching 95 % | its throughput (Gb/s) | of best |\n");
            assertThat(depth).contains("| 64 | 100 | 64 | 16 | 96 | 96.0 % |\n");
            // Best first reached at 32 (64 ties); 97 at depth 4 is the first within 95 %.
            assertThat(depth).contains("| 4096 | 100 | 32 | 4 | 97 | 97.0 % |\n");
        }
        assertThat(Report.text(suffixed)).contains("Each point ran the message sizes 64, 4096 B",
                "its busy fractions cover its whole run, so they repeat on each of its rows.");
        assertThat(Report.text(swept)).doesNotContain("Each point ran", "repeat on each of its rows");
    }

    @Test
    void exactlyNinetyFivePercentCounts() {
        // 66.1 * 95 / 100 is 95 % in decimal, but one ulp below 0.95 * 66.1 in binary.
        double best = 66.1;
        double[] t = {10, best * 95 / 100, best};
        SweepResults r = sweep(WRITE_BW, vals("-t"), List.of(vals("1", "2", "4")), 1,
                c -> new Run(bw(t[Integer.numberOfTrailingZeros((int) c.num("-t"))], 64, ""), busy(0.9, 0.4)));
        assertThat(section(Report.text(r), "Queue depth")).contains("| 66.1 | 4 | 2 | 62.79 | 95.0 % |");
    }

    @Test
    void inlineStopsPayingOffWithinTwoPercentOfTheBest() {
        Map<Long, double[]> byInline = Map.of(64L, new double[] {50, 80, 81, 81.5}, 4096L,
                new double[] {100, 100, 99.9, 90});
        List<String> inlines = vals("0", "64", "128", "256");
        SweepResults r = sweep(WRITE_BW, vals("-s", "-I"), List.of(vals("64", "4096"), inlines), 1,
                c -> new Run(bw(byInline.get(c.num("-s"))[inlines.indexOf(c.values().get("-I"))], 64, ""),
                        busy(0.3, 0.7)));
        String inline = section(Report.text(r), "Where inline");
        assertThat(inline).contains("smallest inline size whose throughput (Gb/s) is at least 98 % of the highest");
        assertThat(inline).contains("more than 2 % below that of inline size 0");
        // 64 B: 80 >= 0.98 * 81.5 = 79.87, and 50 is not: inline pays off up to 64 B.
        assertThat(inline).contains("| 64 | 81.5 | 256 | 64 | 80 | +60.0 % | none |\n");
        // 4096 B: no inline size beats DMA, and 256 B is 10 % worse than it.
        assertThat(inline).contains("| 4096 | 100 | 0 | 0 (larger inline sizes gain nothing) | 100 | +0.0 % | 256 |\n");
        assertThat(section(Report.text(r), "Queue depth")).contains("The initiator queue depth was not swept.");
    }

    @Test
    void forLatencyLowerIsBetter() {
        double[] typical = {2.0, 1.5, 1.49};
        SweepResults r = sweep(WRITE_LAT, vals("qp.initiatorQueueDepth", "qp.inlineDataSize"),
                List.of(vals("1"), vals("0", "64", "128")), 1,
                c -> new Run(lat(typical[(int) c.num("qp.inlineDataSize") / 64], 4, ""), busy(0.1, 0.2)));
        String text = Report.text(r);
        String inline = section(text, "Where inline");
        assertThat(inline).contains("whose median latency (\u00b5s) is at most 102 % of the lowest");
        assertThat(inline).contains("| 1.49 | 128 | 64 | 1.5 | +25.0 % | none |\n");
        assertThat(section(text, "Queue depth")).contains(
                "The initiator queue depth was not swept (`qp.initiatorQueueDepth` has the one value 1).");
        assertThat(text).contains("| main figure | median latency (\u00b5s) |");
    }

    @Test
    void latencyWorkloadHasNoThroughputToReach() {
        SweepResults r = sweep(WRITE_LAT, vals("-t"), List.of(vals("1", "8")), 1,
                c -> new Run(lat(1, 2, ""), busy(0.1, 0.2)));
        assertThat(section(Report.text(r), "Queue depth")).contains("The workload reports no throughput");
    }

    @Test
    void zeroThroughputIsSaidNotComputed() {
        SweepResults r = sweep(WRITE_BW, vals("-t", "-I"), List.of(vals("1", "8"), vals("0", "64")), 1,
                c -> new Run(bw(0, 64, ""), busy(0, 0)));
        String text = Report.text(r);
        assertThat(section(text, "Queue depth")).contains("| 0 | 0 | \u2014 | no throughput at any depth | \u2014 | \u2014 |");
        assertThat(section(text, "Where inline")).contains("| 1 | 0 | \u2014 | no throughput at any inline size |");
    }

    @Test
    void everyPointWithItsBottleneckAndMissingFiguresMarked() {
        SweepResults r = sweep(WRITE_BW, vals("-s"), List.of(vals("64", "256", "1024")), 2, c -> {
            long s = c.num("-s");
            if (s == 256) {
                return new Run(List.of(new Metric("bw_avg_gbps", "Gb/s", 20 + c.repeat())), List.of());
            }
            return new Run(bw(s / 10.0, 64, ""), s == 64 ? busy(0.9, 0.4) : busy(0.3, 0.5 + c.repeat() * 0.2));
        });
        String points = section(Report.text(r), "Points");
        assertThat(points).contains("| point | message size (B) | throughput (Gb/s) | message rate (Mpps) | bottleneck"
                + " | busy |\n");
        assertThat(points).contains("| 0 | 64 | 6.4 | 12.5 | `A.nic.transmitter` | 90.0 % |\n");
        assertThat(points).contains("| 2 | 256 | 20.5 (20..21) | \u2014 | \u2014 | \u2014 |\n");
        // Busy fractions are means over the repetitions: pcie 0.5 and 0.7.
        assertThat(points).contains("| 4 | 1024 | 102.4 | 200 | `A.pcie.up` | 60.0 % |\n");
        assertThat(points).contains("\u2014 in a figure column: that point did not report the metric.");
        assertThat(points).contains("\u2014 as bottleneck: that point reported no busy fraction for any block.");
    }

    @Test
    void aPointWhoseBusiestBlockIsMostlyIdleIsLatencyBound() {
        SweepResults r = sweep(WRITE_BW, vals("-t"), List.of(vals("1", "64")), 1,
                c -> new Run(bw(c.num("-t"), 64, ""), c.num("-t") == 1 ? busy(0.3, 0.2) : busy(0.5, 0.2)));
        String points = section(Report.text(r), "Points");
        assertThat(points).contains("| 0 | 1 | 1 | 1.953 | `A.nic.transmitter` | 30.0 %, latency-bound |\n");
        // At exactly half busy the block counts as the limit.
        assertThat(points).contains("| 1 | 64 | 64 | 125 | `A.nic.transmitter` | 50.0 % |\n");
    }

    /** The three cases of the rule: a busy block, else a full bound, else latency. */
    @Test
    void aPointWithNoBusyBlockIsLimitedByItsFullestBoundIfFullHalfTheTime() {
        SweepResults r = sweep(WRITE_BW, vals("-t"), List.of(vals("1", "2", "4", "8")), 2, c -> {
            long t = c.num("-t");
            List<Metric> busy = t == 1 ? busy(0.8, 0.2) : busy(0.3, 0.2);
            // Depth 2: the window is full 90 % and 96 % of the time (mean 93 %); depth 4: tags 60 %, the window
            // 40 %; depth 8: nothing full half the time.
            return new Run(bw(t, 64, ""), busy, switch ((int) t) {
                case 1, 2 -> bounds(0.9 + c.repeat() * 0.06, 0.1);
                case 4 -> bounds(0.4, 0.6);
                default -> bounds(0.45, 0.49);
            });
        });
        String points = section(Report.text(r), "Points");
        // A block busy at least half the time wins even over a fuller bound.
        assertThat(points).contains("| 0 | 1 | 1 | 1.953 | `A.nic.transmitter` | 80.0 % |\n");
        assertThat(points).contains("| 2 | 2 | 2 | 3.906 | `A.nic.fetch`: prefetch window full 93.0 % of the time"
                + " | 30.0 % (`A.nic.transmitter`) |\n");
        assertThat(points).contains("| 4 | 4 | 4 | 7.813 | `A.pcie.dma`: PCIe read tags full 60.0 % of the time"
                + " | 30.0 % (`A.nic.transmitter`) |\n");
        assertThat(points).contains("| 6 | 8 | 8 | 15.63 | `A.nic.transmitter` | 30.0 %, latency-bound |\n");
        assertThat(points).contains("a bounded resource");
    }

    @Test
    void aMultiSizePointThatReportedNothingKeepsItsRows() {
        SweepResults r = sweep(WRITE_BW, vals("-t"), List.of(vals("1", "2")), 1, c -> c.num("-t") == 2
                ? new Run(List.of(), List.of())
                : new Run(List.of(new Metric("bw_avg_gbps_64B", "Gb/s", 3), new Metric("bw_avg_gbps_128B", "Gb/s", 5)),
                        busy(0.5, 0.2)));
        String points = section(Report.text(r), "Points");
        assertThat(points).contains("| 0 | 1 | 64 | 3 | `A.nic.transmitter` | 50.0 % |\n",
                "| 0 | 1 | 128 | 5 | `A.nic.transmitter` | 50.0 % |\n", "| 1 | 2 | 64 | \u2014 | \u2014 | \u2014 |\n",
                "| 1 | 2 | 128 | \u2014 | \u2014 | \u2014 |\n");
    }

    @Test
    void onePointStillReportsWithClearSentences() {
        SweepResults r = sweep(WRITE_BW, List.of(), List.of(), 1, c -> new Run(bw(42, 64, ""), busy(0.5, 0.2)));
        String text = Report.text(r);
        assertThat(text).contains("No parameter was swept.");
        assertThat(text).contains("The initiator queue depth was not swept.");
        assertThat(text).contains("The inline size was not swept.");
        assertThat(section(text, "Points")).contains("| 0 | 42 | 82.03 | `A.nic.transmitter` | 50.0 % |\n");
        assertThat(section(text, "Plots")).contains(
                "No swept parameter has more than one value, so there is nothing to plot against.");
        assertThat(text).doesNotContain("![");
        SweepResults empty = sweep(WRITE_BW, vals("-t"), List.of(vals("1", "2")), 1,
                c -> new Run(List.of(), List.of()));
        assertThat(Report.text(empty)).contains("| main figure | none (no metric reported) |")
                .contains("The points reported no metric, so there is nothing to plot.");
    }

    @Test
    void embedsThePlotsAndIsTheSameTextEveryTime(@TempDir Path dir) throws Exception {
        SweepResults r = PlotsTest.depthByInline();
        Path file = Report.write(dir, r);
        assertThat(file).isEqualTo(dir.resolve("report.md"));
        String text = Files.readString(file);
        assertThat(text).isEqualTo(Report.text(PlotsTest.depthByInline()));
        assertThat(text).startsWith("# Sweep report: write_bw on default\n");
        assertThat(text).contains("| workload | perf test `write_bw` with `-n 1000` |");
        assertThat(text).contains("| points | 8, each run 3 times (24 runs) |");
        assertThat(text).contains("| qp.initiatorQueueDepth | 1, 4, 16, 64 |");
        assertThat(section(text, "Plots")).contains(
                "![write_bw on default: throughput vs queue depth](throughput-vs-depth.png)",
                "[SVG](throughput-vs-depth.svg)", "(heatmap-throughput.png)");
    }
}
