package dev.rdmasim.traces.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The checker's bounds taken exactly: a buffer or remote range ending at a region's last byte, and every profile
 * maximum (default profile) itself, are accepted; one more is refused. Also object names built with {@code ${...}}
 * inside a buffer.
 */
class TraceBoundsTest {
    private static final String QP = "qp A.q2 pd=A.pd rcq=A.cq icq=A.cq ";

    static Stream<Arguments> atAndPastTheBound() {
        return Stream.of(
                Arguments.of("send A.qp ctx=s sge=A.src+65472:64", "send A.qp ctx=s sge=A.src+65473:64",
                        "15:21: buffer A.src+65473:64 ends at byte 65537, past the end of 'A.src' (size 65536)"),
                Arguments.of("send A.qp ctx=s sge=A.src+0:32KiB,A.src+32KiB:32KiB",
                        "send A.qp ctx=s sge=A.src+0:32KiB,A.src+32KiB:32769",
                        "15:35: buffer A.src+32768:32769 ends at byte 65537, past the end of 'A.src' (size 65536)"),
                Arguments.of("write A.qp ctx=w sge=A.src+0:4KiB remote=B.dst+61440",
                        "write A.qp ctx=w sge=A.src+0:4KiB remote=B.dst+61441",
                        "15:42: remote range B.dst+61441 of 4096 bytes ends at byte 65537, past the end of 'B.dst' (size 65536)"),
                Arguments.of("write A.qp ctx=w sge=A.src+0:2KiB,A.src+4KiB:2KiB remote=B.dst+60KiB",
                        "write A.qp ctx=w sge=A.src+0:2KiB,A.src+4KiB:2049 remote=B.dst+60KiB",
                        "15:58: remote range B.dst+61440 of 4097 bytes ends at byte 65537, past the end of 'B.dst' (size 65536)"),
                Arguments.of("mr A.m pd=A.pd size=128TiB", "mr A.m pd=A.pd size=140737488355329",
                        "15:21: size 140737488355329 is above the profile's maximum registration size (ndk.maxRegistrationSize = 128TiB)"),
                Arguments.of("cq A.big depth=4194303", "cq A.big depth=4194304",
                        "15:16: depth 4194304 is above the profile's maximum CQ depth (ndk.maxCqDepth = 4194303)"),
                Arguments.of("resize A.cq depth=4194303", "resize A.cq depth=4194304",
                        "15:19: depth 4194304 is above the profile's maximum CQ depth (ndk.maxCqDepth = 4194303)"),
                Arguments.of(QP + "iq=4096 rq=1 isge=1 rsge=1 inline=0", QP + "iq=4097 rq=1 isge=1 rsge=1 inline=0",
                        "15:38: iq 4097 is above the profile's maximum initiator queue depth (ndk.maxInitiatorQueueDepth = 4096)"),
                Arguments.of(QP + "iq=1 rq=32768 isge=1 rsge=1 inline=0", QP + "iq=1 rq=32769 isge=1 rsge=1 inline=0",
                        "15:43: rq 32769 is above the profile's maximum receive queue depth (ndk.maxReceiveQueueDepth = 32768)"),
                Arguments.of(QP + "iq=1 rq=1 isge=30 rsge=1 inline=0", QP + "iq=1 rq=1 isge=31 rsge=1 inline=0",
                        "15:50: isge 31 is above the profile's maximum initiator SGEs (ndk.maxInitiatorRequestSge = 30)"),
                Arguments.of(QP + "iq=1 rq=1 isge=1 rsge=30 inline=0", QP + "iq=1 rq=1 isge=1 rsge=31 inline=0",
                        "15:57: rsge 31 is above the profile's maximum receive SGEs (ndk.maxReceiveRequestSge = 30)"),
                Arguments.of(QP + "iq=1 rq=1 isge=1 rsge=1 inline=476", QP + "iq=1 rq=1 isge=1 rsge=1 inline=477",
                        "15:66: inline 477 is above the profile's maximum inline data size (ndk.maxInlineDataSize = 476B)"),
                Arguments.of("connect A.qp B.qp port=65535", "connect A.qp B.qp port=65536",
                        "15:24: port 65536 is not a port (0 to 65535)"),
                Arguments.of("connect A.qp B.qp port=1 data=" + "00".repeat(56),
                        "connect A.qp B.qp port=1 data=" + "00".repeat(57),
                        "15:31: data of 57 bytes is above the profile's maximum connect private data (ndk.maxCallerData = 56B)"),
                Arguments.of("connect A.qp B.qp port=1 peer_data=" + "00".repeat(196),
                        "connect A.qp B.qp port=1 peer_data=" + "00".repeat(197),
                        "15:36: peer_data of 197 bytes is above the profile's maximum accept private data (ndk.maxCalleeData = 196B)"),
                Arguments.of("wait A.cq count=1", "wait A.cq count=0", "15:17: count must be at least 1, got 0"),
                Arguments.of("poll A.cq max=1", "poll A.cq max=0", "15:15: max must be at least 1, got 0"),
                Arguments.of("mr A.m pd=A.pd size=1", "mr A.m pd=A.pd size=0", "15:21: size must be at least 1 byte"),
                Arguments.of("cq A.z depth=1", "cq A.z depth=0", "15:14: depth must be at least 1"));
    }

    @ParameterizedTest
    @MethodSource("atAndPastTheBound")
    void theBoundItselfIsAcceptedAndOneMoreIsNot(String at, String past, String expected) {
        assertThat(TraceTexts.error(TraceTexts.SETUP + at + "\n", true)).isEqualTo("no error");
        assertThat(TraceTexts.error(TraceTexts.SETUP + past + "\n", true)).isEqualTo("t.trace:" + expected);
    }

    static Stream<Arguments> templatedBuffers() {
        return Stream.of(
                Arguments.of("repeat 3 as i\n  mr A.r${i} pd=A.pd size=4KiB\n"
                        + "  send A.qp ctx=s${i} sge=A.r${i}+0:4KiB\nend", "no error"),
                Arguments.of("repeat 2 as i\n  mr A.r${i} pd=A.pd size=4KiB\nend\n"
                        + "repeat 3 as i\n  send A.qp ctx=s${i} sge=A.r${i}+0:64\nend",
                        "t.trace:19:27: unknown object 'A.r2' (declare it with a mr line first)"),
                Arguments.of("repeat 2 as i\n  mr A.r${i} pd=A.pd size=${(i+1)*64}\n"
                        + "  send A.qp ctx=s${i} sge=A.r${i}+0:128\nend",
                        "t.trace:17:27: buffer A.r0+0:128 ends at byte 128, past the end of 'A.r0' (size 64)"),
                Arguments.of("repeat 2 as i\n  mr B.r${i} pd=B.pd size=4KiB\nend\n"
                        + "repeat 2 as i\n  write A.qp ctx=w${i} sge=A.src+0:4KiB remote=B.r${1-i}+0\nend", "no error"));
    }

    @ParameterizedTest
    @MethodSource("templatedBuffers")
    void templatedNamesInsideBuffersNameTheObjectOfEachIteration(String snippet, String expected) {
        assertThat(TraceTexts.error(TraceTexts.SETUP + snippet + "\n", true)).isEqualTo(expected);
    }
}
