package dev.rdmasim.traces.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every syntax error the reader reports: input after the header line -> exact "file:line:col: message". */
class TraceSyntaxErrorTest {
    private static final String KEYWORDS = "host, cq, pd, mr, qp, connect, send, receive, write, read, flush, arm, poll, "
            + "wait, moderate, resize, disconnect, close, check, dump, repeat, end";
    private static final String CALL_FLAGS = "SILENT_SUCCESS, READ_FENCE, SEND_AND_SOLICIT_EVENT, INLINE, "
            + "RDMA_READ_LOCAL_INVALIDATE, DEFER";

    static Stream<Arguments> headerErrors() {
        return Stream.of(
                Arguments.of("", "t.trace:1:1: expected the header 'rdmasim-trace 1'"),
                Arguments.of("# only a comment\n\n", "t.trace:1:1: expected the header 'rdmasim-trace 1'"),
                Arguments.of("# comment\n  host A\n", "t.trace:2:3: expected the header 'rdmasim-trace 1'"),
                Arguments.of("rdmasim-trace\n", "t.trace:1:14: expected the header 'rdmasim-trace 1'"),
                Arguments.of("rdmasim-trace 2\n", "t.trace:1:15: unsupported trace format version '2' (this reader reads version 1)"),
                Arguments.of("rdmasim-trace 1 x\n", "t.trace:1:17: unexpected 'x' after the header 'rdmasim-trace 1'"));
    }

    @ParameterizedTest
    @MethodSource("headerErrors")
    void header(String text, String expected) {
        assertThat(TraceTexts.error(text, false)).isEqualTo(expected);
    }

    static Stream<Arguments> lineErrors() {
        return Stream.of(
                // keywords, positionals, keys
                Arguments.of("hots A", "2:1: unknown keyword 'hots' (expected one of " + KEYWORDS + "); did you mean 'host'?"),
                Arguments.of("frobnicate A.x", "2:1: unknown keyword 'frobnicate' (expected one of " + KEYWORDS + ")"),
                Arguments.of("cq A.cq depth=64 dpth=3", "2:18: unknown key 'dpth' for cq (expected depth, poll, expect); did you mean 'depth'?"),
                Arguments.of("pd A.pd x=1", "2:9: unknown key 'x' for pd (pd takes no keys)"),
                Arguments.of("cq A.cq depth=1 DEPTH=2", "2:17: key 'depth' is given twice"),
                Arguments.of("cq A.cq", "2:1: missing required key 'depth' for cq"),
                Arguments.of("cq depth=4", "2:1: missing NAME (cq takes NAME and then key=value pairs)"),
                Arguments.of("connect A.qp port=1", "2:1: missing PEER_QP (connect takes QP PEER_QP and then key=value pairs)"),
                Arguments.of("cq A.cq A.x depth=4", "2:9: unexpected argument 'A.x' (cq takes NAME and then key=value pairs)"),
                Arguments.of("flush A.qp\tA.x", "2:12: unexpected argument 'A.x' (flush takes QP)"),
                Arguments.of("cq depth=4 A.cq", "2:12: positional argument 'A.cq' after key=value pairs (positional arguments come first)"),
                Arguments.of("cq A.cq =4", "2:9: expected key=value, got '=4'"),
                Arguments.of("cq A.cq depth=", "2:15: expected a value after 'depth='"),
                Arguments.of("cq A.cq d${1}=4", "2:9: a key cannot be an expression: 'd${1}=4'"),
                // times
                Arguments.of("@1us cq A.cq depth=4", "2:1: cq is a declaration and takes no time (only calls start with @T or +D)"),
                Arguments.of("@1us", "2:1: expected a keyword after the time '@1us'"),
                Arguments.of("@1.5xs flush A.qp", "2:2: expected a time such as 1.5us, got '1.5xs'"),
                Arguments.of("+100 flush A.qp", "2:2: expected a time such as 1.5us, got '100' (a time needs a unit: ps, ns, us, ms or s)"),
                Arguments.of("@1.0005ps flush A.qp", "2:2: time '1.0005ps' is not a whole number of picoseconds"),
                Arguments.of("@ns flush A.qp", "2:2: expected a time such as 1.5us, got 'ns'"),
                // values
                Arguments.of("cq A.cq depth=4KB7", "2:15: expected an integer such as 128 or 0x5A, got '4KB7'"),
                Arguments.of("cq A.cq depth=99999999999999999999", "2:15: expected an integer such as 128 or 0x5A, got '99999999999999999999' (too large)"),
                Arguments.of("mr A.m pd=A.pd size=4KB7", "2:21: expected a size such as 4KiB, got '4KB7'"),
                Arguments.of("mr A.m pd=A.pd size=9EiB", "2:21: expected a size such as 4KiB, got '9EiB' (too large)"),
                Arguments.of("mr A.m pd=A.pd size=9ZiB", "2:21: expected a size such as 4KiB, got '9ZiB'"),
                Arguments.of("mr A.m pd=A.pd size=16777216TiB", "2:21: expected a size such as 4KiB, got '16777216TiB' (too large)"),
                Arguments.of("send A.qp ctx=c flags=SILENT_SUCCESS|INLNE", "2:38: unknown flag 'INLNE' (expected " + CALL_FLAGS + "); did you mean 'INLINE'?"),
                Arguments.of("send A.qp ctx=c flags=SILENT", "2:23: unknown flag 'SILENT' (expected " + CALL_FLAGS + ")"),
                Arguments.of("send A.qp ctx=c flags=INLINE|", "2:30: expected a flag name before or after '|' in 'INLINE|'"),
                Arguments.of("mr A.m pd=A.pd size=1 access=REMOTE_WRTE", "2:30: unknown access flag 'REMOTE_WRTE' (expected LOCAL_WRITE, REMOTE_READ, REMOTE_WRITE, RDMA_READ_SINK); did you mean 'REMOTE_WRITE'?"),
                Arguments.of("arm A.cq SOLICITD", "2:10: unknown notification type 'SOLICITD' (expected ANY, SOLICITED, ERRORS); did you mean 'SOLICITED'?"),
                Arguments.of("cq A.cq depth=4 poll=sometimes", "2:22: expected poll=auto or poll=manual, got 'sometimes'"),
                Arguments.of("send A.qp ctx=c sge=A.src+0:4KiB,A.src", "2:34: expected a buffer MR+OFFSET:LENGTH such as A.src+0:4KiB, got 'A.src'"),
                Arguments.of("send A.qp ctx=c sge=A.src+0:4KB7", "2:29: expected a size such as 4KiB, got '4KB7'"),
                Arguments.of("send A.qp ctx=c sge=src+0:4", "2:21: expected an object name HOST.NAME such as A.cq, got 'src'"),
                Arguments.of("write A.qp ctx=c remote=B.dst", "2:25: expected a remote region MR+OFFSET such as B.dst+0, got 'B.dst'"),
                Arguments.of("write A.qp ctx=c remote=B.dst+x", "2:31: expected a size such as 4KiB, got 'x'"),
                Arguments.of("connect A.qp B.qp port=1 data=abc", "2:31: expected bytes as an even number of hexadecimal digits such as 68656c6c6f, got 'abc' (3 digits)"),
                Arguments.of("connect A.qp B.qp port=1 data=zz", "2:31: expected bytes as hexadecimal digits such as 68656c6c6f, got 'zz'"),
                Arguments.of("mr A.m pd=A.pd size=1 fill=byte:300", "2:33: fill byte 300 is not a byte (0 to 255)"),
                Arguments.of("mr A.m pd=A.pd size=1 fill=random", "2:28: expected a fill zero, byte:V or pattern:SEED, got 'random'"),
                Arguments.of("host A set=pcie.mps=512,pcie.mps", "2:25: expected profile settings KEY=VALUE,... such as pcie.mps=512, got 'pcie.mps'"),
                Arguments.of("host A set=a=1,a=2", "2:16: profile setting 'a' is given twice"),
                Arguments.of("cq cq1 depth=4", "2:4: expected an object name HOST.NAME such as A.cq, got 'cq1'"),
                Arguments.of("cq A.1cq depth=4", "2:4: expected an object name HOST.NAME such as A.cq, got 'A.1cq'"),
                Arguments.of("host A.b", "2:6: expected a host name such as A (letters, digits, '_' and '-'), got 'A.b'"),
                // repeats
                Arguments.of("repeat 3 as i\nend", "2:1: repeat has an empty body (expected lines before its 'end')"),
                Arguments.of("repeat 3 as i\n  flush A.qp\n", "2:1: repeat without a matching 'end'"),
                Arguments.of("repeat 3 as i\n  repeat 2 as j\n    flush A.qp\n  end\n", "2:1: repeat without a matching 'end'"),
                Arguments.of("flush A.qp\nend", "3:1: 'end' without a matching 'repeat'"),
                Arguments.of("repeat 1 as i\n  flush A.qp\nend x", "4:5: unexpected 'x' after 'end'"),
                Arguments.of("repeat 1 as i\n  flush A.qp\n@1us end", "4:1: end takes no time"),
                Arguments.of("@1us repeat 2 as i", "2:1: repeat takes no time (a time goes on a line of its body)"),
                Arguments.of("repeat", "2:1: expected 'repeat N as VAR [every=T]'"),
                Arguments.of("repeat as i", "2:8: expected a repeat count before 'as'"),
                Arguments.of("repeat 3", "2:9: expected 'as' after the repeat count"),
                Arguments.of("repeat 3 i", "2:10: expected 'as' after the repeat count, got 'i'"),
                Arguments.of("repeat 3 as", "2:12: expected a variable name after 'as'"),
                Arguments.of("repeat 3 as 1i", "2:13: expected a variable name (a letter or '_', then letters, digits or '_'), got '1i'"),
                Arguments.of("repeat 2 as i 5", "2:15: unexpected '5' (expected 'repeat N as VAR [every=T]')"),
                Arguments.of("repeat 2 as i evry=1us", "2:15: unknown key 'evry' for repeat (expected every); did you mean 'every'?"),
                Arguments.of("repeat 2 as i every=1xs", "2:21: expected a time such as 1.5us, got '1xs'"),
                Arguments.of("repeat -1 as i\n  flush A.qp\nend", "2:8: expected an integer such as 128 or 0x5A, got '-1'"),
                Arguments.of("repeat ${0-1} as i\n  flush A.qp\nend", "2:8: expected an integer such as 128 or 0x5A, got '-1'"),
                Arguments.of("repeat 2 as i\n  repeat 2 as i\n    flush A.qp\n  end\nend", "3:15: variable 'i' is already used by an enclosing repeat"),
                Arguments.of("repeat 2 as i\n  bogus A.qp\nend", "3:3: unknown keyword 'bogus' (expected one of " + KEYWORDS + ")"),
                // expressions
                Arguments.of("flush A.q${i}", "2:10: unknown variable 'i' in ${i} (no repeat encloses this line)"),
                Arguments.of("repeat 3 as i\n  flush A.${j}\nend", "3:11: unknown variable 'j' in ${j} (variables here: i)"),
                Arguments.of("repeat 3 as i\n  flush A.q${4/(i-1)}\nend", "3:12: division by zero in ${4/(i-1)}"),
                Arguments.of("flush A.q${1/0}", "2:10: division by zero in ${1/0}"),
                Arguments.of("repeat 2 as i\n  flush A.q${i%0}\nend", "3:12: division by zero in ${i%0}"),
                Arguments.of("flush A.q${1+}", "2:10: expected a number, a variable or '(' at the end of ${1+}"),
                Arguments.of("flush A.q${(1}", "2:10: expected ')' in ${(1}"),
                Arguments.of("flush A.q${1 $ 2}", "2:10: unexpected '$' in ${1 $ 2}"),
                Arguments.of("flush A.q${1 2}", "2:10: unexpected '2' in ${1 2}"),
                Arguments.of("flush A.q${12ab}", "2:10: expected a number such as 64 or 0x40 in ${12ab}, got '12ab'"),
                Arguments.of("flush A.q${}", "2:10: empty expression ${}"),
                Arguments.of("flush A.q${1", "2:10: unterminated '${' (expected '}')"),
                Arguments.of("flush A.q${9223372036854775807+1}", "2:10: integer overflow in ${9223372036854775807+1}"),
                Arguments.of("repeat 2 as i\n  flush A.q${9223372036854775807+i}\nend", "3:12: integer overflow in ${9223372036854775807+i}"),
                Arguments.of("repeat 2 as i\n  cq A.c${i} depth=${i-1}\nend", "3:20: expected an integer such as 128 or 0x5A, got '-1'"),
                Arguments.of("repeat 2 as i\n  @${i-1}us flush A.qp\nend", "3:4: expected a time such as 1.5us, got '-1us'"),
                Arguments.of("repeat 2 as i\n  send A.qp ctx=c sge=A.src+${i-1}:4\nend", "3:29: expected a size such as 4KiB, got '-1'"),
                Arguments.of("repeat 2 as i\n  send A.qp ctx=c sge=A.s${i}+0:4,A.${i}x+0:4\nend", "3:35: expected an object name HOST.NAME such as A.cq, got 'A.0x'"),
                Arguments.of("repeat 2 as i\n  send A.qp ctx=c flags=${i}\nend", "3:25: unknown flag '0' (expected " + CALL_FLAGS + ")"));
    }

    @ParameterizedTest
    @MethodSource("lineErrors")
    void line(String snippet, String expected) {
        assertThat(TraceTexts.error(TraceTexts.HEADER + snippet + "\n", false)).isEqualTo("t.trace:" + expected);
    }

    @org.junit.jupiter.api.Test
    void repeatsNestAtMostSixtyFourDeep() {
        StringBuilder b = new StringBuilder(TraceTexts.HEADER);
        for (int d = 0; d <= TimeSpec.MAX_ANCHORS; d++) {
            b.append("repeat 1 as v").append(d).append('\n');
        }
        assertThat(TraceTexts.error(b.toString(), false)).isEqualTo("t.trace:66:1: repeats nest at most 64 deep");
    }
}
