package dev.rdmasim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.traces.validate.Validation;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ValidateCommandTest {

    @Test
    void listsEveryRowOfTheTable() {
        Cli r = Cli.run("validate", "--list");
        assertThat(r.code()).as(r.err()).isZero();
        for (Validation.Measurement m : Validation.table()) {
            assertThat(r.out()).contains(m.id()).contains(m.what());
        }
    }

    /**
     * One row: hardware and model side by side with the error, the verdict, the exit code that follows from it, and
     * the Markdown report written to a new file.
     */
    @Test
    void runsARowPrintsTheComparisonAndWritesTheReport(@TempDir Path dir) throws Exception {
        Path report = dir.resolve("validation.md");
        Cli r = Cli.run("validate", "--only", "pcie-read-64", "--report", report.toString());
        Validation.Row row = Validation.run(Validation.table().stream().filter(m -> m.id().equals("pcie-read-64"))
                .findFirst().orElseThrow());
        assertThat(r.code()).as(r.err()).isEqualTo(row.within() ? 0 : 1);
        assertThat(r.out()).contains("pcie-read-64").contains("546 ns").contains(row.within() ? " ok" : " OUT")
                .contains("of 1 figures within their tolerance");
        assertThat(Files.readString(report)).contains("| pcie-read-64 |").contains("pcie-bench");
    }

    @Test
    void refusesAnUnknownRowAndAnExistingReport(@TempDir Path dir) throws Exception {
        Cli unknown = Cli.run("validate", "--only", "no-such-row");
        assertThat(unknown.code()).isEqualTo(2);
        assertThat(unknown.err().strip()).startsWith("rdmasim:").contains("no row 'no-such-row'").doesNotContain("\n");
        Path existing = Files.writeString(dir.resolve("mine.md"), "my notes");
        Cli refused = Cli.run("validate", "--only", "pcie-read-64", "--report", existing.toString());
        assertThat(refused.code()).isEqualTo(2);
        assertThat(refused.err()).contains("exists");
        assertThat(Files.readString(existing)).isEqualTo("my notes");
    }

    /** --set applies on top of each row's settings: a slower root complex moves the DMA read by exactly the change. */
    @Test
    void setChangesEveryRowAndABadSettingIsOneLine() {
        Cli base = Cli.run("validate", "--only", "pcie-read-64");
        Cli slower = Cli.run("validate", "--only", "pcie-read-64", "--set", "pcie.hostReadLatency=512ns");
        assertThat(base.out()).contains("546 ns");
        assertThat(slower.out()).contains("646 ns").contains("OUT");
        assertThat(slower.code()).isEqualTo(1);
        Cli bad = Cli.run("validate", "--only", "pcie-read-64", "--set", "pcie.bogus=1");
        assertThat(bad.code()).isEqualTo(2);
        assertThat(bad.err().strip()).startsWith("rdmasim: --set:").contains("unknown parameter 'pcie.bogus'")
                .doesNotContain("\n");
        Cli twice = Cli.run("validate", "--only", "pcie-read-64", "--set", "pcie.hostReadLatency=1us", "--set",
                "pcie.hostReadLatency=2us");
        assertThat(twice.code()).isEqualTo(2);
    }

    /**
     * --out: validation.md (the --report text) and the two plots, 800 x 500 PNGs, for one latency and one bandwidth
     * row; the directory may exist if empty.
     */
    @Test
    void outWritesTheReportAndTheTwoPlots(@TempDir Path dir) throws Exception {
        Path out = Files.createDirectory(dir.resolve("validation"));
        Path report = dir.resolve("report.md");
        Cli r = Cli.run("validate", "--only", "cx5-send-lat-8,cx5-write-bw-1m", "--report", report.toString(), "--out",
                out.toString());
        assertThat(r.code()).as(r.err()).isIn(0, 1);
        assertThat(r.err()).isEmpty();
        try (Stream<Path> files = Files.list(out)) {
            assertThat(files.map(p -> p.getFileName().toString()).sorted()).containsExactly("bandwidth-vs-size.png",
                    "latency-vs-size.png", "validation.md");
        }
        assertThat(Files.readString(out.resolve("validation.md"))).isEqualTo(Files.readString(report))
                .contains("| cx5-send-lat-8 |", "| cx5-write-bw-1m |");
        for (String png : new String[] {"latency-vs-size.png", "bandwidth-vs-size.png"}) {
            BufferedImage img = ImageIO.read(out.resolve(png).toFile());
            assertThat(img).as(png).isNotNull();
            assertThat(img.getWidth()).isEqualTo(800);
            assertThat(img.getHeight()).isEqualTo(500);
        }
        assertThat(r.out()).contains("out: " + out + " (2 curves,").contains("validation.md, latency-vs-size.png, "
                + "bandwidth-vs-size.png");
    }

    /** Rows with no curve (the DMA read) still give validation.md, and no empty plot. */
    @Test
    void rowsWithoutACurveGiveTheReportAlone(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("new/validation");
        Cli r = Cli.run("validate", "--only", "pcie-read-64", "--out", out.toString());
        assertThat(r.code()).as(r.err()).isIn(0, 1);
        try (Stream<Path> files = Files.list(out)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("validation.md");
        }
    }

    /** --out never writes into a directory that holds something, nor over a file: one line, exit 2, before any run. */
    @Test
    void outRefusesANonEmptyDirectoryAndAFile(@TempDir Path dir) throws Exception {
        Path mine = Files.writeString(dir.resolve("notes.txt"), "my notes");
        Cli full = Cli.run("validate", "--only", "pcie-read-64", "--out", dir.toString());
        assertThat(full.code()).isEqualTo(2);
        assertThat(full.out()).doesNotContain("pcie-read-64");
        assertThat(full.err().strip()).startsWith("rdmasim: --out " + dir + " is not empty").doesNotContain("\n");
        Cli file = Cli.run("validate", "--only", "pcie-read-64", "--out", mine.toString());
        assertThat(file.code()).isEqualTo(2);
        assertThat(file.err().strip()).startsWith("rdmasim: --out " + mine + " is a file").doesNotContain("\n");
        assertThat(Files.readString(mine)).isEqualTo("my notes");
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files).containsExactly(mine);
        }
    }
}
