package dev.rdmasim.sweep;

import java.util.List;

/**
 * A finished sweep, as the results files, plots and report see it.
 *
 * @param keys    the swept parameters, outermost first (the cartesian product varies the last key fastest)
 * @param values  each key's values in the order given
 * @param workload what every point ran
 * @param profile the base profile's name
 * @param results one per point and repetition, in {@link Point#index()} order
 */
public record SweepResults(List<String> keys, List<List<String>> values, Workload workload, String profile,
        List<PointResult> results) {
    public SweepResults {
        keys = List.copyOf(keys);
        values = values.stream().map(List::copyOf).toList();
        results = List.copyOf(results);
    }
}
