package dev.rdmasim.adapter.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ValueTypeTest {

    @ParameterizedTest
    @CsvSource({"256,256", "256B,256", "4KiB,4096", "1MiB,1048576", "1.5KiB,1536", "2GiB,2147483648",
        "0,0", "0B,0", "' 64B ',64", "128TiB,140737488355328", "4kib,4096", "2MIB,2097152", "64b,64"})
    void bytesParse(String text, long expected) {
        assertThat(ValueType.BYTES.parse(text)).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource({"550ns,550000", "1.5us,1500000", "16us,16000000", "100ps,100", "2ms,2000000000", "1s,1000000000000",
        "5.714ns,5714", "0,0", "67108.864us,67108864000", "3\u00b5s,3000000"})
    void timeParse(String text, long expected) {
        assertThat(ValueType.TIME.parse(text)).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource({"100Gbps,100000000000", "56Gb/s,56000000000", "25G,25000000000", "400Gbps,400000000000",
        "10Mbps,10000000", "1.5Gbps,1500000000", "25.78125Gbps,25781250000"})
    void rateParse(String text, long expected) {
        assertThat(ValueType.RATE.parse(text)).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource({"1GHz,1000000000", "250MHz,250000000", "2.5GHz,2500000000", "100kHz,100000", "60Hz,60"})
    void frequencyParse(String text, long expected) {
        assertThat(ValueType.FREQUENCY.parse(text)).isEqualTo(expected);
    }

    @Test
    void integersBooleansAndNumbers() {
        assertThat(ValueType.INTEGER.parse("16")).isEqualTo(16L);
        assertThat(ValueType.INTEGER.parse("-1")).isEqualTo(-1L);
        assertThat(ValueType.INTEGER.parse("0x15B3")).isEqualTo(0x15B3L);
        assertThat(ValueType.HEX.format(0x15B3L)).isEqualTo("0x15B3");
        assertThat(ValueType.HEX.parse("5555")).isEqualTo(5555L);
        assertThat(ValueType.BOOLEAN.parse("true")).isTrue();
        assertThat(ValueType.BOOLEAN.parse("FALSE")).isFalse();
        assertThat(ValueType.DOUBLE.parse("0.001")).isEqualTo(0.001);
        assertThat(ValueType.DOUBLE.parse("1e-6")).isEqualTo(1e-6);
        assertThat(ValueType.DOUBLE.format(1e-6)).isEqualTo("0.000001");
        assertThat(ValueType.DOUBLE.format(0.0)).isEqualTo("0");
    }

    @Test
    void badInputsGiveExactMessages() {
        assertThatThrownBy(() -> ValueType.BYTES.parse("4KB"))
                .isInstanceOf(ProfileException.class)
                .hasMessage("'4KB' is not a byte size: sizes take binary units: 4KiB is 4096 B; KB, MB, GB, ... are not used");
        assertThatThrownBy(() -> ValueType.BYTES.parse("-1"))
                .hasMessage("'-1' is not a byte size (expected e.g. 256, 256B, 4KiB or 1MiB)");
        assertThatThrownBy(() -> ValueType.BYTES.parse("1.1KiB"))
                .hasMessage("'1.1KiB' is not a whole number of B");
        assertThatThrownBy(() -> ValueType.BYTES.parse("9EiB")).hasMessage("'9EiB' is too large");
        assertThatThrownBy(() -> ValueType.TIME.parse("550"))
                .hasMessage("'550' has no unit (expected e.g. 550ns, 1.5us, 100ps or 2ms)");
        assertThatThrownBy(() -> ValueType.TIME.parse("5 parsecs"))
                .hasMessage("'5 parsecs' is not a time (expected e.g. 550ns, 1.5us, 100ps or 2ms)");
        assertThatThrownBy(() -> ValueType.TIME.parse("0.5ps")).hasMessage("'0.5ps' is not a whole number of ps");
        assertThatThrownBy(() -> ValueType.RATE.parse("100"))
                .hasMessage("'100' has no unit (expected e.g. 100Gbps, 56Gb/s or 25G)");
        assertThatThrownBy(() -> ValueType.RATE.parse("100GB/s"))
                .hasMessage("'100GB/s' is not a rate (expected e.g. 100Gbps, 56Gb/s or 25G)");
        assertThatThrownBy(() -> ValueType.FREQUENCY.parse("1Ghz"))
                .hasMessage("'1Ghz' is not a frequency (expected e.g. 1GHz, 250MHz or 100kHz)");
        assertThatThrownBy(() -> ValueType.INTEGER.parse("12abc"))
                .hasMessage("'12abc' is not an integer (expected e.g. 16, -1 or 0x15B3)");
        assertThatThrownBy(() -> ValueType.INTEGER.parse("1.0"))
                .hasMessage("'1.0' is not an integer (expected e.g. 16, -1 or 0x15B3)");
        assertThatThrownBy(() -> ValueType.BOOLEAN.parse("yes"))
                .hasMessage("'yes' is not a boolean (expected e.g. true or false)");
        assertThatThrownBy(() -> ValueType.DOUBLE.parse("NaN"))
                .hasMessage("'NaN' is not a number (expected e.g. 0, 0.001 or 1e-6)");
    }

    @Test
    void formatPicksTheLargestReadableUnit() {
        assertThat(ValueType.BYTES.format(4096L)).isEqualTo("4KiB");
        assertThat(ValueType.BYTES.format(1536L)).isEqualTo("1536B");
        assertThat(ValueType.BYTES.format(0L)).isEqualTo("0B");
        assertThat(ValueType.TIME.format(1_500_000L)).isEqualTo("1.5us");
        assertThat(ValueType.TIME.format(550_000L)).isEqualTo("550ns");
        assertThat(ValueType.TIME.format(5_714L)).isEqualTo("5.714ns");
        assertThat(ValueType.TIME.format(67_108_864_000L)).isEqualTo("67108.864us");
        assertThat(ValueType.TIME.format(0L)).isEqualTo("0ps");
        assertThat(ValueType.RATE.format(56_000_000_000L)).isEqualTo("56Gbps");
        assertThat(ValueType.RATE.format(25_781_250_000L)).isEqualTo("25781.25Mbps");
        assertThat(ValueType.FREQUENCY.format(2_500_000_000L)).isEqualTo("2.5GHz");
    }

    /** format then parse gives the value back, for any value. */
    @ParameterizedTest
    @ValueSource(longs = {1, 42, 20240607})
    void formatRoundTrips(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < 500; i++) {
            long v = switch (i % 3) {
                case 0 -> r.nextLong(0, 1L << 20);
                case 1 -> r.nextLong(0, Long.MAX_VALUE);
                default -> r.nextLong(0, 1 << 10) << r.nextInt(0, 50);
            };
            for (ValueType<Long> t : java.util.List.of(ValueType.BYTES, ValueType.TIME, ValueType.RATE,
                    ValueType.FREQUENCY, ValueType.INTEGER, ValueType.HEX)) {
                assertThat(t.parse(t.format(v))).as("%s %d as %s", t.name(), v, t.format(v)).isEqualTo(v);
            }
            double d = r.nextDouble();
            assertThat(ValueType.DOUBLE.parse(ValueType.DOUBLE.format(d))).isEqualTo(d);
        }
    }
}
