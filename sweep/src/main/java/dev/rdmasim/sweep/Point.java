package dev.rdmasim.sweep;

import java.io.Serializable;
import java.util.List;

/**
 * One point of a sweep, complete in itself: a worker runs it with nothing else.
 *
 * @param index    its place in the sweep's order (row order of the results)
 * @param keys     the swept parameters, in the sweep's order (profile keys, {@code qp.*} keys or perf flags)
 * @param values   this point's value of each key, as written in the sweep
 * @param workload what to run
 * @param profile  the base profile (a built-in name, or a file's text for remote workers; see {@link #profileText})
 * @param profileText the profile file's text when {@code profile} names a file, else null
 * @param overrides fixed {@code key=value} overrides every point shares, applied before the swept ones
 * @param repeat   which repetition of the point this is (0-based; the seed of repetition r is {@code seed + r})
 * @param seed     the seed of this run
 */
public record Point(int index, List<String> keys, List<String> values, Workload workload, String profile,
        String profileText, List<String> overrides, int repeat, long seed) implements Serializable {
    public Point {
        keys = List.copyOf(keys);
        values = List.copyOf(values);
        overrides = List.copyOf(overrides);
        if (keys.size() != values.size()) {
            throw new IllegalArgumentException(keys.size() + " keys but " + values.size() + " values");
        }
    }

    /** {@code key=value,...} for messages. */
    public String describe() {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < keys.size(); i++) {
            b.append(i == 0 ? "" : " ").append(keys.get(i)).append('=').append(values.get(i));
        }
        if (repeat > 0) {
            b.append(" repeat=").append(repeat);
        }
        return b.toString();
    }
}
