package dev.rdmasim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SweepCommandTest {
    private static final String TRACE = """
            rdmasim-trace 1
            host A
            host B
            cq A.cq depth=64
            cq B.cq depth=64
            pd A.pd
            pd B.pd
            mr A.src pd=A.pd size=4KiB access=LOCAL_WRITE fill=pattern:3
            mr B.dst pd=B.pd size=4KiB access=LOCAL_WRITE|REMOTE_WRITE
            qp A.qp pd=A.pd rcq=A.cq icq=A.cq rq=4 iq=8 rsge=1 isge=1 inline=64
            qp B.qp pd=B.pd rcq=B.cq icq=B.cq rq=4 iq=4 rsge=1 isge=1 inline=0
            connect A.qp B.qp port=7471
            +1us write A.qp ctx=w0 sge=A.src+0:64 remote=B.dst+0 flags=INLINE
            repeat 3 as i
              write A.qp ctx=w${i+1} sge=A.src+0:64 remote=B.dst+${(i+1)*64} flags=INLINE
            end
            """;

    @TempDir
    Path dir;

    private String out(String name) {
        return dir.resolve(name).toString();
    }

    @Test
    void aPerfSweepWritesItsFilesAndResumesToTheSameBytes() throws Exception {
        Cli r = Cli.run("sweep", "--param", "qp.inlineDataSize=0,64", "--param", "-t=4,16", "--perf", "write_bw",
                "--jobs", "2", "--out", out("a"), "--", "-s", "64", "-n", "100");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.err()).isEmpty();
        assertThat(r.out()).contains("sweep write_bw on default: 4 points = qp.inlineDataSize (2 values) x -t (2 values)",
                "ran             4 points (0 already done) on local, 2 threads in ", "best (highest)  bw_avg_gbps ",
                "results         " + dir.resolve("a/results.csv"), dir.resolve("a/results.json").toString(),
                "report          " + dir.resolve("a/report.md") + "   (what the sweep shows, with the plots)",
                "plots           " + dir.resolve("a/throughput-vs-depth.png") + "   (and .svg)");
        for (String line : r.out().lines().toList()) {
            // Every file the summary names is there.
            String[] words = line.trim().split("\\s+");
            if (line.startsWith("  report") || line.startsWith("  plots") || line.startsWith("                  ")) {
                assertThat(Path.of(words[words.length > 1 && (words[0].equals("report") || words[0].equals("plots")) ? 1 : 0]))
                        .as(line).isRegularFile();
            }
        }
        for (String f : new String[] {"results.csv", "results.json", "sweep.json", "points/000003.json"}) {
            assertThat(dir.resolve("a").resolve(f)).isRegularFile();
        }
        String csv = Files.readString(dir.resolve("a/results.csv"));
        assertThat(csv).startsWith("qp.inlineDataSize,-t,bw_avg_gbps,bw_peak_gbps,msg_rate_mpps,lat_p50_us,lat_p99_us,lat_p999_us,sim_time_ps,seed,limited_by,limit_fraction\n0,4,");
        assertThat(csv.lines()).hasSize(5);
        // The same sweep with the flags in one string, into a directory that already has it: nothing to run.
        Cli again = Cli.run("sweep", "--perf", "write_bw -s 64 -n 100", "--param", "qp.inlineDataSize=0,64", "--param",
                "-t=4,16", "--out", out("a"), "--jobs", "1");
        assertThat(again.code()).as(again.err()).isZero();
        assertThat(again.out()).contains("ran             0 points (4 already done) on local, 1 thread");
        assertThat(Files.readString(dir.resolve("a/results.csv"))).isEqualTo(csv);
    }

    @Test
    void aYamlSweepOfATraceRuns() throws Exception {
        Files.writeString(dir.resolve("t.trace"), TRACE);
        Files.writeString(dir.resolve("s.yaml"), """
                workload:
                  trace: t.trace
                params:
                  qp.initiatorQueueDepth: 2,4
                """);
        Cli r = Cli.run("sweep", "--file", dir.resolve("s.yaml").toString(), "--out", out("t"));
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("sweep t.trace on default: 2 points = qp.initiatorQueueDepth (2 values)",
                "best (highest)  throughput_gbps ");
        assertThat(Files.readAllLines(dir.resolve("t/results.csv")).get(0)).isEqualTo("qp.initiatorQueueDepth,"
                + "sim_time_ps,calls,completions,completions_no_more_entries,completions_success,bytes_moved,"
                + "throughput_gbps,latency_p50_ns,latency_p99_ns,seed,limited_by,limit_fraction");
        // At depth 2, two of the four writes posted at once are refused; at 4 none is (an empty cell).
        assertThat(Files.readAllLines(dir.resolve("t/results.csv")).subList(1, 3)).extracting(l -> l.split(",", -1)[4])
                .containsExactly("2", "");
    }

    @Test
    void mistakesAreOneLineWithExitStatus2() throws Exception {
        Files.writeString(dir.resolve("t.trace"), TRACE);
        Files.writeString(dir.resolve("s.yaml"), "workload: {perf: write_bw}\n");
        String trace = dir.resolve("t.trace").toString();
        String[][] cases = {
            {"unknown parameter 'pcie.mpss'; closest: pcie.mps,", "--param", "pcie.mpss=128", "--perf", "write_bw"},
            {"qp.inlineDataSize: range '0..64*2': a geometric range starts at 1 or more, got 0", "--param",
                "qp.inlineDataSize=0..64*2", "--perf", "write_bw"},
            {"point 1 (qp.initiatorQueueDepth=8192): -t must be between 1 and ndk.maxInitiatorQueueDepth 4096, got 8192",
                "--param", "qp.initiatorQueueDepth=8,8192", "--perf", "write_bw"},
            {"give the workload: --perf TEST or --trace FILE (or the whole sweep with --file)", "--param", "-s=64"},
            {"give one workload: --perf write_bw or --trace " + trace + ", not both", "--perf", "write_bw", "--trace", trace},
            {"perf flags (-n 10) need --perf, not --trace", "--trace", trace, "--", "-n", "10"},
            {"perf flag -s applies to perf workloads", "--trace", trace, "--param", "-s=64"},
            {"no trace file nope.trace", "--trace", "nope.trace"},
            {"--file holds the whole sweep: give --param, --seed in the file instead", "--file",
                dir.resolve("s.yaml").toString(), "--param", "-s=64", "--seed", "3"},
            {"unknown executor 'spark'; available: ", "--perf", "write_bw", "--executor", "spark"},
            {"the local executor runs on this machine only", "--perf", "write_bw", "--members", "a:1,b:2"},
            {"--jobs must be at least 1, got 0", "--perf", "write_bw", "--jobs", "0"},
            {"unknown test 'write_bandwidth'", "--perf", "write_bandwidth"},
        };
        for (String[] c : cases) {
            // The output directory goes first, so that perf flags after "--" stay last.
            List<String> a = new ArrayList<>(List.of("sweep", "--out", out("bad")));
            a.addAll(List.of(c).subList(1, c.length));
            String[] args = a.toArray(String[]::new);
            Cli r = Cli.run(args);
            assertThat(r.code()).as(String.join(" ", args) + "\n" + r.err()).isEqualTo(2);
            assertThat(r.err()).as(String.join(" ", args)).startsWith("rdmasim: ").contains(c[0]);
            assertThat(r.err().strip().lines().count()).as("one line: " + r.err()).isEqualTo(1);
            assertThat(r.out()).isEmpty();
        }
        assertThat(dir.resolve("bad")).doesNotExist();
        Cli noOut = Cli.run("sweep", "--perf", "write_bw");
        assertThat(noOut.code()).isEqualTo(2);
        assertThat(noOut.err()).contains("Missing required option: '--out=DIR'");
    }

    @Test
    void aFailingPointExitsWith1AndAnotherSweepInItsDirectoryIsRefused() throws Exception {
        Cli failing = Cli.run("sweep", "--perf", "write_bw -s 64 -n 10", "--param", "link.dropProbability=0,1",
                "--jobs", "1", "--out", out("f"));
        assertThat(failing.code()).isEqualTo(1);
        assertThat(failing.err()).startsWith("rdmasim: sweep failed: point 1 (link.dropProbability=1) failed: ")
                .contains("NdkConnect").contains("(finished points are kept in " + dir.resolve("f/points")
                        + ": the same command resumes the sweep)");
        assertThat(dir.resolve("f/points/000000.json")).isRegularFile();
        assertThat(dir.resolve("f/results.csv")).doesNotExist();
        Cli other = Cli.run("sweep", "--perf", "write_bw -s 64 -n 10", "--param", "link.dropProbability=0", "--out",
                out("f"));
        assertThat(other.code()).isEqualTo(2);
        assertThat(other.err()).isEqualTo("rdmasim: " + dir.resolve("f") + " holds another sweep (its sweep.json "
                + "describes different parameters, values, workload, profile, seed or repeat): give another --out "
                + "directory, or delete it to start over\n");
    }
}
