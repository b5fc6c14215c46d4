package dev.rdmasim.traces.pcie;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.config.Profiles;
import dev.rdmasim.traces.pcie.PcieBench.Options;
import dev.rdmasim.traces.pcie.PcieBench.Result;
import dev.rdmasim.traces.pcie.PcieBench.Test;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PcieBenchTest {
    private static final Profile DEFAULT = Profiles.load("default");

    // ---- pcie-bench's analytic model (Neugebauer et al., SIGCOMM 2018), written out here ----------

    /** Gen3: 8 GT/s per lane, 128b/130b. */
    private static double rawGbps(int lanes) {
        return 8.0 * 128 / 130 * lanes;
    }

    /** TLP bandwidth after Ack and FC update DLLPs (8 B each per limit bytes) and SKIPs (4 B per 1538 B). */
    private static double tlpGbps(int lanes, int dllpLimit) {
        return rawGbps(lanes) * (1 - (8.0 / dllpLimit + 8.0 / dllpLimit + 4.0 / 1538));
    }

    private static int ceilDiv(int a, int b) {
        return (a + b - 1) / b;
    }

    /** Writes: ceil(S / MPS) MWr TLPs of 24 B header each. */
    private static double writeModel(double tlp, int size, int mps) {
        return tlp * size / (ceilDiv(size, mps) * 24.0 + size);
    }

    /** Reads: ceil(S / MRRS) 24 B requests up, completions of at most MPS with 20 B headers down; slower side wins. */
    private static double readModel(double tlp, int size, int mps, int mrrs) {
        int completions = 0;
        for (int left = size; left > 0; left -= mrrs) {
            completions += ceilDiv(Math.min(left, mrrs), mps);
        }
        double up = tlp * size / (ceilDiv(size, mrrs) * 24.0);
        double down = tlp * size / (size + completions * 20.0);
        return Math.min(up, down);
    }

    private static Result run(Profile p, Test t, int size, long n, int window) {
        return PcieBench.run(p, new Options(t, size, n, window, 1));
    }

    private static long iterationsFor(int size) {
        return Math.max(400, (1 << 18) / size);
    }

    // ---- tests ------------------------------------------------------------------------------------------------------

    @org.junit.jupiter.api.Test
    void bandwidthMatchesTheAnalyticModelWithin3PercentAtGen3x16Mps256() {
        // default profile: Gen3 x16, MPS 256, MRRS 512; spec Ack/FC limit for x16 at MPS 256 is 168 B.
        double tlp = tlpGbps(16, 168);
        List<String> report = new ArrayList<>();
        for (int size = 64; size <= 4096; size *= 2) {
            long n = iterationsFor(size);
            Result w = run(DEFAULT, Test.PCIE_WRITE, size, n, 0);
            Result r = run(DEFAULT, Test.PCIE_READ, size, n, 0);
            double wm = writeModel(tlp, size, 256);
            double rm = readModel(tlp, size, 256, 512);
            report.add(String.format("S %d: write %.2f (model %.2f) read %.2f (model %.2f)", size, w.bwGbps(), wm,
                    r.bwGbps(), rm));
            assertThat(w.bwGbps()).as("write %d B", size).isCloseTo(wm, within(wm * 0.03));
            assertThat(r.bwGbps()).as("read %d B", size).isCloseTo(rm, within(rm * 0.03));
            assertThat(w.window()).isEqualTo(256);
        }
        report.forEach(System.out::println);
    }

    @org.junit.jupiter.api.Test
    void gen3x8ReproducesThePcieBenchFigures() {
        // cx3-like is Gen3 x8, MPS 256, MRRS 512: hardware.md's anchor configuration.
        Profile cx3 = Profiles.load("cx3-like");
        double[][] writes = {{64, 42.10}, {128, 48.75}, {256, 52.92}};
        for (double[] a : writes) {
            double bw = run(cx3, Test.PCIE_WRITE, (int) a[0], iterationsFor((int) a[0]), 0).bwGbps();
            assertThat(bw).as("write %d B", (int) a[0]).isCloseTo(a[1], within(a[1] * 0.03));
        }
        double[][] reads = {{64, 44.10}, {256, 53.69}};
        for (double[] a : reads) {
            double bw = run(cx3, Test.PCIE_READ, (int) a[0], iterationsFor((int) a[0]), 0).bwGbps();
            assertThat(bw).as("read %d B", (int) a[0]).isCloseTo(a[1], within(a[1] * 0.03));
        }
    }

    @org.junit.jupiter.api.Test
    void withAWindowBelowTheBandwidthDelayProductReadsAreSlowerThanWritesAndFollowLittlesLaw() {
        // Writes are posted: 16 outstanding still fill the link. A read holds its slot for a whole round trip, so 16
        // reads give 16 x S per latency (Little's law) until S is large enough to fill the link.
        for (int size : new int[] {64, 128, 256}) {
            Result w = run(DEFAULT, Test.PCIE_WRITE, size, 2000, 16);
            Result r = run(DEFAULT, Test.PCIE_READ, size, 2000, 16);
            assertThat(r.bwGbps()).as("read vs write %d B", size).isLessThan(w.bwGbps() * 0.8);
            double little = 16.0 * size * 8 / r.loadedLatNsMedian();
            assertThat(r.bwGbps()).as("Little's law %d B", size).isCloseTo(little, within(little * 0.02));
        }
        // With the default window (every tag) the link, not the round trip, limits reads: 64 B completions carry a
        // 20 B header against a write's 24 B, so saturated 64 B reads are even a little faster, as in pcie-bench.
        assertThat(run(DEFAULT, Test.PCIE_READ, 64, 4000, 0).bwGbps())
                .isGreaterThan(run(DEFAULT, Test.PCIE_WRITE, 64, 4000, 0).bwGbps());
    }

    @org.junit.jupiter.api.Test
    void readLatencyIsTheRoundTripOfTheProfile() {
        long host = DEFAULT.getLong(dev.rdmasim.adapter.config.Parameters.PCIE_HOST_READ_LATENCY);
        long link = DEFAULT.getLong(dev.rdmasim.adapter.config.Parameters.PCIE_LINK_LATENCY);
        // Gen3 x16: 8 GT/s x 16 lanes x 128/130 = 15.753846 B/ns, i.e. 63.4765625 ps per byte.
        double psPerByte = 1000 / (8.0 * 16 * 128 / 130 / 8);
        for (int size : new int[] {64, 256}) {
            Result r = run(DEFAULT, Test.PCIE_READ, size, 200, 0);
            double expectedNs = (Math.ceil(24 * psPerByte) + link + host + Math.ceil((20 + size) * psPerByte) + link) / 1000;
            assertThat(r.latNsMedian()).as("%d B", size).isGreaterThanOrEqualTo((host + 2 * link) / 1000.0);
            assertThat(r.latNsMedian()).as("%d B", size).isCloseTo(expectedNs, within(0.002));
            // Nothing else on the link: every read takes the same time.
            assertThat(r.latNsP99()).isEqualTo(r.latNsMedian());
            assertThat(r.latencyIterations()).isEqualTo(200);
        }
        // The profile is what the adapter is built from: --set moves the latency by exactly the change.
        Result base = run(DEFAULT, Test.PCIE_READ, 64, 100, 0);
        Result slower = run(DEFAULT.with("pcie.hostReadLatency", "1us"), Test.PCIE_READ, 64, 100, 0);
        assertThat(slower.latNsMedian() - base.latNsMedian()).isCloseTo((1_000_000 - host) / 1000.0, within(0.001));
        // Under a full window the same reads queue behind each other.
        assertThat(base.loadedLatNsMedian()).isGreaterThan(base.latNsMedian());
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 7, 123456789})
    void realBytesAreCheckedAndTheSeedChangesOnlyTheData(long seed) {
        Result r = PcieBench.run(DEFAULT, new Options(Test.PCIE_READ, 1000, 300, 32, seed));
        // Every read of both phases is compared in full with host memory.
        assertThat(r.verifiedBytes()).isEqualTo((300 + r.latencyIterations()) * 1000L);
        Result w = PcieBench.run(DEFAULT, new Options(Test.PCIE_WRITE, 1000, 300, 32, seed));
        // Every host slot written is compared with the device slot written last to it.
        assertThat(w.verifiedBytes()).isEqualTo(300 * 1000L);
        // Writes walking past the 1 MiB buffer wrap onto slots already written; the last write must win.
        Result wrap = PcieBench.run(DEFAULT, new Options(Test.PCIE_WRITE, 65536, 40, 8, seed));
        assertThat(wrap.verifiedBytes()).isEqualTo(16 * 65536L);
        Result ref = PcieBench.run(DEFAULT, new Options(Test.PCIE_READ, 1000, 300, 32, 1));
        assertThat(r.bwGbps()).isEqualTo(ref.bwGbps());
        assertThat(r.simTimePs()).isEqualTo(ref.simTimePs());
        assertThat(r.events()).isEqualTo(ref.events());
    }

    @org.junit.jupiter.api.Test
    void jsonHasTheAgreedKeys() {
        Result r = run(DEFAULT, Test.PCIE_READ, 128, 50, 0);
        assertThat(r.json()).containsKeys("test", "bytes", "iterations", "bw_gbps", "lat_ns_median", "sim_time_ps",
                "wall_s").containsEntry("test", "pcie_read").containsEntry("bytes", 128).containsEntry("iterations", 50L);
        assertThat(r.json().get("lat_ns_median")).isInstanceOf(Double.class);
        Result w = run(DEFAULT, Test.PCIE_WRITE, 128, 50, 0);
        assertThat(w.json()).containsKeys("test", "bytes", "iterations", "bw_gbps", "sim_time_ps", "wall_s")
                .doesNotContainKey("lat_ns_median").containsEntry("test", "pcie_write");
        assertThat(w.json().get("sim_time_ps")).isEqualTo(w.simTimePs()).isNotEqualTo(0L);
    }

    @org.junit.jupiter.api.Test
    void impossibleOptionsAreRejectedNamingTheProblem() {
        assertThatThrownBy(() -> new Options(Test.PCIE_READ, 63, 10, 0, 1)).hasMessageContaining("64..65536")
                .hasMessageContaining("63");
        assertThatThrownBy(() -> new Options(Test.PCIE_READ, 65537, 10, 0, 1)).hasMessageContaining("65537");
        assertThatThrownBy(() -> new Options(Test.PCIE_WRITE, 64, 1, 0, 1)).hasMessageContaining("iterations");
        assertThatThrownBy(() -> new Options(Test.PCIE_WRITE, 64, 10, 1025, 1)).hasMessageContaining("window");
        assertThatThrownBy(() -> Test.of("pcie_rd")).hasMessageContaining("pcie_read, pcie_write");
        assertThat(Test.of("pcie_write")).isEqualTo(Test.PCIE_WRITE);
    }
}
