package dev.rdmasim.sweep;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rdmasim.sweep.PointResult.Bound;
import dev.rdmasim.sweep.PointResult.Metric;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Runs a sweep into a directory, resumably:
 * <ul>
 * <li>{@code sweep.json}: the sweep's description and fingerprint, written first; a directory holding another
 * sweep is refused;</li>
 * <li>{@code points/NNNNNN.json}: each point's result, written as soon as it arrives (to a temporary name, then
 * moved into place), so an interrupted sweep continues where it stopped and runs only the missing points;</li>
 * <li>{@code results.csv} and {@code results.json} at the end, from all points in index order; then the finishers
 * (plots, report) run on the same results.</li>
 * </ul>
 * The final files hold no wall-clock value and format every number one way, so they are byte-identical whatever
 * the executor, its parallelism, and however often the sweep was interrupted and resumed.
 */
public final class Sweep {
    /** Written first into the output directory: what sweep it holds. */
    public static final String SPEC_FILE = "sweep.json";
    public static final String POINTS_DIR = "points";
    public static final String RESULTS_CSV = "results.csv";
    public static final String RESULTS_JSON = "results.json";
    private static final String LOCK_FILE = ".lock";
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private Sweep() {
    }

    /** Told after each point: points done (resumed ones included), of how many, and the pace of this run. */
    @FunctionalInterface
    public interface Progress {
        /**
         * @param pointsPerSecond points finished per wall-clock second by this run (NaN before the first)
         * @param secondsLeft     wall-clock seconds the remaining points should take at that pace (NaN if unknown)
         */
        void update(int done, int total, double pointsPerSecond, double secondsLeft);
    }

    /** Writes more outputs from the finished sweep into its directory: plots, a report. */
    @FunctionalInterface
    public interface Finisher {
        void write(Path dir, SweepResults results) throws IOException;
    }

    /**
     * What a run did.
     *
     * @param resumed     points found already done in the directory
     * @param ran         points this run executed
     * @param wallSeconds wall-clock seconds of this run
     */
    public record Outcome(SweepResults results, int resumed, int ran, double wallSeconds, Path csv, Path json) {
    }

    /**
     * Runs {@code spec} into {@code dir} on {@code executor}, skipping the points {@code dir} already holds.
     *
     * @throws SweepSpecException when {@code dir} holds another sweep, or another run is using it
     * @throws SweepFailure       when a point fails (points finished before stay in {@code dir} for a rerun)
     */
    public static Outcome run(SweepSpec spec, Path dir, PointExecutor executor, Progress progress,
            List<Finisher> finishers) throws IOException {
        long start = System.nanoTime();
        Files.createDirectories(dir);
        try (FileChannel lockFile = FileChannel.open(dir.resolve(LOCK_FILE), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE); FileLock lock = lock(lockFile, dir)) {
            String fingerprint = claim(spec, dir);
            List<Point> points = spec.points();
            PointResult[] results = new PointResult[points.size()];
            Path pointsDir = dir.resolve(POINTS_DIR);
            Files.createDirectories(pointsDir);
            removeTemporaries(pointsDir);
            List<Point> todo = new ArrayList<>();
            for (Point p : points) {
                results[p.index()] = load(pointsDir, p, fingerprint);
                if (results[p.index()] == null) {
                    todo.add(p);
                }
            }
            int resumed = points.size() - todo.size();
            progress.update(resumed, points.size(), Double.NaN, Double.NaN);
            if (!todo.isEmpty()) {
                long runStart = System.nanoTime();
                int[] ran = {0};
                executor.execute(todo, r -> {
                    Point p = r.point();
                    if (p.index() < 0 || p.index() >= points.size() || !p.equals(points.get(p.index()))
                            || results[p.index()] != null) {
                        throw new SweepFailure("the executor returned a result for a point it was not given: "
                                + p.index() + " (" + p.describe() + ")");
                    }
                    persist(pointsDir, r, fingerprint);
                    results[p.index()] = r;
                    ran[0]++;
                    double rate = ran[0] / ((System.nanoTime() - runStart) / 1e9);
                    int done = resumed + ran[0];
                    progress.update(done, points.size(), rate, (points.size() - done) / rate);
                });
            }
            for (PointResult r : results) {
                if (r == null) {
                    throw new SweepFailure("the executor returned without running every point");
                }
            }
            SweepResults sweep = new SweepResults(spec.keys(), spec.params().stream().map(SweepSpec.Param::values).toList(),
                    spec.workload(), spec.profile(), List.of(results));
            Path csv = dir.resolve(RESULTS_CSV);
            Path json = dir.resolve(RESULTS_JSON);
            writeAtomically(csv, csv(sweep));
            writeAtomically(json, json(spec, sweep));
            for (Finisher f : finishers) {
                f.write(dir, sweep);
            }
            return new Outcome(sweep, resumed, todo.size(), (System.nanoTime() - start) / 1e9, csv, json);
        }
    }

    private static FileLock lock(FileChannel channel, Path dir) throws IOException {
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        }
        if (lock == null) {
            throw new SweepSpecException("another sweep is running in " + dir);
        }
        return lock;
    }

    /**
     * Makes {@code dir} this sweep's: writes {@code sweep.json}, or checks that the one there is this sweep's.
     * Returns the fingerprint.
     */
    private static String claim(SweepSpec spec, Path dir) throws IOException {
        String fingerprint = spec.fingerprint();
        Path file = dir.resolve(SPEC_FILE);
        if (Files.exists(file)) {
            String found;
            try {
                found = MAPPER.readTree(file.toFile()).path("fingerprint").asText("");
            } catch (IOException e) {
                found = "";
            }
            if (!found.equals(fingerprint)) {
                throw new SweepSpecException(dir + " holds another sweep (its " + SPEC_FILE + " describes different "
                        + "parameters, values, workload, profile, seed or repeat): give another --out directory, or "
                        + "delete it to start over");
            }
            return fingerprint;
        }
        if (Files.exists(dir.resolve(POINTS_DIR)) || Files.exists(dir.resolve(RESULTS_CSV))) {
            throw new SweepSpecException(dir + " holds sweep outputs but no " + SPEC_FILE
                    + ": give another --out directory, or delete it to start over");
        }
        Map<String, Object> d = new LinkedHashMap<>(spec.description());
        d.put("fingerprint", fingerprint);
        writeAtomically(file, Json.write(d));
        return fingerprint;
    }

    private static Path pointFile(Path pointsDir, int index) {
        return pointsDir.resolve(String.format(Locale.US, "%06d.json", index));
    }

    private static void persist(Path pointsDir, PointResult r, String fingerprint) {
        Point p = r.point();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("fingerprint", fingerprint);
        m.put("index", p.index());
        m.put("values", p.values());
        m.put("repeat", p.repeat());
        m.put("seed", p.seed());
        m.put("metrics", metricList(r.metrics()));
        m.put("busy", metricList(r.busy()));
        m.put("bounds", boundList(r.bounds()));
        m.put("wall_s", r.wallSeconds());
        try {
            writeAtomically(pointFile(pointsDir, p.index()), Json.write(m));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot save the result of point " + p.index() + " in " + pointsDir, e);
        }
    }

    private static List<Object> metricList(List<Metric> metrics) {
        List<Object> out = new ArrayList<>();
        for (Metric x : metrics) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", x.name());
            m.put("unit", x.unit());
            m.put("value", x.value());
            out.add(m);
        }
        return out;
    }

    private static List<Object> boundList(List<Bound> bounds) {
        List<Object> out = new ArrayList<>();
        for (Bound x : bounds) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("block", x.block());
            m.put("name", x.name());
            m.put("what", x.what());
            m.put("value", x.fraction());
            out.add(m);
        }
        return out;
    }

    private static List<Bound> bounds(JsonNode list) {
        List<Bound> out = new ArrayList<>();
        for (JsonNode m : list) {
            if (!m.path("value").isNumber()) {
                throw new IllegalArgumentException("not a number: " + m);
            }
            out.add(new Bound(m.path("block").asText(), m.path("name").asText(), m.path("what").asText(),
                    m.path("value").doubleValue()));
        }
        return out;
    }

    /** A saved result of {@code p}, or null when there is none or it does not belong to this point and sweep. */
    private static PointResult load(Path pointsDir, Point p, String fingerprint) {
        Path file = pointFile(pointsDir, p.index());
        if (!Files.isRegularFile(file)) {
            return null;
        }
        try {
            JsonNode n = MAPPER.readTree(file.toFile());
            List<String> values = new ArrayList<>();
            n.path("values").forEach(v -> values.add(v.asText()));
            if (!n.path("fingerprint").asText("").equals(fingerprint) || n.path("index").asInt(-1) != p.index()
                    || !values.equals(p.values()) || n.path("seed").asLong() != p.seed()) {
                return null;
            }
            return new PointResult(p, metrics(n.path("metrics")), metrics(n.path("busy")), bounds(n.path("bounds")),
                    n.path("wall_s").asDouble());
        } catch (IOException | RuntimeException e) {
            // Unreadable: the point runs again and its file is replaced.
            return null;
        }
    }

    private static List<Metric> metrics(JsonNode list) {
        List<Metric> out = new ArrayList<>();
        for (JsonNode m : list) {
            if (!m.path("value").isNumber()) {
                throw new IllegalArgumentException("not a number: " + m);
            }
            out.add(new Metric(m.path("name").asText(), m.path("unit").asText(), m.path("value").doubleValue()));
        }
        return out;
    }

    private static void removeTemporaries(Path pointsDir) throws IOException {
        try (DirectoryStream<Path> s = Files.newDirectoryStream(pointsDir, "*.tmp")) {
            for (Path p : s) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** Writes {@code text} under a temporary name, then moves it into place: a reader never sees half a file. */
    static void writeAtomically(Path file, String text) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, text, StandardCharsets.UTF_8);
        try {
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (java.nio.file.AtomicMoveNotSupportedException e) {
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    // ------------------------------------------------------------------ results files

    /** Metric names over all results, in order of first appearance (index order), with their units. */
    static Map<String, String> metricColumns(SweepResults r) {
        Map<String, String> units = new LinkedHashMap<>();
        for (PointResult p : r.results()) {
            for (Metric m : p.metrics()) {
                units.putIfAbsent(m.name(), m.unit());
            }
        }
        return units;
    }

    /**
     * {@code results.csv}: a header of the swept keys, every metric, {@code seed}, {@code limited_by} and
     * {@code limit_fraction}; one row per point and repetition in index order; an empty cell where a point has no
     * such metric. The last two are the point's {@link PointResult#limit}: its {@link Limit#key} and fraction.
     */
    static String csv(SweepResults r) {
        Map<String, String> columns = metricColumns(r);
        StringBuilder b = new StringBuilder();
        List<String> header = new ArrayList<>(r.keys());
        header.addAll(columns.keySet());
        header.add("seed");
        header.add("limited_by");
        header.add("limit_fraction");
        row(b, header);
        for (PointResult p : r.results()) {
            List<String> cells = new ArrayList<>(p.point().values());
            Map<String, Double> byName = new LinkedHashMap<>();
            p.metrics().forEach(m -> byName.put(m.name(), m.value()));
            for (String c : columns.keySet()) {
                Double v = byName.get(c);
                cells.add(v == null ? "" : Json.number(v));
            }
            cells.add(Long.toString(p.point().seed()));
            Limit limit = p.limit();
            cells.add(limit.key() == null ? "" : limit.key());
            cells.add(limit.key() == null ? "" : Json.number(limit.fraction()));
            row(b, cells);
        }
        return b.toString();
    }

    private static void row(StringBuilder b, List<String> cells) {
        for (int i = 0; i < cells.size(); i++) {
            String c = cells.get(i);
            if (c.contains(",") || c.contains("\"") || c.contains("\n")) {
                c = "\"" + c.replace("\"", "\"\"") + "\"";
            }
            b.append(i == 0 ? "" : ",").append(c);
        }
        b.append('\n');
    }

    /**
     * {@code results.json}: the sweep's description, the metrics with their units, and one row per point and
     * repetition in index order with its values, seed, metrics, bottleneck block (the busiest), busy fractions, what
     * limits it ({@link Limit}) and the full fraction of every bounded resource.
     */
    static String json(SweepSpec spec, SweepResults r) {
        Map<String, Object> root = new LinkedHashMap<>();
        Map<String, Object> d = new LinkedHashMap<>(spec.description());
        d.put("fingerprint", spec.fingerprint());
        root.put("sweep", d);
        List<Object> metrics = new ArrayList<>();
        metricColumns(r).forEach((name, unit) -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", name);
            m.put("unit", unit);
            metrics.add(m);
        });
        root.put("metrics", metrics);
        List<Object> rows = new ArrayList<>();
        for (PointResult p : r.results()) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("index", p.point().index());
            Map<String, Object> values = new LinkedHashMap<>();
            for (int i = 0; i < r.keys().size(); i++) {
                values.put(r.keys().get(i), p.point().values().get(i));
            }
            row.put("values", values);
            row.put("repeat", p.point().repeat());
            row.put("seed", p.point().seed());
            Map<String, Object> m = new LinkedHashMap<>();
            p.metrics().forEach(x -> m.put(x.name(), x.value()));
            row.put("metrics", m);
            Metric bottleneck = p.bottleneck();
            row.put("bottleneck", bottleneck == null ? null : bottleneck.name());
            Map<String, Object> busy = new LinkedHashMap<>();
            p.busy().forEach(x -> busy.put(x.name(), x.value()));
            row.put("busy", busy);
            Limit limit = p.limit();
            Map<String, Object> limited = new LinkedHashMap<>();
            limited.put("kind", limit.kind().key());
            limited.put("block", limit.block());
            limited.put("what", limit.what());
            limited.put("bound", limit.bound());
            limited.put("fraction", limit.fraction());
            limited.put("text", limit.describe());
            row.put("limited_by", limited);
            Map<String, Object> full = new LinkedHashMap<>();
            p.bounds().forEach(x -> full.put(x.key(), x.fraction()));
            row.put("bounds", full);
            rows.add(row);
        }
        root.put("rows", rows);
        return Json.write(root);
    }
}
