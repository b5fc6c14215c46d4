package dev.rdmasim.traces.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.traces.format.TraceError;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Traces that check themselves: {@code expect=} statuses, memory checks and dumps, notifications as an output, a
 * {@code wait} satisfied by a completion already taken, runtime errors at the line, and replays without files.
 */
class ReplaySelfCheckTest {
    @TempDir
    Path dir;

    /** Lines 1-12: two connected hosts, A.src (64 KiB, pattern:5) and B.dst (64 KiB, zero, remote-writable). */
    static final String SETUP = """
            rdmasim-trace 1
            host A
            host B
            cq A.cq depth=64
            cq B.cq depth=64
            pd A.pd
            pd B.pd
            mr A.src pd=A.pd size=64KiB access=LOCAL_WRITE fill=pattern:5
            mr B.dst pd=B.pd size=64KiB access=LOCAL_WRITE|REMOTE_WRITE
            qp A.qp pd=A.pd rcq=A.cq icq=A.cq iq=16 rq=4 isge=1 rsge=1 inline=0
            qp B.qp pd=B.pd rcq=B.cq icq=B.cq iq=4 rq=16 isge=1 rsge=1 inline=0
            connect A.qp B.qp port=7471
            """;

    private Path trace(String body) throws IOException {
        Path t = dir.resolve("t.trace");
        Files.writeString(t, SETUP + body, StandardCharsets.UTF_8);
        return t;
    }

    private ReplayResult replay(String body) throws IOException {
        return Replay.run(trace(body), ReplayOptions.into(dir.resolve("out")));
    }

    private String error(String body) {
        try {
            replay(body);
        } catch (TraceError e) {
            return e.getMessage().substring(dir.toString().length() + 1);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        throw new AssertionError("the replay did not fail");
    }

    // ---- wait

    @Test
    void aWaitForACompletionTheAutomaticPollingAlreadyTookReturnsAtOnce() throws IOException {
        ReplayResult r = replay("""
                +10us write A.qp ctx=w0 sge=A.src+0:64 remote=B.dst+0
                +50us wait A.cq ctx=w0
                write A.qp ctx=w1 sge=A.src+0:64 remote=B.dst+64
                wait A.cq ctx=w1
                """);
        List<ReplayExamplesTest.Row> rows = ReplayExamplesTest.completions(r.completionsCsv());
        assertThat(rows).extracting(ReplayExamplesTest.Row::ctx).containsExactly("w0", "w1");
        // w1 was posted when the wait for w0 returned: 50 us after w0, which had long completed.
        assertThat(rows.get(1).time() - rows.get(0).time()).isGreaterThan(45_000_000L);
    }

    @Test
    void aCompletionIsClaimedByOneWaitOnly() {
        assertThat(error("""
                +10us write A.qp ctx=w0 sge=A.src+0:64 remote=B.dst+0
                +50us wait A.cq ctx=w0
                wait A.cq ctx=w0
                """)).isEqualTo("t.trace:15:1: the simulation ran out of events while 'wait A.cq ctx=w0' waited: "
                + "nothing more can happen");
    }

    @Test
    void aWaitOnAManualCqFindsWhatAPollTook() throws IOException {
        Path t = dir.resolve("m.trace");
        Files.writeString(t, SETUP.replace("cq A.cq depth=64", "cq A.cq depth=64 poll=manual") + """
                +10us write A.qp ctx=w0 sge=A.src+0:64 remote=B.dst+0
                write A.qp ctx=w1 sge=A.src+0:64 remote=B.dst+64
                +50us poll A.cq max=2
                wait A.cq ctx=w1
                wait A.cq ctx=w0
                """);
        ReplayResult r = Replay.run(t, ReplayOptions.into(dir.resolve("m")));
        assertThat(r.completions()).isEqualTo(2);
    }

    @Test
    void aWaitThatNeverEndsIsReportedAtItsLine() {
        assertThat(error("+10us wait A.cq count=1\n"))
                .isEqualTo("t.trace:13:1: the simulation ran out of events while 'wait A.cq count=1' waited: "
                        + "nothing more can happen");
    }

    /**
     * A wait on a request whose post was refused (the QP is not connected: STATUS_CONNECTION_INVALID) names the post
     * at once: its line, the NDK call and its status. A wait by count says the same of the last refused post that
     * would have completed on its CQ, and a post of the same context that succeeded later is not blamed.
     */
    @Test
    void aWaitOnARefusedPostNamesTheCallAndItsStatus() {
        String unconnected = "qp A.q2 pd=A.pd rcq=A.cq icq=A.cq iq=4 rq=4 isge=1 rsge=1 inline=0\n";
        // The refused line is named as every position is, by the file as it was given.
        String line14 = dir.resolve("t.trace") + ":14:1";
        assertThat(error(unconnected + """
                +10us write A.q2 ctx=w0 sge=A.src+0:64 remote=B.dst+0
                wait A.cq ctx=w0
                """)).isEqualTo("t.trace:15:1: the simulation ran out of events while 'wait A.cq ctx=w0' waited: its "
                + "request was never posted: NdkWrite at " + line14 + " returned STATUS_CONNECTION_INVALID (0xC000023A)");
        assertThat(error(unconnected + """
                +10us read A.q2 ctx=r0 sge=A.src+0:64 remote=B.dst+0
                wait A.cq count=1
                """)).isEqualTo("t.trace:15:1: the simulation ran out of events while 'wait A.cq count=1' waited: "
                + "nothing more can happen; the last post for A.cq was refused: NdkRead at " + line14 + " returned "
                + "STATUS_CONNECTION_INVALID (0xC000023A)");
        // Refused, then posted again on the connected QP and taken by the first wait: the second wait is not
        // about the refusal.
        assertThat(error(unconnected + """
                +10us write A.q2 ctx=w0 sge=A.src+0:64 remote=B.dst+0
                write A.qp ctx=w0 sge=A.src+0:64 remote=B.dst+0
                wait A.cq ctx=w0
                wait A.cq ctx=w0
                """)).isEqualTo("t.trace:17:1: the simulation ran out of events while 'wait A.cq ctx=w0' waited: "
                + "nothing more can happen");
    }

    // ---- expect=

    @Test
    void aQpAboveTheLimitFailsAsExpectedAndTheReplayGoesOn() throws IOException {
        ReplayResult r = replay("""
                qp A.big pd=A.pd rcq=A.cq icq=A.cq iq=4097 rq=4 isge=1 rsge=1 inline=0 expect=INVALID_PARAMETER
                qp A.max pd=A.pd rcq=A.cq icq=A.cq iq=4096 rq=4 isge=1 rsge=1 inline=0 expect=SUCCESS
                """);
        assertThat(r.statusCounts()).isEmpty();
    }

    @Test
    void aStatusOtherThanTheExpectedOneStopsTheReplayAtTheValue() {
        assertThat(error("qp A.q pd=A.pd rcq=A.cq icq=A.cq iq=4 rq=4 isge=1 rsge=1 inline=0 expect=INVALID_PARAMETER\n"))
                .isEqualTo("t.trace:13:74: creating QP A.q ended with STATUS_SUCCESS (0x00000000), expected "
                        + "STATUS_INVALID_PARAMETER (0xC000000D)");
        assertThat(error("cq A.c depth=5000000 expect=SUCCESS\n"))
                .isEqualTo("t.trace:13:29: NdkCreateCq returned STATUS_INVALID_PARAMETER (0xC000000D), "
                        + "expected STATUS_SUCCESS (0x00000000)");
    }

    @Test
    void aWritePastTheRegionCompletesWithTheExpectedAccessViolationAndChangesNoByte() throws IOException {
        ReplayResult r = replay("""
                +10us write A.qp ctx=bad sge=A.src+0:64 remote=B.dst+65504 expect=ACCESS_VIOLATION
                send A.qp ctx=after sge=A.src+0:8 expect=CANCELLED
                wait A.cq count=2
                check B.dst+0:64KiB fill=zero
                """);
        assertThat(r.statusCounts()).containsOnlyKeys("STATUS_ACCESS_VIOLATION", "STATUS_CANCELLED");
    }

    @Test
    void aCompletionWithAnotherStatusThanExpectedStopsTheReplayAtTheLine() {
        assertThat(error("+10us write A.qp ctx=w sge=A.src+0:64 remote=B.dst+65504 expect=SUCCESS\nwait A.cq\n"))
                .isEqualTo("t.trace:13:65: 'w' completed with STATUS_ACCESS_VIOLATION (0xC0000005), expected "
                        + "STATUS_SUCCESS (0x00000000)");
    }

    @Test
    void aRefusedCallIsCheckedAgainstItsExpectation() throws IOException {
        replay("+10us write A.qp ctx=w sge=A.src+0:64 remote=B.dst+0 flags=SEND_AND_SOLICIT_EVENT "
                + "expect=INVALID_PARAMETER_4\narm A.cq ANY expect=SUCCESS\n");
        assertThat(error("+10us send A.qp ctx=s sge=A.src+0:64 flags=READ_FENCE|INLINE expect=SUCCESS\n"))
                .startsWith("t.trace:13:69: send ended with STATUS_BUFFER_OVERFLOW");
    }

    @Test
    void anExpectationWhoseCompletionNeverCameIsReported() {
        assertThat(error("+10us receive B.qp ctx=r sge=B.dst+0:64 expect=SUCCESS\n"))
                .isEqualTo("t.trace:13:48: expected STATUS_SUCCESS (0x00000000) from 'r', but the replay ended "
                        + "before its completion was taken");
    }

    // ---- check and dump

    private static byte[] pattern(long seed, int regionSize) {
        byte[] b = new byte[regionSize];
        byte[] chunk = new byte[Math.min(regionSize, 1 << 16)];
        SplittableRandom r = new SplittableRandom(seed);
        for (int off = 0; off < regionSize; off += chunk.length) {
            r.nextBytes(chunk);
            System.arraycopy(chunk, 0, b, off, Math.min(chunk.length, regionSize - off));
        }
        return b;
    }

    @Test
    void checksPassOnTheBytesAWriteMovedAndADumpHoldsThem() throws IOException {
        byte[] src = pattern(5, 1 << 16);
        String hex = java.util.HexFormat.of().formatHex(src, 4096, 4096 + 16);
        ReplayResult r = replay("""
                +10us write A.qp ctx=w sge=A.src+4096:8KiB remote=B.dst+100
                wait A.cq ctx=w
                check B.dst+100:8KiB same=A.src+4096
                check B.dst+100:16 data=%s
                check A.src+4096:8KiB fill=pattern:5
                check B.dst+0:100 fill=zero
                check B.dst+8292:100 fill=byte:0
                dump B.dst+100:8KiB file=b.bin
                """.formatted(hex));
        Path out = r.completionsCsv().getParent();
        assertThat(Files.readAllBytes(out.resolve("b.bin"))).isEqualTo(java.util.Arrays.copyOfRange(src, 4096, 4096 + 8192));
        assertThat(out.resolve("b.bin.partial")).doesNotExist();
    }

    /** The pattern of a check is the region's fill at the range's own offsets, across the fill's 64 KiB chunks. */
    @ParameterizedTest
    @ValueSource(longs = {0, 1, 65535, 65536, 100_000, 200_000})
    void aPatternCheckMatchesTheRegionAtAnyOffset(long offset) throws IOException {
        byte[] b = pattern(9, 256 * 1024);
        Path t = dir.resolve("p.trace");
        Files.writeString(t, """
                rdmasim-trace 1
                host A
                pd A.pd
                mr A.m pd=A.pd size=256KiB fill=pattern:9
                check A.m+%d:%d fill=pattern:9
                check A.m+%d:1 data=%02x
                """.formatted(offset, 256 * 1024 - offset - 1, offset, b[(int) offset] & 0xFF));
        Replay.run(t, ReplayOptions.into(dir.resolve("p")));
        Files.writeString(t, Files.readString(t).replace("size=256KiB fill=pattern:9", "size=256KiB fill=pattern:8"));
        assertThatThrownBy(() -> Replay.run(t, ReplayOptions.into(dir.resolve("p")))).isInstanceOf(TraceError.class)
                .hasMessageStartingWith(t + ":5:1: memory check failed: A.m+" + offset + " holds");
    }

    @Test
    void aFailedCheckNamesTheFirstDifferingByteAndHowManyDiffer() {
        assertThat(error("+10us write A.qp ctx=w sge=A.src+0:64 remote=B.dst+0\nwait A.cq ctx=w\n"
                + "check B.dst+60:8 fill=zero\n"))
                .matches("t\\.trace:15:1: memory check failed: B\\.dst\\+60 holds 0x[0-9a-f]{2}, expected 0x00 "
                        + "\\([1-4] of 8 bytes differ\\)");
    }

    @Test
    void aFailedReplayLeavesNoDump() throws IOException {
        assertThatThrownBy(() -> replay("dump A.src+0:64 file=a.bin\ncheck A.src+0:1 data=ff\ncheck A.src+0:1 data=00\n"))
                .isInstanceOf(TraceError.class);
        try (Stream<Path> s = Files.list(dir.resolve("out"))) {
            assertThat(s).isEmpty();
        }
    }

    // ---- notifications.csv

    @Test
    void anOverrunIsANotificationWithBufferOverflow() throws IOException {
        ReplayResult r = Replay.run(ReplayExamplesTest.EXAMPLES.resolve("cq-overflow.trace"),
                ReplayOptions.into(dir.resolve("o")));
        List<String> lines = Files.readAllLines(r.notificationsCsv());
        assertThat(lines.get(0)).isEqualTo("time_ps,host,cq,type,status,status_hex");
        assertThat(lines).hasSize(2);
        assertThat(lines.get(1)).matches("\\d+,A,A\\.cq,ERRORS,STATUS_BUFFER_OVERFLOW,0x80000005");
    }

    @Test
    void aSolicitedEventIsNotifiedWhenTheSolicitingSendLands() throws IOException {
        ReplayResult r = Replay.run(ReplayExamplesTest.EXAMPLES.resolve("solicited-events.trace"),
                ReplayOptions.into(dir.resolve("s")));
        List<String> lines = Files.readAllLines(r.notificationsCsv());
        assertThat(lines).hasSize(2);
        String[] f = lines.get(1).split(",");
        assertThat(f).containsExactly(f[0], "B", "B.cq", "SOLICITED", "STATUS_SUCCESS", "0x00000000");
        // After the calls started, before B's poll took the four receives (B.cq is polled by hand).
        long poll = ReplayExamplesTest.completions(r.completionsCsv()).stream()
                .filter(x -> x.ctx().equals("r3")).findFirst().orElseThrow().time();
        assertThat(Long.parseLong(f[0])).isGreaterThan(r.firstCallPs()).isLessThan(poll);
    }

    // ---- outputs chosen by the caller

    @Test
    void withoutAnOutputDirectoryNothingIsWrittenAndTheResultIsTheSame() throws IOException {
        Path t = trace("+10us write A.qp ctx=w sge=A.src+0:4KiB remote=B.dst+0\nwait A.cq ctx=w\ndump B.dst+0:64 file=d.bin\n");
        ReplayResult withFiles = Replay.run(t, ReplayOptions.into(dir.resolve("files")));
        ReplayOptions none = new ReplayOptions(null, "default", List.of(), 1, true, null, true, true);
        long[] requests = {0};
        ReplayResult without = Replay.run(t, none, in -> { }, q -> requests[0]++);
        assertThat(without.completionsCsv()).isNull();
        assertThat(without.summaryJson()).isNull();
        assertThat(without.notificationsCsv()).isNull();
        assertThat(without.vcd()).isNull();
        assertThat(requests[0]).isEqualTo(1);
        assertThat(without.simTimePs()).isEqualTo(withFiles.simTimePs());
        assertThat(without.completions()).isEqualTo(withFiles.completions());
        assertThat(without.latencyP50Ns()).isEqualTo(withFiles.latencyP50Ns());
        try (Stream<Path> s = Files.list(dir)) {
            assertThat(s.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("t.trace", "files");
        }
    }

    @Test
    void aTraceGivenAsTextReplaysAsItsFileDoes() throws IOException {
        String body = "+10us write A.qp ctx=w sge=A.src+0:4KiB remote=B.dst+0\nwait A.cq ctx=w\n";
        ReplayResult file = Replay.run(trace(body), ReplayOptions.into(dir.resolve("file")));
        ReplayResult text = Replay.runText("t.trace", SETUP + body, dir, ReplayOptions.into(dir.resolve("text")),
                in -> { }, null, null);
        for (String f : new String[] {"completions.csv", "lifecycle.csv", "notifications.csv"}) {
            assertThat(Files.mismatch(file.completionsCsv().resolveSibling(f), text.completionsCsv().resolveSibling(f)))
                    .as(f).isEqualTo(-1L);
        }
        assertThat(text.simTimePs()).isEqualTo(file.simTimePs());
        assertThatThrownBy(() -> Replay.runText("t.trace", SETUP + "check A.src+0:1 data=00\n", dir,
                ReplayOptions.into(dir.resolve("bad")), in -> { }, null, null))
                .hasMessageStartingWith("t.trace:13:1: memory check failed: A.src+0 holds");
    }
}
