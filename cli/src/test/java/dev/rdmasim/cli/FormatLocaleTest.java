package dev.rdmasim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every {@code String.format} and {@code printf} in the simulator's sources names {@link java.util.Locale#US}, and
 * none uses {@code String.formatted}, which cannot. Without a locale the host's would apply (decimal commas on a German machine: outputs that
 * differ by machine). With any locale but US the JDK's formatter loads the locale-data providers to find the digits
 * and the decimal separator, about 20 ms of a short run; for US it knows them (docs/performance.md, session 17).
 */
class FormatLocaleTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    /** A formatting call and what follows its opening parenthesis ({@code formatted} takes no locale at all). */
    private static final Pattern CALL = Pattern.compile("(?:\\bString\\.format|\\.printf|\\.formatted)\\(\\s*([^,)]*)");

    @Test
    void everyFormattingCallNamesLocaleUs() throws IOException {
        List<String> wrong = new ArrayList<>();
        int calls = 0;
        try (Stream<Path> files = Files.walk(ROOT)) {
            for (Path f : (Iterable<Path>) files.filter(FormatLocaleTest::mainSource)::iterator) {
                String[] lines = read(f).split("\n", -1);
                for (int i = 0; i < lines.length; i++) {
                    Matcher m = CALL.matcher(lines[i]);
                    while (m.find()) {
                        calls++;
                        if (!m.group(1).strip().matches("(java\\.util\\.)?Locale\\.US")) {
                            wrong.add(ROOT.relativize(f) + ":" + (i + 1) + ": " + lines[i].strip());
                        }
                    }
                }
            }
        }
        assertThat(calls).as("formatting calls found").isGreaterThan(50);
        assertThat(wrong).isEmpty();
    }

    /** Java sources of the simulator's modules (bench's measuring tools print for the developer only). */
    private static boolean mainSource(Path p) {
        String s = ROOT.relativize(p).toString().replace('\\', '/');
        return s.endsWith(".java") && s.contains("/src/main/java/") && !s.startsWith("bench/") && !s.contains("/target/");
    }

    private static String read(Path f) {
        try {
            return Files.readString(f);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
