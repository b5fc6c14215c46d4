package dev.rdmasim.traces.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every semantic error of the first pass: input after the shared setup (lines 1-14) -> exact message. */
class TraceCheckErrorTest {
    static Stream<Arguments> afterSetup() {
        return Stream.of(
                Arguments.of("host C", "15:1: host lines come before any other line"),
                Arguments.of("cq C.cq depth=4", "15:4: unknown host 'C' in 'C.cq' (hosts: A, B)"),
                Arguments.of("flush C.qp", "15:7: unknown host 'C' in 'C.qp' (hosts: A, B)"),
                Arguments.of("cq A.cq depth=4", "15:4: 'A.cq' is already declared (at t.trace:4:1)"),
                Arguments.of("poll A.nope", "15:6: unknown object 'A.nope' (declare it with a cq line first)"),
                Arguments.of("close A.nope", "15:7: unknown object 'A.nope' (declare it with a cq, pd, mr or qp line first)"),
                Arguments.of("poll A.pd", "15:6: 'A.pd' is a pd, expected a cq"),
                Arguments.of("flush A.src", "15:7: 'A.src' is an mr, expected a qp"),
                Arguments.of("mr A.m pd=A.cq size=1", "15:11: 'A.cq' is a cq, expected a pd"),
                Arguments.of("mr A.m pd=B.pd size=1", "15:11: 'B.pd' is on host B, but 'A.m' is on host A"),
                Arguments.of("mr A.m pd=A.pd size=0", "15:21: size must be at least 1 byte"),
                Arguments.of("mr A.m pd=A.pd size=256TiB", "15:21: size 256TiB is above the profile's maximum registration size (ndk.maxRegistrationSize = 128TiB)"),
                Arguments.of("cq A.big depth=5000000", "15:16: depth 5000000 is above the profile's maximum CQ depth (ndk.maxCqDepth = 4194303)"),
                Arguments.of("cq A.z depth=0", "15:14: depth must be at least 1"),
                Arguments.of("resize A.cq depth=0x500000", "15:19: depth 0x500000 is above the profile's maximum CQ depth (ndk.maxCqDepth = 4194303)"),
                Arguments.of("qp A.q2 pd=A.pd rcq=A.cq icq=B.cq iq=1 rq=1 isge=1 rsge=1 inline=0", "15:30: 'B.cq' is on host B, but 'A.q2' is on host A"),
                Arguments.of("qp A.q2 pd=A.pd rcq=A.cq icq=A.cq iq=5000 rq=1 isge=1 rsge=1 inline=0", "15:38: iq 5000 is above the profile's maximum initiator queue depth (ndk.maxInitiatorQueueDepth = 4096)"),
                Arguments.of("qp A.q2 pd=A.pd rcq=A.cq icq=A.cq iq=1 rq=40000 isge=1 rsge=1 inline=0", "15:43: rq 40000 is above the profile's maximum receive queue depth (ndk.maxReceiveQueueDepth = 32768)"),
                Arguments.of("qp A.q2 pd=A.pd rcq=A.cq icq=A.cq iq=1 rq=1 isge=31 rsge=1 inline=0", "15:50: isge 31 is above the profile's maximum initiator SGEs (ndk.maxInitiatorRequestSge = 30)"),
                Arguments.of("qp A.q2 pd=A.pd rcq=A.cq icq=A.cq iq=1 rq=1 isge=1 rsge=31 inline=0", "15:57: rsge 31 is above the profile's maximum receive SGEs (ndk.maxReceiveRequestSge = 30)"),
                Arguments.of("qp A.q2 pd=A.pd rcq=A.cq icq=A.cq iq=1 rq=1 isge=1 rsge=1 inline=1KiB", "15:66: inline 1KiB is above the profile's maximum inline data size (ndk.maxInlineDataSize = 476B)"),
                Arguments.of("connect A.qp A.qp port=1", "15:14: connect needs QPs on different hosts: 'A.qp' and 'A.qp' are both on host A"),
                Arguments.of("connect A.qp B.qp port=70000", "15:24: port 70000 is not a port (0 to 65535)"),
                Arguments.of("connect A.qp B.qp port=1 data=" + "00".repeat(57), "15:31: data of 57 bytes is above the profile's maximum connect private data (ndk.maxCallerData = 56B)"),
                Arguments.of("connect A.qp B.qp port=1 peer_data=" + "00".repeat(197), "15:36: peer_data of 197 bytes is above the profile's maximum accept private data (ndk.maxCalleeData = 196B)"),
                Arguments.of("write A.qp ctx=w sge=B.src+0:64 remote=B.dst+0", "15:22: 'B.src' is on host B, but 'A.qp' is on host A"),
                Arguments.of("write A.qp ctx=w sge=A.src+0:64,A.src+65000:1KiB remote=B.dst+0", "15:33: buffer A.src+65000:1024 ends at byte 66024, past the end of 'A.src' (size 65536)"),
                Arguments.of("write A.qp ctx=w sge=A.cq+0:64 remote=B.dst+0", "15:22: 'A.cq' is a cq, expected an mr"),
                Arguments.of("write A.qp ctx=w sge=A.src+0:64 remote=A.dst+0", "15:40: remote region 'A.dst' is on host A, the host of 'A.qp' (expected a region on the peer host)"),
                Arguments.of("read A.qp ctx=r sge=A.src+0:4KiB remote=B.dst+62KiB", "15:41: remote range B.dst+63488 of 4096 bytes ends at byte 67584, past the end of 'B.dst' (size 65536)"),
                Arguments.of("receive B.qp ctx=r sge=A.src+0:64", "15:24: 'A.src' is on host A, but 'B.qp' is on host B"),
                Arguments.of("close A.qp\nflush A.qp", "16:7: 'A.qp' is closed (at t.trace:15:1)"),
                Arguments.of("close A.src\nsend A.qp ctx=s sge=A.src+0:1", "16:21: 'A.src' is closed (at t.trace:15:1)"),
                Arguments.of("wait A.cq ctx=x count=2", "15:23: wait takes ctx= or count=, not both"),
                Arguments.of("wait A.cq count=0", "15:17: count must be at least 1, got 0"),
                Arguments.of("poll A.cq max=0", "15:15: max must be at least 1, got 0"),
                Arguments.of("repeat 20 as i\n  write A.qp ctx=w${i} sge=A.src+${i*4096}:4KiB remote=B.dst+0\nend",
                        "16:28: buffer A.src+65536:4096 ends at byte 69632, past the end of 'A.src' (size 65536)"));
    }

    @ParameterizedTest
    @MethodSource("afterSetup")
    void afterSetup(String snippet, String expected) {
        assertThat(TraceTexts.error(TraceTexts.SETUP + snippet + "\n", true)).isEqualTo("t.trace:" + expected);
    }

    static Stream<Arguments> hosts() {
        return Stream.of(
                Arguments.of("host A\nhost B\nhost C", "4:1: a trace has at most two hosts (A and B are declared)"),
                Arguments.of("host A\nhost A", "3:6: host 'A' is already declared (at t.trace:2:1)"),
                Arguments.of("cq A.cq depth=4", "2:4: unknown host 'A' in 'A.cq' (no host is declared)"),
                Arguments.of("host A profile=nosuch", "2:16: unknown profile 'nosuch'; valid: default, cx3-like, connectib-like, "
                        + "cx5-like, cx6-like (or a path to a .yaml file)"),
                Arguments.of("host A profile=missing.yaml", "2:16: ./missing.yaml: cannot read profile file (NoSuchFileException: ./missing.yaml)"),
                Arguments.of("host A set=ndk.maxCqDepth=100\ncq A.c depth=101", "3:14: depth 101 is above the profile's maximum CQ depth (ndk.maxCqDepth = 100)"),
                Arguments.of("host A profile=cx3-like set=ndk.maxCqDepth=0", "2:29: ndk.maxCqDepth = 0: must be 1..4294967295"));
    }

    @ParameterizedTest
    @MethodSource("hosts")
    void hosts(String snippet, String expected) {
        assertThat(TraceTexts.error(TraceTexts.HEADER + snippet + "\n", true)).isEqualTo("t.trace:" + expected);
    }

    @Test
    void unknownProfileSettingNamesTheSetting() {
        assertThat(TraceTexts.error(TraceTexts.HEADER + "host A set=pcie.nope=3\n", true))
                .startsWith("t.trace:2:12: unknown parameter 'pcie.nope'; closest: ");
    }

    @Test
    void aClosedObjectMayBeDeclaredAgain() {
        TraceChecker.Summary s = TraceTexts.check(TraceTexts.SETUP + "close A.qp\n"
                + "qp A.qp pd=A.pd rcq=A.cq icq=A.cq iq=4 rq=4 isge=1 rsge=1 inline=0\nflush A.qp\n");
        assertThat(s).isEqualTo(new TraceChecker.Summary(2, 2, 14));
    }

    @Test
    void aCleanTraceIsSummarized() {
        TraceChecker.Summary s = TraceTexts.check(TraceTexts.SETUP
                + "repeat 3 as i every=1us\n"
                + "  repeat 2 as j\n"
                + "    write A.qp ctx=w${i}_${j} sge=A.src+${j*4096}:4KiB remote=B.dst+${(i*2+j)*4096}\n"
                + "  end\n"
                + "  wait A.cq count=2\n"
                + "end\n"
                + "receive B.qp ctx=r sge=B.src+0:4KiB\n"
                + "arm A.cq SOLICITED\n"
                + "moderate A.cq interval=10us count=8\n"
                + "resize A.cq depth=128\n"
                + "disconnect A.qp\n");
        assertThat(s).isEqualTo(new TraceChecker.Summary(2, 3 * 3 + 5, 13));
    }
}
