package dev.rdmasim.sweep;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * What limits a run, by one rule everything that names it uses (the sweep's results and report, {@code rdmasim
 * perf}): the busiest block when it is busy at least half the time ({@link #LIMITING} of it); otherwise the bounded
 * resource that is at its limit the largest fraction of the time, when that is at least half (requests wait on a
 * full window, tag pool, queue... although no block is busy); otherwise nothing holds the rate down and the run is
 * <em>latency-bound</em>: its requests wait on round trips.
 *
 * @param kind     which of the three
 * @param block    the busiest block's path (kind BLOCK or LATENCY; null when no block was measured) or the bound's
 *                 block (kind BOUND)
 * @param what     what is full (kind BOUND), else null
 * @param bound    the bound's fraction statistic, {@code nicA.fetch.prefetchFullFraction} (kind BOUND), else null
 * @param fraction the busy fraction (BLOCK, LATENCY) or full fraction (BOUND)
 */
public record Limit(Kind kind, String block, String what, String bound, double fraction) {
    /** A block busy, or a bound full, at least this fraction of the time limits the run. */
    public static final double LIMITING = 0.5;

    /** What kind of limit. */
    public enum Kind {
        /** A block busy at least half the time. */
        BLOCK,
        /** A bounded resource at its limit at least half the time. */
        BOUND,
        /** Neither: the run waits on latency. */
        LATENCY;

        /** Lower case, for JSON. */
        public String key() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * The rule.
     *
     * @param busiest the busiest block's path, or null when none was measured
     * @param busy    its busy fraction
     * @param fullest the bound with the highest full fraction, or null when none was measured
     */
    public static Limit of(String busiest, double busy, PointResult.Bound fullest) {
        if (busiest != null && busy >= LIMITING) {
            return new Limit(Kind.BLOCK, busiest, null, null, busy);
        }
        if (fullest != null && fullest.fraction() >= LIMITING) {
            return new Limit(Kind.BOUND, fullest.block(), fullest.what(), fullest.key(), fullest.fraction());
        }
        return new Limit(Kind.LATENCY, busiest, null, null, busy);
    }

    /**
     * One word for a table cell: the busy block's path ({@code wire.aToB}), the bound's statistic
     * ({@code nicA.tx.fullFraction}) or {@code latency}.
     */
    public String key() {
        return switch (kind) {
            case BLOCK -> block;
            case BOUND -> bound;
            case LATENCY -> "latency";
        };
    }

    /** The rule applied to one run's busy fractions and bounds (the busiest and the fullest, first of equals). */
    public static Limit of(java.util.List<PointResult.Metric> busy, java.util.List<PointResult.Bound> bounds) {
        PointResult.Metric block = null;
        for (PointResult.Metric m : busy) {
            if (block == null || m.value() > block.value()) {
                block = m;
            }
        }
        PointResult.Bound bound = null;
        for (PointResult.Bound b : bounds) {
            if (bound == null || b.fraction() > bound.fraction()) {
                bound = b;
            }
        }
        return of(block == null ? null : block.name(), block == null ? 0 : block.value(), bound);
    }

    /**
     * In words: {@code nicA.tx busy 97.3 % of the time}, {@code nicA.fetch: prefetch window full 93.0 % of the
     * time}, or {@code latency-bound (busiest nicA.tx busy 12.0 % of the time)}.
     */
    public String describe() {
        return switch (kind) {
            case BLOCK -> block + " busy " + percent(fraction) + " of the time";
            case BOUND -> block + ": " + what + " full " + percent(fraction) + " of the time";
            case LATENCY -> block == null ? "latency-bound"
                    : "latency-bound (busiest " + block + " busy " + percent(fraction) + " of the time)";
        };
    }

    /** A fraction as a percentage with one decimal, the same in every locale: {@code 0.9731 -> 97.3 %}. */
    public static String percent(double fraction) {
        return new BigDecimal(fraction * 100).setScale(1, RoundingMode.HALF_EVEN).toPlainString() + " %";
    }
}
