package dev.rdmasim.adapter.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * docs/profiles.md must carry the table the registry generates. Run with
 * {@code -Dprofiles.updateDocs=true} to rewrite it instead of failing.
 */
class ProfileDocsTest {
    private static final Path DOC = Path.of("../docs/profiles.md");

    @Test
    void docsTableMatchesTheRegistry() throws IOException {
        String current = Files.readString(DOC, StandardCharsets.UTF_8);
        String expected = ParameterTable.replaceGenerated(current);
        if (Boolean.getBoolean("profiles.updateDocs") && !expected.equals(current)) {
            Files.writeString(DOC, expected, StandardCharsets.UTF_8);
            current = expected;
        }
        List<String> have = current.lines().toList();
        List<String> want = expected.lines().toList();
        int line = 0;
        while (line < have.size() && line < want.size() && have.get(line).equals(want.get(line))) {
            line++;
        }
        if (line < have.size() || line < want.size()) {
            fail("docs/profiles.md is out of date with Parameters at line " + (line + 1) + ": has '"
                    + (line < have.size() ? have.get(line) : "<end>") + "', generated '"
                    + (line < want.size() ? want.get(line) : "<end>")
                    + "'; regenerate with -Dtest=ProfileDocsTest -Dprofiles.updateDocs=true (see the file)");
        }
    }

    @Test
    void everyKeyAndRuleAppearsInTheTable() {
        String md = ParameterTable.markdown();
        for (Parameter<?> p : Parameters.all()) {
            assertThat(md).contains("| `" + p.key() + "` | " + p.type().name() + " |");
        }
        for (Rule r : Parameters.RULES) {
            assertThat(md).contains("- " + r.description() + "\n");
        }
        assertThat(ParameterTable.replaceGenerated("a\n" + ParameterTable.BEGIN + "\nold\n" + ParameterTable.END + "\nb"))
                .isEqualTo("a\n" + ParameterTable.BEGIN + "\n" + md + ParameterTable.END + "\nb");
    }
}
