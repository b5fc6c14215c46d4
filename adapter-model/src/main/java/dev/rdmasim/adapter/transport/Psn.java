package dev.rdmasim.adapter.transport;

/**
 * Packet sequence numbers: 24-bit counters that wrap. Comparisons are made on the signed 24-bit
 * distance, so "before" and "after" stay right across the wrap as long as the two numbers are
 * less than 2^23 apart, which the window of unacknowledged packets guarantees.
 */
public final class Psn {
    public static final int MASK = 0xFF_FFFF;

    private Psn() {
    }

    /** {@code psn + n} modulo 2^24. */
    public static int add(int psn, int n) {
        return (psn + n) & MASK;
    }

    /** Signed distance {@code a - b} in the range -2^23 .. 2^23-1. */
    public static int diff(int a, int b) {
        return ((a - b) << 8) >> 8;
    }

    public static boolean before(int a, int b) {
        return diff(a, b) < 0;
    }

    public static boolean afterOrAt(int a, int b) {
        return diff(a, b) >= 0;
    }

    public static int checked(int psn) {
        if ((psn & ~MASK) != 0) {
            throw new IllegalArgumentException("PSN " + psn + " does not fit 24 bits");
        }
        return psn;
    }
}
