package dev.rdmasim.sweep;

import dev.rdmasim.adapter.config.Parameters;
import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.config.ProfileException;
import dev.rdmasim.adapter.config.Profiles;
import dev.rdmasim.traces.format.TraceChecker;
import dev.rdmasim.traces.format.TraceError;
import dev.rdmasim.traces.format.TraceLine;
import dev.rdmasim.traces.format.TraceReader;
import dev.rdmasim.traces.perf.PerfArgs;
import dev.rdmasim.traces.perf.PerfTest;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A whole sweep: swept parameters with their values, the workload, base profile, fixed overrides, seed and
 * repetitions. Every instance is checked through and through: keys known and fit for the workload, values valid,
 * no key given twice, and every point's profile, perf flags or QP values valid; so nothing is run before all is
 * known to be runnable. A mistake is a {@link SweepSpecException} naming the key or the point.
 *
 * <p>Points are the cartesian product of the values, the first key outermost and the last varying fastest, each
 * repeated {@code repeat} times with seeds {@code seed}, {@code seed + 1}, ... (repetitions innermost);
 * {@link Point#index()} counts them in that order.
 *
 * @param params      swept keys and their values, outermost first
 * @param workload    what every point runs
 * @param profile     the base profile: a built-in name, or a file's path as given (then {@code profileText} is its text)
 * @param profileText the profile file's text, or null for a built-in profile
 * @param overrides   fixed {@code key=value} profile overrides every point shares
 * @param seed        the seed of every point's first repetition
 * @param repeat      runs per point, at least 1
 */
public record SweepSpec(List<Param> params, Workload workload, String profile, String profileText,
        List<String> overrides, long seed, int repeat) {
    /** Most points (repetitions counted) one sweep may have. */
    public static final int MAX_POINTS = 1_000_000;

    /** A swept key and its values, as written (ranges expanded). */
    public record Param(String key, List<String> values) {
        public Param {
            Objects.requireNonNull(key, "key");
            values = List.copyOf(values);
        }
    }

    public SweepSpec {
        params = List.copyOf(params);
        overrides = List.copyOf(overrides);
        Objects.requireNonNull(workload, "workload");
        Objects.requireNonNull(profile, "profile");
        if (repeat < 1) {
            throw new SweepSpecException("repeat must be at least 1, got " + repeat);
        }
        check(params, workload, profile, profileText, overrides, seed, repeat);
    }

    /** Points of the sweep, repetitions included. */
    public int size() {
        return combinations(params) * repeat;
    }

    /** The swept keys, outermost first. */
    public List<String> keys() {
        return params.stream().map(Param::key).toList();
    }

    /** Every point in index order. */
    public List<Point> points() {
        List<Point> out = new ArrayList<>(size());
        for (List<String> values : combinationsOf(params)) {
            for (int r = 0; r < repeat; r++) {
                out.add(point(out.size(), values, r));
            }
        }
        return out;
    }

    private Point point(int index, List<String> values, int r) {
        return new Point(index, keys(), values, workload, profile, profileText, overrides, r, seed + r);
    }

    /**
     * The sweep as {@code sweep.json} and {@code results.json} describe it: what identifies it (the trace and a
     * profile file by their SHA-256), in a fixed order.
     */
    public Map<String, Object> description() {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("format", "rdmasim-sweep 1");
        Map<String, Object> w = new LinkedHashMap<>();
        if (workload.isPerf()) {
            w.put("perf", workload.perfTest());
            w.put("flags", workload.perfArgs());
        } else {
            w.put("trace", workload.traceName());
            w.put("trace_sha256", sha256(workload.traceText()));
        }
        d.put("workload", w);
        d.put("profile", profile);
        if (profileText != null) {
            d.put("profile_sha256", sha256(profileText));
        }
        d.put("set", overrides);
        d.put("seed", seed);
        d.put("repeat", repeat);
        List<Object> ps = new ArrayList<>();
        for (Param p : params) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("key", p.key());
            m.put("values", p.values());
            ps.add(m);
        }
        d.put("params", ps);
        d.put("points", size());
        return d;
    }

    /** SHA-256 of {@link #description()}: equal for the same sweep, different for any other. */
    public String fingerprint() {
        return sha256(Json.write(description()));
    }

    static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }

    // ------------------------------------------------------------------ checks

    private static void check(List<Param> params, Workload workload, String profile, String profileText,
            List<String> overrides, long seed, int repeat) {
        Map<String, String> fixedFlags = Map.of();
        try {
            if (workload.isPerf()) {
                PerfTest.fromLabel(workload.perfTest());
                fixedFlags = PerfArgs.values(workload.perfArgs());
            } else {
                checkTrace(workload);
            }
        } catch (IllegalArgumentException e) {
            throw new SweepSpecException(e.getMessage(), e);
        }
        Profile base;
        try {
            base = PointSetup.baseProfile(profile, profileText);
            base.withOverrides(overrides);
        } catch (IllegalArgumentException e) {
            throw new SweepSpecException(e.getMessage(), e);
        }
        Map<String, String> claimed = new LinkedHashMap<>();
        for (String flag : fixedFlags.keySet()) {
            claimed.put("flag " + flag, "the perf flags");
        }
        for (String o : overrides) {
            int eq = o.indexOf('=');
            claimed.put("profile " + o.substring(0, eq).trim(), "the fixed overrides");
        }
        for (Param p : params) {
            SweepKey k = key(p.key(), workload.isPerf());
            String id = switch (k.kind()) {
                case PROFILE -> "profile " + k.key();
                case PERF_FLAG -> "flag " + k.perfFlag();
                case QP -> k.perfFlag() != null ? "flag " + k.perfFlag() : "qp " + k.qpLineKey();
            };
            String by = claimed.put(id, "the swept key " + p.key());
            if (by != null) {
                throw new SweepSpecException(p.key() + " is swept, but " + by + " already set"
                        + (id.startsWith("flag ") ? " " + id.substring(5) : " it"));
            }
            if (p.values().isEmpty()) {
                throw new SweepSpecException(p.key() + ": no values");
            }
            for (String v : p.values()) {
                try {
                    k.checkValue(v);
                } catch (IllegalArgumentException e) {
                    throw new SweepSpecException(e.getMessage(), e);
                }
            }
        }
        long points = (long) combinations(params) * repeat;
        if (combinations(params) < 0 || points > MAX_POINTS) {
            throw new SweepSpecException("the sweep has more than " + MAX_POINTS + " points");
        }
        List<String> keys = params.stream().map(Param::key).toList();
        int index = 0;
        for (List<String> values : combinationsOf(params)) {
            Point pt = new Point(index, keys, values, workload, profile, profileText, overrides, 0, seed);
            try {
                PointSetup.of(pt, base).check(pt);
            } catch (IllegalArgumentException e) {
                throw new SweepSpecException("point " + index + " (" + pt.describe() + "): " + e.getMessage(), e);
            }
            index += repeat;
        }
    }

    private static SweepKey key(String key, boolean perf) {
        try {
            return SweepKey.of(key, perf);
        } catch (IllegalArgumentException e) {
            throw new SweepSpecException(e.getMessage(), e);
        }
    }

    /**
     * The trace must be valid, and self-contained: its text travels to whatever machine runs a point, so a host line
     * may name a built-in profile but not a profile file.
     */
    private static void checkTrace(Workload w) {
        try (TraceReader r = new TraceReader(new StringReader(w.traceText()), w.traceName())) {
            for (TraceLine l = r.next(); l != null && l.keyword().equals("host"); l = r.next()) {
                if (l.has("profile") && !Profiles.names().contains(l.text("profile"))) {
                    throw new SweepSpecException(l.position("profile") + ": a swept trace's hosts take built-in "
                            + "profiles (" + String.join(", ", Profiles.names()) + "), not the file '"
                            + l.text("profile") + "': give it as the sweep's profile instead");
                }
            }
            TraceChecker.check(new StringReader(w.traceText()), w.traceName(), null);
        } catch (TraceError e) {
            throw new SweepSpecException(e.getMessage(), e);
        }
    }

    /** Number of value combinations, or -1 when above {@link #MAX_POINTS}. */
    private static int combinations(List<Param> params) {
        long n = 1;
        for (Param p : params) {
            n *= Math.max(1, p.values().size());
            if (n > MAX_POINTS) {
                return -1;
            }
        }
        return (int) n;
    }

    /** The cartesian product, the last key varying fastest. */
    private static List<List<String>> combinationsOf(List<Param> params) {
        List<List<String>> out = new ArrayList<>();
        int n = combinations(params);
        int[] at = new int[params.size()];
        for (int c = 0; c < n; c++) {
            List<String> values = new ArrayList<>(params.size());
            for (int k = 0; k < params.size(); k++) {
                values.add(params.get(k).values().get(at[k]));
            }
            out.add(values);
            for (int k = params.size() - 1; k >= 0; k--) {
                if (++at[k] < params.get(k).values().size()) {
                    break;
                }
                at[k] = 0;
            }
        }
        return out;
    }

    // ------------------------------------------------------------------ building

    /** A perf workload's sweep: {@code test} with the flags every point shares. */
    public static Builder perf(String test, List<String> flags) {
        return new Builder(Workload.perf(test, flags));
    }

    /** A trace workload's sweep: the trace file's text goes with every point. */
    public static Builder trace(Path file) {
        try {
            return new Builder(Workload.trace(file.getFileName().toString(),
                    Files.readString(file, StandardCharsets.UTF_8)));
        } catch (IOException e) {
            throw new SweepSpecException("cannot read the trace " + file + " (" + e.getClass().getSimpleName() + ": "
                    + e.getMessage() + ")", e);
        }
    }

    /** Collects a sweep from a command line or a file; {@link #build()} checks it all. */
    public static final class Builder {
        private final Workload workload;
        private final List<Param> params = new ArrayList<>();
        private String profile = "default";
        private String profileText;
        private final List<String> overrides = new ArrayList<>();
        private long seed = 1;
        private int repeat = 1;

        Builder(Workload workload) {
            this.workload = workload;
        }

        /** A swept key with its values in the list-and-range syntax of {@link ValueList}. */
        public Builder param(String key, String values) {
            SweepKey k = checkKey(key);
            List<String> parsed;
            try {
                parsed = ValueList.parse(values);
            } catch (IllegalArgumentException e) {
                throw new SweepSpecException(key + ": " + e.getMessage(), e);
            }
            return add(k, parsed);
        }

        /** A swept key with its values one by one (each a value or a range). */
        public Builder param(String key, List<String> items) {
            SweepKey k = checkKey(key);
            List<String> parsed;
            try {
                parsed = ValueList.parse(items);
            } catch (IllegalArgumentException e) {
                throw new SweepSpecException(key + ": " + e.getMessage(), e);
            }
            return add(k, parsed);
        }

        /** Values are checked one by one here already, so that a file can say on which line a bad one is. */
        private Builder add(SweepKey k, List<String> values) {
            for (String v : values) {
                try {
                    k.checkValue(v);
                } catch (IllegalArgumentException e) {
                    throw new SweepSpecException(e.getMessage(), e);
                }
            }
            params.add(new Param(k.key(), values));
            return this;
        }

        /** {@code KEY=VALUES}, as {@code --param} takes it. */
        public Builder param(String assignment) {
            int eq = assignment.indexOf('=', assignment.startsWith("-") ? 1 : 0);
            if (eq <= 0) {
                throw new SweepSpecException("expected KEY=VALUES (e.g. qp.inlineDataSize=0,64,128 or -s=64..4096*4), "
                        + "got '" + assignment + "'");
            }
            return param(assignment.substring(0, eq).strip(), assignment.substring(eq + 1));
        }

        private SweepKey checkKey(String key) {
            SweepKey k = key(key, workload.isPerf());
            for (Param p : params) {
                if (p.key().equals(key)) {
                    throw new SweepSpecException(key + " is swept twice");
                }
            }
            return k;
        }

        /**
         * The base profile: a built-in name, or a YAML file (relative paths against {@code baseDir}, or the working
         * directory when null) whose text goes with every point.
         */
        public Builder profile(String nameOrPath, Path baseDir) {
            if (Profiles.names().contains(nameOrPath)) {
                profile = nameOrPath;
                profileText = null;
                return this;
            }
            if (!(nameOrPath.endsWith(".yaml") || nameOrPath.endsWith(".yml") || nameOrPath.contains("/")
                    || nameOrPath.contains("\\"))) {
                // The profile system's own message: unknown name, valid names.
                try {
                    Profiles.resolve(nameOrPath);
                } catch (IllegalArgumentException e) {
                    throw new SweepSpecException(e.getMessage(), e);
                }
            }
            Path file = baseDir == null ? Path.of(nameOrPath) : baseDir.resolve(nameOrPath);
            try {
                profileText = Files.readString(file, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new SweepSpecException("cannot read the profile file " + file + " (" + e.getClass().getSimpleName()
                        + ": " + e.getMessage() + ")", e);
            }
            profile = nameOrPath;
            return this;
        }

        /**
         * A fixed {@code key=value} profile override every point shares (after the base profile, before swept keys).
         * The key and the value on its own are checked here; the rules across parameters when the sweep is built.
         */
        public Builder set(String assignment) {
            int eq = assignment.indexOf('=');
            if (eq <= 0) {
                throw new SweepSpecException("'" + assignment + "' is not key=value (e.g. pcie.mps=512)");
            }
            String key = assignment.substring(0, eq).strip();
            try {
                if (Parameters.byKey(key) == null) {
                    throw new SweepSpecException("unknown parameter '" + key + "'; closest: "
                            + String.join(", ", Parameters.closest(key)));
                }
                Parameters.byKey(key).parse(assignment.substring(eq + 1).strip());
            } catch (ProfileException e) {
                throw new SweepSpecException(e.getMessage(), e);
            }
            overrides.add(assignment);
            return this;
        }

        public Builder seed(long v) {
            seed = v;
            return this;
        }

        public Builder repeat(int v) {
            repeat = v;
            return this;
        }

        public SweepSpec build() {
            return new SweepSpec(params, workload, profile, profileText, overrides, seed, repeat);
        }
    }
}
