package dev.rdmasim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.traces.Examples;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Mistakes on the command line: one line, exit status 2, nothing of the user's replaced. */
class UserMistakesTest {
    @TempDir
    Path dir;

    private Path quickstart() throws IOException {
        Path t = dir.resolve("q.trace");
        Files.writeString(t, Examples.text("quickstart"));
        return t;
    }

    private static void oneLine(Cli c, String... contains) {
        assertThat(c.code()).as(c.err()).isEqualTo(2);
        assertThat(c.err()).startsWith("rdmasim: ").endsWith("\n").contains(contains);
        assertThat(c.err().strip()).doesNotContain("\n", "\tat ", "Exception");
    }

    @Test
    void picocliMistakesAreOneLineWithWhereTheHelpIs() {
        oneLine(Cli.run("replay", "--bogus", "x.trace"), "Unknown option: '--bogus'", "see rdmasim replay --help");
        oneLine(Cli.run("replay"), "Missing required parameter: 'TRACE'", "see rdmasim replay --help");
        oneLine(Cli.run("replya"), "'replya'", "did you mean 'replay'", "see rdmasim --help");
        oneLine(Cli.run("perf", "write_bw", "--seed"), "--seed", "see rdmasim perf --help");
        oneLine(Cli.run("perf", "pcie_read", "--bogus"), "Unknown option", "--help");
    }

    @Test
    void outNamingAFileOrAnUnwritablePlaceIsRefused() throws IOException {
        Path file = dir.resolve("afile");
        Files.writeString(file, "mine");
        oneLine(Cli.run("replay", quickstart().toString(), "--out", file.toString()), "--out " + file + " is a file");
        oneLine(Cli.run("replay", quickstart().toString(), "--out", file.resolve("sub").toString()), "is a file");
        oneLine(Cli.run("demo", "--out", file.toString()), "is a file");
        oneLine(Cli.run("sweep", "--perf", "write_bw", "--param", "pcie.mps=128", "--out", file.toString()), "is a file");
        assertThat(Files.readString(file)).isEqualTo("mine");
        oneLine(Cli.run("replay", quickstart().toString(), "--out", "/proc/rdmasim-cannot-be-here"),
                "/proc/rdmasim-cannot-be-here");
    }

    @Test
    void recordNamingADirectoryLeavesItAlone() throws IOException {
        Path empty = Files.createDirectory(dir.resolve("empty"));
        oneLine(Cli.run("replay", quickstart().toString(), "--out", dir.resolve("o").toString(), "--record",
                empty.toString()), "--record " + empty + " is a directory");
        assertThat(empty).isEmptyDirectory();
        Path full = Files.createDirectory(dir.resolve("full"));
        Files.writeString(full.resolve("keep"), "k");
        oneLine(Cli.run("replay", quickstart().toString(), "--out", dir.resolve("o").toString(), "--record",
                full.toString()), "is a directory");
        assertThat(full.resolve("keep")).hasContent("k");
        oneLine(Cli.run("perf", "send_lat", "-n", "5", "--record", empty.toString()), "is a directory");
        oneLine(Cli.run("replay", quickstart().toString(), "--out", dir.resolve("o").toString(), "--record",
                dir.resolve("nodir/x.trace").toString()), "no directory");
        assertThat(dir.resolve("o")).doesNotExist();
    }

    @Test
    void aSecondConnectOfAConnectedQpFollowedByATimedCallRuns() throws IOException {
        Path t = dir.resolve("c.trace");
        Files.writeString(t, Examples.text("quickstart").replace("connect A.qp B.qp port=7471\n",
                "connect A.qp B.qp port=7471\nconnect A.qp B.qp port=7472\n"));
        Cli c = Cli.run("replay", t.toString(), "--out", dir.resolve("o").toString());
        assertThat(c.code()).as(c.err()).isZero();
        assertThat(Files.readString(dir.resolve("o/completions.csv"))).contains(",connect,");
    }

    @Test
    @Timeout(60)
    void largeFilledRegionsCostWhatIsTouched() throws IOException {
        Path t = dir.resolve("big.trace");
        Files.writeString(t, Examples.text("quickstart")
                .replace("mr A.src pd=A.pd size=64KiB access=LOCAL_WRITE fill=pattern:1",
                        "mr A.src pd=A.pd size=8GiB access=LOCAL_WRITE fill=pattern:1")
                .replace("mr B.dst pd=B.pd size=64KiB", "mr B.dst pd=B.pd size=1TiB"));
        Path small = dir.resolve("small.trace");
        Files.writeString(small, Examples.text("quickstart"));
        Cli big = Cli.run("replay", t.toString(), "--out", dir.resolve("big").toString());
        assertThat(big.code()).as(big.err()).isZero();
        Cli ref = Cli.run("replay", small.toString(), "--out", dir.resolve("small").toString());
        // The same WRITE of the same pattern bytes: the same completion at the same time.
        assertThat(dir.resolve("big/completions.csv")).hasSameTextualContentAs(dir.resolve("small/completions.csv"));
        assertThat(ref.code()).isZero();
    }

    @Test
    void meaninglessOptionsAreRefused() throws IOException {
        oneLine(Cli.run("perf", "pcie_read", "--window", "0"), "--window must be 1..");
        oneLine(Cli.run("replay", quickstart().toString(), "--out", dir.resolve("v").toString(), "--vcd-signals", "["),
                "--vcd-signals: signal glob '[' matches none of the");
        oneLine(Cli.run("replay", quickstart().toString(), "--out", dir.resolve("v").toString(), "--vcd-signals",
                "nicA.pcie.*,nicZ.*"), "'nicZ.*' matches none");
        assertThat(dir.resolve("v")).isEmptyDirectory();
        Cli ok = Cli.run("replay", quickstart().toString(), "--out", dir.resolve("w").toString(), "--vcd-signals",
                "nicA.pcie.*");
        assertThat(ok.code()).as(ok.err()).isZero();
        oneLine(Cli.run("sweep", "--perf", "write_bw", "--trace", quickstart().toString(), "--param", "pcie.mps=128",
                "--out", dir.resolve("s").toString()), "give one workload", "not both");
    }

    @Test
    void controlCharactersInATraceAreNotEchoedRaw() throws IOException {
        Path t = dir.resolve("ctl.trace");
        Files.writeString(t, "rdmasim-trace 1\nho\u001b[2Jst A\n");
        oneLine(Cli.run("replay", t.toString(), "--out", dir.resolve("o").toString()), t + ":2:1:", "\\u001b[2J");
    }
}
