package dev.rdmasim.traces.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rdmasim.traces.Examples;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every shipped example, replayed as {@code rdmasim replay} replays it by default (default profile, seed 1), writes
 * exactly the golden {@code completions.csv}, {@code lifecycle.csv} and {@code summary.json} under
 * {@code src/test/resources/golden/EXAMPLE/}. {@code summary.json} is compared normalised: {@code trace} reduced to
 * the file name (the path depends on where the replay ran) and any {@code wall*} field (wall-clock time) dropped.
 * {@code -Dgolden.update=true} rewrites the golden files from the fresh replays instead (docs/trace-format.md).
 */
class GoldenOutputsTest {
    static final Path GOLDEN = Path.of("src/test/resources/golden");
    static final String REGENERATE = "./mvnw -o -q -pl traces -am test -Dsurefire.failIfNoSpecifiedTests=false"
            + " -Dtest=GoldenOutputsTest -Dgolden.update=true";

    @TempDir
    Path out;

    static List<String> examples() {
        return Examples.names();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("examples")
    void aFreshReplayWritesTheGoldenOutputs(String example) throws IOException {
        Path trace = Examples.extract(example, out);
        ReplayResult r = Replay.run(trace, ReplayOptions.into(out.resolve("out")));
        Map<String, byte[]> fresh = new LinkedHashMap<>();
        fresh.put("completions.csv", Files.readAllBytes(r.completionsCsv()));
        fresh.put("lifecycle.csv", Files.readAllBytes(r.lifecycleCsv()));
        fresh.put("summary.json", normalisedSummary(r.summaryJson()));
        fresh.put("notifications.csv", Files.readAllBytes(r.notificationsCsv()));
        // Memory dumps the trace asked for (dump lines), by name.
        try (var files = Files.list(out.resolve("out"))) {
            for (Path f : files.sorted().toList()) {
                String name = f.getFileName().toString();
                if (!fresh.containsKey(name)) {
                    fresh.put(name, Files.readAllBytes(f));
                }
            }
        }
        Path dir = GOLDEN.resolve(example);
        if (Boolean.getBoolean("golden.update")) {
            Files.createDirectories(dir);
            for (var e : fresh.entrySet()) {
                Files.write(dir.resolve(e.getKey()), e.getValue());
            }
            return;
        }
        List<String> failures = new ArrayList<>();
        for (var e : fresh.entrySet()) {
            Path golden = dir.resolve(e.getKey());
            if (!Files.isRegularFile(golden)) {
                failures.add("no golden file " + golden);
                continue;
            }
            byte[] expected = Files.readAllBytes(golden);
            if (!Arrays.equals(expected, e.getValue())) {
                String diff = FirstDifferences.of(golden.toString(), lines(expected),
                        "fresh replay of " + example + " " + e.getKey(), lines(e.getValue()));
                failures.add(diff.isEmpty() ? golden + " differs from the fresh replay in line endings only" : diff);
            }
        }
        if (!failures.isEmpty()) {
            fail(String.join("\n", failures) + "\nIf the change is intended, regenerate the golden files: " + REGENERATE);
        }
    }

    /** summary.json with the fields that depend on where and when the replay ran taken out, pretty-printed. */
    static byte[] normalisedSummary(Path summary) throws IOException {
        ObjectMapper m = new ObjectMapper();
        JsonNode root = m.readTree(summary.toFile());
        dropWallClock(root);
        ObjectNode o = (ObjectNode) root;
        o.put("trace", Path.of(o.get("trace").asText()).getFileName().toString());
        DefaultPrettyPrinter pretty = new DefaultPrettyPrinter()
                .withObjectIndenter(new DefaultIndenter("  ", "\n"))
                .withArrayIndenter(new DefaultIndenter("  ", "\n"));
        return (m.writer(pretty).writeValueAsString(root) + "\n").getBytes(StandardCharsets.UTF_8);
    }

    static void dropWallClock(JsonNode node) {
        if (node instanceof ObjectNode o) {
            for (Iterator<String> names = o.fieldNames(); names.hasNext(); ) {
                if (names.next().startsWith("wall")) {
                    names.remove();
                }
            }
        }
        node.forEach(GoldenOutputsTest::dropWallClock);
    }

    private static List<String> lines(byte[] text) {
        return new String(text, StandardCharsets.UTF_8).lines().toList();
    }

    @Test
    void theNormalisedSummaryKeepsEverythingButWhereAndWhenItRan() throws IOException {
        Path s = out.resolve("summary.json");
        Files.writeString(s, "{\"trace\":\"/some/where/x.trace\",\"wall_s\":1.5,\"sim_time_ps\":7,"
                + "\"stats\":{\"a\":{\"value\":1,\"wall_clock\":3}}}");
        assertThat(new String(normalisedSummary(s), StandardCharsets.UTF_8)).isEqualTo("""
                {
                  "trace" : "x.trace",
                  "sim_time_ps" : 7,
                  "stats" : {
                    "a" : {
                      "value" : 1
                    }
                  }
                }
                """);
    }

    @Test
    void theDiffShowsTheFirstDifferingLinesWithContext() {
        List<String> expected = List.of("a", "b", "c", "d", "e", "f", "g", "h", "i", "j");
        List<String> actual = List.of("a", "b", "c", "d", "E", "f", "g", "h", "x", "i", "j");
        assertThat(FirstDifferences.of("golden", expected, "fresh", actual)).isEqualTo("""
                --- golden
                +++ fresh
                @@ -2,7 +2,7 @@
                 b
                 c
                 d
                -e
                +E
                 f
                 g
                 h
                ... (more differences further on)
                """);
        assertThat(FirstDifferences.of("g", expected, "f", expected)).isEmpty();
        assertThat(FirstDifferences.of("g", List.of("a"), "f", List.of("a", "b"))).isEqualTo("""
                --- g
                +++ f
                @@ -1,1 +1,2 @@
                 a
                +b
                """);
    }
}
