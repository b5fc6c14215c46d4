package dev.rdmasim.driver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.kernel.Partitions;
import dev.rdmasim.kernel.Simulator;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import java.util.zip.CRC32;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Two hosts whose sides run in two partitions ({@link HostPair#createSplit}) against the same hosts on one
 * simulator: seeded streams of WRITEs of random sizes and depths, with priority flow control and, in some, frame
 * loss. On one thread and on two the split run is the same to every statistic; against one simulator it takes the
 * same time, retires the same WRITEs and leaves the same bytes at the destination, and agrees on every statistic.
 */
class SplitHostPairTest {
    /** What a run leaves: its end, the WRITEs retired, the destination's bytes and every statistic by name. */
    record Outcome(long endPs, long completed, long destinationCrc, TreeMap<String, String> stats) {
    }

    static Stream<Long> seeds() {
        return LongStream.rangeClosed(1, 8).boxed();
    }

    private static final int[] SIZES = {64, 200, 1024, 1500, 4096, 65_536, 1 << 20};
    private static final int[] DEPTHS = {1, 4, 16, 128};

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void aSplitPairRunsAsOneSimulatorOnOneThreadOrTwo(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        int bytes = SIZES[rnd.nextInt(SIZES.length)];
        int depth = DEPTHS[rnd.nextInt(DEPTHS.length)];
        if ((long) bytes * depth > 1 << 20) {
            depth = Math.max(1, (1 << 20) / bytes);
        }
        int writes = bytes >= 65_536 ? 24 : 400;
        List<String> overrides = new ArrayList<>(List.of("link.flowControl=pfc"));
        if (rnd.nextBoolean()) {
            overrides.add("link.dropProbability=0.01");
        }
        if (rnd.nextBoolean()) {
            overrides.add("link.pfcXoff=2KiB");
            overrides.add("link.pfcXon=1KiB");
            overrides.add("link.rxBufferFrames=4");
        }
        Profile profile = Profile.defaults().withOverrides(overrides);

        Outcome one = run(seed, profile, bytes, depth, writes, 0);
        Outcome tapped = run(seed, profile, bytes, depth, writes, -1);
        // A tap makes the line commit each frame at its start, as a split line does, instead of when next looked at.
        assertThat(tapped).as("with a tap on the cable").isEqualTo(one);
        Outcome split1 = run(seed, profile, bytes, depth, writes, 1);
        Outcome split2 = run(seed, profile, bytes, depth, writes, 2);
        assertThat(one.completed()).isEqualTo(writes);
        assertThat(split1).as("split, one thread against two").isEqualTo(split2);
        assertThat(split1.endPs()).as("end").isEqualTo(one.endPs());
        assertThat(split1.completed()).isEqualTo(one.completed());
        assertThat(split1.destinationCrc()).as("bytes at the destination").isEqualTo(one.destinationCrc());
        assertThat(split1.stats()).as("statistics").isEqualTo(one.stats());
    }

    /** One run: on one simulator ({@code threads} 0, -1 with a tap on the cable), or split on {@code threads} threads. */
    private static Outcome run(long seed, Profile profile, int bytes, int depth, int writes, int threads) {
        Simulator simA = new Simulator(seed);
        boolean tap = threads < 0;
        threads = Math.max(0, threads);
        Simulator simB = threads == 0 ? simA : new Simulator(seed);
        Partitions parts = threads == 0 ? null : new Partitions(List.of(simA, simB));
        HostPair pair = threads == 0 ? HostPair.create(simA, profile) : HostPair.createSplit(parts, simA, simB, profile);
        if (tap) {
            pair.link().addTap((t, d, n) -> { });
        }
        WriteStream stream = new WriteStream(pair.a(), pair.b(), bytes, depth, 1, 1, false);
        stream.postAtMost(writes);
        // A pattern in the source buffer, so that the destination's bytes say which WRITE landed where.
        byte[] pattern = new byte[1 << 20];
        new SplittableRandom(seed ^ 0x5DEECE66DL).nextBytes(pattern);
        pair.a().driver().memory().write(pair.a().mr().address(), pattern, 0, pattern.length);
        stream.start();
        if (threads == 0) {
            simA.run();
        } else {
            assertThat(parts.run(threads)).isTrue();
        }
        byte[] dest = new byte[1 << 20];
        pair.b().driver().memory().read(pair.b().mr().address(), dest, 0, dest.length);
        CRC32 crc = new CRC32();
        crc.update(dest);
        TreeMap<String, String> stats = new TreeMap<>();
        collect(simA, stats);
        if (simB != simA) {
            collect(simB, stats);
        }
        return new Outcome(Math.max(simA.now(), simB.now()), stream.completed(), crc.getValue(), stats);
    }

    /** Every statistic of the simulator's registry as its JSON dump gives it, by name. */
    private static void collect(Simulator sim, TreeMap<String, String> into) {
        java.io.StringWriter out = new java.io.StringWriter();
        try {
            sim.stats().writeJson(out);
            com.fasterxml.jackson.databind.JsonNode root = new com.fasterxml.jackson.databind.ObjectMapper()
                    .readTree(out.toString());
            root.fields().forEachRemaining(e -> into.put(e.getKey(), e.getValue().toString()));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
