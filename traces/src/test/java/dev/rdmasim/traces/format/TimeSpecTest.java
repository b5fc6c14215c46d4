package dev.rdmasim.traces.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** A line's time spec holds only consistent combinations: anchors in range and only where the kind has one, no negative times. */
class TimeSpecTest {

    @Test
    void anchorsRunFromZeroToSixtyThree() {
        assertThat(TimeSpec.anchored(0, -5).anchor()).isZero();
        assertThat(TimeSpec.anchored(63, 0).anchor()).isEqualTo(63);
        assertThatThrownBy(() -> TimeSpec.anchored(64, 0)).hasMessage("anchor 64 does not fit kind ANCHORED");
        assertThatThrownBy(() -> TimeSpec.anchored(-1, 0)).hasMessage("anchor -1 does not fit kind ANCHORED");
        assertThat(TimeSpec.relative(1).settingAnchor(63).setAnchor()).isEqualTo(63);
        assertThat(TimeSpec.relative(1).settingAnchor(0).setAnchor()).isZero();
        assertThat(TimeSpec.relative(1).settingAnchor(-1)).isEqualTo(TimeSpec.relative(1));
        assertThatThrownBy(() -> TimeSpec.relative(1).settingAnchor(64))
                .hasMessage("setAnchor 64 is not -1 or an anchor below 64");
        assertThatThrownBy(() -> TimeSpec.relative(1).settingAnchor(-2))
                .hasMessage("setAnchor -2 is not -1 or an anchor below 64");
    }

    @Test
    void onlyAnchoredSpecsNameAnAnchor() {
        assertThatThrownBy(() -> new TimeSpec(TimeSpec.Kind.RELATIVE, 1, 0, -1)).hasMessage("anchor 0 does not fit kind RELATIVE");
        assertThatThrownBy(() -> new TimeSpec(TimeSpec.Kind.ABSOLUTE, 1, 3, -1)).hasMessage("anchor 3 does not fit kind ABSOLUTE");
        assertThatThrownBy(() -> new TimeSpec(TimeSpec.Kind.NONE, 0, 0, -1)).hasMessage("anchor 0 does not fit kind NONE");
        assertThatThrownBy(() -> new TimeSpec(null, 0, -1, -1)).hasMessage("kind is null");
    }

    @Test
    void onlyAnchoredTimesMayBeNegativeAndNoneTakesNoTime() {
        assertThat(TimeSpec.absolute(0).ps()).isZero();
        assertThat(TimeSpec.relative(0).ps()).isZero();
        assertThat(TimeSpec.anchored(1, -1).ps()).isEqualTo(-1);
        assertThatThrownBy(() -> TimeSpec.absolute(-1)).hasMessage("ABSOLUTE time -1 ps is negative");
        assertThatThrownBy(() -> TimeSpec.relative(-1)).hasMessage("RELATIVE time -1 ps is negative");
        assertThatThrownBy(() -> new TimeSpec(TimeSpec.Kind.NONE, 1, -1, -1)).hasMessage("NONE takes no time, got 1 ps");
        assertThatThrownBy(() -> new TimeSpec(TimeSpec.Kind.NONE, -1, -1, -1)).hasMessage("NONE takes no time, got -1 ps");
        assertThat(new TimeSpec(TimeSpec.Kind.NONE, 0, -1, 2).setAnchor()).isEqualTo(2);
    }
}
