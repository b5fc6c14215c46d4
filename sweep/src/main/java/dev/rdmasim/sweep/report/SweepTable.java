package dev.rdmasim.sweep.report;

import dev.rdmasim.adapter.config.ValueType;
import dev.rdmasim.sweep.Limit;
import dev.rdmasim.sweep.PointResult;
import dev.rdmasim.sweep.PointResult.Metric;
import dev.rdmasim.sweep.SweepResults;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A sweep's results as a table the plots and the report read: one row per point and message size, with each
 * metric's mean, min and max over the point's repetitions, the point's bottleneck block and what limits it.
 *
 * <p>Axes are the swept keys plus, when points ran several message sizes (metric names suffixed
 * {@code _<bytes>B}), a message size axis taken from the suffixes. Only axes with more than one value are
 * <em>dimensions</em>: the others are constants of the sweep.
 */
final class SweepTable {
    /** What a swept key means, for picking plot axes and report rules. */
    enum Role {
        SIZE, DEPTH, INLINE, OTHER
    }

    /** The metric name suffix of a point that ran several message sizes. */
    private static final Pattern SIZE_SUFFIX = Pattern.compile("^(.+)_(\\d+)B$");

    /** Name of the synthetic axis made from metric name suffixes. */
    static final String SIZE_AXIS = "message size";

    /**
     * One axis of the table.
     *
     * @param index   position of this axis's value in {@link Row#coords()}
     * @param key     the swept key as written ({@value #SIZE_AXIS} for the suffix axis)
     * @param role    what the key means
     * @param values  distinct values: in the sweep's order for keys, ascending for suffix sizes
     * @param numbers each value as a number (bytes, times, rates parsed to base units), or null when one is not
     */
    record Axis(int index, String key, Role role, List<String> values, double[] numbers) {
        boolean numeric() {
            return numbers != null;
        }

        /** In words, for titles. */
        String name() {
            return switch (role) {
                case SIZE -> "message size";
                case DEPTH -> "queue depth";
                case INLINE -> "inline size";
                case OTHER -> key;
            };
        }

        /** Axis title with its unit. */
        String label() {
            return switch (role) {
                case SIZE, INLINE -> name() + " (B)";
                case DEPTH -> "initiator queue depth (WQEs)";
                case OTHER -> key;
            };
        }

        /** Short name for file names and legends. */
        String slug() {
            return switch (role) {
                case SIZE -> "size";
                case DEPTH -> "depth";
                case INLINE -> "inline";
                case OTHER -> Num.slug(key);
            };
        }

        /** The values in ascending numeric order when numeric, else as given. */
        List<String> ordered() {
            if (!numeric()) {
                return values;
            }
            List<String> out = new ArrayList<>(values);
            out.sort(Comparator.comparingDouble(this::number));
            return out;
        }

        double number(String value) {
            int i = values.indexOf(value);
            if (numbers == null || i < 0) {
                throw new IllegalStateException(key + " has no numeric value " + value);
            }
            return numbers[i];
        }
    }

    /** Mean, min and max of one metric over a point's repetitions that reported it. */
    record Stat(double mean, double min, double max, int n) {
        boolean spread() {
            return max > min;
        }
    }

    /**
     * One point (all repetitions) at one message size.
     *
     * @param coords     this row's value on every axis
     * @param metrics    metric base name to its statistics, in the workload's metric order
     * @param bottleneck the block with the highest mean busy fraction, or null when none was measured
     * @param busy       that block's mean busy fraction
     * @param repeats    how many repetitions the point had
     * @param index      the point's index (of its first repetition)
     * @param limit      what limits the point ({@link Limit#of} on the mean busy and full fractions)
     */
    record Row(List<String> coords, Map<String, Stat> metrics, String bottleneck, double busy, int repeats,
            int index, Limit limit) {
        String coord(Axis a) {
            return coords.get(a.index());
        }

        Stat stat(String metric) {
            return metrics.get(metric);
        }
    }

    final SweepResults results;
    final List<Axis> axes;
    final List<Axis> dims;
    final List<Row> rows;
    /** Metric base names in first-seen order, with their units. */
    final Map<String, String> units;
    final int maxRepeats;

    SweepTable(SweepResults r) {
        this.results = r;
        this.units = new LinkedHashMap<>();
        // Group repetitions by their swept values, keeping the sweep's point order.
        Map<List<String>, List<PointResult>> points = new LinkedHashMap<>();
        TreeSet<Long> sizes = new TreeSet<>();
        for (PointResult pr : r.results()) {
            points.computeIfAbsent(pr.point().values(), k -> new ArrayList<>()).add(pr);
            for (Metric m : pr.metrics()) {
                Matcher mm = SIZE_SUFFIX.matcher(m.name());
                if (mm.matches()) {
                    sizes.add(Long.parseLong(mm.group(2)));
                    units.putIfAbsent(mm.group(1), m.unit());
                } else {
                    units.putIfAbsent(m.name(), m.unit());
                }
            }
        }
        List<Axis> ax = new ArrayList<>();
        for (int k = 0; k < r.keys().size(); k++) {
            String key = r.keys().get(k);
            List<String> vs = distinct(r.values().get(k));
            ax.add(new Axis(k, key, role(key), vs, numbers(vs)));
        }
        boolean sizeAxis = !sizes.isEmpty();
        if (sizeAxis) {
            List<String> vs = sizes.stream().map(String::valueOf).toList();
            ax.add(new Axis(ax.size(), SIZE_AXIS, Role.SIZE, vs, numbers(vs)));
        }
        this.axes = List.copyOf(ax);
        this.dims = ax.stream().filter(a -> a.values().size() > 1).toList();

        List<Row> out = new ArrayList<>();
        int reps = 0;
        for (List<PointResult> group : points.values()) {
            reps = Math.max(reps, group.size());
            Busy block = bottleneck(group);
            double busy = block == null ? 0 : block.fraction();
            String blockName = block == null ? null : block.block();
            Limit limit = Limit.of(blockName, busy, fullest(group));
            int index = group.get(0).point().index();
            List<String> base = group.get(0).point().values();
            if (sizeAxis) {
                // A row for every size, even one this point did not report: the report shows the gap.
                for (Long size : sizes) {
                    out.add(new Row(append(base, String.valueOf(size)), stats(group, size), blockName, busy,
                            group.size(), index, limit));
                }
            } else {
                out.add(new Row(base, stats(group, null), blockName, busy, group.size(), index, limit));
            }
        }
        this.rows = List.copyOf(out);
        this.maxRepeats = reps;
    }

    /** The first axis with {@code role} that is a dimension (more than one value), or null. */
    Axis dim(Role role) {
        return dims.stream().filter(a -> a.role() == role).findFirst().orElse(null);
    }

    /** The axis of message sizes taken from metric name suffixes, or null when no point ran several sizes. */
    Axis suffixSizes() {
        return axes.stream().filter(a -> a.key().equals(SIZE_AXIS)).findFirst().orElse(null);
    }

    /** Whether any row has a value for {@code metric}. */
    boolean has(String metric) {
        return rows.stream().anyMatch(row -> row.stat(metric) != null);
    }

    String unit(String metric) {
        return units.getOrDefault(metric, "");
    }

    static Role role(String key) {
        return switch (key) {
            case "-s", "--size" -> Role.SIZE;
            case "qp.initiatorQueueDepth", "-t", "--tx-depth" -> Role.DEPTH;
            case "qp.inlineDataSize", "-I", "--inline_size", "--inline-size" -> Role.INLINE;
            default -> Role.OTHER;
        };
    }

    private static List<String> distinct(List<String> values) {
        List<String> out = new ArrayList<>();
        for (String v : values) {
            if (!out.contains(v)) {
                out.add(v);
            }
        }
        return List.copyOf(out);
    }

    private static List<String> append(List<String> base, String value) {
        List<String> out = new ArrayList<>(base);
        out.add(value);
        return List.copyOf(out);
    }

    /** Every value as a number in base units, or null when one is not a number, byte size, time, rate or frequency. */
    static double[] numbers(List<String> values) {
        double[] out = new double[values.size()];
        for (int i = 0; i < out.length; i++) {
            Double d = number(values.get(i));
            if (d == null) {
                return null;
            }
            out[i] = d;
        }
        return out;
    }

    private static final List<ValueType<Long>> SCALED =
            List.of(ValueType.BYTES, ValueType.TIME, ValueType.RATE, ValueType.FREQUENCY);

    private static Double number(String text) {
        String t = text.trim();
        try {
            double d = Double.parseDouble(t);
            // "NaN", "Infinity" and hex floats parse but are not sweep values one can plot.
            return Double.isFinite(d) && t.toLowerCase(Locale.ROOT).matches("[-+0-9.e]+") ? d : null;
        } catch (NumberFormatException e) {
            // try the unit-carrying kinds
        }
        for (ValueType<Long> type : SCALED) {
            try {
                return (double) type.parse(t);
            } catch (IllegalArgumentException e) {
                // not this kind
            }
        }
        return null;
    }

    /** Statistics of every metric of the group at {@code size} (suffixed names), or of unsuffixed names when null. */
    private Map<String, Stat> stats(List<PointResult> group, Long size) {
        Map<String, double[]> acc = new LinkedHashMap<>(); // sum, min, max, n
        for (PointResult pr : group) {
            for (Metric m : pr.metrics()) {
                String name = m.name();
                if (size != null) {
                    Matcher mm = SIZE_SUFFIX.matcher(name);
                    if (!mm.matches() || Long.parseLong(mm.group(2)) != size) {
                        continue;
                    }
                    name = mm.group(1);
                }
                if (!Double.isFinite(m.value())) {
                    continue;
                }
                double[] a = acc.computeIfAbsent(name,
                        k -> new double[] {0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 0});
                a[0] += m.value();
                a[1] = Math.min(a[1], m.value());
                a[2] = Math.max(a[2], m.value());
                a[3]++;
            }
        }
        Map<String, Stat> out = new LinkedHashMap<>();
        acc.forEach((k, a) -> out.put(k, new Stat(a[0] / a[3], a[1], a[2], (int) a[3])));
        return out;
    }

    private record Busy(String block, double fraction) {
    }

    /** The block with the highest mean busy fraction over the repetitions (first of equals), or null. */
    private static Busy bottleneck(List<PointResult> group) {
        Map<String, Double> sum = new LinkedHashMap<>();
        for (PointResult pr : group) {
            for (Metric m : pr.busy()) {
                sum.merge(m.name(), m.value(), Double::sum);
            }
        }
        String best = null;
        double bestValue = 0;
        for (Map.Entry<String, Double> e : sum.entrySet()) {
            double mean = e.getValue() / group.size();
            if (best == null || mean > bestValue) {
                best = e.getKey();
                bestValue = mean;
            }
        }
        return best == null ? null : new Busy(best, bestValue);
    }

    /** The bounded resource with the highest mean full fraction over the repetitions (first of equals), or null. */
    private static PointResult.Bound fullest(List<PointResult> group) {
        Map<String, double[]> sum = new LinkedHashMap<>();
        Map<String, PointResult.Bound> first = new LinkedHashMap<>();
        for (PointResult pr : group) {
            for (PointResult.Bound b : pr.bounds()) {
                sum.computeIfAbsent(b.key(), k -> new double[1])[0] += b.fraction();
                first.putIfAbsent(b.key(), b);
            }
        }
        PointResult.Bound best = null;
        for (Map.Entry<String, double[]> e : sum.entrySet()) {
            double mean = e.getValue()[0] / group.size();
            if (best == null || mean > best.fraction()) {
                PointResult.Bound b = first.get(e.getKey());
                best = new PointResult.Bound(b.block(), b.name(), b.what(), mean);
            }
        }
        return best;
    }
}
