package dev.rdmasim.sweep;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ValueListTest {
    @Test
    void listsAndRangesExpandInOrder() {
        assertThat(ValueList.parse("1,4,16")).containsExactly("1", "4", "16");
        assertThat(ValueList.parse("1..1024*2")).containsExactly("1", "2", "4", "8", "16", "32", "64", "128", "256",
                "512", "1024");
        assertThat(ValueList.parse("0..256+64")).containsExactly("0", "64", "128", "192", "256");
        assertThat(ValueList.parse("0, 64..256+64")).containsExactly("0", "64", "128", "192", "256");
        assertThat(ValueList.parse("3..6")).containsExactly("3", "4", "5", "6");
        assertThat(ValueList.parse("1..1000*10")).as("stops at the last value not above TO")
                .containsExactly("1", "10", "100", "1000");
        assertThat(ValueList.parse("1..100*3")).containsExactly("1", "3", "9", "27", "81");
        assertThat(ValueList.parse("-64..64+64")).containsExactly("-64", "0", "64");
        assertThat(ValueList.parse("7..7")).containsExactly("7");
        assertThat(ValueList.parse("4KiB,1MiB, 430ns ,true")).as("values keep their text")
                .containsExactly("4KiB", "1MiB", "430ns", "true");
        assertThat(ValueList.parse(List.of("0", "64..128+64", " 220 "))).containsExactly("0", "64", "128", "220");
        assertThat(ValueList.parse("4611686018427387904..9223372036854775807*2")).as("no overflow past the top")
                .containsExactly("4611686018427387904");
    }

    @Test
    void mistakesAreExplained() {
        String[][] cases = {
            {"", "no values"},
            {" ", "no values"},
            {"1,,2", "empty value in '1,,2'"},
            {"1,2,", "empty value in '1,2,'"},
            {"1..", "bad range '1..': expected FROM..TO, FROM..TO+STEP or FROM..TO*FACTOR with whole numbers, "
                    + "e.g. 1..1024*2 or 0..256+64"},
            {"1KiB..4KiB*2", "bad range '1KiB..4KiB*2': expected FROM..TO, FROM..TO+STEP or FROM..TO*FACTOR with whole "
                    + "numbers, e.g. 1..1024*2 or 0..256+64"},
            {"1..8/2", "bad range '1..8/2': expected FROM..TO, FROM..TO+STEP or FROM..TO*FACTOR with whole numbers, "
                    + "e.g. 1..1024*2 or 0..256+64"},
            {"8..1", "range '8..1' is empty: 8 is above 1"},
            {"1..8*1", "range '1..8*1': the factor must be at least 2, got 1"},
            {"0..8*2", "range '0..8*2': a geometric range starts at 1 or more, got 0"},
            {"0..8+0", "range '0..8+0': the step must be at least 1, got 0"},
            {"0..8+-2", "range '0..8+-2': the step must be at least 1, got -2"},
            {"1..20000", "range '1..20000' gives more than 10000 values"},
            {"99999999999999999999..1", "range '99999999999999999999..1': 99999999999999999999 is too large"},
            {"64,0..256+64", "value 64 is given twice in '64,0..256+64'"},
            {"a,b,a", "value a is given twice in 'a,b,a'"},
        };
        for (String[] c : cases) {
            assertThatThrownBy(() -> ValueList.parse(c[0])).as(c[0]).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(c[1]);
        }
        assertThatThrownBy(() -> ValueList.parse(List.of())).hasMessage("no values");
    }
}
