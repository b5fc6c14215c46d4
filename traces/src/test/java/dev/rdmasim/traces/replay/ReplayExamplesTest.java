package dev.rdmasim.traces.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.traces.format.TraceError;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shipped example traces replay, and each shows what its comment says. */
class ReplayExamplesTest {
    static final Path EXAMPLES = Path.of("examples");

    @TempDir
    Path out;

    record Row(long time, String host, String qp, String cq, String ctx, String op, String status, long bytes) {
    }

    static List<Row> completions(Path csv) throws IOException {
        List<String> lines = Files.readAllLines(csv);
        assertThat(lines.get(0)).isEqualTo(CompletionLog.HEADER);
        List<Row> rows = new ArrayList<>();
        for (String l : lines.subList(1, lines.size())) {
            String[] f = l.split(",", -1);
            assertThat(f).hasSize(9);
            assertThat(f[7]).startsWith("0x");
            rows.add(new Row(Long.parseLong(f[0]), f[1], f[2], f[3], f[4], f[5], f[6], Long.parseLong(f[8])));
        }
        return rows;
    }

    private ReplayResult replay(String example, Replay.Inspection[] seen) throws IOException {
        return Replay.run(EXAMPLES.resolve(example), ReplayOptions.into(out.resolve(example)), t -> seen[0] = t);
    }

    private static byte[] pattern(long seed, int n) {
        byte[] b = new byte[n];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    @Test
    void everyConsumedReceiveHasALifecycleRowPlacedWithItsSend() throws IOException {
        Replay.Inspection[] t = new Replay.Inspection[1];
        ReplayResult r = replay("pingpong.trace", t);
        List<String[]> sends = new ArrayList<>();
        List<String[]> receives = new ArrayList<>();
        for (String l : Files.readAllLines(r.lifecycleCsv()).subList(1, Files.readAllLines(r.lifecycleCsv()).size())) {
            String[] f = l.split(",", -1);
            (f[3].equals("receive") ? receives : sends).add(f);
        }
        long receiveCompletions = completions(r.completionsCsv()).stream().filter(c -> c.op().equals("receive")).count();
        assertThat(receives).as("one row per receive completion").hasSize((int) receiveCompletions).isNotEmpty();
        for (String[] v : receives) {
            // posted, placed, CQE written, polled; the sender-side stages stay empty.
            assertThat(v[4]).isNotEmpty();
            for (int i : new int[] {5, 6, 7, 8, 9, 11}) {
                assertThat(v[i]).as("column %d of receive %s", i, v[2]).isEmpty();
            }
            long placed = Long.parseLong(v[10]);
            long cqe = Long.parseLong(v[12]);
            long polled = Long.parseLong(v[13]);
            assertThat(cqe).isGreaterThan(placed);
            assertThat(polled).isGreaterThan(cqe);
            assertThat(sends).as("the SEND that filled %s", v[2])
                    .anySatisfy(s -> assertThat(s[0]).isNotEqualTo(v[0]).satisfies(x -> assertThat(s[10]).isEqualTo(v[10])));
        }
    }

    @Test
    void quickstartWritesFourKilobytesIntoB() throws IOException {
        Replay.Inspection[] t = new Replay.Inspection[1];
        ReplayResult r = replay("quickstart.trace", t);
        List<Row> rows = completions(r.completionsCsv());
        assertThat(rows).hasSize(1);
        assertThat(rows.get(0)).extracting(Row::host, Row::qp, Row::cq, Row::ctx, Row::op, Row::status, Row::bytes)
                .containsExactly("A", "A.qp", "A.cq", "hello", "write", "STATUS_SUCCESS", 4096L);
        HostMemory b = t[0].topology().host(1).memory();
        // The source was filled with pattern:1, the seeded stream.
        byte[] expected = pattern(1, 4096);
        List<String> life = Files.readAllLines(r.lifecycleCsv());
        assertThat(life).hasSize(2);
        String[] f = life.get(1).split(",", -1);
        assertThat(f[2]).isEqualTo("hello");
        for (int i = 4; i < f.length; i++) {
            if (i == 6) {
                // Posted alone, the WQE went by BlueFlame: never fetched, so wqe_fetched_ps stays empty.
                assertThat(f[i]).as("wqe_fetched_ps").isEmpty();
            } else {
                assertThat(f[i]).as("stage column %d", i).isNotEmpty();
            }
        }
        assertThat(r.bytes()).isEqualTo(4096);
        assertThat(b.equalsRange(t[0].bufferAddresses().get("B.dst"), expected, 0, 4096)).isTrue();
        JsonNode summary = new ObjectMapper().readTree(r.summaryJson().toFile());
        assertThat(summary.get("completions").get("by_status").get("STATUS_SUCCESS").asLong()).isEqualTo(1);
        assertThat(summary.get("stats")).isNotNull();
    }

    @Test
    void aRemoteAccessErrorFailsTheWriteAndFlushesBothSides() throws IOException {
        Replay.Inspection[] t = new Replay.Inspection[1];
        ReplayResult r = replay("remote-access-error.trace", t);
        byte[] ee = new byte[4096];
        java.util.Arrays.fill(ee, (byte) 0xEE);
        assertThat(t[0].topology().host(1).memory().equalsRange(t[0].bufferAddresses().get("B.dst"), ee, 0, 4096))
                .as("the refused WRITE changed no byte").isTrue();
        List<Row> rows = completions(r.completionsCsv());
        assertThat(rows).filteredOn(x -> x.ctx().equals("bad-write")).extracting(Row::status)
                .containsExactly("STATUS_ACCESS_VIOLATION");
        assertThat(rows).filteredOn(x -> !x.ctx().equals("bad-write")).extracting(Row::status)
                .containsOnly("STATUS_CANCELLED").hasSize(4);
    }

    @Test
    void solicitedEventsWakeOnlyOnTheSolicitedSend() throws IOException {
        ReplayResult r = replay("solicited-events.trace", new Replay.Inspection[1]);
        JsonNode summary = new ObjectMapper().readTree(r.summaryJson().toFile());
        assertThat(summary.get("cq_notifications").get("B.cq").asLong()).isEqualTo(1);
        assertThat(completions(r.completionsCsv())).filteredOn(x -> x.host().equals("B")).hasSize(4);
    }

    @Test
    void everyExampleReplaysAndTwoRunsGiveIdenticalBytes() throws IOException {
        try (var files = Files.list(EXAMPLES)) {
            for (Path ex : files.filter(p -> p.toString().endsWith(".trace")).sorted().toList()) {
                String name = ex.getFileName().toString();
                ReplayOptions o1 = new ReplayOptions(out.resolve(name + "-1"), "default", List.of(), 3, true, "", true, true);
                ReplayOptions o2 = new ReplayOptions(out.resolve(name + "-2"), "default", List.of(), 3, true, "", true, true);
                ReplayResult a = Replay.run(ex, o1);
                ReplayResult b = Replay.run(ex, o2);
                if (!name.equals("cq-overflow.trace")) {
                    assertThat(a.completions()).as(name).isPositive();
                }
                for (String f : new String[] {"completions.csv", "lifecycle.csv", "summary.json", "wave.vcd",
                    "timeline.json", "wire.pcap"}) {
                    assertThat(Files.mismatch(o1.outDir().resolve(f), o2.outDir().resolve(f))).as(name + " " + f)
                            .isEqualTo(-1L);
                }
                JsonNode timeline = new ObjectMapper().readTree(o1.outDir().resolve("timeline.json").toFile());
                for (JsonNode e : timeline.get("traceEvents")) {
                    assertThat(e.has("name") && e.has("ph") && e.has("pid")).as(name + " timeline event " + e).isTrue();
                    if (!e.get("ph").asText().equals("M")) {
                        assertThat(e.has("ts") && e.has("id") && e.has("cat")).as(name + " " + e).isTrue();
                    }
                }
            }
        }
    }

    @Test
    void anOverrunCqIsReportedAndReturnsNothing() throws IOException {
        ReplayResult r = replay("cq-overflow.trace", new Replay.Inspection[1]);
        JsonNode summary = new ObjectMapper().readTree(r.summaryJson().toFile());
        assertThat(summary.get("cq_notifications").get("A.cq").asLong()).as("the overrun, to the ERRORS arm").isEqualTo(1);
        assertThat(completions(r.completionsCsv())).isEmpty();
    }

    @Test
    void theWriteBandwidthExampleCompletesEveryWrite() throws IOException {
        ReplayResult r = replay("write-bw-depth.trace", new Replay.Inspection[1]);
        List<Row> rows = completions(r.completionsCsv());
        assertThat(rows).hasSize(2000).allMatch(x -> x.status().equals("STATUS_SUCCESS"));
        // Depth 128 keeps the wire busy: the second half takes far less time than the first.
        long firstHalf = rows.get(999).time() - rows.get(0).time();
        long secondHalf = rows.get(1999).time() - rows.get(1000).time();
        assertThat(secondHalf * 2).isLessThan(firstHalf);
    }

    @Test
    void aProfileFileIsFoundNextToTheTraceAsTheCheckerFindsIt() throws IOException {
        Path dir = out.resolve("with-profile");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("slow.yaml"), "description: slower link\nextends: default\nlink:\n  rate: 25Gbps\n");
        String quick = Files.readString(EXAMPLES.resolve("quickstart.trace"))
                .replace("host A\n", "host A profile=slow.yaml set=pcie.mps=128\n");
        Path trace = dir.resolve("t.trace");
        Files.writeString(trace, quick);
        ReplayResult r = Replay.run(trace, ReplayOptions.into(out.resolve("with-profile-out")));
        JsonNode diff = new ObjectMapper().readTree(r.summaryJson().toFile()).get("hosts").get("A")
                .get("differences_from_default");
        assertThat(diff.get("link.rate").asText()).isEqualTo("25Gbps");
        assertThat(diff.get("pcie.mps").asText()).isEqualTo("128B");
    }

    @Test
    void aBadTraceWritesNothing() throws IOException {
        Path bad = out.resolve("bad.trace");
        Files.writeString(bad, "rdmasim-trace 1\nhost A\nhost B\ncq A.cq depth=lots\n");
        Path dir = out.resolve("bad");
        assertThatThrownBy(() -> Replay.run(bad, ReplayOptions.into(dir))).isInstanceOf(TraceError.class)
                .hasMessageStartingWith(bad + ":4:");
        assertThat(Files.exists(dir.resolve("completions.csv"))).isFalse();
        assertThat(Files.exists(dir.resolve("summary.json"))).isFalse();
    }

    /** The first pass checks limits against the profile and overrides the run will have, not the default's. */
    @Test
    void limitsAreCheckedAgainstTheRunsProfileAndOverrides() throws IOException {
        Path trace = out.resolve("deep.trace");
        Files.writeString(trace, """
                rdmasim-trace 1
                host A
                host B
                cq A.cq depth=64
                pd A.pd
                qp A.qp pd=A.pd rcq=A.cq icq=A.cq iq=512 rq=4 isge=1 rsge=1 inline=0
                """);
        ReplayOptions lowered = new ReplayOptions(out.resolve("deep"), "default",
                List.of("ndk.maxInitiatorQueueDepth=256"), 1, false, null, false, false);
        assertThatThrownBy(() -> Replay.run(trace, lowered)).isInstanceOf(TraceError.class)
                .hasMessage(trace + ":6:38: iq 512 is above the profile's maximum initiator queue depth"
                        + " (ndk.maxInitiatorQueueDepth = 256)");
        assertThat(Files.exists(out.resolve("deep/summary.json"))).isFalse();
    }
}
