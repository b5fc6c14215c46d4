package dev.rdmasim.traces.perf;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.config.Parameters;
import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.Formula;
import dev.rdmasim.kernel.stats.Stat;
import dev.rdmasim.kernel.stats.StatsGroup;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * perf on hosts of several cores ({@code host.cores}): {@code -q} QPs spread over the cores (QP q on core q mod
 * cores), one thread per core. The message rate grows with the cores while posting bounds it and stays put once
 * the adapter does.
 */
class PerfCoresTest {
    /** A run's result and the statistics read at its end. */
    private record Run(BwResult result, Map<String, Double> stats) {
        double stat(String name) {
            assertThat(stats).as("statistic %s", name).containsKey(name);
            return stats.get(name);
        }
    }

    private static Run writeBw(Profile p, int cores, int qps, int iterations) {
        return run(PerfTest.WRITE_BW, p, cores, qps, iterations);
    }

    private static Run run(PerfTest test, Profile p, int cores, int qps, int iterations) {
        return run(test, p, cores, qps, iterations, 64);
    }

    private static Run run(PerfTest test, Profile p, int cores, int qps, int iterations, int size) {
        Map<String, Double> stats = new HashMap<>();
        PerfOptions o = PerfOptions.builder(test, p.with(Parameters.HOST_CORES, (long) cores)).size(size).qps(qps)
                .iterations(iterations).build();
        List<PerfResult> r = Perf.run(o, x -> { }, null, sim -> { }, sim -> read(sim, stats));
        return new Run((BwResult) r.get(0), stats);
    }

    private static void read(Simulator sim, Map<String, Double> into) {
        for (StatsGroup g : sim.stats().groups()) {
            for (Stat s : g.stats()) {
                if (s instanceof Counter c) {
                    into.put(s.fullName(), (double) c.value());
                } else if (s instanceof Formula f) {
                    into.put(s.fullName(), f.value());
                }
            }
        }
    }

    /** 100 ns per WQE build: one core posts about 9 M WRITEs per second, far below what the adapter takes. */
    private static final Profile CPU_BOUND = Profile.defaults().with(Parameters.HOST_WQE_BUILD_TIME, 100_000L);

    @Test
    void messageRateScalesWithCoresWhilePostingBoundsIt() {
        Run one = writeBw(CPU_BOUND, 1, 4, 4000);
        Run two = writeBw(CPU_BOUND, 2, 4, 4000);
        Run four = writeBw(CPU_BOUND, 4, 4, 4000);
        double r1 = one.result().msgRateMpps();
        assertThat(two.result().msgRateMpps()).as("two cores").isBetween(1.8 * r1, 2.05 * r1);
        assertThat(four.result().msgRateMpps()).as("four cores").isBetween(3.5 * r1, 4.1 * r1);
        // One core is named cpu, four are cpu0..cpu3; each of the four is busy posting for most of the run.
        assertThat(one.stats()).containsKey("hostA.cpu.busyFraction").doesNotContainKey("hostA.cpu0.busyFraction");
        assertThat(one.stat("hostA.cpu.busyFraction")).isGreaterThan(0.3);
        for (int c = 0; c < 4; c++) {
            assertThat(four.stat("hostA.cpu" + c + ".busyTime")).as("core %d", c)
                    .isCloseTo(four.stat("hostA.cpu0.busyTime"), org.assertj.core.data.Percentage.withPercentage(5));
            assertThat(four.stat("hostA.cpu" + c + ".stalls")).isZero();
        }
        assertThat(four.stats()).doesNotContainKey("hostA.cpu.busyFraction").containsKey("hostA.cpu3.busyFraction");
        // Every core did a quarter of the builds.
        assertThat(four.stat("hostA.cpu2.items")).isPositive();
    }

    @Test
    void messageRateStaysWhenTheAdapterBoundsIt() {
        // 4 KiB WRITEs: the adapter's port carries fewer than 3 M a second, which one core posts with ease.
        double r1 = run(PerfTest.WRITE_BW, CPU_BOUND, 1, 4, 1000, 4096).result().msgRateMpps();
        double r4 = run(PerfTest.WRITE_BW, CPU_BOUND, 4, 4, 1000, 4096).result().msgRateMpps();
        assertThat(r1).isLessThan(3.0);
        assertThat(r4).isBetween(0.97 * r1, 1.03 * r1);
    }

    @Test
    void sameSeedSameResultWithSeveralCores() {
        BwResult a = writeBw(CPU_BOUND, 3, 5, 2000).result();
        BwResult b = writeBw(CPU_BOUND, 3, 5, 2000).result();
        assertThat(a.simTimePs()).isEqualTo(b.simTimePs());
        assertThat(a.msgRateMpps()).isEqualTo(b.msgRateMpps());
        assertThat(a.bwPeakGbps()).isEqualTo(b.bwPeakGbps());
        assertThat(a.latP99Us()).isEqualTo(b.latP99Us());
    }

    /** Sends and reads too, with QPs that do not divide evenly over the cores and fewer QPs than cores. */
    @Test
    void everyBandwidthTestRunsOnSeveralCores() {
        for (PerfTest t : List.of(PerfTest.SEND_BW, PerfTest.READ_BW, PerfTest.WRITE_BW)) {
            Run r = run(t, CPU_BOUND, 2, 3, 600);
            assertThat(r.result().iterations()).as("every request of the three QPs").isEqualTo(3 * 600);
            assertThat(r.stat("hostA.cpu1.items")).as("%s client core 1", t).isPositive();
            if (t == PerfTest.SEND_BW) {
                // The server's receives are reposted by its own two threads.
                assertThat(r.stat("hostB.cpu1.items")).as("server core 1").isPositive();
                assertThat(r.stat("hostB.cpu0.items")).as("server core 0").isPositive();
            }
            assertThat(r.stat("hostA.cpu0.busyTime")).as("%s: QPs 0 and 2 on core 0", t)
                    .isGreaterThan(1.5 * r.stat("hostA.cpu1.busyTime"));
        }
        Run few = run(PerfTest.WRITE_BW, CPU_BOUND, 4, 2, 600);
        assertThat(few.stat("hostA.cpu1.items")).isPositive();
        assertThat(few.stat("hostA.cpu2.items")).isZero();
    }
}
