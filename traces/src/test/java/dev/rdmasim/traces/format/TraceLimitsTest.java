package dev.rdmasim.traces.format;

import static dev.rdmasim.traces.format.TraceTexts.HEADER;
import static dev.rdmasim.traces.format.TraceTexts.SETUP;
import static dev.rdmasim.traces.format.TraceTexts.error;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The format's limits and encodings: each a one-line error at its place, never an exception of the JDK's. */
class TraceLimitsTest {
    @TempDir
    Path dir;

    private String checkFile(byte[] bytes) throws IOException {
        Path f = dir.resolve("t.trace");
        Files.write(f, bytes);
        try {
            TraceChecker.check(f);
            return "no error";
        } catch (TraceError e) {
            return e.getMessage().replace(f.toString(), "t.trace");
        }
    }

    private static byte[] concat(String a, byte[] b, String c) {
        byte[] x = a.getBytes(StandardCharsets.UTF_8);
        byte[] z = c.getBytes(StandardCharsets.UTF_8);
        byte[] all = new byte[x.length + b.length + z.length];
        System.arraycopy(x, 0, all, 0, x.length);
        System.arraycopy(b, 0, all, x.length, b.length);
        System.arraycopy(z, 0, all, x.length + b.length, z.length);
        return all;
    }

    @Test
    void bytesThatAreNotUtf8AreAnErrorAtTheirLineAndColumn() throws IOException {
        assertThat(checkFile(concat(HEADER + "# fine\n# é and ", new byte[] {(byte) 0xFF, (byte) 0xFE}, " bad\n")))
                .isEqualTo("t.trace:3:9: bytes that are not UTF-8 (FF): a trace is UTF-8 text");
        // A multi-byte sequence cut off by the end of the file.
        assertThat(checkFile(concat(HEADER + "#", new byte[] {(byte) 0xE2, (byte) 0x82}, "")))
                .startsWith("t.trace:2:2: bytes that are not UTF-8 (E2 82)");
        // Far into a large file (past the decoder's buffer).
        String many = HEADER + "# a comment line of some length to fill the buffer\n".repeat(5000);
        assertThat(checkFile(concat(many + "pd A.pd ", new byte[] {(byte) 0xC3, (byte) 0x28}, "\n")))
                .isEqualTo("t.trace:5002:9: bytes that are not UTF-8 (C3): a trace is UTF-8 text");
    }

    @Test
    void aByteOrderMarkIsNamed() throws IOException {
        assertThat(checkFile(concat("", new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}, HEADER)))
                .startsWith("t.trace:1:1: the file starts with a UTF-8 byte-order mark (bytes EF BB BF)");
        assertThat(checkFile(concat("", new byte[] {(byte) 0xFF, (byte) 0xFE, 'r', 0}, "")))
                .startsWith("t.trace:1:1: the file starts with a UTF-16 byte-order mark (bytes FF FE)");
        assertThat(checkFile(HEADER.getBytes(StandardCharsets.UTF_8))).isEqualTo("no error");
    }

    @Test
    void columnsCountCharactersNotUtf16Units() {
        // Two characters beyond the BMP (two UTF-16 units each) before the bad value.
        assertThat(error(HEADER + "host A\n#\ncq A.cq depth=x # \uD83D\uDE00\n", false))
                .isEqualTo("t.trace:4:15: expected an integer such as 128 or 0x5A, got 'x'");
        assertThat(error(SETUP + "send A.qp ctx=\uD83D\uDE00 sge=A.nope+0:1\n", true))
                .startsWith("t.trace:15:21: unknown object 'A.nope'");
        assertThat(error(SETUP + "repeat 2 as i\n  write A.qp ctx=\uD83D\uDE00 sge=A.src+0:1 remote=B.nope+${i}\nend\n", true))
                .startsWith("t.trace:16:41: unknown object 'B.nope'");
        assertThat(error(HEADER + "pd A.\uD83D\uDE00 x=1\n", false))
                .startsWith("t.trace:2:8: unknown key 'x'");
        assertThat(error(SETUP + "repeat 2 as i\n  send A.qp ctx=\uD83D\uDE00 sge=A.src+${i*0x7fffffffffffffff*2}:1\nend\n", true))
                .startsWith("t.trace:16:29: integer overflow");
    }

    @Test
    void controlCharactersAreEscapedInMessages() {
        String m = error(HEADER + "p\u001b[2Jd\u0007 A.pd\n", false);
        assertThat(m).contains("\\u001b[2J").doesNotContain("\u001b", "\u0007");
        assertThat(error(HEADER + "wr\u0000ite A.qp\n", false)).contains("'wr\\u0000ite'").doesNotContain("\u0000");
        assertThat(TraceError.printable("a\tb\nc\u202ed")).isEqualTo("a\\tb\\nc\\u202ed");
        String longToken = "x".repeat(100_000);
        assertThat(error(HEADER + longToken + "\n", false)).hasSizeLessThan(500).contains("more characters)");
    }

    @Test
    @Timeout(10)
    void deepExpressionsAreRefusedWithAMessage() {
        String deep = "(".repeat(1000) + "1" + ")".repeat(1000);
        assertThat(error(SETUP + "send A.qp ctx=${" + deep + "}\n", false))
                .startsWith("t.trace:15:15: expression nests deeper than 64 levels");
        assertThat(error(SETUP + "send A.qp ctx=${" + "-".repeat(100_000) + "1}\n", false))
                .contains("nests deeper than 64 levels");
        // A long chain of operators on a variable makes a deep tree (evaluated recursively).
        assertThat(error(SETUP + "repeat 2 as i\n send A.qp ctx=${i" + "+i".repeat(50_000) + "}\nend\n", false))
                .contains("nests deeper than 64 levels");
        // Sixty-four levels are fine, and chains of constants fold.
        assertThat(error(SETUP + "send A.qp ctx=${" + "(".repeat(63) + "1" + ")".repeat(63) + "}\n", false))
                .isEqualTo("no error");
        assertThat(error(SETUP + "send A.qp ctx=${1" + "+1".repeat(10_000) + "}\n", false)).isEqualTo("no error");
    }

    @Test
    @Timeout(10)
    void repeatsThatExpandBeyondTheBoundAreRefusedAtOnce() {
        assertThat(error(SETUP + "repeat 1000000000000000000 as i\n  poll A.cq\nend\n", true))
                .startsWith("t.trace:15:8: this repeat makes the trace longer than 1,000,000,000 lines");
        // Nested: the inner count is literal, so the outer repeat knows its size.
        assertThat(error(SETUP + "repeat 100000 as i\n  repeat 100000 as j\n    poll A.cq\n  end\nend\n", true))
                .startsWith("t.trace:15:8: this repeat makes the trace longer");
        // Iterations that emit nothing count too (a dynamic count of zero).
        assertThat(error(SETUP + "repeat 4000000000 as i\n  repeat ${i*0} as j\n    poll A.cq\n  end\nend\n", true))
                .startsWith("t.trace:15:8: this repeat makes the trace longer");
    }

    @Test
    void relativeTimesThatAddUpPastTheRangeAreRefused() {
        String t = SETUP + "+4611686018427387904ps poll A.cq\n+4611686018427387904ps poll A.cq\n";
        assertThat(error(t, true)).startsWith("t.trace:16:1: this line runs at 2^63 ps or later, past the latest time");
        assertThat(error(SETUP + "@4611686018427387905ps poll A.cq\n", true))
                .startsWith("t.trace:15:1: this line runs at 4611686018427387905 ps or later");
        assertThat(error(SETUP + "repeat 4 as i every=2000000000000000000ps\n  poll A.cq\nend\n", true))
                .startsWith("t.trace:16:3: this line runs at");
        assertThat(error(SETUP + "+4611686018427387904ps poll A.cq\n", true)).isEqualTo("no error");
    }

    @Test
    void offsetsWhoseSumOverflowsAreRefusedWithoutANegativeByte() {
        String m = error(SETUP + "send A.qp ctx=c sge=A.src+9223372036854775807:64\n", true);
        assertThat(m).startsWith("t.trace:15:21: buffer A.src+9223372036854775807:64 ends at byte 2^63 or beyond, past the"
                + " end of 'A.src'").doesNotContain("-9223");
        String r = error(SETUP + "write A.qp ctx=c sge=A.src+0:64 remote=B.dst+9223372036854775807\n", true);
        assertThat(r).contains("ends at byte 2^63 or beyond").doesNotContain("-9223");
    }

    @Test
    void aRunThatWouldNotFitTheHeapIsRefusedUpFront() {
        String big = HEADER + "host A\nhost B\ncq A.cq depth=64\ncq B.cq depth=64\npd A.pd\npd B.pd\n"
                + "mr A.src pd=A.pd size=8GiB access=LOCAL_WRITE fill=pattern:1\n"
                + "mr B.dst pd=B.pd size=8GiB access=LOCAL_WRITE|REMOTE_WRITE\n"
                + "qp A.qp pd=A.pd rcq=A.cq icq=A.cq iq=128 rq=16 isge=2 rsge=1 inline=64\n"
                + "qp B.qp pd=B.pd rcq=B.cq icq=B.cq iq=16 rq=128 isge=1 rsge=1 inline=0\n"
                + "connect A.qp B.qp port=7471\n";
        // One 4 KiB WRITE out of 8 GiB regions: small.
        TraceChecker.check(new StringReader(big + "write A.qp ctx=w sge=A.src+0:4KiB remote=B.dst+0\n"), "t.trace",
                Path.of("."), 256L << 20);
        // Every byte of them written: 16 GiB of pages.
        String all = big + "repeat 8192 as i\n  write A.qp ctx=w sge=A.src+${i*1048576}:1MiB remote=B.dst+${i*1048576}\nend\n";
        assertThatThrownBy(() -> TraceChecker.check(new StringReader(all), "t.trace", Path.of("."), 1L << 30))
                .isInstanceOf(TraceError.class)
                .hasMessageStartingWith("t.trace:8:1: this run would touch about 16 GiB of host memory")
                .hasMessageContaining("more than the Java heap of 1024 MiB");
    }
}
