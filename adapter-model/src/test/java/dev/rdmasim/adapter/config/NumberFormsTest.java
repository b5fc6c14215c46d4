package dev.rdmasim.adapter.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link NumberForms} against the regular expressions it stands for. */
class NumberFormsTest {
    private static final Pattern DECIMAL =
            Pattern.compile("[0-9]+(\\.[0-9]*)?([eE][-+]?[0-9]+)?|\\.[0-9]+([eE][-+]?[0-9]+)?");
    private static final Pattern SCALED = Pattern.compile("([0-9]+(?:\\.[0-9]+)?)\\s*([A-Za-z\u00b5/]*)");
    /** The characters the forms are made of, their neighbours, and a few they must refuse. */
    private static final String ALPHABET = "0123456789..eE+-  \t\n\u000b\f\r\u00b5/kKiMBnsupGHzZ_,x\u00a0\u00e9Aa@[`{";

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6})
    void agreesWithTheRegularExpressionsOnRandomText(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        int decimals = 0;
        int scaled = 0;
        for (int n = 0; n < 20_000; n++) {
            StringBuilder b = new StringBuilder();
            int len = rnd.nextInt(9);
            for (int i = 0; i < len; i++) {
                // Digits half the time, so that well-formed values are common.
                b.append(rnd.nextBoolean() ? (char) ('0' + rnd.nextInt(10)) : ALPHABET.charAt(rnd.nextInt(ALPHABET.length())));
            }
            String t = b.toString();
            boolean decimal = DECIMAL.matcher(t).matches();
            assertThat(NumberForms.isDecimal(t)).as("'%s' as a decimal", t).isEqualTo(decimal);
            decimals += decimal ? 1 : 0;
            Matcher m = SCALED.matcher(t);
            String[] form = NumberForms.scaled(t);
            if (m.matches()) {
                scaled++;
                assertThat(form).as("'%s' with a unit", t).containsExactly(m.group(1), m.group(2));
            } else {
                assertThat(form).as("'%s' with a unit", t).isNull();
            }
        }
        assertThat(decimals).isGreaterThan(1000);
        assertThat(scaled).isGreaterThan(1000);
    }
}
