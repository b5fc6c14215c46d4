package dev.rdmasim.traces.record;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.config.Profiles;
import dev.rdmasim.traces.perf.Perf;
import dev.rdmasim.traces.perf.PerfOptions;
import dev.rdmasim.traces.perf.PerfTest;
import dev.rdmasim.traces.replay.Replay;
import dev.rdmasim.traces.replay.ReplayOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A recorded perf run replays to the same completions: each poll that took completions in the run (its line
 * carries them as a comment) takes the same ones, at the same picosecond, in the replay.
 */
class PerfRecordTest {
    private static final Pattern TOOK = Pattern.compile("@(\\d+)ps poll (\\S+) max=\\d+\\s+# took \\d+: (.*)");

    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource({"write_bw, 4096, 50", "send_lat, 64, 20", "send_bw, 1024, 40", "read_lat, 256, 10"})
    void aRecordedPerfRunReplaysTheSameCompletions(String test, int size, int iterations) throws IOException {
        PerfOptions o = PerfOptions.builder(PerfTest.fromLabel(test), Profiles.resolve("default")).size(size)
                .iterations(iterations).build();
        Path trace = dir.resolve(test + ".trace");
        Perf.run(o, r -> { }, trace);
        List<String> expected = new ArrayList<>();
        for (String line : Files.readAllLines(trace)) {
            Matcher m = TOOK.matcher(line);
            if (m.matches()) {
                for (String item : m.group(3).split(" ")) {
                    String[] cs = item.split("/");
                    expected.add(m.group(1) + "," + m.group(2) + "," + cs[0] + ",STATUS_" + cs[1]);
                }
            }
        }
        // Every signaled request and every receive was taken by some poll of the run.
        assertThat(expected).hasSizeGreaterThanOrEqualTo(test.endsWith("_lat") ? iterations : 1);
        Replay.run(trace, ReplayOptions.into(dir.resolve("replay")));
        List<String> got = new ArrayList<>();
        List<String> rows = Files.readAllLines(dir.resolve("replay/completions.csv"));
        for (String row : rows.subList(1, rows.size())) {
            String[] f = row.split(",", -1);
            got.add(f[0] + "," + f[3] + "," + f[4] + "," + f[6]);
        }
        assertThat(got).containsExactlyElementsOf(expected);
    }
}
