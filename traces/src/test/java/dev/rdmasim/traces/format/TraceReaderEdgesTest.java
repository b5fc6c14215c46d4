package dev.rdmasim.traces.format;

import static dev.rdmasim.traces.format.TraceTexts.HEADER;
import static dev.rdmasim.traces.format.TraceTexts.SETUP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The reader at its edges: columns in characters at the very end of a line, input that fails to read or close,
 * blank lines and comments inside a repeat body, a variable reused two repeats out, and the first pass's cache of
 * names in a repeat body that closes and declares an object again.
 */
class TraceReaderEdgesTest {
    @Test
    void aColumnJustPastTheEndOfALineWithWideCharactersCountsCharacters() {
        // "cq A.c<emoji> depth=": 14 characters (15 UTF-16 units); the missing value is at column 15.
        assertThat(TraceTexts.error(HEADER + "cq A.c\uD83D\uDE00 depth=\n", false))
                .isEqualTo("t.trace:2:15: expected a value after 'depth='");
        assertThat(TraceTexts.error(HEADER + "send A.qp ctx=\uD83D\uDE00${1\n", false))
                .isEqualTo("t.trace:2:16: unterminated '${' (expected '}')");
        assertThat(TraceTexts.error(HEADER + "send A.qp ctx=x\uD83D\uDE00 bad=1\n", false))
                .startsWith("t.trace:2:18: unknown key 'bad' for send");
        // Without wide characters the columns are the units'.
        assertThat(TraceTexts.error(HEADER + "send A.qp ctx=x\u00e9 bad=1\n", false))
                .startsWith("t.trace:2:18: unknown key 'bad' for send");
    }

    @Test
    void anEqualsSignInsideAnExpressionDoesNotMakeAKey() {
        assertThat(TraceTexts.error(HEADER + "flush A.q${1=1}\n", false)).isEqualTo("t.trace:2:10: unexpected '=' in ${1=1}");
        assertThat(TraceTexts.error(HEADER + "flush A}${1=1}\n", false)).isEqualTo("t.trace:2:9: unexpected '=' in ${1=1}");
        assertThat(TraceTexts.error(HEADER + "flush A.q$\n", false))
                .isEqualTo("t.trace:2:7: expected an object name HOST.NAME such as A.cq, got 'A.q$'");
    }

    @Test
    void theColumnsOfKeysAndBuffersAfterAWideCharacterCountCharactersInEveryIteration() {
        assertThat(TraceTexts.error(SETUP + "wait A.cq ctx=\uD83D\uDE00 count=1\n", true))
                .isEqualTo("t.trace:15:23: wait takes ctx= or count=, not both");
        // The buffer is literal: every iteration shares it, and its column is converted once.
        assertThat(TraceTexts.error(SETUP + "repeat 2 as i\n  send A.qp ctx=\uD83D\uDE00 sge=A.src+0:1\n  close A.src\nend\n",
                true)).isEqualTo("t.trace:16:23: 'A.src' is closed (at t.trace:17:3)");
    }

    @Test
    void codePointColumns() {
        String s = "a\uD83D\uDE00b";
        assertThat(TraceReader.codePointColumn(s, 1)).isEqualTo(1);
        assertThat(TraceReader.codePointColumn(s, 2)).isEqualTo(2);
        assertThat(TraceReader.codePointColumn(s, 4)).isEqualTo(3);
        assertThat(TraceReader.codePointColumn(s, 5)).isEqualTo(4);
        assertThat(TraceReader.codePointColumn(s, 9)).isEqualTo(4);
        assertThat(TraceReader.codePointColumn(s, 0)).isEqualTo(1);
    }

    @Test
    void inputThatCannotBeReadOrClosedIsAnUncheckedErrorNamingTheFile() {
        Reader broken = new Reader() {
            @Override
            public int read(char[] buf, int off, int len) throws IOException {
                throw new IOException("disk gone");
            }

            @Override
            public void close() throws IOException {
                throw new IOException("cannot close");
            }
        };
        TraceReader r = new TraceReader(broken, "t.trace");
        assertThatThrownBy(r::next).isInstanceOf(UncheckedIOException.class).hasMessage("t.trace: cannot read: disk gone")
                .hasCauseInstanceOf(IOException.class);
        assertThatThrownBy(r::close).isInstanceOf(UncheckedIOException.class).hasRootCauseMessage("cannot close");
    }

    @Test
    void blankLinesAndCommentsInsideARepeatBodyAreSkipped() {
        List<TraceLine> lines = TraceTexts.read(HEADER + "repeat 2 as i\n\n  # a comment\n   \n  send A.q ctx=${i}\n\nend\n");
        assertThat(lines).extracting(l -> l.text("ctx")).containsExactly("0", "1");
        assertThat(lines.get(1).position()).isEqualTo(new Position("t.trace", 6, 3));
    }

    @Test
    void aVariableOfARepeatTwoLevelsOutIsNotReused() {
        assertThat(TraceTexts.error(HEADER + "repeat 1 as i\n repeat 1 as j\n  repeat 1 as i\n   flush A.q\n  end\n end\nend\n",
                false)).isEqualTo("t.trace:4:15: variable 'i' is already used by an enclosing repeat");
        // A sibling's variable may be used again.
        assertThat(TraceTexts.read(HEADER + "repeat 1 as i\n repeat 1 as j\n  flush A.q\n end\n repeat 2 as j\n"
                + "  send A.q ctx=${i}${j}\n end\nend\n")).extracting(TraceLine::keyword).containsExactly("flush", "send", "send");
    }

    @Test
    void aRepeatBodyThatClosesAndDeclaresAnObjectAgainFindsTheNewOneEachIteration() {
        // The close line names the same text each iteration; the region it finds is the one declared last.
        assertThat(TraceTexts.error(SETUP + "repeat 3 as i\n  close A.cq\n  cq A.cq depth=4\nend\n", true))
                .isEqualTo("no error");
        assertThat(TraceTexts.error(SETUP + "repeat 3 as i\n  close A.cq\n  cq A.cq depth=4\n  poll A.cq\nend\n", true))
                .isEqualTo("no error");
        assertThat(TraceTexts.error(SETUP + "repeat 2 as i\n  close A.cq\nend\n", true))
                .isEqualTo("t.trace:16:9: 'A.cq' is closed (at t.trace:16:3)");
    }
}
