package dev.rdmasim.kernel.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.kernel.testing.ExternalTool;
import dev.rdmasim.kernel.wave.SignalGlobError;
import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KernelDemoTest {

    @Test
    void deliversEveryToken(@TempDir Path dir) throws Exception {
        KernelDemo.Result r = KernelDemo.run(dir, 1, 2_000, "");
        assertThat(r.tokens()).isEqualTo(2_000);
        // The 250 MHz producer pauses 30% of the time: throughput must stay below its clock rate.
        assertThat(r.throughputMtps()).isGreaterThan(50).isLessThan(250);
        // At least the crossing's two synchronizer stages and the 3-cycle delay line.
        assertThat(r.meanLatencyNs()).isGreaterThan(5);
        assertThat(Files.readString(r.statsJson())).contains("\"demo.sink.received\"", "\"demo.queue.occupancy\"", "\"demo.cdc_rd.read\"");
    }

    @Test
    void writesAWaveformThatGtkwaveReads(@TempDir Path dir) throws Exception {
        Path vcd2fst = ExternalTool.vcd2fst();
        KernelDemo.Result r = KernelDemo.run(dir, 1, 2_000, "");
        Process p = new ProcessBuilder(vcd2fst.toString(), r.vcd().toString(), dir.resolve("wave.fst").toString())
                .redirectErrorStream(true).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("vcd2fst output: %s", new String(p.getInputStream().readAllBytes())).isZero();
        assertThat(Files.size(dir.resolve("wave.fst"))).isPositive();
    }

    @Test
    void sameSeedGivesIdenticalBytes(@TempDir Path dir) throws Exception {
        KernelDemo.Result a = KernelDemo.run(dir.resolve("a"), 7, 1_000, "");
        KernelDemo.Result b = KernelDemo.run(dir.resolve("b"), 7, 1_000, "");
        assertThat(Files.readAllBytes(a.vcd())).isEqualTo(Files.readAllBytes(b.vcd()));
        assertThat(Files.readAllBytes(a.statsJson())).isEqualTo(Files.readAllBytes(b.statsJson()));
        KernelDemo.Result c = KernelDemo.run(dir.resolve("c"), 8, 1_000, "");
        assertThat(Files.readAllBytes(c.vcd())).isNotEqualTo(Files.readAllBytes(a.vcd()));
    }

    @Test
    void signalFilterLimitsTheWaveform(@TempDir Path dir) throws Exception {
        KernelDemo.Result all = KernelDemo.run(dir.resolve("all"), 1, 200, "");
        KernelDemo.Result some = KernelDemo.run(dir.resolve("some"), 1, 200, "demo.sink.*");
        String filtered = Files.readString(some.vcd());
        assertThat(filtered).contains("in_ready").doesNotContain("$var wire 32");
        assertThat(Files.size(some.vcd())).isLessThan(Files.size(all.vcd()));
    }

    @Test
    void aGlobThatSelectsNoSignalIsRefusedBeforeTheRunAndLeavesNoFile(@TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> KernelDemo.run(dir, 1, 200, "demo.sink.*, demo.snik.*"))
                .isInstanceOf(SignalGlobError.class)
                .hasMessageStartingWith("signal glob 'demo.snik.*' matches none of the ")
                .hasMessageEndingWith(" signals (names such as demo.sink.*, globs with * and ?)");
        assertThat(dir).isEmptyDirectory();
    }

    @Test
    void oneTokenIsEnoughAndNoneIsRefused(@TempDir Path dir) throws Exception {
        assertThat(KernelDemo.run(dir.resolve("one"), 1, 1, "").tokens()).isEqualTo(1);
        assertThatThrownBy(() -> KernelDemo.run(dir.resolve("none"), 1, 0, ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the demo needs at least one token, got 0");
        assertThat(dir.resolve("none")).doesNotExist();
    }

    /** A run whose waveform cannot take its place deletes both files it wrote and leaves what was there. */
    @Test
    void aRunThatCannotPlaceItsFilesLeavesNoneBehind(@TempDir Path dir) throws Exception {
        Path inTheWay = Files.createDirectories(dir.resolve("wave.vcd"));
        Files.writeString(inTheWay.resolve("keep.txt"), "mine");

        assertThatThrownBy(() -> KernelDemo.run(dir, 1, 50, "")).isInstanceOf(IOException.class);
        assertThat(dir.resolve("wave.vcd.partial")).doesNotExist();
        assertThat(dir.resolve("stats.json.partial")).doesNotExist();
        assertThat(dir.resolve("stats.json")).doesNotExist();
        assertThat(inTheWay.resolve("keep.txt")).hasContent("mine");
    }

    /** When even the clean-up fails, its failure travels with the first one instead of hiding it. */
    @Test
    void aFailedCleanUpIsReportedWithTheFailure(@TempDir Path dir) throws Exception {
        Path partial = Files.createDirectories(dir.resolve("wave.vcd.partial"));
        Files.writeString(partial.resolve("keep.txt"), "mine");

        assertThatThrownBy(() -> KernelDemo.run(dir, 1, 50, ""))
                .isInstanceOf(IOException.class)
                .satisfies(e -> assertThat(e.getSuppressed()).singleElement()
                        .isInstanceOf(DirectoryNotEmptyException.class));
        assertThat(partial.resolve("keep.txt")).hasContent("mine");
        assertThat(dir.resolve("wave.vcd")).doesNotExist();
    }

    @Test
    void aSecondRunReplacesTheFilesOfTheFirst(@TempDir Path dir) throws Exception {
        KernelDemo.Result first = KernelDemo.run(dir, 1, 100, "");
        String firstVcd = Files.readString(first.vcd());
        KernelDemo.Result second = KernelDemo.run(dir, 2, 100, "");

        assertThat(Files.readString(second.vcd())).isNotEqualTo(firstVcd);
        try (var files = Files.list(dir)) {
            assertThat(files.map(f -> f.getFileName().toString())).containsExactlyInAnyOrder("wave.vcd", "stats.json");
        }
    }
}
