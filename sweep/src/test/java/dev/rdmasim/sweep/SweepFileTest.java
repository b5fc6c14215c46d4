package dev.rdmasim.sweep;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SweepFileTest {
    @TempDir
    Path dir;

    private SweepSpec parse(String yaml) {
        return SweepFile.parse("s.yaml", yaml, dir);
    }

    private void fails(String yaml, String message) {
        assertThatThrownBy(() -> parse(yaml)).isInstanceOf(SweepSpecException.class).hasMessage(message);
    }

    @Test
    void aPerfSweepReadsEveryField() {
        SweepSpec s = parse("""
                # a comment
                workload:
                  perf: write_bw
                  flags: -s 64 -n 200
                profile: cx5-like
                set:
                  host.pollTime: 10ns
                  pcie: {mps: 512B}
                seed: 7
                repeat: 2
                params:
                  qp.initiatorQueueDepth: 1..16*4
                  qp.inlineDataSize: [0, "64..128+64"]
                """);
        assertThat(s.workload()).isEqualTo(Workload.perf("write_bw", List.of("-s", "64", "-n", "200")));
        assertThat(s.profile()).isEqualTo("cx5-like");
        assertThat(s.profileText()).isNull();
        assertThat(s.overrides()).containsExactly("host.pollTime=10ns", "pcie.mps=512B");
        assertThat(s.seed()).isEqualTo(7);
        assertThat(s.repeat()).isEqualTo(2);
        assertThat(s.params()).containsExactly(new SweepSpec.Param("qp.initiatorQueueDepth", List.of("1", "4", "16")),
                new SweepSpec.Param("qp.inlineDataSize", List.of("0", "64", "128")));
        assertThat(s.size()).isEqualTo(18);
        // The same sweep from a command line is the same sweep.
        SweepSpec cli = SweepSpec.perf("write_bw", List.of("-s", "64", "-n", "200")).profile("cx5-like", null)
                .set("host.pollTime=10ns").set("pcie.mps=512B").seed(7).repeat(2)
                .param("qp.initiatorQueueDepth=1..16*4").param("qp.inlineDataSize=0,64..128+64").build();
        assertThat(cli.fingerprint()).isEqualTo(s.fingerprint());
    }

    @Test
    void flagsMayBeAListAndPathsAreRelativeToTheFile() throws Exception {
        Files.createDirectories(dir.resolve("sub"));
        Files.writeString(dir.resolve("sub/t.trace"), SweepSpecTest.TRACE);
        Files.writeString(dir.resolve("sub/p.yaml"), "extends: default\npcie.mps: 512\n");
        Path file = dir.resolve("sub/s.yaml");
        Files.writeString(file, """
                workload: {trace: t.trace}
                profile: p.yaml
                params:
                  qp.inlineDataSize: 0,64
                """);
        SweepSpec s = SweepFile.read(file);
        assertThat(s.workload().traceName()).isEqualTo("t.trace");
        assertThat(s.workload().traceText()).isEqualTo(SweepSpecTest.TRACE);
        assertThat(s.profile()).isEqualTo("p.yaml");
        assertThat(s.profileText()).isEqualTo("extends: default\npcie.mps: 512\n");
        SweepSpec list = parse("""
                workload:
                  perf: send_lat
                  flags: [-n, 20, --size, 8]
                """);
        assertThat(list.workload().perfArgs()).containsExactly("-n", "20", "--size", "8");
        assertThat(list.size()).as("no params: one point").isEqualTo(1);
    }

    @Test
    void mistakesGiveTheFileAndLine() {
        fails("""
                workload:
                  perf: write_bw
                parms:
                  -s: 64
                """, "s.yaml line 3: unknown key 'parms'; did you mean 'params'? (valid: workload, profile, set, seed, "
                + "repeat, params)");
        fails("""
                workload:
                  perf: write_bw
                  trase: x.trace
                """, "s.yaml line 3: unknown key 'workload.trase'; did you mean 'trace'? (valid: perf, flags, trace)");
        fails("""
                workload:
                  perf: write_bw
                params:
                  qp.inlineDataSize: 0,64
                  qp.initiatorQueueDeph: 1,2
                """, "s.yaml line 5: unknown parameter 'qp.initiatorQueueDeph'; closest: qp.initiatorQueueDepth, "
                + "ndk.maxInitiatorQueueDepth, qp.initiatorRequestSge (or a perf flag: -s, -n, -t, ...)");
        fails("""
                workload:
                  perf: write_bw
                params:
                  pcie.mps: 128..512*3
                """, "s.yaml line 4: pcie.mps = 384: must be 128B..4KiB, power of two");
        fails("""
                workload:
                  perf: write_bw
                params:
                  pcie.mps: [128, [256]]
                """, "s.yaml line 4: params.pcie.mps must be a single value");
        fails("params:\n  pcie.mps: 128\n", "s.yaml line 1: missing 'workload:'");
        fails("workload:\n  flags: -n 10\n", "s.yaml line 2: workload takes perf: TEST or trace: FILE (one of them)");
        fails("workload: {trace: t.trace, flags: -n 1}\n", "s.yaml line 1: flags are perf flags: a trace takes none");
        fails("workload: {trace: nope.trace}\n", "s.yaml line 1: cannot read the trace " + dir.resolve("nope.trace")
                + " (NoSuchFileException: " + dir.resolve("nope.trace") + ")");
        fails("workload: {perf: write_bw}\nrepeat: 0\n", "s.yaml line 2: repeat must be between 1 and 1000000, got 0");
        fails("workload: {perf: write_bw}\nseed: one\n", "s.yaml line 2: seed must be a whole number, got 'one'");
        fails("workload: {perf: write_bw}\nseed: 1\nseed: 2\n", "s.yaml line 3: seed is given twice");
        fails("workload: {perf: write_bw}\nset:\n  pcie.mps: 100\n", "s.yaml line 3: pcie.mps = 100: must be "
                + "128B..4KiB, power of two");
        fails("workload: {perf: write_bw}\nset:\n  pcie:\n    mpss: 128\n", "s.yaml line 4: unknown parameter "
                + "'pcie.mpss'; closest: pcie.mps, pcie.mrrs, pcie.gen");
        fails("workload: {perf: write_bw}\nprofile:\n", "s.yaml line 2: no value");
        fails("- a\n- b\n", "s.yaml line 1: expected a map of key: value (workload:, params:, ...)");
        fails("", "s.yaml: empty sweep file");
        fails("workload: [\n", "s.yaml line 1: not valid YAML: while parsing a flow node");
    }
}
