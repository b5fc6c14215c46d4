package dev.rdmasim.traces.format;

import static dev.rdmasim.traces.format.TraceTexts.HEADER;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The reader's own bounds taken exactly: the billion lines and iterations a trace may expand to (the repeat that
 * reaches it is taken, one more is not), times past the largest picosecond count inside repeats, and the header of a
 * repeat given a key twice or without a value. Only the first lines of a huge repeat are read: it expands lazily.
 */
class TraceReaderBoundsTest {
    /** The first {@code n} lines read (fewer at the end), or the error's message after them. */
    private static List<String> first(String text, int n) {
        List<String> out = new ArrayList<>();
        try (TraceReader r = new TraceReader(new StringReader(HEADER + text), "t.trace")) {
            for (int i = 0; i < n; i++) {
                TraceLine l = r.next();
                if (l == null) {
                    break;
                }
                TimeSpec t = l.time();
                out.add(l.keyword() + " " + l.positional(0) + " " + t.kind() + " " + t.ps() + " " + t.anchor() + " " + t.setAnchor());
            }
        } catch (TraceError e) {
            out.add(e.getMessage());
        }
        return out;
    }

    private static final String TOO_LONG = "this repeat makes the trace longer than 1,000,000,000 lines and iterations, the"
            + " most a trace may expand to (split the run into several traces)";

    @Test
    @Timeout(10)
    void aRepeatThatReachesTheBillionLinesIsTakenAndOneLineMoreIsNot() {
        assertThat(first("repeat 1000000000 as i\n  flush A.q\nend\n", 2)).hasSize(2).allMatch(s -> s.startsWith("flush"));
        assertThat(first("repeat 1000000001 as i\n  flush A.q\nend\n", 2)).containsExactly("t.trace:2:8: " + TOO_LONG);
        // One line before: the repeat may emit one line fewer.
        assertThat(first("flush A.p\nrepeat 999999999 as i\n  flush A.q\nend\n", 3)).hasSize(3)
                .allMatch(s -> s.startsWith("flush"));
        assertThat(first("flush A.p\nrepeat 1000000000 as i\n  flush A.q\nend\n", 3))
                .containsExactly("flush A.p NONE 0 -1 -1", "t.trace:3:8: " + TOO_LONG);
        // Two lines per iteration.
        assertThat(first("repeat 500000000 as i\n  flush A.q\n  flush A.r\nend\n", 2)).hasSize(2);
        assertThat(first("repeat 500000001 as i\n  flush A.q\n  flush A.r\nend\n", 2)).containsExactly("t.trace:2:8: " + TOO_LONG);
    }

    @Test
    @Timeout(10)
    void theLinesAndTheIterationsOfARepeatAreBoundedEachOnItsOwn() {
        // Lines: two per iteration, half a billion iterations, after one line.
        assertThat(first("flush A.p\nrepeat 500000000 as i\n  flush A.q\n  flush A.r\nend\n", 3))
                .containsExactly("flush A.p NONE 0 -1 -1", "t.trace:3:8: " + TOO_LONG);
        // Iterations: a billion that emit no line (the inner count is an expression), after one line.
        assertThat(first("flush A.p\nrepeat 1000000000 as i\n  repeat ${i*0} as j\n    flush A.q\n  end\nend\n", 3))
                .containsExactly("flush A.p NONE 0 -1 -1", "t.trace:3:8: " + TOO_LONG);
        // Two inner repeats that add up to exactly the bound.
        assertThat(first("repeat 1 as i\n  repeat 500000000 as j\n    flush A.q\n  end\n  repeat 500000000 as k\n"
                + "    flush A.r\n  end\nend\n", 2)).hasSize(2).allMatch(s -> s.startsWith("flush A.q"));
    }

    @Test
    @Timeout(10)
    void nestedRepeatsWithLiteralCountsAreWeighedWhole() {
        assertThat(first("repeat 2 as i\n  repeat 500000000 as j\n    flush A.q\n  end\nend\n", 2)).hasSize(2);
        assertThat(first("repeat 2 as i\n  repeat 500000001 as j\n    flush A.q\n  end\nend\n", 2))
                .containsExactly("t.trace:2:8: " + TOO_LONG);
        // A line beside the inner repeat counts once per outer iteration.
        assertThat(first("repeat 2 as i\n  flush A.p\n  repeat 499999999 as j\n    flush A.q\n  end\nend\n", 2)).hasSize(2);
        assertThat(first("repeat 2 as i\n  flush A.p\n  repeat 500000000 as j\n    flush A.q\n  end\nend\n", 2))
                .containsExactly("t.trace:2:8: " + TOO_LONG);
        // Two inner repeats of a billion lines each: the sum stays above the bound, never wraps.
        String huge = "  repeat 1000000000000000000 as j\n    flush A.q\n  end\n";
        assertThat(first("repeat 1 as i\n" + huge + huge.replace(" j\n", " k\n") + "end\n", 1))
                .containsExactly("t.trace:2:8: " + TOO_LONG);
        // A count made by an expression weighs nothing in advance: the inner repeat is refused when it starts.
        assertThat(first("repeat 3 as i\n  repeat ${i+1000000000} as j\n    flush A.q\n  end\nend\n", 2))
                .containsExactly("t.trace:3:10: " + TOO_LONG);
    }

    @Test
    @Timeout(10)
    void anInnerRepeatOfSeveralLinesWeighsItsCountTimesItsLines() {
        String three = "    flush A.q\n    flush A.r\n    flush A.s\n";
        // 333333333 iterations of three lines: 999999999 lines, one below the bound.
        assertThat(first("repeat 1 as i\n  repeat 333333333 as j\n" + three + "  end\nend\n", 1)).hasSize(1)
                .allMatch(x -> x.startsWith("flush A.q"));
        assertThat(first("repeat 2 as i\n  repeat 250000000 as j\n    flush A.q\n    flush A.r\n  end\nend\n", 1))
                .hasSize(1).allMatch(x -> x.startsWith("flush A.q"));
        assertThat(first("repeat 2 as i\n  repeat 250000001 as j\n    flush A.q\n    flush A.r\n  end\nend\n", 1))
                .containsExactly("t.trace:2:8: " + TOO_LONG);
        // 10^18 iterations of ten lines: the weight saturates instead of wrapping, and the outer repeat is refused.
        assertThat(first("repeat 1 as i\n  repeat 1000000000000000000 as j\n" + "    flush A.q\n".repeat(10) + "  end\nend\n", 1))
                .containsExactly("t.trace:2:8: " + TOO_LONG);
        // An inner repeat whose body's count is an expression weighs nothing in advance.
        assertThat(first("repeat 2 as i\n  repeat 3 as j\n    repeat ${i} as k\n      flush A.q\n    end\n  end\nend\n", 9))
                .hasSize(3);
    }

    @Test
    void anIterationThatWouldStartPastTheLargestTimeIsAnErrorAtEvery() {
        String t = "repeat 3 as i every=4611686018427387904ps\n  flush A.q\nend\n";
        assertThat(first(t, 3)).containsExactly("flush A.q NONE 0 -1 0", "flush A.q ANCHORED 4611686018427387904 0 -1",
                "t.trace:2:21: iteration 2 of this repeat starts beyond the largest time");
    }

    @Test
    void aLineWhoseTimeWouldPassTheLargestTimeIsAnErrorAtItsTime() {
        String t = "repeat 2 as i every=4611686018427387904ps\n  flush A.q\n  @9223372036854775799ps flush A.r\nend\n";
        assertThat(first(t, 4)).containsExactly("flush A.q NONE 0 -1 0", "flush A.r ANCHORED 9223372036854775799 0 -1",
                "flush A.q ANCHORED 4611686018427387904 0 -1",
                "t.trace:4:4: this line's time is beyond the largest time");
    }

    @Test
    void everyTwiceOrWithoutAValueIsRefused() {
        assertThat(TraceTexts.error(HEADER + "repeat 2 as i every=1us every=2us\n  flush A.q\nend\n", false))
                .isEqualTo("t.trace:2:25: key 'every' is given twice");
        assertThat(TraceTexts.error(HEADER + "repeat 2 as i EVERY=\n  flush A.q\nend\n", false))
                .isEqualTo("t.trace:2:21: expected a value after 'EVERY='");
        assertThat(TraceTexts.error(HEADER + "repeat 2 AS i Every=1us\n  flush A.q\nEND\n", false)).isEqualTo("no error");
    }
}
