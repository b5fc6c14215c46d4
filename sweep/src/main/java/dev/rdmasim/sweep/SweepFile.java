package dev.rdmasim.sweep;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.rdmasim.traces.format.Suggest;
import dev.rdmasim.traces.perf.PerfArgs;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A sweep written as YAML ({@code rdmasim sweep --file SWEEP.yaml}); docs/sweep.md has the schema:
 *
 * <pre>
 * workload:
 *   perf: write_bw            # or  trace: FILE  (relative to this file)
 *   flags: -s 64 -n 20000     # perf flags every point shares: a string or a list
 * profile: default            # a built-in name or a YAML file (relative to this file)
 * set:                        # fixed overrides every point shares
 *   host.pollTime: 10ns
 * seed: 1
 * repeat: 1
 * params:                     # in order: the first outermost, the last varying fastest
 *   qp.initiatorQueueDepth: 1..256*2
 *   qp.inlineDataSize: [0, 64]
 * </pre>
 *
 * Only {@code workload} is required (without {@code params}, the sweep is one point, repeated). A mistake is a {@link SweepSpecException} with the file
 * and line; an unknown key lists the valid ones.
 */
public final class SweepFile {
    private static final List<String> TOP = List.of("workload", "profile", "set", "seed", "repeat", "params");
    private static final List<String> WORKLOAD = List.of("perf", "flags", "trace");

    private SweepFile() {
    }

    /** The sweep {@code file} describes; relative paths in it are relative to its directory. */
    public static SweepSpec read(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new SweepSpecException("cannot read the sweep file " + file + " (" + e.getClass().getSimpleName()
                    + ": " + e.getMessage() + ")", e);
        }
        Path dir = file.toAbsolutePath().getParent();
        return parse(file.toString(), text, dir);
    }

    /** The sweep in {@code yaml}; {@code source} names it in errors, {@code dir} anchors its relative paths. */
    public static SweepSpec parse(String source, String yaml, Path dir) {
        MapNode root = read(source, new StringReader(yaml));
        for (String key : root.entries.keySet()) {
            known(source, root.keyLines.get(key), key, TOP, "");
        }
        MapNode workload = map(source, require(source, root, "workload"), "workload");
        for (String key : workload.entries.keySet()) {
            known(source, workload.keyLines.get(key), key, WORKLOAD, "workload.");
        }
        Node perf = workload.entries.get("perf");
        Node trace = workload.entries.get("trace");
        if ((perf == null) == (trace == null)) {
            throw error(source, workload.line, "workload takes perf: TEST or trace: FILE (one of them)");
        }
        SweepSpec.Builder b;
        if (perf != null) {
            b = at(source, perf.line(), () -> SweepSpec.perf(scalar(source, perf, "workload.perf").text,
                    flags(source, workload.entries.get("flags"))));
        } else {
            if (workload.entries.containsKey("flags")) {
                throw error(source, workload.entries.get("flags").line(), "flags are perf flags: a trace takes none");
            }
            Path traceFile = dir.resolve(scalar(source, trace, "workload.trace").text);
            b = at(source, trace.line(), () -> SweepSpec.trace(traceFile));
        }
        Node profile = root.entries.get("profile");
        if (profile != null) {
            at(source, profile.line(), () -> b.profile(scalar(source, profile, "profile").text, dir));
        }
        Node set = root.entries.get("set");
        if (set != null) {
            set(source, b, map(source, set, "set"), "");
        }
        Node seed = root.entries.get("seed");
        if (seed != null) {
            b.seed(whole(source, seed, "seed"));
        }
        Node repeat = root.entries.get("repeat");
        if (repeat != null) {
            long r = whole(source, repeat, "repeat");
            if (r < 1 || r > SweepSpec.MAX_POINTS) {
                throw error(source, repeat.line(), "repeat must be between 1 and " + SweepSpec.MAX_POINTS + ", got " + r);
            }
            b.repeat((int) r);
        }
        Node paramsNode = root.entries.get("params");
        MapNode params = paramsNode == null ? new MapNode(Map.of(), Map.of(), 0) : map(source, paramsNode, "params");
        for (Map.Entry<String, Node> e : params.entries.entrySet()) {
            Node v = e.getValue();
            int line = params.keyLines.get(e.getKey());
            if (v instanceof ListNode l) {
                List<String> items = new ArrayList<>();
                for (Node item : l.items) {
                    items.add(scalar(source, item, "params." + e.getKey()).text);
                }
                at(source, line, () -> b.param(e.getKey(), items));
            } else {
                at(source, line, () -> b.param(e.getKey(), scalar(source, v, "params." + e.getKey()).text));
            }
        }
        // What is checked across keys and points (conflicts, profile rules, perf flags) names the key or point.
        return at(source, 0, b::build);
    }

    /** The fixed overrides: dotted keys or nested maps ({@code pcie: {mps: 512}}), as in profile files. */
    private static void set(String source, SweepSpec.Builder b, MapNode m, String prefix) {
        for (Map.Entry<String, Node> e : m.entries.entrySet()) {
            String key = prefix + e.getKey();
            if (e.getValue() instanceof MapNode inner) {
                set(source, b, inner, key + ".");
            } else {
                String value = scalar(source, e.getValue(), "set." + key).text;
                at(source, m.keyLines.get(e.getKey()), () -> b.set(key + "=" + value));
            }
        }
    }

    private static List<String> flags(String source, Node flags) {
        if (flags == null) {
            return List.of();
        }
        if (flags instanceof ListNode l) {
            List<String> out = new ArrayList<>();
            for (Node item : l.items) {
                out.add(scalar(source, item, "workload.flags").text);
            }
            return out;
        }
        return PerfArgs.split(scalar(source, flags, "workload.flags").text);
    }

    private static long whole(String source, Node n, String key) {
        String t = scalar(source, n, key).text;
        try {
            return Long.parseLong(t);
        } catch (NumberFormatException e) {
            throw error(source, n.line(), key + " must be a whole number, got '" + t + "'");
        }
    }

    private static void known(String source, int line, String key, List<String> valid, String prefix) {
        if (!valid.contains(key)) {
            throw error(source, line, "unknown key '" + prefix + key + "'"
                    + Suggest.didYouMean(key, valid.toArray(String[]::new)) + " (valid: " + String.join(", ", valid) + ")");
        }
    }

    private static Node require(String source, MapNode m, String key) {
        Node n = m.entries.get(key);
        if (n == null) {
            throw error(source, m.line, "missing '" + key + ":'");
        }
        return n;
    }

    private static MapNode map(String source, Node n, String key) {
        if (n instanceof MapNode m) {
            return m;
        }
        throw error(source, n.line(), key + " must be a map of key: value");
    }

    private static Scalar scalar(String source, Node n, String key) {
        if (n instanceof Scalar s) {
            return s;
        }
        throw error(source, n.line(), key + " must be a single value");
    }

    /** Runs {@code what}, putting the file and line in front of a spec mistake it reports. */
    private static <T> T at(String source, int line, java.util.function.Supplier<T> what) {
        try {
            return what.get();
        } catch (SweepSpecException e) {
            throw error(source, line, e.getMessage());
        }
    }

    private static SweepSpecException error(String source, int line, String message) {
        return new SweepSpecException(source + (line > 0 ? " line " + line : "") + ": " + message);
    }

    // ------------------------------------------------------------------ a YAML tree with line numbers

    private sealed interface Node permits Scalar, MapNode, ListNode {
        int line();
    }

    private record Scalar(String text, int line) implements Node {
    }

    /** A map; {@code keyLines} says where each key is written. */
    private record MapNode(Map<String, Node> entries, Map<String, Integer> keyLines, int line) implements Node {
    }

    private record ListNode(List<Node> items, int line) implements Node {
    }

    private static MapNode read(String source, Reader in) {
        try (JsonParser p = new YAMLFactory().createParser(in)) {
            JsonToken t = p.nextToken();
            if (t == null) {
                throw error(source, 0, "empty sweep file");
            }
            Node root = node(source, p);
            if (!(root instanceof MapNode m)) {
                throw error(source, root.line(), "expected a map of key: value (workload:, params:, ...)");
            }
            if (p.nextToken() != null) {
                throw error(source, line(p), "expected a single YAML document");
            }
            return m;
        } catch (JsonProcessingException e) {
            int line = e.getLocation() == null ? 0 : e.getLocation().getLineNr();
            // The YAML parser's message goes on with an excerpt over several lines: its first line says it.
            throw error(source, line, "not valid YAML: " + e.getOriginalMessage().lines().findFirst().orElse(""));
        } catch (IOException e) {
            throw new SweepSpecException(source + ": cannot read (" + e.getMessage() + ")", e);
        }
    }

    /** The node starting at the parser's current token. */
    private static Node node(String source, JsonParser p) throws IOException {
        int line = line(p);
        switch (p.currentToken()) {
            case START_OBJECT -> {
                Map<String, Node> entries = new LinkedHashMap<>();
                Map<String, Integer> keyLines = new LinkedHashMap<>();
                for (JsonToken t = p.nextToken(); t != JsonToken.END_OBJECT; t = p.nextToken()) {
                    String key = p.currentName();
                    int keyLine = line(p);
                    p.nextToken();
                    Node value = node(source, p);
                    if (entries.put(key, value) != null) {
                        throw error(source, keyLine, key + " is given twice");
                    }
                    keyLines.put(key, keyLine);
                }
                return new MapNode(entries, keyLines, line);
            }
            case START_ARRAY -> {
                List<Node> items = new ArrayList<>();
                for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
                    items.add(node(source, p));
                }
                return new ListNode(items, line);
            }
            case VALUE_NULL -> throw error(source, line, "no value");
            default -> {
                return new Scalar(p.getText(), line);
            }
        }
    }

    private static int line(JsonParser p) {
        return p.currentTokenLocation().getLineNr();
    }
}
