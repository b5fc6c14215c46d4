package dev.rdmasim.traces.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The first pass over {@code expect=}, {@code check} and {@code dump}: what a stated status lets through to the NDK
 * call, and every error of the new lines (input after the shared setup, lines 1-14).
 */
class TraceSelfCheckLinesTest {
    static Stream<Arguments> clean() {
        return Stream.of(
                "qp A.q2 pd=A.pd rcq=A.cq icq=A.cq iq=5000 rq=1 isge=1 rsge=1 inline=0 expect=INVALID_PARAMETER",
                "qp A.q2 pd=A.pd rcq=A.cq icq=A.cq iq=1 rq=1 isge=31 rsge=1 inline=1KiB expect=STATUS_INVALID_PARAMETER",
                "cq A.big depth=5000000 expect=invalid_parameter",
                "resize A.cq depth=0x500000 expect=INVALID_PARAMETER",
                "connect A.qp B.qp port=1 data=" + "00".repeat(57) + " expect=INVALID_BUFFER_SIZE",
                "write A.qp ctx=w sge=A.src+0:64 remote=B.dst+65504 expect=ACCESS_VIOLATION",
                "read A.qp ctx=r sge=A.src+0:4KiB remote=B.dst+62KiB expect=0xC0000005",
                "cq A.c2 depth=5000000 expect=INVALID_PARAMETER\ncq A.c2 depth=4",
                "check A.src+0:4 data=00000000\ncheck B.dst+64KiB-4:4 fill=zero",
                "check A.src+0:64KiB same=B.dst+0\ncheck A.dst+0:4KiB fill=pattern:3\ncheck B.src+4095:1 fill=byte:7",
                "dump A.src+0:64 file=a.bin\ndump B.dst+0:64KiB file=b-dst_0.raw")
                .map(Arguments::of);
    }

    @ParameterizedTest
    @MethodSource("clean")
    void clean(String snippet) {
        assertThat(TraceTexts.error(TraceTexts.SETUP + snippet.replace("64KiB-4", "65532") + "\n", true))
                .isEqualTo("no error");
    }

    static Stream<Arguments> errors() {
        return Stream.of(
                Arguments.of("cq A.c depth=4 expect=ACCES_VIOLATION", "15:23: unknown status 'ACCES_VIOLATION' (expected a "
                        + "name such as SUCCESS, INVALID_PARAMETER or ACCESS_VIOLATION, or 0x and eight hexadecimal "
                        + "digits); did you mean 'ACCESS_VIOLATION'?"),
                Arguments.of("pd A.p expect=SUCCESS", "15:8: unknown key 'expect' for pd (pd takes no keys)"),
                Arguments.of("mr A.m pd=A.pd size=256TiB expect=INVALID_PARAMETER", "15:21: size 256TiB is above the "
                        + "profile's maximum registration size (ndk.maxRegistrationSize = 128TiB)"),
                Arguments.of("write A.qp ctx=w sge=A.src+65000:1KiB remote=B.dst+0 expect=ACCESS_VIOLATION",
                        "15:22: buffer A.src+65000:1024 ends at byte 66024, past the end of 'A.src' (size 65536)"),
                Arguments.of("qp A.q2 pd=A.pd rcq=A.cq icq=A.cq iq=5000 rq=1 isge=1 rsge=1 inline=0 expect=INVALID_PARAMETER\n"
                        + "flush A.q2", "16:7: 'A.q2' does not exist: its creation is expected to fail (at t.trace:15:78)"),
                Arguments.of("check A.src+0:4", "15:1: check takes one of data=BYTES, fill=FILL or same=MR+OFFSET, got 0"),
                Arguments.of("check A.src+0:4 data=00000000 fill=zero",
                        "15:1: check takes one of data=BYTES, fill=FILL or same=MR+OFFSET, got 2"),
                Arguments.of("check A.src+0:4 data=0000", "15:22: data= holds 2 bytes, the range 4"),
                Arguments.of("check A.src+65535:2 fill=zero",
                        "15:7: range A.src+65535:2 ends at byte 65537, past the end of 'A.src' (size 65536)"),
                Arguments.of("check A.src+0:0 fill=zero", "15:7: a range of check must hold at least 1 byte"),
                Arguments.of("check A.src+0:4,A.src+4:4 fill=zero", "15:7: expected one buffer MR+OFFSET:LENGTH, got 2"),
                Arguments.of("check A.src+0:8 same=A.dst+4090",
                        "15:22: range A.dst+4090 of 8 bytes ends at byte 4098, past the end of 'A.dst' (size 4096)"),
                Arguments.of("check A.nope+0:8 fill=zero", "15:7: unknown object 'A.nope' (declare it with a mr line first)"),
                Arguments.of("dump A.src+0:8 file=../x.bin", "15:21: expected a file name of letters, digits, '.', '_' and "
                        + "'-' (written in the output directory), got '../x.bin'"),
                Arguments.of("dump A.src+0:8 file=Summary.json", "15:21: 'Summary.json' is an output of the replay itself"),
                Arguments.of("dump A.src+0:8 file=a.bin\ndump A.src+0:8 file=A.bin",
                        "16:21: file 'A.bin' is already written by the dump at t.trace:15:21"),
                Arguments.of("dump A.src+0:8", "15:1: missing required key 'file' for dump"),
                Arguments.of("+1us check A.src+0:8 fill=zero\n@0us dump A.src+0:8 file=x y",
                        "16:28: positional argument 'y' after key=value pairs (positional arguments come first)"));
    }

    @ParameterizedTest
    @MethodSource("errors")
    void errors(String snippet, String expected) {
        assertThat(TraceTexts.error(TraceTexts.SETUP + snippet + "\n", true)).isEqualTo("t.trace:" + expected);
    }
}
