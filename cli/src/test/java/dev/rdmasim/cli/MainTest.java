package dev.rdmasim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MainTest {

    @Test
    void helpListsTheCommands() {
        Cli r = Cli.run("--help");
        assertThat(r.code()).isZero();
        assertThat(r.out()).contains("demo", "Cycle-level model");
        assertThat(Cli.run("demo", "kernel", "--help").out()).contains("--vcd-signals", "--seed");
    }

    /**
     * --version is answered before the command tree is built (start-up time), and says exactly what picocli's own
     * version option prints; combined with anything else it goes through picocli as before.
     */
    @Test
    void versionIsPicocliFreeAndTheSame() {
        java.io.StringWriter viaPicocli = new java.io.StringWriter();
        picocli.CommandLine full = Main.commandLine();
        full.setOut(new java.io.PrintWriter(viaPicocli));
        assertThat(full.execute("--version")).isZero();
        for (String flag : new String[] {"--version", "-V"}) {
            Cli r = Cli.run(flag);
            assertThat(r.code()).isZero();
            assertThat(r.out().replace("\r\n", "\n")).isEqualTo(viaPicocli.toString().replace("\r\n", "\n"))
                    .startsWith("rdmasim ");
            assertThat(r.err()).isEmpty();
        }
        // With other arguments picocli decides, as it always did.
        Cli both = Cli.run("--version", "--help");
        assertThat(both.code()).isEqualTo(Main.execute("--version", "--help"));
        assertThat(both.out()).contains("Usage: rdmasim");
    }

    /**
     * A run naming a subcommand builds only that one (start-up time): its help and its errors must be what the
     * full command tree gives, for every subcommand, and the top level still lists and suggests them all.
     */
    @Test
    void aSubcommandBuiltAloneBehavesAsInTheFullTree() {
        picocli.CommandLine full = Main.commandLine();
        assertThat(full.getSubcommands()).hasSize(9);
        for (var e : full.getSubcommands().entrySet()) {
            String name = e.getKey();
            picocli.CommandLine alone = Main.commandLine(name);
            if (name.equals("help")) {
                assertThat(alone.getSubcommands()).as("help needs every command").hasSize(9);
                continue;
            }
            assertThat(alone.getSubcommands()).as(name).containsOnlyKeys(name);
            assertThat(alone.getSubcommands().get(name).getUsageMessage())
                    .as(name).isEqualTo(e.getValue().getUsageMessage());
            Cli bad = Cli.run(name, "--no-such-option");
            assertThat(bad.code()).as(name).isEqualTo(2);
            assertThat(bad.err()).as(name).startsWith("rdmasim: ").contains("; see rdmasim " + name + " --help");
        }
        // Model transformers still apply: perf's perftest flags are declared by one.
        assertThat(Main.commandLine("perf").getSubcommands().get("perf").getCommandSpec().findOption("-s")).isNotNull();
        assertThat(full.getSubcommands().get("perf").getCommandSpec().findOption("--size")).isNotNull();
        assertThat(Main.commandLine("--help").getSubcommands()).hasSize(9);
        assertThat(Main.commandLine("prf").getSubcommands()).hasSize(9);
        assertThat(Cli.run("prf").err()).contains("'perf'");
    }

    /** The launcher's archive is recorded from this run: every step must run and succeed, or it records less. */
    @Test
    void theStartupTrainingRunsEveryStep() {
        assertThat(StartupTraining.run()).isZero();
        assertThat(java.util.Arrays.stream(StartupTraining.STEPS).map(s -> s[0])).contains("--help", "perf");
    }

    @Test
    void kernelDemoWritesItsOutputs(@TempDir Path dir) {
        Cli r = Cli.run("demo", "kernel", "--out", dir.toString(), "--tokens", "500", "--stats");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("500 tokens", "throughput", "wave.vcd", "demo.sink.received");
        assertThat(Files.exists(dir.resolve("wave.vcd"))).isTrue();
        assertThat(Files.exists(dir.resolve("stats.json"))).isTrue();
    }

    @Test
    void adapterDemoWritesWaveformCaptureAndStatistics(@TempDir Path dir) throws Exception {
        Cli r = Cli.run("demo", "adapter", "--out", dir.toString(), "--messages", "40", "--size", "3000", "--depth", "8");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("40 RDMA WRITEs of 3000 B", "Gb/s", "doorbell to CQE", "WQE_FETCHED", "wire.pcap");
        for (String f : new String[] {"wave.vcd", "wire.pcap", "stats.json"}) {
            assertThat(Files.size(dir.resolve(f))).as(f).isPositive();
        }
        assertThat(Files.readString(dir.resolve("stats.json"))).contains("nicA.tx.packets", "nicB.payload.placedBytes");
        // Same seed, same bytes.
        Path again = dir.resolve("again");
        assertThat(Cli.run("demo", "adapter", "--out", again.toString(), "--messages", "40", "--size", "3000", "--depth", "8").code()).isZero();
        assertThat(Files.readAllBytes(again.resolve("wire.pcap"))).isEqualTo(Files.readAllBytes(dir.resolve("wire.pcap")));
        assertThat(Files.readAllBytes(again.resolve("stats.json"))).isEqualTo(Files.readAllBytes(dir.resolve("stats.json")));
    }

    @Test
    void adapterDemoRejectsBadProfileSettingsInOneLine() {
        Cli r = Cli.run("demo", "adapter", "--set", "pcie.mps=300");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("pcie.mps").doesNotContain("\tat ");
        Cli p = Cli.run("demo", "adapter", "--profile", "nosuch");
        assertThat(p.code()).isEqualTo(2);
        assertThat(p.err()).contains("cx5-like");
    }

    @Test
    void userErrorsExitWithStatusTwoAndNoStackTrace() {
        Cli bad = Cli.run("demo", "kernel", "--tokens", "0");
        assertThat(bad.code()).isEqualTo(2);
        assertThat(bad.err()).contains("--tokens must be at least 1").doesNotContain("Exception", "\tat ");
        Cli unknown = Cli.run("demo", "kernel", "--bogus");
        assertThat(unknown.code()).isEqualTo(2);
        assertThat(unknown.err()).contains("Unknown option: '--bogus'");
        Cli notANumber = Cli.run("demo", "kernel", "--seed", "x");
        assertThat(notANumber.code()).isEqualTo(2);
        assertThat(notANumber.err()).contains("--seed");
    }
}
