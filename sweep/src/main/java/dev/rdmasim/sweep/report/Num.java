package dev.rdmasim.sweep.report;

import java.math.BigDecimal;
import java.math.MathContext;

/** Locale-independent number and name formatting, so plots and report are the same bytes everywhere. */
final class Num {
    private Num() {
    }

    /**
     * {@code value} to four significant digits, plain notation, no trailing zeros; whole numbers (message sizes,
     * depths) exactly.
     */
    static String fmt(double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return String.valueOf(value);
        }
        if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            return Long.toString((long) value);
        }
        return new BigDecimal(value).round(new MathContext(4)).stripTrailingZeros().toPlainString();
    }

    /** A fraction as a percentage with one decimal: {@code 0.9731 -> 97.3 %}. */
    static String percent(double fraction) {
        return new BigDecimal(fraction * 100).setScale(1, java.math.RoundingMode.HALF_EVEN).toPlainString() + " %";
    }

    /** A name safe in file names: letters, digits, dots and dashes; anything else becomes '_'. */
    static String slug(String text) {
        String s = text.replaceAll("^-+", "").replaceAll("[^A-Za-z0-9.-]+", "_");
        return s.isEmpty() ? "_" : s;
    }
}
