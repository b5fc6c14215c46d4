package dev.rdmasim.traces.replay;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rdmasim.traces.Examples;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Whole replays with priority flow control on the cable ({@code link.flowControl=pfc}), at the harshest thresholds (an
 * XOFF for every refused frame, XON once the FIFO is empty), against the same replays with the instant stall: the
 * same completions with the same statuses, the same bytes in every memory dump, and in the packet capture a pause
 * frame for every XOFF and XON the statistics count, each one a well-formed PFC frame.
 */
class PfcReplayTest {
    private static final List<String> PFC = List.of("link.flowControl=pfc", "link.pfcXoff=1B", "link.pfcXon=0B");

    @TempDir
    Path dir;

    static List<String> examples() {
        return Examples.names();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("examples")
    void everyExampleCompletesAlikeWithPauseFrames(String example) throws IOException {
        Path trace = Examples.extract(example, dir);
        compare(trace, List.of());
    }

    static Stream<Long> seeds() {
        return LongStream.rangeClosed(1, 6).boxed();
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void randomTrafficCompletesAlikeWithPauseFrames(long seed) throws IOException {
        SplittableRandom rnd = new SplittableRandom(seed);
        Path trace = dir.resolve("random-" + seed + ".trace");
        Files.writeString(trace, EventPerTlpDifferentialTest.randomTrace(rnd, seed), StandardCharsets.UTF_8);
        List<String> overrides = new ArrayList<>();
        overrides.add("link.mtu=" + new String[] {"256B", "1024B", "4KiB"}[rnd.nextInt(3)]);
        if (rnd.nextBoolean()) {
            overrides.add("link.dropProbability=0.02");
        }
        compare(trace, overrides);
    }

    private void compare(Path trace, List<String> overrides) throws IOException {
        Path stallOut = dir.resolve("stall");
        Path pfcOut = dir.resolve("pfc");
        List<String> pfc = new ArrayList<>(overrides);
        pfc.addAll(PFC);
        Replay.run(trace, new ReplayOptions(stallOut, "default", overrides, 1, false, null, false, true));
        Replay.run(trace, new ReplayOptions(pfcOut, "default", pfc, 1, false, null, false, true));

        assertThat(completions(pfcOut)).as("completions of %s", trace.getFileName()).isEqualTo(completions(stallOut));
        try (var files = Files.list(stallOut)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".bin")).toList()) {
                assertThat(Files.readAllBytes(pfcOut.resolve(f.getFileName())))
                        .as("%s of %s", f.getFileName(), trace.getFileName()).isEqualTo(Files.readAllBytes(f));
            }
        }
        JsonNode stats = new ObjectMapper().readTree(pfcOut.resolve("summary.json").toFile()).get("stats");
        long pauses = 0;
        for (String d : List.of("aToB", "bToA")) {
            long xoff = stats.get("wire." + d + ".xoffSent").get("value").asLong();
            long xon = stats.get("wire." + d + ".xonSent").get("value").asLong();
            if (xoff > 0) {
                // Each pause ends with an XON once the FIFO is empty; refreshes of long ones add XOFFs.
                assertThat(xon).as("XONs (%s)", d).isPositive().isLessThanOrEqualTo(xoff);
            } else {
                assertThat(xon).as("XONs (%s)", d).isZero();
            }
            if (stats.get("wire." + d + ".refusals").get("value").asLong() > 0) {
                assertThat(xoff).as("a refusal makes an XOFF (%s)", d).isPositive();
            }
            pauses += xoff + xon;
            assertThat(stats.get("wire." + other(d) + ".pauseFramesCarried").get("value").asLong()).isEqualTo(xoff + xon);
        }
        assertThat(pauseFramesIn(pfcOut.resolve("wire.pcap"))).isEqualTo(pauses);
        assertThat(pauseFramesIn(stallOut.resolve("wire.pcap"))).isZero();
    }

    private static String other(String d) {
        return d.equals("aToB") ? "bToA" : "aToB";
    }

    /** Completions by host and request context: status and byte count (their times may differ). */
    private static TreeMap<String, String> completions(Path out) throws IOException {
        TreeMap<String, String> byContext = new TreeMap<>();
        List<String> lines = Files.readAllLines(out.resolve("completions.csv"), StandardCharsets.UTF_8);
        for (String line : lines.subList(1, lines.size())) {
            String[] c = line.split(",", -1);
            String key = c[1] + "/" + c[2] + "/" + c[4] + "/" + c[5];
            assertThat(byContext.put(key + "#" + byContext.size(), c[6] + " " + c[8])).isNull();
        }
        // Renumbered by context alone, so that two completions of one context compare in their order.
        TreeMap<String, String> sorted = new TreeMap<>();
        TreeMap<String, Integer> seen = new TreeMap<>();
        for (var e : byContext.entrySet()) {
            String ctx = e.getKey().substring(0, e.getKey().lastIndexOf('#'));
            sorted.put(ctx + "#" + seen.merge(ctx, 1, Integer::sum), e.getValue());
        }
        return sorted;
    }

    /** Counts the PFC frames in a pcap, checking each one's fields. */
    private static long pauseFramesIn(Path pcap) throws IOException {
        byte[] b = Files.readAllBytes(pcap);
        long n = 0;
        int off = 24; // global header
        while (off < b.length) {
            int len = le32(b, off + 8);
            int p = off + 16;
            if (len >= 60 && u16(b, p + 12) == 0x8808) {
                assertThat(u16(b, p + 14)).as("PFC opcode").isEqualTo(0x0101);
                assertThat(u16(b, p + 16)).as("priority 3 enabled").isEqualTo(0x0008);
                assertThat(b[p] & 0xFF).isEqualTo(0x01);
                assertThat(b[p + 5] & 0xFF).isEqualTo(0x01);
                n++;
            }
            off = p + len;
        }
        return n;
    }

    private static int u16(byte[] b, int off) {
        return (b[off] & 0xFF) << 8 | b[off + 1] & 0xFF;
    }

    private static int le32(byte[] b, int off) {
        return b[off] & 0xFF | (b[off + 1] & 0xFF) << 8 | (b[off + 2] & 0xFF) << 16 | (b[off + 3] & 0xFF) << 24;
    }
}
