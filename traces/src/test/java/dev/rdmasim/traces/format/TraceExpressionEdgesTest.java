package dev.rdmasim.traces.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Expressions at their edges: tabs as spaces, the deepest nesting accepted and the first refused, groups and signs one
 * after another (which nest nothing), division and remainder by powers of two on negative values (which must agree
 * with the other divisors), variables starting with '_', and a group left open before another term.
 */
class TraceExpressionEdgesTest {

    private static String error(String body) {
        return TraceTexts.error(TraceTexts.SETUP + body, false);
    }

    private static List<String> contexts(String body) {
        List<String> ctx = new ArrayList<>();
        for (TraceLine l : TraceTexts.read(TraceTexts.HEADER + body)) {
            ctx.add(l.text("ctx"));
        }
        return ctx;
    }

    @Test
    void tabsSeparateLikeSpacesInsideAnExpression() {
        assertThat(contexts("repeat 3 as i\n  send A.qp ctx=${\ti\t*\t2\t+\t1\t}\nend\n")).containsExactly("1", "3", "5");
    }

    @Test
    void spacesMayComeBeforeAndAfterASign() {
        assertThat(contexts("send A.qp ctx=${ -1}:${2 * - 3}:${3 - + 1}:${ +2}\n")).containsExactly("-1:-6:2:2");
    }

    @Test
    void sixtyFourLevelsAreTheDeepestNesting() {
        assertThat(error("send A.qp ctx=${" + "(".repeat(64) + "1" + ")".repeat(64) + "}\n")).isEqualTo("no error");
        assertThat(error("send A.qp ctx=${" + "(".repeat(65) + "1" + ")".repeat(65) + "}\n"))
                .contains("nests deeper than 64 levels");
        assertThat(error("send A.qp ctx=${" + "-".repeat(64) + "1}\n")).isEqualTo("no error");
        assertThat(error("send A.qp ctx=${" + "-".repeat(65) + "1}\n")).contains("nests deeper than 64 levels");
        // A chain of operators on a variable: 63 operators over the variable are 64 levels.
        assertThat(error("repeat 2 as i\n send A.qp ctx=${i" + "+i".repeat(63) + "}\nend\n")).isEqualTo("no error");
        assertThat(error("repeat 2 as i\n send A.qp ctx=${i" + "+i".repeat(64) + "}\nend\n"))
                .contains("nests deeper than 64 levels");
    }

    @Test
    void groupsAndSignsOneAfterAnotherNestNothing() {
        assertThat(contexts("send A.qp ctx=${" + "(1)+".repeat(200) + "(1)}\n")).containsExactly("201");
        assertThat(contexts("send A.qp ctx=${" + "-1+".repeat(200) + "+1}\n")).containsExactly("-199");
        assertThat(contexts("repeat 2 as i\n  send A.qp ctx=${" + "(i)+".repeat(30) + "-i+(+i)}\nend\n"))
                .containsExactly("0", "30");
    }

    @Test
    void divisionAndRemainderByPowersOfTwoAgreeWithOtherDivisors() {
        int[] divisors = {1, 2, 3, 4, 6, 8, -4};
        StringBuilder ctx = new StringBuilder();
        for (int d : divisors) {
            ctx.append("${(i-9)/").append(d).append("}:${(i-9)%").append(d).append("}:");
        }
        List<String> got = contexts("repeat 19 as i\n  send A.qp ctx=" + ctx + "x\nend\n");
        List<String> expected = new ArrayList<>();
        for (long i = 0; i < 19; i++) {
            StringBuilder e = new StringBuilder();
            for (int d : divisors) {
                e.append((i - 9) / d).append(':').append((i - 9) % d).append(':');
            }
            expected.add(e.append('x').toString());
        }
        assertThat(got).isEqualTo(expected);
    }

    @Test
    void variablesMayStartWithAnUnderscore() {
        assertThat(contexts("repeat 2 as _i\n  send A.qp ctx=${_i*3}\nend\n")).containsExactly("0", "3");
    }

    @Test
    void aGroupMustCloseBeforeTheNextTerm() {
        assertThat(error("send A.qp ctx=${(1 2}\n")).isEqualTo("t.trace:15:15: expected ')' in ${(1 2}");
        assertThat(error("send A.qp ctx=${(1}\n")).isEqualTo("t.trace:15:15: expected ')' in ${(1}");
    }
}
