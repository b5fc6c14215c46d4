package dev.rdmasim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Every command's help reads whole at the usual 80 columns: the summaries the command list shows are full
 * sentences, and wrapping breaks lines between words only, never inside a key, a flag or a range.
 */
class HelpTextTest {
    private static List<CommandLine> commands(CommandLine c) {
        List<CommandLine> all = new ArrayList<>(List.of(c));
        for (CommandLine sub : c.getSubcommands().values()) {
            if (!all.contains(sub) && !sub.getCommandName().equals("help")) {
                all.addAll(commands(sub));
            }
        }
        return all;
    }

    private static String help(CommandLine c, int width) {
        c.setUsageHelpWidth(width);
        return c.getUsageMessage(CommandLine.Help.Ansi.OFF);
    }

    private static Set<String> words(String text) {
        return new HashSet<>(List.of(text.trim().split("\\s+")));
    }

    @Test
    void eachSummaryIsAWholeSentence() {
        List<String> cut = new ArrayList<>();
        for (CommandLine c : commands(Main.commandLine())) {
            String[] header = c.getCommandSpec().usageMessage().header();
            String summary = header.length > 0 ? header[0] : c.getCommandSpec().usageMessage().description()[0];
            if (!summary.endsWith(".")) {
                cut.add(c.getCommandSpec().qualifiedName() + ": " + summary);
            }
        }
        assertThat(cut).isEmpty();
    }

    @Test
    void wrappingNeverSplitsAWord() {
        List<String> pieces = new ArrayList<>();
        for (CommandLine c : commands(Main.commandLine())) {
            // Wide enough for nothing to wrap: the words as written.
            Set<String> whole = words(help(c, 2000));
            Set<String> split = new HashSet<>();
            for (String w : words(help(c, 80))) {
                if (!whole.contains(w)) {
                    split.add(w);
                }
            }
            if (!split.isEmpty()) {
                pieces.add(c.getCommandSpec().qualifiedName() + ": " + split);
            }
        }
        assertThat(pieces).isEmpty();
    }
}
