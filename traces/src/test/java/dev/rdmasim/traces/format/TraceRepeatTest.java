package dev.rdmasim.traces.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Repeat expansion: variables, expressions, nesting, and the times their TimeSpecs resolve to. */
class TraceRepeatTest {
    private static final long NS = 1000;
    private static final long US = 1000 * NS;
    private static final long MS = 1000 * US;

    /**
     * Resolves the lines' times as a replayer whose lines each finish at their start would: NONE at
     * the previous line's time, RELATIVE after it, ANCHORED after an anchor, then setAnchor.
     */
    private static long[] resolve(List<TraceLine> lines) {
        long[] anchors = new long[TimeSpec.MAX_ANCHORS];
        java.util.Arrays.fill(anchors, Long.MIN_VALUE);
        long[] times = new long[lines.size()];
        long previous = 0;
        for (int i = 0; i < times.length; i++) {
            TimeSpec t = lines.get(i).time();
            long at = switch (t.kind()) {
                case NONE -> previous;
                case ABSOLUTE -> t.ps();
                case RELATIVE -> previous + t.ps();
                case ANCHORED -> {
                    assertThat(anchors[t.anchor()]).as("anchor %d set before line %d", t.anchor(), i)
                            .isNotEqualTo(Long.MIN_VALUE);
                    yield anchors[t.anchor()] + t.ps();
                }
            };
            if (t.setAnchor() >= 0) {
                anchors[t.setAnchor()] = at;
            }
            times[i] = at;
            previous = at;
        }
        return times;
    }

    private static List<TraceLine> read(String body) {
        return TraceTexts.read(TraceTexts.HEADER + body);
    }

    private static List<String> contexts(List<TraceLine> lines) {
        List<String> ctx = new ArrayList<>();
        for (TraceLine l : lines) {
            ctx.add(l.text("ctx"));
        }
        return ctx;
    }

    @Test
    void topLevelTimes() {
        List<TraceLine> lines = read("@1us flush A.q\n+2ns flush A.q\nflush A.q\n@5us flush A.q\n");
        assertThat(lines).extracting(TraceLine::time).containsExactly(TimeSpec.absolute(US), TimeSpec.relative(2 * NS),
                TimeSpec.NONE, TimeSpec.absolute(5 * US));
        assertThat(resolve(lines)).containsExactly(US, US + 2 * NS, US + 2 * NS, 5 * US);
    }

    @Test
    void theTimeSpecJavadocExample() {
        List<TraceLine> lines = read("repeat 3 as i every=1us\n  @5ns flush A.q\n  +1ns flush A.q\nend\n");
        assertThat(lines).extracting(TraceLine::time).containsExactly(
                TimeSpec.relative(5 * NS).settingAnchor(0), TimeSpec.relative(NS),
                TimeSpec.anchored(0, US), TimeSpec.relative(NS),
                TimeSpec.anchored(0, 2 * US), TimeSpec.relative(NS));
    }

    @Test
    void everySpacesIterationStartsAndAtIsRelativeToTheIteration() {
        List<TraceLine> lines = read("@10us flush A.q\n"
                + "repeat 3 as i every=1us\n"
                + "  @5ns flush A.q\n"
                + "  +1ns flush A.q\n"
                + "  @100ns flush A.q\n"
                + "end\n");
        long[] expected = new long[10];
        expected[0] = 10 * US;
        for (int k = 0; k < 3; k++) {
            long start = 10 * US + k * US;
            expected[1 + 3 * k] = start + 5 * NS;
            expected[2 + 3 * k] = start + 6 * NS;
            expected[3 + 3 * k] = start + 100 * NS;
        }
        assertThat(resolve(lines)).containsExactly(expected);
    }

    @Test
    void withoutEveryAnIterationStartsAfterThePreviousOne() {
        List<TraceLine> lines = read("@10us flush A.q\n"
                + "repeat 3 as i\n"
                + "  +5ns flush A.q\n"
                + "  @20ns flush A.q\n"
                + "end\n"
                + "flush A.q\n");
        long start = 10 * US;
        long[] expected = new long[8];
        expected[0] = start;
        for (int k = 0; k < 3; k++) {
            expected[1 + 2 * k] = start + 5 * NS;
            expected[2 + 2 * k] = start + 20 * NS;
            start += 20 * NS;
        }
        expected[7] = expected[6];
        assertThat(resolve(lines)).containsExactly(expected);
    }

    @Test
    void linesWithoutTimeStartAtTheirIterationsStart() {
        List<TraceLine> lines = read("repeat 2 as i every=1us\n  flush A.q\n  flush A.q\nend\n");
        assertThat(lines).extracting(TraceLine::time).containsExactly(TimeSpec.NONE.settingAnchor(0), TimeSpec.NONE,
                TimeSpec.anchored(0, US), TimeSpec.NONE);
    }

    @Test
    void nestedRepeatsWithEvery() {
        List<TraceLine> lines = read("@2us flush A.q\n"
                + "repeat 2 as i every=1ms\n"
                + "  repeat 3 as j every=10us\n"
                + "    @1ns send A.qp ctx=${i}.${j}\n"
                + "  end\n"
                + "  +7ns send A.qp ctx=after${i}\n"
                + "end\n");
        assertThat(contexts(lines.subList(1, lines.size())))
                .containsExactly("0.0", "0.1", "0.2", "after0", "1.0", "1.1", "1.2", "after1");
        long[] times = resolve(lines);
        List<Long> expected = new ArrayList<>(List.of(2 * US));
        for (int i = 0; i < 2; i++) {
            long outer = 2 * US + i * MS;
            for (int j = 0; j < 3; j++) {
                expected.add(outer + j * 10 * US + NS);
            }
            expected.add(outer + 20 * US + NS + 7 * NS);
        }
        assertThat(times).containsExactly(expected.stream().mapToLong(Long::longValue).toArray());
    }

    @Test
    void iterationsThatEmitNothingKeepTheirPlace() {
        List<TraceLine> lines = read("@1us flush A.q\n"
                + "repeat 3 as i every=1us\n"
                + "  repeat ${i%2} as j\n"
                + "    @3ns send A.qp ctx=c${i}\n"
                + "  end\n"
                + "end\n"
                + "+1ns flush A.q\n");
        assertThat(lines).hasSize(3);
        assertThat(lines.get(1).text("ctx")).isEqualTo("c1");
        assertThat(resolve(lines)).containsExactly(US, 2 * US + 3 * NS, 2 * US + 4 * NS);
    }

    @Test
    void aRepeatOfZeroLeavesTheTimeAlone() {
        List<TraceLine> lines = read("@1us flush A.q\nrepeat 0 as i every=1ms\n  @5ns flush A.x\nend\n+1ns flush A.q\n");
        assertThat(lines).extracting(l -> l.positional(0)).containsExactly("A.q", "A.q");
        assertThat(resolve(lines)).containsExactly(US, US + NS);
    }

    @Test
    void anchorsOfInnerRepeatsWithoutEvery() {
        // The inner repeat has no every: each inner iteration starts after the previous; @T is from
        // the inner iteration's start, and the outer every still places the outer iterations.
        List<TraceLine> lines = read("repeat 2 as i every=1us\n"
                + "  +10ns flush A.q\n"
                + "  repeat 2 as j\n"
                + "    +3ns flush A.q\n"
                + "    @50ns flush A.q\n"
                + "  end\n"
                + "  @500ns flush A.q\n"
                + "end\n");
        long[] expected = new long[12];
        int n = 0;
        for (int i = 0; i < 2; i++) {
            long outer = i * US;
            expected[n++] = outer + 10 * NS;
            long inner = outer + 10 * NS;
            for (int j = 0; j < 2; j++) {
                expected[n++] = inner + 3 * NS;
                expected[n++] = inner + 50 * NS;
                inner += 50 * NS;
            }
            expected[n++] = outer + 500 * NS;
        }
        assertThat(resolve(lines)).containsExactly(expected);
    }

    @Test
    void expressionsFollowArithmeticPrecedence() {
        List<TraceLine> lines = read("send A.qp ctx=${2+3*4}/${(2+3)*4}/${7/2}/${-7/2}/${-7%4}/${7%-4}/${0x10*2}/${--3}/${+4}\n"
                + "repeat 3 as i\n"
                + "  repeat ${i} as j\n"
                + "    send A.qp ctx=${ i * 10 + j }:${-i-1}:${(i+j)%2}:${i/2}:${i*i*i}\n"
                + "  end\n"
                + "end\n");
        assertThat(contexts(lines)).containsExactly("14/20/3/-3/-3/3/32/3/4",
                "10:-2:1:0:1",
                "20:-3:0:1:8", "21:-3:1:1:8");
    }

    @Test
    void countAndEveryMayUseOuterVariables() {
        List<TraceLine> lines = read("repeat 3 as i\n"
                + "  repeat ${i+1} as j every=${i*2+1}ns\n"
                + "    @0ns send A.qp ctx=${i}${j}\n"
                + "  end\n"
                + "end\n");
        assertThat(contexts(lines)).containsExactly("00", "10", "11", "20", "21", "22");
        long[] t = resolve(lines);
        // Inner iterations are every (2i+1) ns apart; each outer iteration starts after the previous one's last line.
        assertThat(t).containsExactly(0, 0, 3 * NS, 3 * NS, 8 * NS, 13 * NS);
    }

    @Test
    void aRepeatBodyIsReadOnceAndExpandedLazily() {
        // Lines of a huge repeat come out before the reader could have expanded it.
        try (TraceReader r = new TraceReader(new java.io.StringReader(TraceTexts.HEADER
                + "repeat 999999999 as i\n  send A.qp ctx=${i}\nend\n"), "t.trace")) {
            for (int k = 0; k < 1000; k++) {
                assertThat(r.next().text("ctx")).isEqualTo(Long.toString(k));
            }
        }
    }

    @Test
    void positionsInsideRepeatsAreTheBodyLines() {
        List<TraceLine> lines = read("repeat 2 as i\n  send A.qp ctx=c sge=A.s+${i}:1\nend\n");
        assertThat(lines.get(1).position()).isEqualTo(new Position("t.trace", 3, 3));
        assertThat(lines.get(1).buffers("sge").get(0)).isEqualTo(new Buffer("A.s", 1, 1, new Position("t.trace", 3, 23)));
        assertThat(lines.get(1).position("sge")).isEqualTo(new Position("t.trace", 3, 23));
    }
}
