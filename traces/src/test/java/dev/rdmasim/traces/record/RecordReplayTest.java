package dev.rdmasim.traces.record;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.traces.format.TraceChecker;
import dev.rdmasim.traces.replay.Replay;
import dev.rdmasim.traces.replay.ReplayOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Recording a replay and replaying the recording gives the same completions, byte for byte. */
class RecordReplayTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"quickstart", "pingpong", "inline-vs-dma", "doorbell-batching", "solicited-events",
        "remote-access-error", "write-bw-depth", "cq-overflow", "qp-limits", "write-past-end", "memory-check"})
    void recordingAnExampleReplaysIdentically(String name) throws IOException {
        Path example = Path.of("examples", name + ".trace");
        Path recorded = dir.resolve(name + ".recorded.trace");
        Replay.run(example, ReplayOptions.into(dir.resolve("orig")).withRecord(recorded));
        assertThat(recorded).exists();
        assertThat(dir.resolve(name + ".recorded.trace.partial")).doesNotExist();
        TraceChecker.check(recorded);
        Replay.run(recorded, ReplayOptions.into(dir.resolve("again")));
        List<String> a = Files.readAllLines(dir.resolve("orig/completions.csv"));
        List<String> b = Files.readAllLines(dir.resolve("again/completions.csv"));
        // cq-overflow takes no completion (the overrun is its point); every other example takes some.
        assertThat(a).hasSizeGreaterThan(name.equals("cq-overflow") ? 0 : 1);
        assertThat(b).containsExactlyElementsOf(a);
        assertThat(Files.readAllLines(dir.resolve("again/lifecycle.csv")))
                .containsExactlyElementsOf(Files.readAllLines(dir.resolve("orig/lifecycle.csv")));
        // The recording of the recording is the recording: names, times and lines are canonical.
        Path twice = dir.resolve(name + ".twice.trace");
        Replay.run(recorded, ReplayOptions.into(dir.resolve("third")).withRecord(twice));
        List<String> r1 = Files.readAllLines(recorded);
        List<String> r2 = Files.readAllLines(twice);
        assertThat(r2.subList(2, r2.size())).containsExactlyElementsOf(r1.subList(2, r1.size()));
    }
}
