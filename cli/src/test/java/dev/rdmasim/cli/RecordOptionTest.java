package dev.rdmasim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --record FILE} on replay and perf writes a trace that replays. */
class RecordOptionTest {
    @TempDir
    Path dir;

    @Test
    void replayRecordWritesATraceThatReplaysToTheSameCompletions() throws IOException {
        Path rec = dir.resolve("pingpong.rec.trace");
        Cli a = Cli.run("replay", Path.of("..", "traces", "examples", "pingpong.trace").toString(), "--out",
                dir.resolve("a").toString(), "--record", rec.toString());
        assertThat(a.code()).as(a.err()).isZero();
        assertThat(a.out()).contains("recorded trace  " + rec);
        Cli b = Cli.run("replay", rec.toString(), "--out", dir.resolve("b").toString());
        assertThat(b.code()).as(b.err()).isZero();
        assertThat(Files.mismatch(dir.resolve("a/completions.csv"), dir.resolve("b/completions.csv"))).isEqualTo(-1L);
    }

    @Test
    void perfRecordWritesATraceThatReplays() throws IOException {
        Path rec = dir.resolve("send_lat.trace");
        Cli a = Cli.run("perf", "send_lat", "-s", "64", "-n", "5", "--record", rec.toString());
        assertThat(a.code()).as(a.err()).isZero();
        assertThat(Files.readAllLines(rec).get(0)).isEqualTo("rdmasim-trace 1");
        Cli b = Cli.run("replay", rec.toString(), "--out", dir.resolve("b").toString());
        assertThat(b.code()).as(b.err()).isZero();
        // Five pings and five pongs: five receive completions on each side (the sends are mostly unsignaled).
        var rows = Files.readAllLines(dir.resolve("b/completions.csv"));
        assertThat(rows.stream().filter(r -> r.contains(",receive,STATUS_SUCCESS,")).count()).isEqualTo(10);
        assertThat(rows.subList(1, rows.size())).allMatch(r -> r.contains(",STATUS_SUCCESS,"));
    }

    @Test
    void perfRecordIsRefusedForThePcieBenchmarks() {
        Cli c = Cli.run("perf", "pcie_read", "--record", dir.resolve("x.trace").toString());
        assertThat(c.code()).isEqualTo(2);
        assertThat(c.err()).contains("--record applies to the NDK tests");
    }
}
