package dev.rdmasim.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Unit conversions and the short form reports print. */
class TimeTest {

    @Test
    void convertsWholeUnitsToPicoseconds() {
        assertThat(Time.ns(3)).isEqualTo(3_000L);
        assertThat(Time.us(3)).isEqualTo(3_000_000L);
        assertThat(Time.ns(-2)).isEqualTo(-2_000L);
        assertThat(Time.us(0)).isZero();
    }

    @Test
    void conversionsThatOverflowAreRefusedRatherThanWrapped() {
        assertThatThrownBy(() -> Time.ns(Long.MAX_VALUE / 1_000 + 1)).isInstanceOf(ArithmeticException.class);
        assertThatThrownBy(() -> Time.us(Long.MAX_VALUE / 1_000_000 + 1)).isInstanceOf(ArithmeticException.class);
        assertThat(Time.us(Long.MAX_VALUE / 1_000_000)).isEqualTo(Long.MAX_VALUE / 1_000_000 * 1_000_000);
    }

    @Test
    void picosecondsAsFractionalUnits() {
        assertThat(Time.toNs(1_500)).isEqualTo(1.5);
        assertThat(Time.toNs(7)).isEqualTo(0.007);
        assertThat(Time.toUs(2_500_000)).isEqualTo(2.5);
        assertThat(Time.toUs(250)).isEqualTo(0.00025);
    }

    /** Each unit starts at exactly one of it; one picosecond less is the unit below. */
    @Test
    void formatPicksTheLargestUnitThatIsAtLeastOne() {
        assertThat(Time.format(1)).isEqualTo("1ps");
        assertThat(Time.format(999)).isEqualTo("999ps");
        assertThat(Time.format(Time.NS)).isEqualTo("1ns");
        assertThat(Time.format(Time.US - 1)).isEqualTo("999.999ns");
        assertThat(Time.format(Time.US)).isEqualTo("1us");
        assertThat(Time.format(Time.MS - 1_000)).isEqualTo("999.999us");
        assertThat(Time.format(Time.MS)).isEqualTo("1ms");
        assertThat(Time.format(Time.S - 1_000_000)).isEqualTo("999.999ms");
        assertThat(Time.format(Time.S)).isEqualTo("1s");
        assertThat(Time.format(90 * Time.S)).isEqualTo("90s");
    }

    @Test
    void negativeSpansKeepTheirSignAndUnit() {
        assertThat(Time.format(-17)).isEqualTo("-17ps");
        assertThat(Time.format(-1_500)).isEqualTo("-1.5ns");
        assertThat(Time.format(-Time.US)).isEqualTo("-1us");
        assertThat(Time.format(-2_250 * Time.US)).isEqualTo("-2.25ms");
        assertThat(Time.format(-3 * Time.S)).isEqualTo("-3s");
    }

    /** Three decimals at most, trailing zeros and a bare point dropped, whole tens kept. */
    @Test
    void formatTrimsOnlyTrailingZerosOfTheFraction() {
        assertThat(Time.format(10 * Time.NS)).isEqualTo("10ns");
        assertThat(Time.format(100 * Time.US)).isEqualTo("100us");
        assertThat(Time.format(1_050)).isEqualTo("1.05ns");
        assertThat(Time.format(1_001)).isEqualTo("1.001ns");
        assertThat(Time.format(1_000_400)).isEqualTo("1us");
        assertThat(Time.format(20_500 * Time.MS)).isEqualTo("20.5s");
    }
}
