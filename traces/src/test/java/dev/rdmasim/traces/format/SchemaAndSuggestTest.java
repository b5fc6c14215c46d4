package dev.rdmasim.traces.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.EnumSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The format's table (kinds, keywords, slots) and the edit distance behind "did you mean". */
class SchemaAndSuggestTest {
    @Test
    void kindsAreNumericOrStructuredOrNeither() {
        EnumSet<Schema.Kind> numeric = EnumSet.of(Schema.Kind.INTEGER, Schema.Kind.SIZE, Schema.Kind.TIME,
                Schema.Kind.CALL_FLAGS, Schema.Kind.MR_FLAGS, Schema.Kind.NOTIFY, Schema.Kind.STATUS);
        EnumSet<Schema.Kind> structured = EnumSet.of(Schema.Kind.BUFFERS, Schema.Kind.REMOTE, Schema.Kind.BYTES,
                Schema.Kind.FILL, Schema.Kind.SETTINGS);
        for (Schema.Kind k : Schema.Kind.values()) {
            assertThat(k.numeric()).as(k.name()).isEqualTo(numeric.contains(k));
            assertThat(k.structured()).as(k.name()).isEqualTo(structured.contains(k));
        }
    }

    @Test
    void keywordsTheirSlotsAndTheirUsage() {
        Schema.Keyword connect = Schema.keyword("connect");
        assertThat(connect.positionals).isEqualTo(2);
        assertThat(connect.positionalNames()).isEqualTo("QP PEER_QP");
        assertThat(connect.slot("port")).isEqualTo(2);
        assertThat(connect.slot("expect")).isEqualTo(connect.expectSlot).isEqualTo(connect.slots() - 1);
        assertThat(connect.slot("nope")).isEqualTo(-1);
        assertThat(connect.anyStructured).isTrue();
        assertThat(connect.call).isFalse();
        assertThatThrownBy(() -> connect.slotOrThrow("nope")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("connect has no key 'nope'");
        Schema.Keyword flush = Schema.keyword("flush");
        assertThat(flush.call).isTrue();
        assertThat(flush.anyStructured).isFalse();
        assertThat(flush.expectSlot).isEqualTo(-1);
        assertThat(flush.keys).isEmpty();
        assertThat(Schema.keyword("dump").anyStructured).isTrue();
        assertThat(Schema.keyword("host").slot("profile")).isEqualTo(1);
        assertThat(Schema.keyword("repeat")).isNull();
        assertThat(Schema.keyword("HOST")).isNull();
        assertThat(Schema.ALL_KEYWORDS).startsWith("host", "cq").endsWith("dump", "repeat", "end")
                .hasSize(Schema.KEYWORDS.length + 2);
    }

    @ParameterizedTest
    @CsvSource({"'', '', 0", "abc, '', 3", "'', abcd, 4", "host, hots, 1", "host, ohst, 1", "kitten, sitting, 3",
        "abc, abc, 0", "abcd, acbd, 1", "ab, ba, 1", "abc, ca, 3", "flaw, lawn, 2", "ca, abc, 3"})
    void editDistanceCountsATranspositionAsOneEdit(String a, String b, int expected) {
        assertThat(Suggest.distance(a, b)).isEqualTo(expected);
        assertThat(Suggest.distance(b, a)).isEqualTo(expected);
    }

    @Test
    void theClosestCandidateIsSuggestedWithinAnEditPerThreeLettersFromOneUpToThree() {
        String[] c = {"alpha", "alpine", "abcdefghijkl", "xyz"};
        assertThat(Suggest.didYouMean("ALPHA", c)).isEqualTo("; did you mean 'alpha'?");
        assertThat(Suggest.didYouMean("alpin", c)).isEqualTo("; did you mean 'alpine'?");
        // Two letters: one edit allowed.
        assertThat(Suggest.didYouMean("xy", c)).isEqualTo("; did you mean 'xyz'?");
        assertThat(Suggest.didYouMean("x", c)).isEmpty();
        // Six letters: two edits allowed, three not; nine letters: three.
        assertThat(Suggest.didYouMean("alxxne", c)).isEqualTo("; did you mean 'alpine'?");
        assertThat(Suggest.didYouMean("axxxne", c)).isEmpty();
        assertThat(Suggest.didYouMean("abcdefghi", c)).isEqualTo("; did you mean 'abcdefghijkl'?");
        assertThat(Suggest.didYouMean("abcdefgh", c)).isEmpty();
        // Twelve letters and more: three edits at most.
        assertThat(Suggest.didYouMean("abcdefghixxx", c)).isEqualTo("; did you mean 'abcdefghijkl'?");
        assertThat(Suggest.didYouMean("abcdefghxxxx", c)).isEmpty();
        assertThat(Suggest.didYouMean("anything", new String[0])).isEmpty();
        // Ties go to the first candidate.
        assertThat(Suggest.didYouMean("ab", new String[] {"aa", "bb"})).isEqualTo("; did you mean 'aa'?");
    }
}
