package dev.rdmasim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.traces.perf.PerfArgs;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/** The perf command line read without picocli ({@link PerfCommandLine}) against picocli's reading of it. */
class PerfCommandLineTest {
    /** perf's options in picocli's model: name to arity (0 for a switch, 1 for one value). */
    private static Map<String, Integer> picocliOptions() {
        CommandLine.Model.CommandSpec perf = Main.commandLine("perf").getSubcommands().get("perf").getCommandSpec();
        Map<String, Integer> names = new TreeMap<>();
        for (CommandLine.Model.OptionSpec o : perf.options()) {
            for (String n : o.names()) {
                names.put(n, o.arity().max());
            }
        }
        assertThat(perf.positionalParameters()).hasSize(1);
        return names;
    }

    @Test
    void knowsExactlyPicocliOptionsLessHelpAndVersion() {
        Map<String, Integer> fast = new TreeMap<>();
        PerfCommandLine.VALUE_OPTIONS.forEach(n -> fast.put(n, 1));
        PerfCommandLine.SWITCHES.forEach(n -> fast.put(n, 0));
        for (PerfArgs.Flag f : PerfArgs.flags()) {
            fast.put(f.name(), f.takesValue() ? 1 : 0);
            fast.put(f.longName(), f.takesValue() ? 1 : 0);
        }
        Map<String, Integer> picocli = picocliOptions();
        for (String help : List.of("-h", "--help", "-V", "--version")) {
            assertThat(picocli.remove(help)).as(help).isZero();
        }
        assertThat(fast).isEqualTo(picocli);
    }

    @Test
    void takesPlainLinesAndDeclinesTheRest() {
        assertThat(PerfCommandLine.parse(new String[] {"perf", "write_lat", "-s", "2", "-n", "2000"})).isNotNull();
        assertThat(PerfCommandLine.parse(new String[] {"perf", "--json", "-a", "send_bw", "--set", "a=b", "--set",
            "c=d", "--seed", "7", "--profile", "cx5-like", "--record", "x.trace", "--iters", "5"})).isNotNull();
        for (String[] declined : new String[][] {
            {"perf"}, {"perf", "-s", "2"}, {"perf", "write_lat", "--help"}, {"perf", "write_lat", "-h"},
            {"perf", "write_lat", "-V"}, {"perf", "pcie_read", "-s", "64"}, {"perf", "write_lat", "--seed=5"},
            {"perf", "write_lat", "-s2"}, {"perf", "write_lat", "-as", "2"}, {"perf", "write_lat", "@args"},
            {"perf", "write_lat", "--", "x"}, {"perf", "write_lat", "send_lat"}, {"perf", "write_lat", "-n"},
            {"perf", "write_lat", "-n", "5", "-n", "6"}, {"perf", "write_lat", "-n", "5", "--iters", "6"},
            {"perf", "write_lat", "--json", "--json"}, {"perf", "write_lat", "--seed", "-1"},
            {"perf", "write_lat", "--seed", "x"}, {"perf", "write_lat", "--window", "99999999999"},
            {"perf", "write_lat", "--sed", "1"}, {"replay", "write_lat"}, {"perf", "write_lat", "-s", "@f"},
            {"perf", "@args"}, {"perf", "write_lat", "--record", "a\0b"}}) {
            assertThat(PerfCommandLine.parse(declined)).as(String.join(" ", declined)).isNull();
        }
    }

    private static final String[] WORDS = {
        "write_lat", "send_bw", "read_lat", "pcie_read", "bogus", "", "perf",
        "-s", "--size", "-a", "--all", "-n", "--iters", "-t", "-r", "-I", "-q", "-l", "-Q", "-m", "--mtu",
        "--window", "--profile", "--set", "--seed", "--json", "--record", "-h", "--help", "-V", "--version",
        "--seed=3", "-s2", "-an", "--", "-x", "--sed", "@nosuch-args-file",
        "0", "2", "7", "010", "+3", "-1", "0x10", "99999999999999999999", "4294967296", "abc", "1KiB",
        "host.pollTime=10ns", "link.mtu=2KiB", "default", "cx5-like", "out.trace", "dir/x.trace",
    };
    /** Where the values among {@link #WORDS} start. */
    private static final int VALUES = List.of(WORDS).indexOf("0");

    /**
     * Random command lines from perf's options, values and mistakes: each one the reader takes, picocli parses
     * to the same fields and flags.
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void everyLineTakenReadsAsPicocliReadsIt(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        int taken = 0;
        int picocliOnly = 0;
        for (int n = 0; n < 400; n++) {
            List<String> line = new ArrayList<>(List.of("perf"));
            if (rnd.nextInt(4) != 0) {
                line.add(WORDS[rnd.nextInt(6)]); // a test name most of the time
            }
            int words = rnd.nextInt(9);
            for (int w = 0; w < words; w++) {
                String word = WORDS[rnd.nextInt(WORDS.length)];
                line.add(word);
                // An option is usually followed by a value, as people write them.
                if (word.startsWith("-") && rnd.nextInt(3) != 0) {
                    line.add(WORDS[VALUES + rnd.nextInt(WORDS.length - VALUES)]);
                }
            }
            String[] args = line.toArray(String[]::new);
            PerfCommand fast = PerfCommandLine.parse(args);
            CommandLine cl = Main.commandLine("perf");
            PerfCommand viaPicocli;
            try {
                cl.parseArgs(args);
                viaPicocli = cl.getSubcommands().get("perf").getCommand();
                if (cl.getSubcommands().get("perf").isUsageHelpRequested()
                        || cl.getSubcommands().get("perf").isVersionHelpRequested()) {
                    viaPicocli = null;
                }
            } catch (CommandLine.ParameterException e) {
                viaPicocli = null;
            }
            String what = String.join(" ", args);
            if (fast == null) {
                picocliOnly += viaPicocli != null ? 1 : 0;
                continue;
            }
            taken++;
            assertThat(viaPicocli).as("taken without picocli, refused or help by picocli: " + what).isNotNull();
            assertThat(fast.test).as(what).isEqualTo(viaPicocli.test);
            assertThat(fast.window).as(what).isEqualTo(viaPicocli.window);
            assertThat(fast.profile).as(what).isEqualTo(viaPicocli.profile);
            assertThat(fast.overrides).as(what).isEqualTo(viaPicocli.overrides);
            assertThat(fast.seed).as(what).isEqualTo(viaPicocli.seed);
            assertThat(fast.json).as(what).isEqualTo(viaPicocli.json);
            assertThat(fast.record).as(what).isEqualTo(viaPicocli.record);
            assertThat(fast.flagValues()).as(what).containsExactlyEntriesOf(viaPicocli.flagValues());
        }
        // Both kinds occur: the reader takes many lines, and leaves picocli some it could parse.
        assertThat(taken).isGreaterThan(20);
        assertThat(picocliOnly).isGreaterThan(5);
    }

    @Test
    void leavesLinesToPicocliWhileAPicocliSettingIsGiven() {
        String[] plain = {"perf", "write_lat", "-n", "20"};
        System.setProperty("picocli.trace", "OFF");
        try {
            assertThat(PerfCommandLine.parse(plain)).isNull();
            assertThat(PerfCommandLine.run(plain)).isNull();
        } finally {
            System.clearProperty("picocli.trace");
        }
        assertThat(PerfCommandLine.parse(plain)).isNotNull();
    }

    @Test
    void runsNothingForALineItDeclines() {
        Cli r = Cli.capture(() -> PerfCommandLine.run(new String[] {"perf", "write_lat", "--help"}) == null ? 7 : 0);
        assertThat(r.code()).isEqualTo(7);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).isEmpty();
    }

    @Test
    void reportsFailuresAsPicocliWithMainsHandlerDoes() {
        var text = new java.io.StringWriter();
        var err = new java.io.PrintWriter(text, true);
        assertThat(PerfCommandLine.failed(new UserError("bad\tvalue"), err)).isEqualTo(2);
        assertThat(text.toString()).startsWith("rdmasim: bad\\tvalue");
        text.getBuffer().setLength(0);
        assertThat(PerfCommandLine.failed(new IllegalStateException("model broke"), err)).isEqualTo(1);
        assertThat(text.toString()).startsWith("java.lang.IllegalStateException: model broke").contains("\tat ");
    }

    @Test
    void writesInTheEncodingPicocliWouldTake() {
        assertThat(PerfCommandLine.charset(null)).isEqualTo(java.nio.charset.Charset.defaultCharset());
        assertThat(PerfCommandLine.charset("cp65001")).isEqualTo(StandardCharsets.UTF_8);
        assertThat(PerfCommandLine.charset("CP65001")).isEqualTo(StandardCharsets.UTF_8);
        assertThat(PerfCommandLine.charset("ISO-8859-1")).isEqualTo(StandardCharsets.ISO_8859_1);
        assertThat(PerfCommandLine.charset("no-such-charset")).isEqualTo(java.nio.charset.Charset.defaultCharset());
    }

    /** A run's output and exit code, by the reader or by picocli. */
    private static Cli run(boolean picocli, String... args) {
        return Cli.capture(() -> picocli ? Main.viaPicocli(args) : PerfCommandLine.run(args));
    }

    @Test
    void runsPrintWhatPicocliRunsPrint() {
        for (String[] args : new String[][] {
            {"perf", "write_lat", "-s", "2", "-n", "20"},
            {"perf", "send_bw", "-s", "4096", "-n", "50", "--set", "host.pollTime=10ns"},
            {"perf", "write_lat", "-n", "20", "--profile", "nosuch"},
            {"perf", "write_lat", "-n", "0"},
            {"perf", "read_lat", "--window", "4"},
            {"perf", "write_bw", "-s", "1024", "-n", "20", "--set", "link.dropProbability=1"}}) {
            Cli fast = run(false, args);
            Cli picocli = run(true, args);
            String what = String.join(" ", args);
            assertThat(fast.code()).as(what).isEqualTo(picocli.code());
            assertThat(fast.out()).as(what).isEqualTo(picocli.out());
            assertThat(fast.err()).as(what).isEqualTo(picocli.err());
        }
    }
}
