package dev.rdmasim.bench;

import java.util.SplittableRandom;

/**
 * The one table of exponential hold increments every hold benchmark draws from, so random-number
 * cost stays out of the measurement and every library is fed the same numbers.
 *
 * <p>Values are whole picoseconds (at least 1). Our kernel uses them as {@code long}; the peers use
 * the very same values as {@code double}, which represent them exactly, so sums are exact too and
 * all implementations fire the same sequence of event times (a tie may be broken differently, but
 * tied events receive the same pair of increments either way).
 */
public final class HoldIncrements {
    /** Table length; a power of two so the cursor wraps with a mask. */
    public static final int SIZE = 1 << 16;
    public static final int MASK = SIZE - 1;
    /** Mean increment: 1 us in picoseconds. */
    public static final double MEAN_PS = 1_000_000.0;
    public static final long SEED = 0x5EED_401DL;

    private static final long[] PS = new long[SIZE];
    private static final double[] AS_DOUBLE = new double[SIZE];

    static {
        SplittableRandom rng = new SplittableRandom(SEED);
        for (int i = 0; i < SIZE; i++) {
            // Inverse CDF; log1p(-u) is ln(1 - u) without cancellation for small u.
            double x = -MEAN_PS * Math.log1p(-rng.nextDouble());
            PS[i] = Math.max(1L, Math.round(x));
            AS_DOUBLE[i] = PS[i];
        }
    }

    private HoldIncrements() {
    }

    /** Increment number {@code i} (taken modulo the table size) in picoseconds. */
    public static long ps(int i) {
        return PS[i & MASK];
    }

    /** The same increment as {@link #ps(int)}, as a double. */
    public static double asDouble(int i) {
        return AS_DOUBLE[i & MASK];
    }
}
