package dev.rdmasim.adapter.config;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Locale;

/**
 * How a parameter's text is parsed and printed. Integral kinds (plain integers, byte sizes, times in
 * picoseconds, rates in bit/s, frequencies in Hz) are all {@code Long}; probabilities and other
 * fractions are {@code Double}. {@link #format} output always parses back to the same value.
 *
 * @param <T> the Java type of the value
 */
public abstract sealed class ValueType<T extends Comparable<T>> {
    /** A whole number, decimal or {@code 0x} hex. */
    public static final ValueType<Long> INTEGER = new Int(false);
    /** A whole number printed in hex ({@code 0x15B3}); decimal input is accepted too. */
    public static final ValueType<Long> HEX = new Int(true);
    public static final ValueType<Boolean> BOOLEAN = new Bool();
    /** One of a fixed set of words (the set belongs to the parameter). */
    public static final ValueType<String> CHOICE = new Choice();
    public static final ValueType<Double> DOUBLE = new Dbl();
    /** Bytes: {@code 256}, {@code 256B}, {@code 4KiB}, {@code 1MiB}: the units of {@link ByteUnits}. */
    public static final ValueType<Long> BYTES = new Scaled("B", "a byte size", "256, 256B, 4KiB or 1MiB", false,
            new Unit[] {u("EiB", 1L << 60), u("TiB", 1L << 40), u("GiB", 1L << 30), u("MiB", 1L << 20),
                u("KiB", 1L << 10), u("B", 1)},
            new Unit[] {u("", 1)});
    /** Time as picoseconds: {@code 100ps}, {@code 550ns}, {@code 1.5us}, {@code 2ms}, {@code 1s}. */
    public static final ValueType<Long> TIME = new Scaled("ps", "a time", "550ns, 1.5us, 100ps or 2ms", true,
            new Unit[] {u("s", 1_000_000_000_000L), u("ms", 1_000_000_000L), u("us", 1_000_000L), u("ns", 1_000L),
                u("ps", 1)},
            new Unit[] {u("\u00b5s", 1_000_000L)});
    /** Rate as bits per second: {@code 100Gbps}, {@code 56Gb/s}, {@code 25G}. */
    public static final ValueType<Long> RATE = new Scaled("bit/s", "a rate", "100Gbps, 56Gb/s or 25G", true,
            new Unit[] {u("Tbps", 1_000_000_000_000L), u("Gbps", 1_000_000_000L), u("Mbps", 1_000_000L),
                u("kbps", 1_000L), u("bps", 1)},
            new Unit[] {u("Tb/s", 1_000_000_000_000L), u("Gb/s", 1_000_000_000L), u("Mb/s", 1_000_000L),
                u("kb/s", 1_000L), u("Kbps", 1_000L), u("Kb/s", 1_000L), u("b/s", 1),
                u("T", 1_000_000_000_000L), u("G", 1_000_000_000L), u("M", 1_000_000L), u("K", 1_000L),
                u("k", 1_000L)});
    /** Frequency in Hz: {@code 1GHz}, {@code 250MHz}. */
    public static final ValueType<Long> FREQUENCY = new Scaled("Hz", "a frequency", "1GHz, 250MHz or 100kHz", true,
            new Unit[] {u("GHz", 1_000_000_000L), u("MHz", 1_000_000L), u("kHz", 1_000L), u("Hz", 1)},
            new Unit[] {u("KHz", 1_000L)});

    private ValueType() {
    }

    /** Parses {@code text}; throws {@link ProfileException} with the reason (no key) when it is not of this type. */
    public abstract T parse(String text);

    /** The canonical text of {@code value}; {@code parse(format(v)).equals(v)}. */
    public abstract String format(T value);

    /** Short name for docs: {@code integer}, {@code bytes}, {@code time}, ... */
    public abstract String name();

    /** The base unit values are stored in, for docs ({@code ps}, {@code B}, {@code bit/s}, ...), or empty. */
    public String baseUnit() {
        return "";
    }

    /** Whether {@code Long} values of this type are integral (ranges, powers of two and multiples apply). */
    boolean integral() {
        return false;
    }

    static ProfileException notA(String text, String what, String examples) {
        return new ProfileException("'" + text + "' is not " + what + " (expected e.g. " + examples + ")");
    }

    private static Unit u(String suffix, long factor) {
        return new Unit(suffix, factor);
    }

    private record Unit(String suffix, long factor) {
    }

    private static final class Int extends ValueType<Long> {
        private final boolean hex;

        Int(boolean hex) {
            this.hex = hex;
        }

        @Override
        public Long parse(String text) {
            String t = text.trim();
            try {
                if (t.startsWith("0x") || t.startsWith("0X")) {
                    if (t.length() > 2 && t.charAt(2) != '-' && t.charAt(2) != '+') {
                        return Long.parseLong(t.substring(2), 16);
                    }
                } else if (!t.startsWith("+")) {
                    return Long.parseLong(t);
                }
            } catch (NumberFormatException e) {
                // fall through to the one message below
            }
            throw notA(text, "an integer", "16, -1 or 0x15B3");
        }

        @Override
        public String format(Long value) {
            if (hex && value >= 0) {
                return "0x" + Long.toHexString(value).toUpperCase(Locale.ROOT);
            }
            return Long.toString(value);
        }

        @Override
        public String name() {
            return "integer";
        }

        @Override
        boolean integral() {
            return true;
        }
    }

    private static final class Bool extends ValueType<Boolean> {
        @Override
        public Boolean parse(String text) {
            String t = text.trim();
            if (t.equalsIgnoreCase("true")) {
                return Boolean.TRUE;
            }
            if (t.equalsIgnoreCase("false")) {
                return Boolean.FALSE;
            }
            throw notA(text, "a boolean", "true or false");
        }

        @Override
        public String format(Boolean value) {
            return value.toString();
        }

        @Override
        public String name() {
            return "boolean";
        }
    }

    private static final class Choice extends ValueType<String> {
        @Override
        public String parse(String text) {
            String t = text.trim();
            if (t.isEmpty()) {
                throw new ProfileException("'' is not a word (expected one of the listed choices)");
            }
            return t;
        }

        @Override
        public String format(String value) {
            return value;
        }

        @Override
        public String name() {
            return "choice";
        }
    }

    private static final class Dbl extends ValueType<Double> {
        @Override
        public Double parse(String text) {
            String t = text.trim();
            if (!NumberForms.isDecimal(t)) {
                throw notA(text, "a number", "0, 0.001 or 1e-6");
            }
            return Double.parseDouble(t);
        }

        @Override
        public String format(Double value) {
            return BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
        }

        @Override
        public String name() {
            return "number";
        }
    }

    /**
     * A non-negative decimal number with a unit suffix, stored as a whole number of base units.
     * Fractions are allowed as long as the result is whole ({@code 1.5us} is 1500000 ps).
     */
    private static final class Scaled extends ValueType<Long> {
        private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

        private final String baseUnit;
        private final String what;
        private final String examples;
        private final boolean zeroWithoutUnit;
        /** Byte sizes print as whole binary multiples ({@code 1536B}, not {@code 1.5KiB}). */
        private final boolean wholeUnitsOnly;
        /** Largest first; {@link #format} picks from these. */
        private final Unit[] printed;
        private final Unit[] aliases;

        Scaled(String baseUnit, String what, String examples, boolean zeroWithoutUnit, Unit[] printed, Unit[] aliases) {
            this.baseUnit = baseUnit;
            this.what = what;
            this.examples = examples;
            this.zeroWithoutUnit = zeroWithoutUnit;
            this.wholeUnitsOnly = baseUnit.equals("B");
            this.printed = printed;
            this.aliases = aliases;
        }

        @Override
        public Long parse(String text) {
            String[] form = NumberForms.scaled(text.trim());
            if (form == null) {
                throw notA(text, what, examples);
            }
            BigDecimal number = new BigDecimal(form[0]);
            String suffix = form[1];
            long factor;
            if (suffix.isEmpty() && zeroWithoutUnit) {
                if (number.signum() != 0) {
                    throw new ProfileException("'" + text + "' has no unit (expected e.g. " + examples + ")");
                }
                factor = 1;
            } else {
                factor = baseUnit.equals("B") ? (suffix.isEmpty() ? 1 : ByteUnits.factor(suffix)) : factor(suffix);
                if (factor == 0) {
                    String reason = baseUnit.equals("B") ? ByteUnits.decimalUnitReason(form[0], suffix) : null;
                    if (reason != null) {
                        throw new ProfileException("'" + text + "' is not a byte size: " + reason);
                    }
                    throw notA(text, what, examples);
                }
            }
            BigDecimal scaled = number.multiply(BigDecimal.valueOf(factor));
            if (scaled.stripTrailingZeros().scale() > 0) {
                throw new ProfileException("'" + text + "' is not a whole number of " + baseUnit);
            }
            BigInteger whole = scaled.toBigIntegerExact();
            if (whole.compareTo(LONG_MAX) > 0) {
                throw new ProfileException("'" + text + "' is too large");
            }
            return whole.longValueExact();
        }

        private long factor(String suffix) {
            for (Unit unit : printed) {
                if (unit.suffix.equals(suffix)) {
                    return unit.factor;
                }
            }
            for (Unit unit : aliases) {
                if (unit.suffix.equals(suffix)) {
                    return unit.factor;
                }
            }
            return 0;
        }

        @Override
        public String format(Long value) {
            long v = value;
            if (v == 0) {
                return "0" + printed[printed.length - 1].suffix;
            }
            // Largest unit that shows the value with at most three decimals.
            for (Unit unit : printed) {
                boolean exact = wholeUnitsOnly ? v % unit.factor == 0 : atMost3Decimals(v, unit.factor);
                if (Math.abs(v) >= unit.factor && exact) {
                    BigDecimal shown = BigDecimal.valueOf(v).divide(BigDecimal.valueOf(unit.factor)).stripTrailingZeros();
                    return shown.toPlainString() + unit.suffix;
                }
            }
            return v + printed[printed.length - 1].suffix;
        }

        /** Decimal units are powers of ten: at most three decimals means divisible by factor / 1000. */
        private static boolean atMost3Decimals(long v, long factor) {
            return factor < 1000 || v % (factor / 1000) == 0;
        }

        @Override
        public String name() {
            return switch (baseUnit) {
                case "B" -> "bytes";
                case "ps" -> "time";
                case "bit/s" -> "rate";
                default -> "frequency";
            };
        }

        @Override
        public String baseUnit() {
            return baseUnit;
        }

        @Override
        boolean integral() {
            return true;
        }
    }
}
