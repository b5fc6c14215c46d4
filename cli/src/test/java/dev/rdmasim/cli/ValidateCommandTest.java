package dev.rdmasim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.traces.validate.Validation;
import java.nio.file.Files;
import java.nio.file.Path;
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
}
