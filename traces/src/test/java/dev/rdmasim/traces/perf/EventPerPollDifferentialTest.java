package dev.rdmasim.traces.perf;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.config.Profile;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A perftest thread spinning on host memory sleeps through its empty polls until the adapter writes what it watches
 * ({@code host.eventPerPoll=false}, the default): write_lat's flag byte, or a CQE landing in one of its CQs, whose
 * empty polls it charges afterwards. {@code host.eventPerPoll=true} is the reference, one event per poll. Both must
 * give the same run: every figure of every size, the statistics of both hosts at the end (the CPUs' empty-poll time
 * and the drivers' empty-poll counts among them) and the final simulated time; only the number of events executed
 * differs.
 */
class EventPerPollDifferentialTest {
    private static final String REFERENCE = "host.eventPerPoll=true";

    /** A run's figures (wall time left out) and, at its end, the simulated time and every statistic. */
    private record Run(List<String> results, long endPs, String stats, long events) {
    }

    private static Run run(PerfTest test, List<String> overrides, Function<Profile, PerfOptions.Builder> shape) {
        PerfOptions o = shape.apply(Profile.defaults().withOverrides(overrides)).build();
        long[] end = {0, 0};
        String[] stats = {null};
        List<PerfResult> results = Perf.run(o, r -> { }, null, sim -> { }, sim -> {
            end[0] = sim.now();
            end[1] = sim.eventsExecuted();
            stats[0] = sim.stats().toText();
        });
        List<String> figures = new ArrayList<>();
        for (PerfResult r : results) {
            assertThat(r.test()).isEqualTo(test);
            figures.add(r instanceof LatResult l
                    ? new LatResult(l.test(), l.bytes(), l.iterations(), l.tMinUs(), l.tMaxUs(), l.tTypicalUs(),
                            l.tAvgUs(), l.tStdevUs(), l.tP99Us(), l.tP999Us(), l.simTimePs(), 0).toString()
                    : r instanceof BwResult b
                    ? new BwResult(b.test(), b.bytes(), b.iterations(), b.bwPeakGbps(), b.bwAvgGbps(), b.msgRateMpps(),
                            b.latP50Us(), b.latP99Us(), b.latP999Us(), b.simTimePs(), 0).toString()
                    : r.toString());
        }
        return new Run(figures, end[0], stats[0], end[1]);
    }

    private static void assertSameRun(PerfTest test, List<String> overrides, Function<Profile, PerfOptions.Builder> shape,
            boolean fewerEvents) {
        Run sleeping = run(test, overrides, shape);
        List<String> ref = new ArrayList<>(overrides);
        ref.add(REFERENCE);
        Run reference = run(test, ref, shape);
        assertThat(sleeping.results()).isEqualTo(reference.results());
        assertThat(sleeping.endPs()).isEqualTo(reference.endPs());
        assertThat(sleeping.stats()).isEqualTo(reference.stats());
        if (fewerEvents) {
            // Not a vacuous comparison: the sleeping run skipped polls.
            assertThat(sleeping.events()).isLessThan(reference.events());
        }
    }

    /** Every test over sizes from 2 B to 1 MiB: each one's threads sleep, and the run stays the same. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(PerfTest.class)
    void everyTestRunsTheSameWithAndWithoutAnEventPerPoll(PerfTest test) {
        Function<Profile, PerfOptions.Builder> shape = p -> PerfOptions.builder(test, p)
                .sizes(List.of(2, 64, 1000, 4096, 65536, 1 << 20)).iterations(20);
        assertSameRun(test, List.of(), shape, true);
    }

    /**
     * Seeded random bandwidth runs: each test with several QPs spread over cores, post lists, depths, completion
     * moderation, inline sizes, poll times that do and do not divide the other delays (down to none), poll-miss
     * costs, MTU and frame loss.
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void randomBandwidthRunsTheSameWithAndWithoutAnEventPerPoll(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed * 7919);
        PerfTest test = pick(rnd, PerfTest.WRITE_BW, PerfTest.SEND_BW, PerfTest.READ_BW);
        List<String> overrides = new ArrayList<>();
        overrides.add("host.pollTime=" + pick(rnd, "0ps", "1ns", "7ns", "20ns", "333ns"));
        overrides.add("host.pollMissTime=" + pick(rnd, "0ps", "40ns", "113ns"));
        overrides.add("host.cores=" + (1 + rnd.nextInt(3)));
        overrides.add("link.mtu=" + pick(rnd, "256B", "1024B", "4KiB"));
        if (rnd.nextInt(3) == 0) {
            overrides.add("link.dropProbability=" + pick(rnd, "0.01", "0.05"));
        }
        List<Integer> sizes = new ArrayList<>();
        for (int i = 0, n = 1 + rnd.nextInt(2); i < n; i++) {
            sizes.add(2 + rnd.nextInt(rnd.nextBoolean() ? 300 : 70_000));
        }
        sizes.sort(null);
        int postList = 1 + rnd.nextInt(3);
        int iterations = postList * (10 + rnd.nextInt(30));
        int qps = 1 + rnd.nextInt(4);
        int txDepth = postList * (1 + rnd.nextInt(16));
        // perftest's rule: with a post list, the moderation divides it; else anything up to the depth.
        int cqMod = postList > 1 ? pick(rnd, 1, postList) : 1 + rnd.nextInt(txDepth);
        int inline = test == PerfTest.READ_BW ? 0 : pick(rnd, 0, 64, 220);
        Function<Profile, PerfOptions.Builder> shape = p -> PerfOptions.builder(test, p).sizes(sizes)
                .iterations(iterations).qps(qps).postList(postList).txDepth(txDepth).cqMod(cqMod).inlineSize(inline)
                .seed(seed);
        assertSameRun(test, overrides, shape, true);
    }

    static Stream<Long> seeds() {
        return LongStream.rangeClosed(1, 12).boxed();
    }

    /**
     * Seeded random write_lat runs: poll times that do and do not divide the other delays (down to none at all),
     * poll-miss costs, MTU, MPS, the root complex's write latency, link latency, inline size, completion moderation
     * and frame loss.
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void randomWriteLatencyRunsTheSameWithAndWithoutAnEventPerPoll(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        List<String> overrides = new ArrayList<>();
        overrides.add("host.pollTime=" + pick(rnd, "0ps", "1ns", "7ns", "20ns", "333ns", "2us"));
        overrides.add("host.pollMissTime=" + pick(rnd, "0ps", "40ns", "113ns"));
        overrides.add("link.mtu=" + pick(rnd, "256B", "1024B", "4KiB"));
        overrides.add("pcie.mps=" + pick(rnd, "128B", "256B", "512B"));
        overrides.add("pcie.hostWriteLatency=" + pick(rnd, "0ps", "180ns", "1us"));
        overrides.add("pcie.linkLatency=" + pick(rnd, "0ps", "60ns", "500ns"));
        if (rnd.nextInt(3) == 0) {
            overrides.add("link.dropProbability=" + pick(rnd, "0.01", "0.05"));
        }
        List<Integer> sizes = new ArrayList<>();
        for (int i = 0, n = 1 + rnd.nextInt(3); i < n; i++) {
            sizes.add(2 + rnd.nextInt(rnd.nextBoolean() ? 300 : 20_000));
        }
        sizes.sort(null);
        int iterations = 10 + rnd.nextInt(40);
        int inline = pick(rnd, 0, 64, 220);
        int cqMod = 1 + rnd.nextInt(100);
        Function<Profile, PerfOptions.Builder> shape = p -> PerfOptions.builder(PerfTest.WRITE_LAT, p).sizes(sizes)
                .iterations(iterations).inlineSize(inline).cqMod(cqMod).seed(seed);
        assertSameRun(PerfTest.WRITE_LAT, overrides, shape, true);
    }

    @SafeVarargs
    private static <T> T pick(SplittableRandom rnd, T... choices) {
        return choices[rnd.nextInt(choices.length)];
    }
}
