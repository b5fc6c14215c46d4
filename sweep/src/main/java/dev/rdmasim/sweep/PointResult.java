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
 * @param wallSeconds wall-clock seconds the point took (reported, never written to results.csv)
 */
public record PointResult(Point point, List<Metric> metrics, List<Metric> busy, double wallSeconds)
        implements Serializable {
    public PointResult {
        metrics = List.copyOf(metrics);
        busy = List.copyOf(busy);
    }

    /** A named figure with its unit. */
    public record Metric(String name, String unit, double value) implements Serializable {
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
}
