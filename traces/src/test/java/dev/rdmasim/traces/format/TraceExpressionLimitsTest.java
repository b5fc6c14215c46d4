package dev.rdmasim.traces.format;

import static dev.rdmasim.traces.format.TraceTexts.HEADER;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Expressions at their limits: the one division that overflows, folded or evaluated per line, the depth a
 * shift, mask or negation adds over a deep operand, signs one after another that close their level, characters
 * next to the digits that start no number, and the variables an error lists.
 */
class TraceExpressionLimitsTest {
    private static final String MIN = "(0-9223372036854775807-1)";

    private static List<String> contexts(String body) {
        List<String> ctx = new ArrayList<>();
        for (TraceLine l : TraceTexts.read(HEADER + body)) {
            ctx.add(l.text("ctx"));
        }
        return ctx;
    }

    private static String error(String body) {
        return TraceTexts.error(HEADER + body, false);
    }

    @Test
    void theSmallestLongDividedByMinusOneOverflows() {
        assertThat(error("flush A.q${" + MIN + "/(0-1)}\n")).isEqualTo("t.trace:2:10: integer overflow in ${" + MIN + "/(0-1)}");
        assertThat(error("repeat 1 as i\n  flush A.q${(i-9223372036854775807-1)/(i-1)}\nend\n"))
                .isEqualTo("t.trace:3:12: integer overflow in ${(i-9223372036854775807-1)/(i-1)}");
        // Other quotients and remainders of the smallest long are fine.
        assertThat(contexts("send A.q ctx=${" + MIN + "/1}:${" + MIN + "%(0-1)}:${" + MIN + "/(0-2)}\n"))
                .containsExactly(Long.MIN_VALUE + ":0:" + (Long.MIN_VALUE / -2));
        assertThat(contexts("repeat 1 as i\n  send A.q ctx=${(i-9223372036854775807-1)%(i-1)}:${(i-9223372036854775807-1)/(i+1)}\nend\n"))
                .containsExactly("0:" + Long.MIN_VALUE);
        assertThat(error("repeat 1 as i\n  flush A.q${-(i-9223372036854775807-1)}\nend\n"))
                .isEqualTo("t.trace:3:12: integer overflow in ${-(i-9223372036854775807-1)}");
        assertThat(error("flush A.q${-" + MIN + "}\n")).isEqualTo("t.trace:2:10: integer overflow in ${-" + MIN + "}");
    }

    @Test
    void shiftsMasksAndNegationsAddALevelOverTheirOperand() {
        // i and 63 operators: 64 levels; one more is too deep, whether the last is a shift, a mask or a sign.
        String chain = "i" + "+i".repeat(62);
        assertThat(error("repeat 2 as i\n  flush A.q${(" + chain + ")/2}\nend\n")).isEqualTo("no error");
        assertThat(error("repeat 2 as i\n  flush A.q${(" + chain + "+i)/2}\nend\n")).contains("nests deeper than 64 levels");
        assertThat(error("repeat 2 as i\n  flush A.q${(" + chain + "+i)%4}\nend\n")).contains("nests deeper than 64 levels");
        assertThat(error("repeat 2 as i\n  flush A.q${-(" + chain + ")}\nend\n")).isEqualTo("no error");
        assertThat(error("repeat 2 as i\n  flush A.q${-(" + chain + "+i)}\nend\n")).contains("nests deeper than 64 levels");
        assertThat(error("repeat 2 as i\n  flush A.q${i" + "/2".repeat(63) + "}\nend\n")).isEqualTo("no error");
        assertThat(error("repeat 2 as i\n  flush A.q${i" + "%2".repeat(64) + "}\nend\n")).contains("nests deeper than 64 levels");
    }

    @Test
    void plusSignsOneAfterAnotherNestNothing() {
        assertThat(contexts("send A.q ctx=${" + "+1*".repeat(100) + "1}\n")).containsExactly("1");
        assertThat(contexts("send A.q ctx=${" + "+1+".repeat(100) + "1}\n")).containsExactly("101");
        // Plus signs in a row nest like minus signs: 64 are the most.
        assertThat(contexts("send A.q ctx=${" + "+".repeat(64) + "7}\n")).containsExactly("7");
        assertThat(error("flush A.q${" + "+".repeat(65) + "7}\n")).isEqualTo("t.trace:2:10: expression nests deeper than 64 levels"
                + " (parentheses, signs or chained operators) in ${" + "+".repeat(65) + "7}");
    }

    @Test
    void charactersNextToTheDigitsStartNoNumber() {
        assertThat(error("flush A.q${/1}\n")).isEqualTo("t.trace:2:10: unexpected '/' in ${/1}");
        assertThat(error("flush A.q${:1}\n")).isEqualTo("t.trace:2:10: unexpected ':' in ${:1}");
        assertThat(contexts("send A.q ctx=${0}:${9}:${0x9}\n")).containsExactly("0:9:9");
    }

    @Test
    void anExpressionOfSpacesIsEmpty() {
        assertThat(error("flush A.q${ \t }\n")).isEqualTo("t.trace:2:10: empty expression ${}");
    }

    @Test
    void anUnknownVariableListsEveryVariableInScope() {
        assertThat(error("repeat 1 as i\n  repeat 1 as j\n    flush A.q${k}\n  end\nend\n"))
                .isEqualTo("t.trace:4:14: unknown variable 'k' in ${k} (variables here: i, j)");
        assertThat(contexts("repeat 2 as i\n  repeat 2 as j\n    send A.q ctx=${i*10+j}\n  end\nend\n"))
                .containsExactly("0", "1", "10", "11");
    }
}
