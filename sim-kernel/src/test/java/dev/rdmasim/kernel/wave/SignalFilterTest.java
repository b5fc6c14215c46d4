package dev.rdmasim.kernel.wave;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SignalFilterTest {

    @Test
    void allAndNone() {
        assertThat(SignalFilter.ALL.matches("nicA.dma.tagsInUse")).isTrue();
        assertThat(SignalFilter.ALL.matches("")).isTrue();
        assertThat(SignalFilter.NONE.matches("nicA.dma.tagsInUse")).isFalse();
        assertThat(SignalFilter.NONE.matches("")).isFalse();
    }

    @Test
    void nullEmptyAndBlankListsSelectEverything() {
        assertThat(SignalFilter.parse(null)).isSameAs(SignalFilter.ALL);
        assertThat(SignalFilter.parse("")).isSameAs(SignalFilter.ALL);
        assertThat(SignalFilter.parse(" , ")).isSameAs(SignalFilter.ALL);
    }

    @Test
    void starMatchesAnyRunIncludingDots() {
        SignalFilter filter = SignalFilter.parse("nicA.*");

        assertThat(filter.matches("nicA.dma.tagsInUse")).isTrue();
        assertThat(filter.matches("nicA.")).isTrue();
        assertThat(filter.matches("nicA")).isFalse();
        assertThat(filter.matches("nicB.dma.tagsInUse")).isFalse();
        assertThat(SignalFilter.parse("*.tagsInUse").matches("nicA.dma.tagsInUse")).isTrue();
        assertThat(SignalFilter.parse("*.tagsInUse").matches("nicA.dma.tagsInUseMax")).isFalse();
        assertThat(SignalFilter.parse("*dma*").matches("nicA.dma.tagsInUse")).isTrue();
        assertThat(SignalFilter.parse("n*A*d*e").matches("nicA.dma.tagsInUse")).isTrue();
        assertThat(SignalFilter.parse("n*A*d*x").matches("nicA.dma.tagsInUse")).isFalse();
    }

    @Test
    void questionMarkMatchesExactlyOneCharacter() {
        SignalFilter filter = SignalFilter.parse("nic?.valid");

        assertThat(filter.matches("nicA.valid")).isTrue();
        assertThat(filter.matches("nicB.valid")).isTrue();
        assertThat(filter.matches("nic.valid")).isFalse();
        assertThat(filter.matches("nicAB.valid")).isFalse();
    }

    @Test
    void globWithoutWildcardsMatchesExactly() {
        SignalFilter filter = SignalFilter.parse("nicA.valid");

        assertThat(filter.matches("nicA.valid")).isTrue();
        assertThat(filter.matches("nicA.valid2")).isFalse();
        assertThat(filter.matches("xnicA.valid")).isFalse();
    }

    @Test
    void anyGlobOfTheListSelects() {
        SignalFilter filter = SignalFilter.parse(" nicA.dma.* , *.valid,");

        assertThat(filter.globs()).containsExactly("nicA.dma.*", "*.valid");
        assertThat(filter.matches("nicA.dma.tagsInUse")).isTrue();
        assertThat(filter.matches("nicB.valid")).isTrue();
        assertThat(filter.matches("nicB.dma.tagsInUse")).isFalse();
    }
}
