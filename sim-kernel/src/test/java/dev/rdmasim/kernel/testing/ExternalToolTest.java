package dev.rdmasim.kernel.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/** A missing tool skips its test on a plain machine and fails it where the tools are required (CI). */
class ExternalToolTest {
    @TempDir
    Path dir;

    @Test
    void aToolOnThePathIsFoundInItsDirectory() throws Exception {
        Path bin = Files.createDirectory(dir.resolve("bin"));
        Path tool = Files.createFile(bin.resolve("vcd2fst"), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwxr-xr-x")));
        String path = dir.resolve("empty") + File.pathSeparator + File.pathSeparator + bin;
        assertThat(ExternalTool.require("vcd2fst", "gtkwave", path, false)).isEqualTo(tool);
        assertThat(ExternalTool.require("vcd2fst", "gtkwave", path, true)).isEqualTo(tool);
    }

    @Test
    void aFileThatIsNotExecutableIsNotTheTool() throws Exception {
        Files.createFile(dir.resolve("tshark"));
        assertThat(ExternalTool.find("tshark", dir.toString())).isNull();
    }

    @Test
    void aMissingToolSkipsTheTestWithWhatToInstall() {
        assertThatThrownBy(() -> ExternalTool.require("tshark", "tshark", dir.toString(), false))
                .isInstanceOf(TestAbortedException.class)
                .hasMessage("tshark not found on PATH (install tshark): the tests that need it are skipped");
        assertThatThrownBy(() -> ExternalTool.require("vcd2fst", "gtkwave", null, false))
                .isInstanceOf(TestAbortedException.class).hasMessageStartingWith("vcd2fst not found on PATH (install gtkwave)");
    }

    @Test
    void whereToolsAreRequiredAMissingToolFailsTheTest() {
        assertThatThrownBy(() -> ExternalTool.require("vcd2fst", "gtkwave", dir.toString(), true))
                .isInstanceOf(AssertionFailedError.class)
                .hasMessageStartingWith("vcd2fst not found on PATH (install gtkwave); this run requires the external tools")
                .hasMessageContaining("rdmasim.requireTools").hasMessageContaining("RDMASIM_REQUIRE_TOOLS");
    }

    @Test
    void eitherThePropertyOrTheEnvironmentVariableRequiresTheTools() {
        assertThat(ExternalTool.required(null, null)).isFalse();
        assertThat(ExternalTool.required("false", "0")).isFalse();
        assertThat(ExternalTool.required("", " ")).isFalse();
        assertThat(ExternalTool.required("true", null)).isTrue();
        assertThat(ExternalTool.required(null, "1")).isTrue();
        assertThat(ExternalTool.required("TRUE ", "")).isTrue();
        assertThat(ExternalTool.required(null, "yes")).isTrue();
    }

    @Test
    void theCiScriptRequiresTheTools() throws Exception {
        // The module's tests run in its directory; the script is at the repository's root.
        String ci = Files.readString(Path.of("..", ".ci", "run"));
        assertThat(ci).containsPattern("(?m)^RDMASIM_REQUIRE_TOOLS=1 \\./mvnw verify -Drdmasim\\.requireTools=true$");
    }
}
