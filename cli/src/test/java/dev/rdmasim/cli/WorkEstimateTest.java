package dev.rdmasim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.config.Profiles;
import dev.rdmasim.traces.perf.PerfArgs;
import dev.rdmasim.traces.perf.PerfTest;
import java.time.Duration;
import java.util.Map;
import java.util.SplittableRandom;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The time left of a perf -a run follows the work left, not the sizes left. */
class WorkEstimateTest {
    private static final long S = 1_000_000_000L;

    @Test
    void nothingIsPromisedBeforeTheFirstStep() {
        assertThat(new WorkEstimate(new double[] {1, 2}, 0).left(5 * S)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void aRunWhoseStepsCostTheirWorkIsForeseenExactly(long seed) {
        // Work doubling from step to step, as perf -a's sizes do above one MTU; each step takes work x rate.
        SplittableRandom rnd = new SplittableRandom(seed);
        int n = 5 + rnd.nextInt(20);
        double[] work = new double[n];
        for (int i = 0; i < n; i++) {
            work[i] = 1L << i;
        }
        long nanosPerWork = 1_000 + rnd.nextInt(1_000_000);
        long start = rnd.nextInt(1_000_000);
        WorkEstimate e = new WorkEstimate(work, start);
        long now = start;
        long end = start;
        for (double w : work) {
            end += (long) w * nanosPerWork;
        }
        for (int i = 0; i < n - 1; i++) {
            now += (long) work[i] * nanosPerWork;
            e.stepsDone(i + 1, now);
            assertThat(e.left(now)).contains(Duration.ofNanos(end - now));
            // Halfway through the next step, half of it less.
            long mid = now + (long) work[i + 1] * nanosPerWork / 2;
            assertThat(e.left(mid).orElseThrow().toNanos()).isCloseTo(end - mid, Offset.offset(2L));
        }
        // Counting steps instead would have promised far less time than was left.
        long byStepsAtHalfTheSteps = (now - start) / (n - 1);
        assertThat(byStepsAtHalfTheSteps).isLessThan((end - now) / 2);
    }

    @Test
    void perfWorkGrowsWithThePacketsOfEachSize() {
        var options = PerfArgs.options(PerfTest.WRITE_BW, Profiles.resolve("default"), 1, Map.of("-a", "true", "-n", "10"));
        double[] w = PerfCommand.work(options);
        assertThat(w).hasSize(options.sizes().size());
        // 2 B: one packet per message; 8 MiB at the 1 KiB MTU: 8192.
        assertThat(w[0]).isEqualTo(10 * 2.0);
        assertThat(w[w.length - 1]).isEqualTo(10 * (1 + 8192.0));
    }
}
