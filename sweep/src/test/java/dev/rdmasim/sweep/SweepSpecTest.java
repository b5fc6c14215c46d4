package dev.rdmasim.sweep;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class SweepSpecTest {
    static final String TRACE = """
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
            repeat 7 as i
              write A.qp ctx=w${i+1} sge=A.src+0:64 remote=B.dst+${(i+1)*64} flags=INLINE
            end
            """;

    private static SweepSpec.Builder perf() {
        return SweepSpec.perf("write_bw", List.of("-s", "64", "-n", "200"));
    }

    private static SweepSpec.Builder trace(String text) {
        return new SweepSpec.Builder(Workload.trace("t.trace", text));
    }

    private static void fails(Supplier<?> what, String message) {
        assertThatThrownBy(what::get).isInstanceOf(SweepSpecException.class).hasMessage(message);
    }

    @Test
    void pointsAreTheCartesianProductWithTheLastKeyFastestAndRepeatsInnermost() {
        SweepSpec s = perf().param("qp.initiatorQueueDepth=1,4,16").param("qp.inlineDataSize", "0,64")
                .seed(5).repeat(2).build();
        assertThat(s.size()).isEqualTo(12);
        assertThat(s.keys()).containsExactly("qp.initiatorQueueDepth", "qp.inlineDataSize");
        List<Point> points = s.points();
        assertThat(points).extracting(Point::index).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
        assertThat(points).extracting(p -> String.join("/", p.values()) + "#" + p.repeat() + "@" + p.seed())
                .containsExactly("1/0#0@5", "1/0#1@6", "1/64#0@5", "1/64#1@6", "4/0#0@5", "4/0#1@6", "4/64#0@5",
                        "4/64#1@6", "16/0#0@5", "16/0#1@6", "16/64#0@5", "16/64#1@6");
        assertThat(points.get(3).describe()).isEqualTo("qp.initiatorQueueDepth=1 qp.inlineDataSize=64 repeat=1");
        assertThat(points.get(0).workload()).isEqualTo(Workload.perf("write_bw", List.of("-s", "64", "-n", "200")));
        SweepSpec three = SweepSpec.perf("write_bw", List.of("-n", "200")).param("-s=64,128").param("pcie.mps=128,256").param("-t", "2..8*2").build();
        assertThat(three.points()).extracting(p -> String.join("/", p.values())).containsExactly(
                "64/128/2", "64/128/4", "64/128/8", "64/256/2", "64/256/4", "64/256/8",
                "128/128/2", "128/128/4", "128/128/8", "128/256/2", "128/256/4", "128/256/8");
    }

    @Test
    void aSweepWithoutParametersIsOnePointRepeated() {
        SweepSpec s = perf().repeat(3).build();
        assertThat(s.points()).extracting(Point::seed).containsExactly(1L, 2L, 3L);
        assertThat(s.points().get(0).describe()).isEmpty();
    }

    @Test
    void unknownKeysListOrSuggestTheValidOnes() {
        fails(() -> perf().param("pcie.mpss=128"), "unknown parameter 'pcie.mpss'; closest: pcie.mps, pcie.mrrs, "
                + "pcie.gen (or a perf flag: -s, -n, -t, ...)");
        fails(() -> trace(TRACE).param("qp.inlineSize=0"), "unknown parameter 'qp.inlineSize'; closest: "
                + "qp.inlineDataSize, nic.pageSize, pcie.lanes");
        fails(() -> perf().param("-i=0,64"), "unknown perf flag '-i'; did you mean '-I'? (valid: -s, -a, -n, -t, -r, "
                + "-I, -q, -l, -Q, -m)");
        fails(() -> perf().param("-a=1"), "-a takes no value and cannot be swept (sweep -s instead)");
        fails(() -> trace(TRACE).param("-s=64"), "perf flag -s applies to perf workloads; this sweep replays a trace "
                + "(sweep profile keys or qp.* keys)");
        fails(() -> perf().param("qp.initiatorRequestSge=1,2"), "qp.initiatorRequestSge cannot be swept on a perf "
                + "workload: its QPs have one SGE each (sweep it with a trace)");
        fails(() -> perf().param("pcie.mps"), "expected KEY=VALUES (e.g. qp.inlineDataSize=0,64,128 or -s=64..4096*4), "
                + "got 'pcie.mps'");
        fails(() -> SweepSpec.perf("write_bandwidth", List.of()).build(), "unknown test 'write_bandwidth': expected "
                + "one of send_bw, write_bw, read_bw, send_lat, write_lat, read_lat");
        fails(() -> SweepSpec.perf("write_bw", List.of("-x", "1")).build(), "unknown perf flag '-x'; did you mean "
                + "'-s'? (valid: -s, -a, -n, -t, -r, -I, -q, -l, -Q, -m)");
        fails(() -> perf().set("pcie.mpss=512"), "unknown parameter 'pcie.mpss'; closest: pcie.mps, pcie.mrrs, pcie.gen");
        fails(() -> perf().set("pcie.mps"), "'pcie.mps' is not key=value (e.g. pcie.mps=512)");
        fails(() -> perf().set("pcie.mps=100"), "pcie.mps = 100: must be 128B..4KiB, power of two");
        fails(() -> perf().profile("cx7-like", null), "unknown profile 'cx7-like'; valid: default, cx3-like, "
                + "connectib-like, cx5-like, cx6-like (or a path to a .yaml file)");
    }

    @Test
    void badValuesNameTheKey() {
        fails(() -> perf().param("pcie.mps=128,300").build(), "pcie.mps = 300: must be 128B..4KiB, power of two");
        fails(() -> perf().param("qp.inlineDataSize=0,big").build(), "qp.inlineDataSize: 'big' is not a byte size "
                + "(expected e.g. 256, 256B, 4KiB or 1MiB)");
        fails(() -> perf().param("qp.initiatorQueueDepth=0,1").build(), "qp.initiatorQueueDepth = 0: must be at least 1");
        fails(() -> SweepSpec.perf("write_bw", List.of()).param("-s=64,4KiB").build(), "-s takes a whole number, got '4KiB'");
        fails(() -> perf().param("qp.inlineDataSize", "0..64*2"), "qp.inlineDataSize: range '0..64*2': a geometric "
                + "range starts at 1 or more, got 0");
        fails(() -> perf().repeat(0).build(), "repeat must be at least 1, got 0");
    }

    @Test
    void aKeyIsSetOnce() {
        fails(() -> perf().param("-s=64").param("-s=128"), "-s is swept twice");
        fails(() -> perf().param("-t=1,2").param("qp.initiatorQueueDepth=4").build(),
                "qp.initiatorQueueDepth is swept, but the swept key -t already set -t");
        fails(() -> perf().param("-s=64,128").build(), "-s is swept, but the perf flags already set -s");
        fails(() -> perf().param("--size=64,128").build(), "--size is swept, but the perf flags already set -s");
        fails(() -> perf().param("pcie.mps=128").set("pcie.mps=256").build(),
                "pcie.mps is swept, but the fixed overrides already set it");
    }

    @Test
    void everyPointIsCheckedBeforeAnyRuns() {
        fails(() -> perf().param("qp.initiatorQueueDepth=1024,8192").build(), "point 1 (qp.initiatorQueueDepth=8192): "
                + "-t must be between 1 and ndk.maxInitiatorQueueDepth 4096, got 8192 (qp.initiatorQueueDepth is perf's -t)");
        fails(() -> SweepSpec.perf("read_bw", List.of("-n", "200")).param("qp.inlineDataSize=0,64").build(),
                "point 1 (qp.inlineDataSize=64): -I must be 0 for read tests (reads carry no inline data), got 64 "
                        + "(qp.inlineDataSize is perf's -I)");
        fails(() -> perf().param("nic.qpcCacheEntries=512").param("nic.qpcCacheWays=8,3").repeat(2).build(),
                "point 2 (nic.qpcCacheEntries=512 nic.qpcCacheWays=3): nic.qpcCacheWays (3) must divide "
                        + "nic.qpcCacheEntries (512)");
        fails(() -> trace(TRACE).param("qp.initiatorRequestSge=1,100").build(), "point 1 (qp.initiatorRequestSge=100): "
                + "qp.initiatorRequestSge = 100 is above the adapter's ndk.maxInitiatorRequestSge 30");
        // Checked against the profile with the point's own overrides.
        assertThat(trace(TRACE).param("ndk.maxInitiatorRequestSge=30").param("qp.initiatorRequestSge=30").build().size())
                .isEqualTo(1);
    }

    @Test
    void aTraceIsCheckedAndMustBeSelfContained() {
        fails(() -> trace(TRACE.replace("host A\n", "host A profile=mine.yaml\n")).build(), "t.trace:2:16: a swept "
                + "trace's hosts take built-in profiles (default, cx3-like, connectib-like, cx5-like, cx6-like), not the "
                + "file 'mine.yaml': give it as the sweep's profile instead");
        fails(() -> trace(TRACE.replace("connect A.qp B.qp", "connect A.qp A.qp")).build(),
                "t.trace:12:14: connect needs QPs on different hosts: 'A.qp' and 'A.qp' are both on host A");
        assertThat(trace(TRACE.replace("host A\n", "host A profile=cx5-like\n")).param("qp.inlineDataSize=0,64").build()
                .size()).isEqualTo(2);
    }

    @Test
    void theFingerprintIdentifiesTheSweep() {
        String a = perf().param("qp.inlineDataSize=0,64").build().fingerprint();
        assertThat(perf().param("qp.inlineDataSize", List.of("0", "64")).build().fingerprint()).isEqualTo(a);
        assertThat(perf().param("qp.inlineDataSize=0,128").build().fingerprint()).isNotEqualTo(a);
        assertThat(perf().param("qp.inlineDataSize=0,64").seed(2).build().fingerprint()).isNotEqualTo(a);
        assertThat(perf().param("qp.inlineDataSize=0,64").repeat(2).build().fingerprint()).isNotEqualTo(a);
        assertThat(perf().param("qp.inlineDataSize=0,64").set("pcie.mps=512").build().fingerprint()).isNotEqualTo(a);
        assertThat(SweepSpec.perf("write_bw", List.of("-s", "64", "-n", "201")).param("qp.inlineDataSize=0,64").build()
                .fingerprint()).isNotEqualTo(a);
        String t = trace(TRACE).param("qp.inlineDataSize=0,64").build().fingerprint();
        assertThat(trace(TRACE + "# one more comment\n").param("qp.inlineDataSize=0,64").build().fingerprint())
                .isNotEqualTo(t);
    }
}
