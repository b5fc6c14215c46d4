package dev.rdmasim.traces.replay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.traces.format.ForkedScale;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ten million requests replayed from a generated trace in a JVM with a 256 MiB heap: the trace is streamed,
 * requests are forgotten once retired, and nothing is lost (every completion logged, every byte counted).
 */
class ReplayScaleTest {
    private static final int BLOCKS = 625_000;

    @Test
    void tenMillionRequestsReplayInBoundedMemory(@TempDir Path dir) throws Exception {
        Path trace = dir.resolve("ten-million.trace");
        ReplayScaleMain.generate(trace, BLOCKS);
        long requests = (long) BLOCKS * ReplayScaleMain.PER_BLOCK;
        assertThat(requests).isEqualTo(10_000_000);
        // About 130 MB of explicit lines, read as a stream (twice: the checker's pass, then the run).
        assertThat(Files.size(trace)).isGreaterThan(120L << 20);

        String out = ForkedScale.run("256m", 900, ReplayScaleMain.class, "replay", trace.toString(),
                dir.resolve("out").toString());

        // The connect and every request are calls (waits are not); a completion per block; every 64 B counted.
        assertThat(figure(out, "calls")).isEqualTo(requests + 1);
        assertThat(figure(out, "completions")).isEqualTo(BLOCKS);
        assertThat(figure(out, "bytes")).isEqualTo(requests * 64);
        assertThat(figure(out, "maxHeapMiB")).isLessThanOrEqualTo(256);
        try (Stream<String> rows = Files.lines(dir.resolve("out/completions.csv"))) {
            assertThat(rows.skip(1).filter(l -> l.endsWith(",write,STATUS_SUCCESS,0x00000000,64")).count()).isEqualTo(BLOCKS);
        }
        try (Stream<Path> files = Files.list(dir.resolve("out"))) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder("completions.csv", "notifications.csv", "summary.json");
        }
    }

    private static long figure(String out, String name) {
        Matcher m = Pattern.compile("\\b" + name + "=(\\d+)").matcher(out);
        assertThat(m.find()).as("%s in %s", name, out).isTrue();
        return Long.parseLong(m.group(1));
    }
}
