package dev.rdmasim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The README and docs/*.md cite only what a reader of the repository has: no file outside it. */
class DocsTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)#\\s]+)(?:#[^)]*)?\\)");
    private static final Pattern CODE_PATH = Pattern.compile("`(\\.\\./[^`\\s]+|[A-Za-z0-9_.-]+/[^`\\s]*\\.md)`");

    private static List<Path> docs() throws IOException {
        List<Path> all = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> s = Files.list(ROOT.resolve("docs"))) {
            s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(all::add);
        }
        return all;
    }

    @Test
    void everyRelativeLinkAndCitedFileIsInTheRepository() throws IOException {
        List<String> outside = new ArrayList<>();
        for (Path doc : docs()) {
            String text = Files.readString(doc);
            for (Pattern p : List.of(LINK, CODE_PATH)) {
                Matcher m = p.matcher(text);
                while (m.find()) {
                    String target = m.group(1);
                    if (target.matches("[a-z]+:.*")) {
                        continue; // a web address
                    }
                    Path resolved = doc.getParent().resolve(target).normalize();
                    Path fromRoot = ROOT.resolve(target).normalize();
                    boolean inside = resolved.startsWith(ROOT) && Files.exists(resolved)
                            || p == CODE_PATH && fromRoot.startsWith(ROOT) && Files.exists(fromRoot);
                    if (!inside) {
                        outside.add(ROOT.relativize(doc) + ": " + target);
                    }
                }
            }
        }
        assertThat(outside).isEmpty();
    }
}
