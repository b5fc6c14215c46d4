package dev.rdmasim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.traces.Examples;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code rdmasim demo}: replays the shipped quickstart from the jar (these tests run in cli/, where there is no
 * examples directory) with every output, and each "where to look next" line names a file that exists.
 */
class DemoCommandTest {
    @TempDir
    Path dir;

    @Test
    void theDemoReplaysTheQuickstartWithEveryOutputAndSaysWhereToLook() throws IOException {
        Path out = dir.resolve("demo");
        Cli r = Cli.run("demo", "--out", out.toString());
        assertThat(r.code()).as(r.err()).isZero();
        for (String f : new String[] {"quickstart.trace", "quickstart.gtkw", "completions.csv", "lifecycle.csv",
            "summary.json", "wave.vcd", "timeline.json", "wire.pcap"}) {
            assertThat(out.resolve(f)).as(f).isNotEmptyFile();
        }
        assertThat(Files.readString(out.resolve("quickstart.trace"))).isEqualTo(Examples.text("quickstart"));
        assertThat(Files.readAllLines(out.resolve("completions.csv"))).hasSize(2);
        // The replay's own summary, then the next steps, each with the file it opens.
        String trace = out.resolve("quickstart.trace").toString();
        assertThat(r.out()).contains(Examples.idea("quickstart"), "replay " + trace + ": 2 calls, 1 completions",
                "by status        SUCCESS 1", "what to look at", "where to look next:",
                "rdmasim explain " + trace + " --request 1",
                "gtkwave " + out.resolve("wave.vcd") + " " + out.resolve("quickstart.gtkw"),
                "https://ui.perfetto.dev", out.resolve("timeline.json").toString(),
                "tshark -r " + out.resolve("wire.pcap") + " -V", "wireshark " + out.resolve("wire.pcap"),
                out.resolve("completions.csv").toString(), out.resolve("lifecycle.csv").toString(),
                out.resolve("summary.json").toString(), "rdmasim replay " + trace, "demo --list");
        assertThat(r.out().indexOf("where to look next:")).isGreaterThan(r.out().indexOf("by status"));
        assertThat(r.err()).isEmpty();

        // The explain command it prints runs as printed.
        Cli explain = Cli.run("explain", trace, "--request", "1");
        assertThat(explain.code()).as(explain.err()).isZero();
        assertThat(explain.out()).contains("ctx=hello", "payload read", "CQE written");
    }

    @Test
    void theHintsNameTheCommandAsTheLauncherStartedIt() {
        // ./rdmasim passes how it was started; there is no 'rdmasim' on PATH to run otherwise.
        System.setProperty(Main.COMMAND_PROPERTY, "../rdmasim");
        try {
            Path out = dir.resolve("hints");
            Cli r = Cli.run("demo", "--out", out.toString());
            assertThat(r.code()).as(r.err()).isZero();
            String trace = out.resolve("quickstart.trace").toString();
            assertThat(r.out()).contains("../rdmasim explain " + trace + " --request 1", "(then: ../rdmasim replay " + trace + ")",
                    "../rdmasim demo --list, then ../rdmasim demo --example NAME");
            Cli profiles = Cli.run("profiles");
            assertThat(profiles.out()).contains("'../rdmasim profiles show NAME|FILE' prints every value");
        } finally {
            System.clearProperty(Main.COMMAND_PROPERTY);
        }
    }

    @Test
    void everySignalOfTheSaveFileIsInTheWaveform() throws IOException {
        Path out = dir.resolve("demo");
        assertThat(Cli.run("demo", "--out", out.toString()).code()).isZero();
        Set<String> declared = vcdSignals(out.resolve("wave.vcd"));
        List<String> shown = new ArrayList<>();
        for (String line : Files.readAllLines(out.resolve("quickstart.gtkw"))) {
            // A signal line: "+{alias} name" or "name", with "[msb:0]" on vectors.
            if (line.startsWith("+{") || Character.isLetter(line.isEmpty() ? ' ' : line.charAt(0))) {
                String name = line.startsWith("+{") ? line.substring(line.indexOf('}') + 1).strip() : line;
                shown.add(name.replaceAll("\\[\\d+:0]$", ""));
                if (line.startsWith("+{")) {
                    assertThat(line.substring(2, line.indexOf('}'))).as("alias of " + name)
                            .isEqualTo(shown.get(shown.size() - 1).replace('.', '/'));
                }
            }
        }
        assertThat(shown).hasSizeGreaterThan(15).doesNotHaveDuplicates();
        assertThat(declared).containsAll(shown);
        assertThat(shown).contains("nicA.tx.busy", "wire.aToB.busy", "nicB.rx.busy", "nicA.cqe.busy");
    }

    /**
     * The save file's named markers are the request's stages in the demo's lifecycle.csv (doorbell, payload read,
     * last packet, placed at B), and its view starts before the post: a change of the model's timing that moves
     * them must remake the save file (and the README's picture, docs/img/make-gtkwave-screenshot.sh).
     */
    @Test
    void theSaveFilesMarkersAreTheRequestsStages() throws IOException {
        Path out = dir.resolve("demo");
        assertThat(Cli.run("demo", "--out", out.toString()).code()).isZero();
        List<String> life = Files.readAllLines(out.resolve("lifecycle.csv"));
        List<String> head = List.of(life.get(0).split(","));
        String[] row = life.get(1).split(",", -1);
        List<String> gtkw = Files.readAllLines(out.resolve("quickstart.gtkw"));
        String markers = gtkw.stream().filter(l -> l.startsWith("*")).findFirst().orElseThrow();
        String[] m = markers.split(" ");
        String[] stages = {"doorbell_ps", "payload_read_ps", "last_packet_ps", "remote_placed_ps"};
        for (int i = 0; i < stages.length; i++) {
            assertThat(m[2 + i]).as(stages[i]).isEqualTo(row[head.indexOf(stages[i])]);
        }
        long start = Long.parseLong(gtkw.stream().filter(l -> l.startsWith("[timestart]")).findFirst().orElseThrow()
                .substring("[timestart] ".length()).strip());
        assertThat(start).isLessThan(Long.parseLong(row[head.indexOf("posted_ps")]))
                .isGreaterThan(Long.parseLong(row[head.indexOf("posted_ps")]) - 1_000_000);
    }

    /** Full names of the signals a VCD file declares, from its scopes. */
    private static Set<String> vcdSignals(Path vcd) throws IOException {
        Set<String> names = new HashSet<>();
        List<String> scope = new ArrayList<>();
        for (String line : Files.readAllLines(vcd)) {
            String[] t = line.trim().split("\\s+");
            switch (t[0]) {
                case "$scope" -> scope.add(t[2]);
                case "$upscope" -> scope.remove(scope.size() - 1);
                case "$var" -> names.add(String.join(".", scope) + "." + t[4]);
                case "$enddefinitions" -> {
                    return names;
                }
                default -> { }
            }
        }
        return names;
    }

    @Test
    void listShowsEveryShippedExampleWithItsIdea() {
        Cli r = Cli.run("demo", "--list");
        assertThat(r.code()).isZero();
        List<String> lines = r.out().lines().toList();
        assertThat(lines).hasSize(Examples.names().size());
        for (int i = 0; i < lines.size(); i++) {
            String name = Examples.names().get(i);
            assertThat(lines.get(i)).startsWith(name + " ").endsWith(Examples.idea(name));
        }
    }

    @Test
    void anotherExampleReplaysIntoItsOwnDirectoryWithoutASaveFile() {
        Path out = dir.resolve("pp");
        Cli r = Cli.run("demo", "--example", "pingpong.trace", "--out", out.toString(), "--seed", "7");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(out.resolve("pingpong.trace")).isNotEmptyFile();
        assertThat(out.resolve("quickstart.gtkw")).doesNotExist();
        assertThat(out.resolve("pingpong.gtkw")).doesNotExist();
        assertThat(r.out()).contains("400 completions", "gtkwave " + out.resolve("wave.vcd") + "\n",
                "round trip");
    }

    @Test
    void mistakesAreOneLineAndWriteNothing() {
        Path out = dir.resolve("bad");
        Cli unknown = Cli.run("demo", "--example", "quickstrat", "--out", out.toString());
        assertThat(unknown.code()).isEqualTo(2);
        assertThat(unknown.err()).isEqualTo("rdmasim: no shipped example 'quickstrat'; shipped: "
                + String.join(", ", Examples.names()) + System.lineSeparator());
        Cli badSet = Cli.run("demo", "--set", "pcie.mps=300", "--out", out.toString());
        assertThat(badSet.code()).isEqualTo(2);
        assertThat(badSet.err()).startsWith("rdmasim: pcie.mps = 300").doesNotContain("Exception");
        assertThat(out).doesNotExist();
    }

    @Test
    void aSignalGlobThatMatchesNothingIsRefusedAndWritesNothing() throws IOException {
        Path adapter = dir.resolve("adapter");
        Cli a = Cli.run("demo", "adapter", "-n", "5", "--out", adapter.toString(), "--vcd-signals", "nicA.pcie.*,nicZ.*");
        assertThat(a.code()).as(a.err()).isEqualTo(2);
        assertThat(a.err()).startsWith("rdmasim: --vcd-signals: signal glob 'nicZ.*' matches none of the ")
                .contains(" signals (names such as nicA.pcie.*").endsWith("\n").hasLineCount(1);
        assertThat(a.out()).isEmpty();
        assertThat(adapter).isEmptyDirectory();

        // An earlier run's files are left as they were, and no temporary file stays behind.
        Path kernel = Files.createDirectory(dir.resolve("kernel"));
        Files.writeString(kernel.resolve("wave.vcd"), "earlier");
        Cli k = Cli.run("demo", "kernel", "--tokens", "10", "--out", kernel.toString(), "--vcd-signals", "[");
        assertThat(k.code()).as(k.err()).isEqualTo(2);
        assertThat(k.err()).startsWith("rdmasim: --vcd-signals: signal glob '[' matches none of the ")
                .contains("(names such as demo.sink.*").hasLineCount(1);
        try (var files = Files.list(kernel)) {
            assertThat(files).containsExactly(kernel.resolve("wave.vcd"));
        }
        assertThat(kernel.resolve("wave.vcd")).hasContent("earlier");

        Cli ok = Cli.run("demo", "kernel", "--tokens", "10", "--out", kernel.toString(), "--vcd-signals", "demo.sink.*");
        assertThat(ok.code()).as(ok.err()).isZero();
        assertThat(Files.readString(kernel.resolve("wave.vcd"))).contains("in_ready");
        assertThat(kernel.resolve("stats.json")).isNotEmptyFile();
        try (var files = Files.list(kernel)) {
            assertThat(files).noneMatch(f -> f.toString().endsWith(".partial"));
        }
    }

    @Test
    void theOlderDemonstrationsAreSubcommands() {
        Cli help = Cli.run("demo", "--help");
        assertThat(help.code()).isZero();
        assertThat(help.out()).contains("--example", "--list", "--out", "adapter", "kernel");
    }
}
