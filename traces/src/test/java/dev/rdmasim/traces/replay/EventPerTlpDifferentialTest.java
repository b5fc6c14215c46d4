package dev.rdmasim.traces.replay;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rdmasim.traces.Examples;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The PCIe model hands TLPs that nothing waits for over without events of their own ({@code pcie.eventPerTlp=false},
 * the default); {@code pcie.eventPerTlp=true} is the reference, one event per TLP delivery and per write commit. Both
 * must give the same run: every output file byte for byte (completions, lifecycle stamps, notifications, memory dumps,
 * the packet capture) and the same summary, statistics included, apart from the number of events executed.
 */
class EventPerTlpDifferentialTest {
    private static final String REFERENCE = "pcie.eventPerTlp=true";
    private static final int[] SIZES = {1, 7, 64, 200, 256, 257, 1000, 1024, 1500, 4096, 4097, 10000, 65536};

    @TempDir
    Path dir;

    static List<String> examples() {
        return Examples.names();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("examples")
    void everyExampleRunsTheSameWithAndWithoutAnEventPerTlp(String example) throws IOException {
        Path trace = Examples.extract(example, dir);
        assertSameRun(trace, List.of());
    }

    static Stream<Long> seeds() {
        return LongStream.rangeClosed(1, 12).boxed();
    }

    /**
     * Seeded random traffic: WRITEs, READs and SENDs of sizes from 1 B to 64 KiB at random offsets on one to three QP
     * pairs, several in flight per QP, under a random MTU, MPS, write latency, link latency and frame loss.
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void randomTrafficRunsTheSameWithAndWithoutAnEventPerTlp(long seed) throws IOException {
        SplittableRandom rnd = new SplittableRandom(seed);
        Path trace = dir.resolve("random-" + seed + ".trace");
        Files.writeString(trace, randomTrace(rnd, seed), StandardCharsets.UTF_8);
        List<String> overrides = new ArrayList<>();
        overrides.add("link.mtu=" + new String[] {"256B", "1024B", "4KiB"}[rnd.nextInt(3)]);
        overrides.add("pcie.mps=" + new String[] {"128B", "256B", "512B"}[rnd.nextInt(3)]);
        overrides.add("pcie.hostWriteLatency=" + new String[] {"0ps", "180ns", "1us"}[rnd.nextInt(3)]);
        overrides.add("pcie.linkLatency=" + new String[] {"0ps", "60ns", "500ns"}[rnd.nextInt(3)]);
        if (rnd.nextBoolean()) {
            overrides.add("link.dropProbability=" + new String[] {"0.01", "0.05"}[rnd.nextInt(2)]);
        }
        assertSameRun(trace, overrides);
    }

    static String randomTrace(SplittableRandom rnd, long seed) {
        StringBuilder t = new StringBuilder("rdmasim-trace 1\nhost A\nhost B\n");
        t.append("cq A.cq depth=4096\ncq B.cq depth=4096\npd A.pd\npd B.pd\n");
        t.append("mr A.src pd=A.pd size=1MiB access=LOCAL_WRITE fill=pattern:").append(seed).append('\n');
        t.append("mr A.back pd=A.pd size=1MiB access=LOCAL_WRITE\n");
        t.append("mr B.dst pd=B.pd size=1MiB access=LOCAL_WRITE|REMOTE_WRITE|REMOTE_READ fill=pattern:")
                .append(seed + 1).append('\n');
        t.append("mr B.rbuf pd=B.pd size=1MiB access=LOCAL_WRITE\n");
        int qps = 1 + rnd.nextInt(3);
        for (int j = 0; j < qps; j++) {
            t.append("qp A.q").append(j).append(" pd=A.pd rcq=A.cq icq=A.cq rq=4 iq=16 rsge=1 isge=1 inline=")
                    .append(rnd.nextBoolean() ? 0 : 64).append('\n');
            t.append("qp B.q").append(j).append(" pd=B.pd rcq=B.cq icq=B.cq rq=16 iq=4 rsge=1 isge=1 inline=0\n");
            t.append("connect A.q").append(j).append(" B.q").append(j).append(" port=").append(7471 + j).append('\n');
        }
        t.append("+10us poll A.cq max=1\n");
        int op = 0;
        int rounds = 4 + rnd.nextInt(4);
        for (int r = 0; r < rounds; r++) {
            // Up to eight requests in flight at once, spread over the QPs, then a wait for each.
            List<String> waits = new ArrayList<>();
            int n = 1 + rnd.nextInt(8);
            for (int k = 0; k < n; k++, op++) {
                int q = rnd.nextInt(qps);
                int size = SIZES[rnd.nextInt(SIZES.length)];
                long src = rnd.nextLong((1 << 20) - size + 1);
                long dst = rnd.nextLong((1 << 20) - size + 1);
                switch (rnd.nextInt(3)) {
                    case 0 -> t.append("write A.q").append(q).append(" ctx=w").append(op).append(" sge=A.src+")
                            .append(src).append(':').append(size).append(" remote=B.dst+").append(dst).append('\n');
                    case 1 -> t.append("read A.q").append(q).append(" ctx=w").append(op).append(" sge=A.back+")
                            .append(src).append(':').append(size).append(" remote=B.dst+").append(dst).append('\n');
                    default -> {
                        t.append("receive B.q").append(q).append(" ctx=r").append(op).append(" sge=B.rbuf+")
                                .append(dst).append(':').append(size).append('\n');
                        t.append("send A.q").append(q).append(" ctx=w").append(op).append(" sge=A.src+")
                                .append(src).append(':').append(size).append('\n');
                        waits.add("wait B.cq ctx=r" + op);
                    }
                }
                waits.add("wait A.cq ctx=w" + op);
            }
            for (String w : waits) {
                t.append(w).append('\n');
            }
            if (rnd.nextBoolean()) {
                t.append('+').append(1 + rnd.nextInt(20)).append("us poll A.cq max=1\n");
            }
        }
        t.append("dump B.dst+0:1MiB file=b-dst.bin\n");
        t.append("dump A.back+0:1MiB file=a-back.bin\n");
        t.append("dump B.rbuf+0:1MiB file=b-rbuf.bin\n");
        return t.toString();
    }

    private void assertSameRun(Path trace, List<String> overrides) throws IOException {
        List<String> reference = new ArrayList<>(overrides);
        reference.add(REFERENCE);
        Map<String, byte[]> fast = replay(trace, overrides, dir.resolve("fast"));
        Map<String, byte[]> ref = replay(trace, reference, dir.resolve("reference"));
        assertThat(fast.keySet()).as("output files").isEqualTo(ref.keySet());
        for (String name : ref.keySet()) {
            assertThat(new String(fast.get(name), StandardCharsets.ISO_8859_1))
                    .as("%s of %s with %s", name, trace.getFileName(), overrides)
                    .isEqualTo(new String(ref.get(name), StandardCharsets.ISO_8859_1));
        }
    }

    private static Map<String, byte[]> replay(Path trace, List<String> overrides, Path out) throws IOException {
        ReplayResult r = Replay.run(trace, new ReplayOptions(out, "default", overrides, 1, false, null, false, true));
        Map<String, byte[]> files = new LinkedHashMap<>();
        try (var list = Files.list(out)) {
            for (Path f : list.sorted().toList()) {
                String name = f.getFileName().toString();
                files.put(name, name.equals("summary.json") ? comparableSummary(f) : Files.readAllBytes(f));
            }
        }
        assertThat(r.summaryJson()).exists();
        return files;
    }

    /** The summary without what must differ: events executed, the profile differences named, wall-clock times. */
    private static byte[] comparableSummary(Path summary) throws IOException {
        ObjectMapper json = new ObjectMapper();
        ObjectNode root = (ObjectNode) json.readTree(summary.toFile());
        root.remove("events");
        root.get("hosts").forEach(host -> ((ObjectNode) host).remove("differences_from_default"));
        GoldenOutputsTest.dropWallClock(root);
        return json.writerWithDefaultPrettyPrinter().writeValueAsBytes(root);
    }
}
