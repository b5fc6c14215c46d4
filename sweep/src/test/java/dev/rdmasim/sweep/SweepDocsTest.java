package dev.rdmasim.sweep;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The YAML in docs/sweep.md: the shipped example as it is, and the every-key example as a sweep that parses. */
class SweepDocsTest {
    private static final Path DOC = Path.of("..", "docs", "sweep.md");
    private static final Path EXAMPLE = Path.of("..", "traces", "examples", "sweeps", "write-depth-inline.yaml");

    /** The fenced yaml blocks of the YAML sweeps section, in order. */
    private static List<String> yamlBlocks() throws IOException {
        String doc = Files.readString(DOC);
        String section = doc.substring(doc.indexOf("## YAML sweeps"), doc.indexOf("\n## ", doc.indexOf("## YAML sweeps") + 1));
        List<String> blocks = new ArrayList<>();
        for (int at = section.indexOf("```yaml\n"); at >= 0; at = section.indexOf("```yaml\n", at + 1)) {
            int start = at + "```yaml\n".length();
            blocks.add(section.substring(start, section.indexOf("```", start)));
        }
        return blocks;
    }

    @Test
    void theShownExampleIsTheShippedFileWithoutItsHeader() throws IOException {
        StringBuilder shipped = new StringBuilder();
        for (String line : Files.readAllLines(EXAMPLE)) {
            if (!line.startsWith("#")) {
                shipped.append(line).append('\n');
            }
        }
        assertThat(yamlBlocks().get(0)).isEqualTo(shipped.toString());
    }

    @Test
    void theEveryKeyExampleIsAValidSweep() throws IOException {
        SweepSpec all = SweepFile.parse("docs/sweep.md", yamlBlocks().get(1), DOC.getParent());
        assertThat(all.size()).isEqualTo(18);
        assertThat(all.fingerprint()).isNotEqualTo(SweepFile.read(EXAMPLE).fingerprint()); // it adds a fixed --set
    }
}
