package dev.rdmasim.kernel;

/**
 * Simulated time is a {@code long} count of picoseconds. These constants and helpers keep unit
 * conversions in one place; nothing in the kernel uses floating-point time.
 */
public final class Time {
    public static final long PS = 1L;
    public static final long NS = 1_000L;
    public static final long US = 1_000_000L;
    public static final long MS = 1_000_000_000L;
    public static final long S = 1_000_000_000_000L;

    private Time() {
    }

    public static long ns(long n) {
        return Math.multiplyExact(n, NS);
    }

    public static long us(long n) {
        return Math.multiplyExact(n, US);
    }

    /** Picoseconds as fractional nanoseconds, for reports. */
    public static double toNs(long ps) {
        return ps / (double) NS;
    }

    /** Picoseconds as fractional microseconds, for reports. */
    public static double toUs(long ps) {
        return ps / (double) US;
    }

    /** A short human form: {@code 1.5us}, {@code 250ns}, {@code 17ps}. */
    public static String format(long ps) {
        if (ps == 0) {
            return "0ps";
        }
        long abs = Math.abs(ps);
        if (abs >= S) {
            return trim(ps / (double) S) + "s";
        } else if (abs >= MS) {
            return trim(ps / (double) MS) + "ms";
        } else if (abs >= US) {
            return trim(ps / (double) US) + "us";
        } else if (abs >= NS) {
            return trim(ps / (double) NS) + "ns";
        }
        return ps + "ps";
    }

    private static String trim(double v) {
        String s = String.format(java.util.Locale.US, "%.3f", v);
        int end = s.length();
        while (s.charAt(end - 1) == '0') {
            end--;
        }
        if (s.charAt(end - 1) == '.') {
            end--;
        }
        return s.substring(0, end);
    }
}
