package dev.rdmasim.traces.format;

import static dev.rdmasim.traces.format.TraceTexts.HEADER;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Repeat expansion at its edges: an every of zero, a nested repeat that emits nothing, variable names, numbers
 * computed at the edge of their range, and structured values with expressions (buffers, remote regions) that are
 * malformed, or whose expressions hold the characters that separate their parts.
 */
class TraceExpansionTest {
    private static List<TraceLine> read(String body) {
        return TraceTexts.read(HEADER + body);
    }

    @Test
    void anEveryOfZeroStartsEveryIterationAtTheRepeatsStart() {
        List<TraceLine> lines = read("repeat 3 as i every=0ns\n  +1ns flush A.q\nend\n");
        assertThat(lines).extracting(TraceLine::time).containsExactly(TimeSpec.relative(1000).settingAnchor(0),
                TimeSpec.anchored(0, 0), TimeSpec.anchored(0, 0));
    }

    @Test
    void aNestedRepeatThatEmitsNothingLeavesTheNextLineAtItsIterationsStart() {
        List<TraceLine> lines = read("repeat 2 as i every=1us\n"
                + "  repeat 1 as j\n"
                + "    repeat ${i*0} as k\n"
                + "      flush A.x\n"
                + "    end\n"
                + "  end\n"
                + "  +2ns flush A.q\n"
                + "end\n");
        assertThat(lines).extracting(TraceLine::time).containsExactly(TimeSpec.relative(2000).settingAnchor(0),
                TimeSpec.anchored(0, 1_000_000));
    }

    @Test
    void aRepeatThatEmittedLinesLeavesTheNextLineAfterItsLast() {
        List<TraceLine> lines = read("repeat 2 as i every=1us\n"
                + "  repeat 1 as j\n"
                + "    +5ns flush A.x\n"
                + "  end\n"
                + "  +2ns flush A.q\n"
                + "end\n");
        assertThat(lines).extracting(TraceLine::time).containsExactly(TimeSpec.relative(5000).settingAnchor(0),
                TimeSpec.relative(2000), TimeSpec.anchored(0, 1_000_000), TimeSpec.relative(2000));
    }

    @Test
    void variableNames() {
        assertThat(read("repeat 1 as _a_1\n  send A.q ctx=${_a_1}\nend\n").get(0).text("ctx")).isEqualTo("0");
        assertThat(read("repeat 1 as Zz9\n  send A.q ctx=${Zz9+1}\nend\n").get(0).text("ctx")).isEqualTo("1");
        assertThat(TraceTexts.error(HEADER + "repeat 1 as a-b\n  flush A.q\nend\n", false))
                .isEqualTo("t.trace:2:13: expected a variable name (a letter or '_', then letters, digits or '_'), got 'a-b'");
        assertThat(TraceTexts.error(HEADER + "repeat 1 as -a\n  flush A.q\nend\n", false))
                .startsWith("t.trace:2:13: expected a variable name");
    }

    @Test
    void aComputedNumberTimesItsUnitIsRefusedPastTheRangeOfALong() {
        long max = Long.MAX_VALUE / 1024;
        assertThat(read("repeat 1 as i\n  mr A.m pd=A.pd size=${i+" + max + "}KiB\nend\n").get(0).size("size"))
                .isEqualTo(max * 1024);
        assertThat(TraceTexts.error(HEADER + "repeat 1 as i\n  mr A.m pd=A.pd size=${i+" + (max + 1) + "}KiB\nend\n", false))
                .isEqualTo("t.trace:3:23: expected a size such as 4KiB, got '" + (max + 1) + "KiB' (too large)");
        assertThat(read("repeat 1 as i\n  moderate A.c interval=${i}ns count=${i+0}\nend\n").get(0).time("interval")).isZero();
        assertThat(TraceTexts.error(HEADER + "repeat 1 as i\n  moderate A.c interval=${i-1}ns count=1\nend\n", false))
                .isEqualTo("t.trace:3:25: expected a time such as 1.5us, got '-1ns'");
    }

    @Test
    void numbersWithTextBeforeOrBetweenExpressionsAreParsedFromTheirText() {
        assertThat(read("repeat 1 as i\n  cq A.c depth=${i+1}${i}\nend\n").get(0).integer("depth")).isEqualTo(10);
        assertThat(read("repeat 1 as i\n  cq A.c depth=1${i}\nend\n").get(0).integer("depth")).isEqualTo(10);
        assertThat(read("repeat 1 as i\n  cq A.c depth=0x${i+1}F\nend\n").get(0).integer("depth")).isEqualTo(0x1F);
        assertThat(TraceTexts.error(HEADER + "repeat 1 as i\n  cq A.c depth=${i}KiB\nend\n", false))
                .isEqualTo("t.trace:3:16: expected an integer such as 128 or 0x5A, got '0KiB'");
        assertThat(TraceTexts.error(HEADER + "repeat 1 as i\n  mr A.m pd=A.pd size=${i}KB\nend\n", false))
                .startsWith("t.trace:3:23: expected a size such as 4KiB, got '0KB'");
    }

    static Stream<Arguments> structured() {
        return Stream.of(
                Arguments.of("send A.qp ctx=c sge=${i}", "3:23: expected a buffer MR+OFFSET:LENGTH such as A.src+0:4KiB, got '${i}'"),
                Arguments.of("send A.qp ctx=c sge=A.s+${i}", "3:23: expected a buffer MR+OFFSET:LENGTH such as A.src+0:4KiB, got 'A.s+${i}'"),
                Arguments.of("send A.qp ctx=c sge=A.s+0:1,A.t:${i}", "3:31: expected a buffer MR+OFFSET:LENGTH such as A.src+0:4KiB, got 'A.t:${i}'"),
                Arguments.of("send A.qp ctx=c sge=A.s+0:${i},x+0:1", "3:34: expected an object name HOST.NAME such as A.cq, got 'x'"),
                Arguments.of("send A.qp ctx=c sge=A.s+${i}:1,A.s+0:${i-1}", "3:40: expected a size such as 4KiB, got '-1'"),
                Arguments.of("send A.qp ctx=c sge=A.s+${i-1}:1", "3:27: expected a size such as 4KiB, got '-1'"),
                Arguments.of("write A.qp ctx=c remote=B.d", "3:27: expected a remote region MR+OFFSET such as B.dst+0, got 'B.d'"),
                Arguments.of("write A.qp ctx=c remote=B.d${i}", "3:27: expected a remote region MR+OFFSET such as B.dst+0, got 'B.d${i}'"),
                Arguments.of("write A.qp ctx=c remote=B.d+${i}:4", "3:27: expected a remote region MR+OFFSET such as B.dst+0, got 'B.d+${i}:4'"),
                Arguments.of("write A.qp ctx=c remote=x+${i}", "3:27: expected an object name HOST.NAME such as A.cq, got 'x'"),
                Arguments.of("write A.qp ctx=c remote=B.${i}+0", "3:27: expected an object name HOST.NAME such as A.cq, got 'B.0'"),
                Arguments.of("write A.qp ctx=c remote=B.d+${i-1}", "3:31: expected a size such as 4KiB, got '-1'"));
    }

    @ParameterizedTest
    @MethodSource("structured")
    void structuredValuesWithExpressions(String line, String expected) {
        assertThat(TraceTexts.error(HEADER + "repeat 1 as i\n  " + line + "\nend\n", false)).isEqualTo("t.trace:" + expected);
    }

    @Test
    void theLiteralPartsOfAValueWithExpressionsAreCheckedWhenTheBodyIsRead() {
        // A repeat of zero iterations expands nothing, yet its body's literal parts are checked.
        assertThat(TraceTexts.error(HEADER + "repeat 0 as i\n  send A.qp ctx=c sge=x+${i}:1\nend\n", false))
                .isEqualTo("t.trace:3:23: expected an object name HOST.NAME such as A.cq, got 'x'");
        assertThat(TraceTexts.error(HEADER + "repeat 0 as i\n  send A.qp ctx=c sge=A.s+1x:${i}\nend\n", false))
                .isEqualTo("t.trace:3:27: expected a size such as 4KiB, got '1x'");
        assertThat(TraceTexts.error(HEADER + "repeat 0 as i\n  send A.qp ctx=c sge=A.s+${i}:1x\nend\n", false))
                .isEqualTo("t.trace:3:32: expected a size such as 4KiB, got '1x'");
        assertThat(TraceTexts.error(HEADER + "repeat 0 as i\n  @1xs flush A.q\nend\n", false))
                .isEqualTo("t.trace:3:4: expected a time such as 1.5us, got '1xs'");
        assertThat(TraceTexts.error(HEADER + "repeat 0 as i\n  write A.qp ctx=c remote=y+${i}\nend\n", false))
                .isEqualTo("t.trace:3:27: expected an object name HOST.NAME such as A.cq, got 'y'");
        assertThat(TraceTexts.error(HEADER + "repeat 0 as i\n  write A.qp ctx=c remote=B.d${i}+1x\nend\n", false))
                .isEqualTo("t.trace:3:35: expected a size such as 4KiB, got '1x'");
    }

    @Test
    void separatorsInsideExpressionsDoNotSplitAValue() {
        TraceLine l = read("repeat 1 as i\n  write A.qp ctx=c sge=A.s+${i+1}:${(i+2)*1},A.t+${3+i}:${i+4} remote=B.d+${i+5}\nend\n")
                .get(0);
        assertThat(l.buffers("sge")).containsExactly(new Buffer("A.s", 1, 2, new Position("t.trace", 3, 24)),
                new Buffer("A.t", 3, 4, new Position("t.trace", 3, 46)));
        assertThat(l.remote("remote")).isEqualTo(new Remote("B.d", 5, new Position("t.trace", 3, 71)));
        TraceLine plus = read("repeat 1 as i\n  write A.qp ctx=c sge=A.s${i+1}+${i+2}:${i+3} remote=B.d${i+4}+${i+5}\nend\n")
                .get(0);
        assertThat(plus.buffers("sge")).containsExactly(new Buffer("A.s1", 2, 3, new Position("t.trace", 3, 24)));
        assertThat(plus.remote("remote")).isEqualTo(new Remote("B.d4", 5, new Position("t.trace", 3, 55)));
        assertThat(TraceTexts.error(HEADER + "repeat 1 as i\n  send A.qp ctx=c sge=A.s}${i+1}+0:1\nend\n", false))
                .isEqualTo("t.trace:3:23: expected an object name HOST.NAME such as A.cq, got 'A.s}1'");
        assertThat(TraceTexts.error(HEADER + "repeat 1 as i\n  send A.qp ctx=c sge=A.s+${i}:1$\nend\n", false))
                .isEqualTo("t.trace:3:32: expected a size such as 4KiB, got '1$'");
        TraceLine one = read("repeat 1 as i\n  send A.qp ctx=c sge=A.s${i}+${i}:1\nend\n").get(0);
        assertThat(one.buffers("sge")).containsExactly(new Buffer("A.s0", 0, 1, new Position("t.trace", 3, 23)));
    }
}
