package dev.rdmasim.traces.format;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What an error message may echo to a terminal: control and bidirectional-override characters are escaped, their
 * neighbours are not; a message of 400 characters is whole, a longer one is cut without splitting a character.
 */
class TraceErrorPrintableTest {

    @ParameterizedTest
    @CsvSource({"2028, true", "2029, true", "202a, true", "202e, true", "2066, true", "2069, true", "001b, true",
        "007f, true", "0085, true", "2027, false", "202f, false", "2065, false", "206a, false", "00a0, false"})
    void controlAndOverrideCharactersAreEscapedAndTheirNeighboursAreNot(String hex, boolean escaped) {
        char c = (char) Integer.parseInt(hex, 16);
        String s = "a" + c + "b";
        assertThat(TraceError.printable(s)).isEqualTo(escaped ? "a\\u" + hex + "b" : s);
    }

    @Test
    void fourHundredCharactersAreWholeAndMoreAreCutOnACharacterBoundary() {
        String exact = "x".repeat(400);
        assertThat(TraceError.printable(exact)).isSameAs(exact);
        assertThat(TraceError.printable("x".repeat(401))).isEqualTo("x".repeat(340) + "... (61 more characters)");
        // An emoji (two UTF-16 units) across the cut stays whole on the far side.
        String straddling = "x".repeat(339) + "\uD83D\uDE00" + "y".repeat(100);
        assertThat(TraceError.printable(straddling)).isEqualTo("x".repeat(339) + "... (102 more characters)");
        String before = "x".repeat(338) + "\uD83D\uDE00" + "y".repeat(100);
        assertThat(TraceError.printable(before)).isEqualTo("x".repeat(338) + "\uD83D\uDE00... (100 more characters)");
        // Escapes count toward the length: 100 tabs become 200 characters.
        assertThat(TraceError.printable("\t".repeat(100) + "z".repeat(150))).isEqualTo("\\t".repeat(100) + "z".repeat(150));
    }
}
