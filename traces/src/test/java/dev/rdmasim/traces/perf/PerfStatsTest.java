package dev.rdmasim.traces.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PerfStatsTest {
    /** Posting and completion times of a pipelined stream with jitter: posts in lists, completions after them. */
    private static long[][] stream(SplittableRandom rnd, int n, int postList) {
        long[] posted = new long[n];
        long[] completed = new long[n];
        long t = 1_000;
        long c = 0;
        for (int i = 0; i < n; i++) {
            if (i % postList == 0) {
                t += rnd.nextInt(2_000);
            }
            posted[i] = t;
            c = Math.max(c, t) + 100 + rnd.nextInt(5_000);
            completed[i] = c;
        }
        return new long[][] {posted, completed};
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 42, 0xC0FFEE, 987654321})
    void bisectionFindsPerftestsExhaustiveMinimum(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        int[][] shapes = {{1, 1}, {1, 7}, {4, 2}, {16, 16}, {8, 4}};
        for (int[] s : shapes) {
            int postList = s[0];
            int cqMod = s[1];
            int n = postList * (20 + rnd.nextInt(60));
            long[][] pc = stream(rnd, n, postList);
            double exhaustive = PerfStats.bestPsPerMessageExhaustive(pc[0], pc[1], postList, cqMod);
            double fast = PerfStats.bestPsPerMessage(pc[0], pc[1], postList, cqMod);
            assertThat(fast).as("l=%d Q=%d n=%d", postList, cqMod, n).isCloseTo(exhaustive, within(exhaustive * 1e-9));
        }
    }

    @Test
    void averageAndPeakOfAHandMadeRun() {
        // 4 messages of 1000 B: posted at 0,0,0,0; completed at 100, 200, 300, 1000 ns.
        long[] posted = {0, 0, 0, 0};
        long[] completed = {100_000, 200_000, 300_000, 1_000_000};
        // Average: 4000 B * 8 bits over 1 us = 32 Gb/s; 4 messages per us = 4 Mpps.
        assertThat(PerfStats.avgGbps(1000, 4, posted, completed)).isCloseTo(32.0, within(1e-9));
        assertThat(PerfStats.msgRateMpps(4, posted, completed)).isCloseTo(4.0, within(1e-9));
        // Every completion signaled: the best window is i=0..j=0,1,2 at 100 ns per message = 80 Gb/s.
        assertThat(PerfStats.peakGbps(1000, posted, completed, 1, 1)).isCloseTo(80.0, within(1e-6));
        // Only every second completion signaled (j = 1, 3): best is 0..1, 100 ns per message again.
        assertThat(PerfStats.peakGbps(1000, posted, completed, 1, 2)).isCloseTo(80.0, within(1e-6));
        // Signaled only at the end (Q = 4): the whole run, 250 ns per message = 32 Gb/s.
        assertThat(PerfStats.peakGbps(1000, posted, completed, 1, 4)).isCloseTo(32.0, within(1e-6));
    }

    @Test
    void latencyReportDropsTheTwoLargestAndHalvesRoundTrips() {
        // 101 round trips: 1..99 us, plus two outliers that must not move median, average or stdev.
        long[] samples = new long[101];
        for (int i = 0; i < 99; i++) {
            samples[i] = (i + 1) * 2_000_000L; // round trip 2(i+1) us -> half trip i+1 us
        }
        samples[99] = 900_000_000L;
        samples[100] = 500_000_000L;
        LatResult r = PerfStats.latency(PerfTest.SEND_LAT, 8, 102, samples, 2, 123, 0.5);
        assertThat(r.tMinUs()).isCloseTo(1.0, within(1e-12));
        // perftest prints the first dropped sample as t_max: the smaller outlier, 250 us half trip.
        assertThat(r.tMaxUs()).isCloseTo(250.0, within(1e-12));
        assertThat(r.tTypicalUs()).isCloseTo(50.0, within(1e-12));
        assertThat(r.tAvgUs()).isCloseTo(50.0, within(1e-9));
        // Population standard deviation of 1..99: sqrt((99^2 - 1) / 12).
        assertThat(r.tStdevUs()).isCloseTo(Math.sqrt((99.0 * 99 - 1) / 12), within(1e-9));
        // 99% of 99 samples: the 99th (nearest rank, ceil(0.99 * 99) = 99), 99 us.
        assertThat(r.tP99Us()).isEqualTo(99.0);
        assertThat(r.tP999Us()).isEqualTo(99.0);
        assertThat(r.simTimePs()).isEqualTo(123);
        assertThat(r.iterations()).isEqualTo(102);
    }

    @Test
    void medianOfAnEvenCountIsTheMeanOfTheMiddleTwo() {
        // 6 samples, 4 kept (10, 20, 30, 40): median 25 (read: whole trips).
        long[] samples = {40_000_000L, 10_000_000L, 30_000_000L, 20_000_000L, 99_000_000L, 98_000_000L};
        LatResult r = PerfStats.latency(PerfTest.READ_LAT, 8, 7, samples, 1, 1, 0);
        assertThat(r.tTypicalUs()).isCloseTo(25.0, within(1e-12));
        assertThat(r.tMinUs()).isCloseTo(10.0, within(1e-12));
        assertThat(r.tMaxUs()).isCloseTo(98.0, within(1e-12));
    }

    @Test
    void equalSamplesHaveNoSpreadAndPercentilesAtTheSample() {
        // write_lat -I 0 gives the same round trip every time: t_stdev must be 0, not a rounding residue, and
        // the percentiles that one value, not a histogram bucket's upper edge above t_max.
        long[] samples = new long[1000];
        Arrays.fill(samples, 1_570_001L);
        LatResult r = PerfStats.latency(PerfTest.WRITE_LAT, 64, 1000, samples, 2, 1, 0);
        assertThat(r.tStdevUs()).isZero();
        assertThat(r.tAvgUs()).isEqualTo(0.7850005);
        assertThat(r.tMinUs()).isEqualTo(0.7850005);
        assertThat(r.tP99Us()).isEqualTo(r.tMaxUs()).isEqualTo(0.7850005);
        assertThat(r.tP999Us()).isEqualTo(0.7850005);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5})
    void percentilesAreSamplesByNearestRankAndNeverAboveTMax(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        int n = 3 + rnd.nextInt(3000);
        long[] samples = new long[n];
        long base = 200_000 + rnd.nextInt(2_000_000);
        for (int i = 0; i < n; i++) {
            // Mostly close together, a few far out: the shape of a latency run.
            samples[i] = base + (rnd.nextInt(100) == 0 ? rnd.nextLong(50_000_000) : rnd.nextInt(5_000));
        }
        LatResult r = PerfStats.latency(PerfTest.SEND_LAT, 64, n, samples.clone(), 2, 1, 0);
        long[] sorted = samples.clone();
        Arrays.sort(sorted);
        int kept = n - 2;
        for (double[] pv : new double[][] {{99.0, r.tP99Us()}, {99.9, r.tP999Us()}}) {
            long p = Math.round(pv[1] * 2e6);
            long atOrBelow = Arrays.stream(sorted, 0, kept).filter(v -> v <= p).count();
            long below = Arrays.stream(sorted, 0, kept).filter(v -> v < p).count();
            assertThat(Arrays.stream(sorted, 0, kept).anyMatch(v -> v == p)).as("a sample").isTrue();
            assertThat(atOrBelow).isGreaterThanOrEqualTo((long) Math.ceil(pv[0] / 100 * kept));
            assertThat(below).isLessThan((long) Math.ceil(pv[0] / 100 * kept));
            assertThat(pv[1]).isLessThanOrEqualTo(r.tMaxUs());
        }
        double mean = Arrays.stream(sorted, 0, kept).average().orElseThrow();
        double var = Arrays.stream(sorted, 0, kept).mapToDouble(v -> (v - mean) * (v - mean)).sum() / kept;
        assertThat(r.tStdevUs()).isCloseTo(Math.sqrt(var) / 2e6, within(1e-9));
        assertThat(r.tAvgUs()).isCloseTo(mean / 2e6, within(1e-12));
    }
}
