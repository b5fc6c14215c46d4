package dev.rdmasim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Help texts rendered ahead of time ({@link HelpTexts}): every help request is rendered, printing a rendered text
 * gives exactly what picocli prints (bytes, exit code, nothing on stderr), and anything that is not a rendered help
 * request still goes through picocli.
 */
class HelpTextsTest {
    /** Runs {@code args} with the rendered texts of {@code dir} in use (null: none). */
    private static Cli run(Path dir, String... args) {
        String before = System.getProperty(HelpTexts.DIR_PROPERTY);
        try {
            if (dir == null) {
                System.clearProperty(HelpTexts.DIR_PROPERTY);
            } else {
                System.setProperty(HelpTexts.DIR_PROPERTY, dir.toString());
            }
            return Cli.run(args);
        } finally {
            if (before == null) {
                System.clearProperty(HelpTexts.DIR_PROPERTY);
            } else {
                System.setProperty(HelpTexts.DIR_PROPERTY, before);
            }
        }
    }

    private static List<String> names(CommandLine c, String prefix) {
        List<String> all = new ArrayList<>();
        for (var e : c.getSubcommands().entrySet()) {
            if (!e.getKey().equals("help")) {
                all.add(prefix + e.getKey());
                all.addAll(names(e.getValue(), prefix + e.getKey() + " "));
            }
        }
        return all;
    }

    @Test
    void everyHelpRequestIsRenderedAndPrintsWhatPicocliPrints(@TempDir Path dir) throws IOException {
        HelpTexts.render(dir);
        List<String[]> requests = HelpTexts.requests();
        // The top level four ways, and every command at any depth by --help and -h.
        List<String> asked = requests.stream().map(a -> String.join(" ", a)).toList();
        assertThat(asked).contains("", "--help", "-h", "help", "help perf");
        for (String command : names(Main.commandLine(), "")) {
            assertThat(asked).contains(command + " --help", command + " -h");
        }
        for (String[] args : requests) {
            String what = Arrays.toString(args);
            for (boolean ansi : new boolean[] {false, true}) {
                Path file = dir.resolve(HelpTexts.fileName(args, ansi));
                assertThat(file).as(what + (ansi ? " in colour" : "")).exists();
                assertThat(Files.readAllBytes(file)).isEqualTo(HelpTexts.viaPicocli(args, ansi));
            }
            assertThat(new String(Files.readAllBytes(dir.resolve(HelpTexts.fileName(args, true))),
                    StandardCharsets.US_ASCII)).as(what).contains("\u001b[");
            // Tests run without a terminal, so picocli prints without colours: the same bytes either way.
            Cli fast = run(dir, args);
            Cli picocli = run(null, args);
            assertThat(fast.code()).as(what).isZero().isEqualTo(picocli.code());
            assertThat(fast.out()).as(what).isEqualTo(picocli.out()).contains("Usage: rdmasim");
            assertThat(fast.err()).as(what).isEmpty();
        }
    }

    /** The rendered file is what is printed (no model built), and only for the requests it was rendered for. */
    @Test
    void aRenderedTextIsPrintedAsItIsAndOtherRequestsGoThroughPicocli(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve(HelpTexts.fileName(new String[] {"perf", "--help"}, false)), "rendered perf\n");
        Files.writeString(dir.resolve(HelpTexts.fileName(new String[0], false)), "rendered top\n");
        assertThat(run(dir, "perf", "--help").out()).isEqualTo("rendered perf\n");
        assertThat(run(dir).out()).isEqualTo("rendered top\n");
        // Not rendered: picocli answers, help or error alike.
        assertThat(run(dir, "perf", "-h").out()).startsWith("Usage: rdmasim perf");
        assertThat(run(dir, "perf", "write_lat", "--help").out()).startsWith("Usage: rdmasim perf");
        Cli unknown = run(dir, "help", "nosuch");
        assertThat(unknown.code()).isEqualTo(run(null, "help", "nosuch").code());
        assertThat(unknown.out() + unknown.err()).doesNotContain("rendered");
        assertThat(run(dir, "perf/../x", "--help").out()).doesNotContain("rendered");
        // A picocli setting that may change the text (here the width) leaves the answer to picocli.
        System.setProperty("picocli.usage.width", "120");
        try {
            assertThat(run(dir, "perf", "--help").out()).startsWith("Usage: rdmasim perf");
        } finally {
            System.clearProperty("picocli.usage.width");
        }
    }

    @Test
    void onlyPlainArgumentsNameAFile() {
        assertThat(HelpTexts.plainArgs(new String[] {"demo", "kernel", "--help"})).isTrue();
        for (String bad : new String[] {"", "..", "a/b", "a\\b", ".hidden", "a b", "perf\u00e9"}) {
            assertThat(HelpTexts.plainArgs(new String[] {bad, "--help"})).as(bad).isFalse();
        }
    }
}
