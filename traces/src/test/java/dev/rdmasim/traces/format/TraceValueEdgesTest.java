package dev.rdmasim.traces.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Values whose separators or prefixes stand first, or whose digits reach the edge of a long: a hexadecimal digit
 * that is not one, a hexadecimal size ending in a letter, a second decimal point, the largest time a unit scales to,
 * and a leading '+', ':' or ',' in buffers, remote regions and profile settings. The value starts at column 10.
 */
class TraceValueEdgesTest {
    private static final int COL = 10;

    private static String outcome(Supplier<Object> parse) {
        try {
            return String.valueOf(parse.get());
        } catch (TraceError e) {
            String m = e.getMessage();
            return m.substring(m.indexOf(':') + 1);
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "0xg1 | 1:10: expected an integer such as 128 or 0x5A, got '0xg1'",
        "0x1g | 1:10: expected an integer such as 128 or 0x5A, got '0x1g'",
        "0x7FFFFFFFFFFFFFFF | 9223372036854775807",
        "0X1f | 31"})
    void integers(String text, String expected) {
        assertThat(outcome(() -> Values.integer(text, "t", 1, COL))).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "0x1F | 31",
        "0X1F | 31",
        "0x1f | 31",
        "0xAB | 171",
        "0x | 1:10: expected a size such as 4KiB, got '0x'"})
    void hexadecimalSizesEndingInALetterTakeNoUnit(String text, String expected) {
        assertThat(outcome(() -> Values.size(text, "t", 1, COL))).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "1..5ns | 1:10: expected a time such as 1.5us, got '1..5ns'",
        "1.5.ns | 1:10: expected a time such as 1.5us, got '1.5.ns'",
        "9223372036854775.80ns | 9223372036854775800",
        "9223372036854775.81ns | 1:10: expected a time such as 1.5us, got '9223372036854775.81ns' (too large)",
        "9223372036854775.9ns | 1:10: expected a time such as 1.5us, got '9223372036854775.9ns' (too large)"})
    void times(String text, String expected) {
        assertThat(outcome(() -> Values.time(text, "t", 1, COL))).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        ",A.a+1:2 | 1:10: expected a buffer MR+OFFSET:LENGTH such as A.src+0:4KiB, got ''",
        "+1:2 | 1:10: expected an object name HOST.NAME such as A.cq, got ''",
        "A.a+1:2,+1:2 | 1:18: expected an object name HOST.NAME such as A.cq, got ''"})
    void buffersStartingWithASeparator(String text, String expected) {
        assertThat(outcome(() -> Values.buffers(text, "t", 1, COL, true))).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "+5 | 1:10: expected an object name HOST.NAME such as A.cq, got ''",
        ":x+5 | 1:10: expected a remote region MR+OFFSET such as B.dst+0, got ':x+5'"})
    void remoteRegionsStartingWithASeparator(String text, String expected) {
        assertThat(outcome(() -> Values.remote(text, "t", 1, COL, true))).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        ",a=1 | 1:10: expected profile settings KEY=VALUE,... such as pcie.mps=512, got ''",
        "a=1, | 1:14: expected profile settings KEY=VALUE,... such as pcie.mps=512, got ''"})
    void settingsStartingOrEndingWithAComma(String text, String expected) {
        assertThat(outcome(() -> Values.settings(text, "t", 1, COL, true))).isEqualTo(expected);
    }
}
