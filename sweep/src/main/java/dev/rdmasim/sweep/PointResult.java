package dev.rdmasim.sweep;

import java.io.Serializable;
import java.util.List;

/**
 * What one point produced. Everything but {@link #wallSeconds} is a function of the point alone, so equal
 * points give equal results on any machine, thread or executor.
 *
 * @param point       the point that ran
 * @param metrics     the workload's figures in a fixed order (perf: one set per message size, names suffixed
 *                    when the point ran several sizes; trace: the replay summary's figures)
 * @param busy        every block's busy fraction over the run, in the model's block order
 * @param bounds      every bounded resource's fraction of the run spent at its limit, in the model's block order
 * @param wallSeconds wall-clock seconds the point took (reported, never written to results.csv)
 */
public record PointResult(Point point, List<Metric> metrics, List<Metric> busy, List<Bound> bounds, double wallSeconds)
        implements Serializable {
    public PointResult {
        metrics = List.copyOf(metrics);
        busy = List.copyOf(busy);
        bounds = List.copyOf(bounds);
    }

    /** A result that measured no bounded resource. */
    public PointResult(Point point, List<Metric> metrics, List<Metric> busy, double wallSeconds) {
        this(point, metrics, busy, List.of(), wallSeconds);
    }

    /** A named figure with its unit. */
    public record Metric(String name, String unit, double value) implements Serializable {
    }

    /**
     * A bounded resource of a block and the fraction of the run it spent at its limit.
     *
     * @param block    the block's path ({@code nicA.fetch})
     * @param name     the statistic giving the fraction ({@code prefetchFullFraction})
     * @param what     what is full, in words ({@code prefetch window})
     * @param fraction time at the limit over the run's time, 0..1
     */
    public record Bound(String block, String name, String what, double fraction) implements Serializable {
        /** The statistic's full name, unique in a run: {@code nicA.fetch.prefetchFullFraction}. */
        public String key() {
            return block + "." + name;
        }
    }

    /** The block whose busy fraction is highest (the first of equals), or null when none was measured. */
    public Metric bottleneck() {
        Metric best = null;
        for (Metric m : busy) {
            if (best == null || m.value() > best.value()) {
                best = m;
            }
        }
        return best;
    }

    /** The bound with the highest full fraction (the first of equals), or null when none was measured. */
    public Bound fullest() {
        Bound best = null;
        for (Bound b : bounds) {
            if (best == null || b.fraction() > best.fraction()) {
                best = b;
            }
        }
        return best;
    }

    /** What limits this point: its busiest block, its fullest bound, or latency (see {@link Limit}). */
    public Limit limit() {
        return Limit.of(busy, bounds);
    }
}
