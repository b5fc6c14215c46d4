package dev.rdmasim.traces.validate;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.config.Profiles;
import dev.rdmasim.traces.pcie.PcieBench;
import dev.rdmasim.traces.perf.BwResult;
import dev.rdmasim.traces.perf.LatResult;
import dev.rdmasim.traces.perf.Perf;
import dev.rdmasim.traces.perf.PerfOptions;
import dev.rdmasim.traces.perf.PerfResult;
import dev.rdmasim.traces.perf.PerfTest;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/**
 * The model against published measurements of real adapters: each {@link Measurement} of the shipped table is run
 * on the profile and settings that describe its hardware, and the model's figure is set beside the hardware's with
 * the error and whether it is within the row's tolerance.
 */
public final class Validation {
    private static final String TABLE = "measurements.yaml";

    /**
     * Most iterations a curve point runs: the 1 MiB bandwidth rows' own count. A latency median is the same at 200
     * round trips as at perftest's 1000 (the model repeats itself once warm), and it keeps a curve to 64 KiB cheap.
     */
    public static final int CURVE_ITERATIONS = 200;

    /** Curves reach at least this size, whatever the rows' sizes (perftest's latency sweep shows the knee by then). */
    public static final int CURVE_MIN_TOP = 64 * 1024;

    /** Curves start at perftest's smallest size ({@code -a}), or lower when a row is smaller. */
    public static final int CURVE_BOTTOM = 2;

    /** The figures a measurement can name. */
    public enum Figure {
        /** perftest's t_typical: the median of half the round trip, in microseconds. */
        LAT_TYPICAL_US("lat_typical_us", "us"),
        /** perftest's BW average, in Gb/s. */
        BW_AVG_GBPS("bw_avg_gbps", "Gb/s"),
        /** Messages per second over the run, in millions. */
        MSG_RATE_MPPS("msg_rate_mpps", "Mpps"),
        /** The median latency of an idle DMA read, in nanoseconds (pcie-bench). */
        PCIE_READ_LAT_NS("pcie_read_lat_ns", "ns");

        private final String key;
        private final String unit;

        Figure(String key, String unit) {
            this.key = key;
            this.unit = unit;
        }

        public String key() {
            return key;
        }

        public String unit() {
            return unit;
        }

        static Figure of(String key) {
            for (Figure f : values()) {
                if (f.key.equals(key)) {
                    return f;
                }
            }
            throw new IllegalArgumentException("unknown figure '" + key + "'");
        }
    }

    /**
     * One published measurement.
     *
     * @param id        a short name, unique in the table
     * @param what      the hardware, the test and its conditions, in words
     * @param profile   the shipped profile that describes the hardware
     * @param set       parameter settings on top of it ({@code pcie.lanes=8})
     * @param test      {@code write_lat}, {@code send_bw}, ... or {@code pcie_read}
     * @param size      message (or DMA) size in bytes
     * @param inline    inline threshold in bytes for the perftest run, or -1 for the test's default
     * @param iterations iterations, or 0 for the test's default
     * @param figure    which figure the hardware value is
     * @param hardware  the measured value, in the figure's unit
     * @param tolerance the error allowed, in percent of the measured value
     * @param source    where the figure was published
     * @param calibrated the shipped profiles meet this row: leaving its tolerance is a regression
     */
    public record Measurement(String id, String what, String profile, List<String> set, String test, int size, int inline,
                              int iterations, Figure figure, double hardware, double tolerance, String source,
                              boolean calibrated) {
        public Measurement {
            Objects.requireNonNull(id, "id");
            set = List.copyOf(set);
            if (hardware <= 0 || tolerance <= 0) {
                throw new IllegalArgumentException(id + ": hardware value and tolerance must be positive");
            }
        }
    }

    /** A measurement and what the model gives for it. */
    public record Row(Measurement m, double model) {
        /** Model minus hardware, in percent of the hardware value. */
        public double errorPct() {
            return (model - m.hardware()) / m.hardware() * 100;
        }

        public boolean within() {
            return Math.abs(errorPct()) <= m.tolerance();
        }
    }

    private Validation() {
    }

    /** The shipped table, in its order. */
    public static List<Measurement> table() {
        try (InputStream in = Validation.class.getResourceAsStream(TABLE)) {
            if (in == null) {
                throw new IllegalStateException("the measurement table " + TABLE + " is missing from the build");
            }
            ObjectMapper yaml = new ObjectMapper(new YAMLFactory()).configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);
            List<Raw> raw = yaml.readValue(in, new TypeReference<List<Raw>>() { });
            List<Measurement> out = new ArrayList<>();
            for (Raw r : raw) {
                out.add(new Measurement(r.id, r.what, r.profile, r.set == null ? List.of() : r.set, r.test, r.size,
                        r.inline == null ? -1 : r.inline, r.iterations == null ? 0 : r.iterations, Figure.of(r.figure),
                        r.hardware, r.tolerance, r.source, r.calibrated));
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the measurement table " + TABLE, e);
        }
    }

    /** The YAML row as written. */
    static final class Raw {
        public String id;
        public String what;
        public String profile;
        public List<String> set;
        public String test;
        public int size;
        public Integer inline;
        public Integer iterations;
        public String figure;
        public double hardware;
        public double tolerance;
        public String source;
        public boolean calibrated;
    }

    /**
     * The profile a row runs on: its shipped profile, its own settings, then {@code extra} ({@code KEY=VALUE}).
     *
     * @throws dev.rdmasim.adapter.config.ProfileException for an unknown key, a bad value or a key set twice
     */
    public static Profile profile(Measurement m, List<String> extra) {
        Profile p = Profiles.load(m.profile()).withOverrides(m.set());
        return extra.isEmpty() ? p : p.withOverrides(extra);
    }

    /** Runs one measurement's setup on the model (seed 1: the same figure every time). */
    public static Row run(Measurement m) {
        return run(m, List.of());
    }

    /**
     * Runs one measurement's setup with further settings applied after the row's own ({@code KEY=VALUE}, as
     * {@code --set}): what the figure would be on a changed adapter or host.
     */
    public static Row run(Measurement m, List<String> extra) {
        Profile p = profile(m, extra);
        if (m.test().equals("pcie_read")) {
            if (m.figure() != Figure.PCIE_READ_LAT_NS) {
                throw new IllegalArgumentException(m.id() + ": pcie_read gives " + Figure.PCIE_READ_LAT_NS.key());
            }
            var opts = new PcieBench.Options(PcieBench.Test.PCIE_READ, m.size(),
                    m.iterations() > 0 ? m.iterations() : PcieBench.DEFAULT_ITERATIONS, 0, 1);
            return new Row(m, PcieBench.run(p, opts).latNsMedian());
        }
        PerfTest test = PerfTest.valueOf(m.test().toUpperCase(Locale.ROOT));
        PerfOptions.Builder b = PerfOptions.builder(test, p).size(m.size());
        if (m.iterations() > 0) {
            b.iterations(m.iterations());
        }
        if (m.inline() >= 0) {
            b.inlineSize(m.inline());
        }
        PerfResult r = Perf.run(b.build()).get(0);
        double v = switch (m.figure()) {
            case LAT_TYPICAL_US -> ((LatResult) r).tTypicalUs();
            case BW_AVG_GBPS -> ((BwResult) r).bwAvgGbps();
            case MSG_RATE_MPPS -> ((BwResult) r).msgRateMpps();
            case PCIE_READ_LAT_NS -> throw new IllegalArgumentException(m.id() + ": only pcie_read gives that figure");
        };
        return new Row(m, v);
    }

    /**
     * Rows that measured one setup at several sizes: same hardware (the id's first word: {@code cx4-send-lat-32} is
     * {@code cx4}), profile, settings, test, inline threshold and figure. Only the figures that vary with message
     * size along a curve are grouped: {@link Figure#LAT_TYPICAL_US} and {@link Figure#BW_AVG_GBPS}.
     *
     * @param rows the group's measurements, in table order
     */
    public record Group(String hardware, String profile, List<String> set, String test, int inline, Figure figure,
                        List<Measurement> rows) {
        public Group {
            set = List.copyOf(set);
            rows = List.copyOf(rows);
        }

        /** The legend's name of the group: {@code cx4 send_lat}. */
        public String label() {
            return hardware + " " + test;
        }

        /**
         * The sizes its curve runs: every power of two from {@value #CURVE_BOTTOM} B (or the smallest row's size) to
         * the largest row's size, and at least to {@value #CURVE_MIN_TOP} B, and each row's own size.
         */
        public List<Integer> sizes() {
            int lo = CURVE_BOTTOM;
            int hi = CURVE_MIN_TOP;
            TreeSet<Integer> out = new TreeSet<>();
            for (Measurement m : rows) {
                lo = Math.min(lo, m.size());
                hi = Math.max(hi, m.size());
                out.add(m.size());
            }
            for (long s = Integer.highestOneBit(Math.max(1, lo)); s <= hi; s *= 2) {
                if (s >= lo) {
                    out.add((int) s);
                }
            }
            return List.copyOf(out);
        }

        /**
         * Iterations of a curve point between the rows' sizes: the rows' own (the test's default where a row has
         * none), at most {@value #CURVE_ITERATIONS}.
         */
        public int iterations() {
            int n = CURVE_ITERATIONS;
            for (Measurement m : rows) {
                n = Math.min(n, m.iterations() > 0 ? m.iterations()
                        : PerfOptions.defaultIterations(PerfTest.valueOf(test.toUpperCase(Locale.ROOT))));
            }
            return n;
        }
    }

    /**
     * A group's setup run over message sizes.
     *
     * @param sizes message sizes in bytes, ascending
     * @param model the model's figure at each size; at a row's size it is that row's figure
     */
    public record Curve(Group group, List<Integer> sizes, List<Double> model) {
        public Curve {
            sizes = List.copyOf(sizes);
            model = List.copyOf(model);
            if (sizes.size() != model.size()) {
                throw new IllegalArgumentException("a curve needs one figure per size");
            }
        }
    }

    /** The hardware's short name: the first word of a row's id ({@code cx5-write-lat-8} is {@code cx5}). */
    public static String hardware(Measurement m) {
        int dash = m.id().indexOf('-');
        return dash > 0 ? m.id().substring(0, dash) : m.id();
    }

    /**
     * The measurements that lie on one curve, grouped as {@link Group} says, in the order of each group's first row.
     * Rows of other figures (message rate, DMA read latency) belong to no group.
     */
    public static List<Group> groups(List<Measurement> ms) {
        Map<List<Object>, List<Measurement>> by = new LinkedHashMap<>();
        for (Measurement m : ms) {
            if (m.figure() != Figure.LAT_TYPICAL_US && m.figure() != Figure.BW_AVG_GBPS) {
                continue;
            }
            by.computeIfAbsent(List.of(hardware(m), m.profile(), m.set(), m.test(), m.inline(), m.figure()),
                    k -> new ArrayList<>()).add(m);
        }
        List<Group> out = new ArrayList<>();
        for (List<Measurement> g : by.values()) {
            Measurement m = g.get(0);
            out.add(new Group(hardware(m), m.profile(), m.set(), m.test(), m.inline(), m.figure(), g));
        }
        return out;
    }

    /**
     * The model's curve of every group of {@code rows} ({@link #groups}), with {@code extra} settings as in
     * {@link #run(Measurement, List)}: each size between the rows' runs the group's setup with
     * {@link Group#iterations()} (seed 1, as the rows), and each row's size takes that row's figure.
     */
    public static List<Curve> curves(List<Row> rows, List<String> extra) {
        Map<Measurement, Double> done = new LinkedHashMap<>();
        for (Row r : rows) {
            done.put(r.m(), r.model());
        }
        List<Curve> out = new ArrayList<>();
        for (Group g : groups(rows.stream().map(Row::m).toList())) {
            List<Integer> sizes = g.sizes();
            List<Double> model = new ArrayList<>();
            Measurement first = g.rows().get(0);
            for (int size : sizes) {
                Measurement at = g.rows().stream().filter(m -> m.size() == size).findFirst().orElse(null);
                if (at != null) {
                    model.add(done.get(at));
                } else {
                    Measurement point = new Measurement(first.id() + "@" + size, first.what(), g.profile(), g.set(),
                            g.test(), size, g.inline(), g.iterations(), g.figure(), first.hardware(),
                            first.tolerance(), first.source(), false);
                    model.add(run(point, extra).model());
                }
            }
            out.add(new Curve(g, sizes, model));
        }
        return out;
    }

    /** The rows as a Markdown report: hardware and model side by side, the error, and the verdict. */
    public static String markdown(List<Row> rows) {
        StringBuilder sb = new StringBuilder();
        long ok = rows.stream().filter(Row::within).count();
        sb.append("# rdmasim against published measurements\n\n");
        sb.append(ok).append(" of ").append(rows.size()).append(" figures within their tolerance.\n\n");
        sb.append("| id | measurement | profile and settings | figure | hardware | model | error | tolerance | verdict |\n");
        sb.append("|---|---|---|---|---:|---:|---:|---:|---|\n");
        for (Row r : rows) {
            Measurement m = r.m();
            sb.append("| ").append(m.id()).append(" | ").append(m.what()).append(" | ").append(m.profile());
            for (String s : m.set()) {
                sb.append(", `").append(s).append('`');
            }
            sb.append(" | ").append(m.figure().key()).append(" | ").append(num(m.hardware())).append(' ')
                    .append(m.figure().unit()).append(" | ").append(num(r.model())).append(' ').append(m.figure().unit())
                    .append(" | ").append(String.format(Locale.US, "%+.1f %%", r.errorPct())).append(" | ")
                    .append(String.format(Locale.US, "%.0f %%", m.tolerance())).append(" | ")
                    .append(r.within() ? "ok" : "OUT").append(" |\n");
        }
        sb.append("\nSources:\n\n");
        for (Row r : rows) {
            sb.append("- ").append(r.m().id()).append(": ").append(r.m().source()).append('\n');
        }
        return sb.toString();
    }

    private static String num(double v) {
        return String.format(Locale.US, v >= 100 ? "%.0f" : "%.3f", v);
    }
}
