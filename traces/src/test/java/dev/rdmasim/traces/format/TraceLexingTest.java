package dev.rdmasim.traces.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringReader;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * How a line splits into tokens: at spaces and tabs, a comment starting right after a token, a '$' at the end of a
 * token that opens no expression, '=' inside an expression that is not the key's, and lines of many tokens; closing
 * the reader closes the file it reads.
 */
class TraceLexingTest {
    private static TraceLine only(String line) {
        List<TraceLine> lines = TraceTexts.read(TraceTexts.HEADER + line + "\n");
        assertThat(lines).hasSize(1);
        return lines.get(0);
    }

    @Test
    void aCommentMayFollowATokenWithoutASpaceAndTabsSeparateLikeSpaces() {
        TraceLine l = only("send\tA.qp\tctx=a#flags=INLINE");
        assertThat(l.text("ctx")).isEqualTo("a");
        assertThat(l.callFlags("flags")).isZero();
        TraceLine m = only("send A.qp ctx=b\tflags=INLINE ");
        assertThat(m.text("ctx")).isEqualTo("b");
        assertThat(m.position("flags")).isEqualTo(new Position("t.trace", 2, 23));
    }

    @ParameterizedTest
    @CsvSource({"a$, a$", "a$b, a$b", "$, $"})
    void aDollarThatOpensNoExpressionIsText(String ctx, String expected) {
        assertThat(only("send A.qp ctx=" + ctx).text("ctx")).isEqualTo(expected);
    }

    @Test
    void anUnterminatedExpressionIsReportedWhereItStarts() {
        assertThat(TraceTexts.error(TraceTexts.HEADER + "send A.qp ctx=${1\n", false))
                .isEqualTo("t.trace:2:15: unterminated '${' (expected '}')");
    }

    @Test
    void aLineOfManyTokensKeepsEveryOne() {
        // Forty keys: all are read, and the first unknown one (the 41st token) is the one reported.
        StringBuilder line = new StringBuilder("send A.qp ctx=c");
        for (int i = 0; i < 40; i++) {
            line.append(" k").append(i).append("=1");
        }
        assertThat(TraceTexts.error(TraceTexts.HEADER + line + "\n", false)).startsWith("t.trace:2:17: unknown key 'k0' for send");
        StringBuilder ok = new StringBuilder("send A.qp");
        for (int i = 0; i < 20; i++) {
            ok.append("   ");
        }
        ok.append("ctx=c flags=INLINE");
        assertThat(only(ok.toString()).callFlags("flags")).isEqualTo(dev.rdmasim.ndk.NdkOpFlags.NDK_OP_FLAG_INLINE);
        StringBuilder many = new StringBuilder("send A.qp ctx=c");
        for (int i = 0; i < 40; i++) {
            many.append(" flags=INLINE");
        }
        assertThat(TraceTexts.error(TraceTexts.HEADER + many + "\n", false)).startsWith("t.trace:2:30: key 'flags' is given twice");
    }

    @Test
    void closingTheReaderClosesTheFile() {
        boolean[] closed = {false};
        StringReader text = new StringReader(TraceTexts.HEADER) {
            @Override
            public void close() {
                closed[0] = true;
                super.close();
            }
        };
        TraceReader r = new TraceReader(text, "t.trace");
        assertThat(r.fileName()).isEqualTo("t.trace");
        assertThat(r.next()).isNull();
        r.close();
        assertThat(closed[0]).isTrue();
    }
}
