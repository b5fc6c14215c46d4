package dev.rdmasim.traces.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.adapter.config.Parameters;
import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.wire.RoceLayout;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The workloads on the modeled hosts: the figures must follow from the mechanism (the wire's rate and frame
 * overheads, queue depth, doorbell batching, inline WQEs, the extra PCIe read of a READ), and equal runs must
 * give equal figures.
 */
class PerfWorkloadTest {
    private static final Profile P = Profile.defaults();

    private static BwResult bw(PerfOptions o) {
        List<PerfResult> r = Perf.run(o);
        assertThat(r).hasSize(1);
        return (BwResult) r.get(0);
    }

    private static LatResult lat(PerfOptions o) {
        List<PerfResult> r = Perf.run(o);
        assertThat(r).hasSize(1);
        return (LatResult) r.get(0);
    }

    /**
     * The most payload a link can carry in Gb/s for RDMA WRITEs of {@code bytes}: each message is cut into MTU
     * frames, each with Ethernet, IPv4, UDP and BTH headers, the RETH on the first, the ICRC, the FCS, the
     * preamble and the inter-frame gap on the wire.
     */
    static double writeLineRateGbps(Profile p, int bytes) {
        int mtu = p.getInt(Parameters.LINK_MTU);
        long wire = 0;
        for (int left = bytes, first = 1; left > 0; left -= mtu, first = 0) {
            int chunk = Math.min(left, mtu);
            wire += RoceLayout.ETH_HEADER + RoceLayout.IP_HEADER + RoceLayout.UDP_HEADER + RoceLayout.BTH
                    + first * RoceLayout.RETH + chunk + RoceLayout.ICRC + RoceLayout.FCS + RoceLayout.PREAMBLE_SFD
                    + RoceLayout.INTER_FRAME_GAP;
        }
        return p.getLong(Parameters.LINK_RATE) / 1e9 * bytes / wire;
    }

    @Test
    void writeBandwidthAt64KiBReachesMostOfTheLineRateAndNeverMore() {
        BwResult r = bw(PerfOptions.builder(PerfTest.WRITE_BW, P).size(65536).iterations(300).build());
        double line = writeLineRateGbps(P, 65536);
        assertThat(line).isBetween(90.0, 95.0); // 64 x 1024 B frames: 1024 / 1106 of 100 Gb/s, less the RETH
        assertThat(r.bwAvgGbps()).isLessThanOrEqualTo(line).isGreaterThan(0.95 * line);
        assertThat(r.bwPeakGbps()).isLessThanOrEqualTo(line).isGreaterThanOrEqualTo(r.bwAvgGbps());
        assertThat(r.iterations()).isEqualTo(300);
        assertThat(r.msgRateMpps()).isCloseTo(r.bwAvgGbps() / (65536 * 8) * 1e3, org.assertj.core.data.Percentage.withPercentage(1e-6));
        // The measured part moves 300 messages at no more than the line rate.
        assertThat(r.simTimePs()).isGreaterThanOrEqualTo((long) (300 * 65536 * 8 / line * 1000));
    }

    @Test
    void largerMtuCarriesMoreOfTheLineRate() {
        BwResult small = bw(PerfOptions.builder(PerfTest.WRITE_BW, P).size(16384).iterations(200).mtu(256).build());
        BwResult big = bw(PerfOptions.builder(PerfTest.WRITE_BW, P).size(16384).iterations(200).mtu(4096).build());
        Profile p256 = P.with(Parameters.LINK_MTU, 256L);
        assertThat(small.bwAvgGbps()).isLessThanOrEqualTo(writeLineRateGbps(p256, 16384));
        assertThat(big.bwAvgGbps()).isGreaterThan(small.bwAvgGbps() + 5);
    }

    @Test
    void messageRateGrowsWithTheDepth() {
        // Depths below the posting CPU's bound (about 8 Mpps: a WQE build and two BlueFlame chunks per post).
        double[] rate = new double[4];
        int[] depths = {1, 2, 4, 8};
        for (int i = 0; i < depths.length; i++) {
            rate[i] = bw(PerfOptions.builder(PerfTest.WRITE_BW, P).size(64).iterations(600).txDepth(depths[i]).build())
                    .msgRateMpps();
        }
        for (int i = 1; i < depths.length; i++) {
            assertThat(rate[i]).as("-t %d vs -t %d", depths[i], depths[i - 1]).isGreaterThan(1.2 * rate[i - 1]);
        }
    }

    @Test
    void postListsBeatOneDoorbellPerRequestWhenMmioIsSlow() {
        // 200 ns per 8-byte doorbell and per 64-byte BlueFlame chunk: one per request limits to < 5 Mpps.
        Profile slow = P.withOverrides(List.of("host.mmioStoreTime=200ns", "host.wcFlushTime=200ns"));
        PerfOptions.Builder b = PerfOptions.builder(PerfTest.WRITE_BW, slow).size(64).iterations(1024).txDepth(64);
        BwResult one = bw(b.postList(1).build());
        BwResult lists = bw(b.postList(16).build());
        // Alone in its doorbell, each WQE goes out by BlueFlame: control (16 B), remote address (16 B) and inline
        // (4 B header + 64 B) segments make two 64-byte chunks for the core to write, then one store fence.
        int chunks = (16 + 16 + 4 + 64 + 63) / 64;
        long perRequestPs = slow.getLong(Parameters.HOST_WQE_BUILD_TIME)
                + chunks * slow.getLong(Parameters.HOST_WC_FLUSH_TIME) + slow.getLong(Parameters.HOST_WC_BARRIER_TIME);
        assertThat(one.msgRateMpps()).as("the core's work per request bounds the rate")
                .isLessThanOrEqualTo(1e6 / perRequestPs).isGreaterThan(0.9e6 / perRequestPs);
        assertThat(lists.msgRateMpps()).isGreaterThan(2 * one.msgRateMpps());
    }

    @Test
    void manyQpsShareTheLink() {
        BwResult r = bw(PerfOptions.builder(PerfTest.WRITE_BW, P).size(4096).iterations(200).qps(4).txDepth(32).build());
        assertThat(r.iterations()).as("perftest counts every QP's messages").isEqualTo(800);
        assertThat(r.bwAvgGbps()).isLessThanOrEqualTo(writeLineRateGbps(P, 4096)).isGreaterThan(50);
    }

    @Test
    void sendBandwidthKeepsReceivesPostedAndStaysUnderTheLineRate() {
        BwResult r = bw(PerfOptions.builder(PerfTest.SEND_BW, P).size(8192).iterations(300).rxDepth(64).build());
        // A SEND has no RETH, so the WRITE bound (which counts one) is a little below its own: allow that.
        assertThat(r.bwAvgGbps()).isLessThan(writeLineRateGbps(P, 8192) * 1.002).isGreaterThan(40);
    }

    private static Profile readLimit(int reads) {
        return P.withOverrides(List.of("ndk.maxInboundReadLimit=" + reads, "transport.maxInboundReads=" + reads));
    }

    @Test
    void readBandwidthIsLimitedByTheNegotiatedReadLimit() {
        // The server (responder) allows 1, 2 or 16 READs in flight; the client asks for the most it can.
        BwResult single = bw(PerfOptions.builder(PerfTest.READ_BW, readLimit(1)).size(4096).iterations(400).build());
        BwResult two = bw(PerfOptions.builder(PerfTest.READ_BW, readLimit(2)).size(4096).iterations(400).build());
        BwResult many = bw(PerfOptions.builder(PerfTest.READ_BW, P).size(4096).iterations(400).build());
        assertThat(many.bwAvgGbps()).isGreaterThan(0.9 * writeLineRateGbps(P, 4096));
        assertThat(single.bwAvgGbps()).as("one READ at a time: each waits a round trip").isLessThan(0.5 * many.bwAvgGbps());
        assertThat(two.bwAvgGbps() / single.bwAvgGbps()).as("latency-bound: two in flight, twice the rate")
                .isBetween(1.8, 2.05);
        // One at a time, each READ needs at least the responder's read of host memory, the propagation both
        // ways and its frames on the wire (4 x 1024 B of response, headers counted without extensions).
        long frame = RoceLayout.EXT_OFFSET + RoceLayout.ICRC + RoceLayout.FCS + RoceLayout.PREAMBLE_SFD
                + RoceLayout.INTER_FRAME_GAP;
        double wirePs = (4 * (frame + 1024) + frame) * 8 * 1e12 / P.getLong(Parameters.LINK_RATE);
        double perReadPs = P.getLong(Parameters.PCIE_HOST_READ_LATENCY) + 2 * P.getLong(Parameters.LINK_PROPAGATION_DELAY)
                + wirePs;
        assertThat(single.msgRateMpps()).isLessThanOrEqualTo(1e6 / perReadPs);
    }

    @Test
    void inlineWritesHaveLowerLatencyThanWritesTheAdapterMustFetch() {
        PerfOptions.Builder b = PerfOptions.builder(PerfTest.WRITE_LAT, P).size(64).iterations(100);
        LatResult inline = lat(b.inlineSize(220).build());
        LatResult fetched = lat(b.inlineSize(0).build());
        // Without inline the adapter reads the payload from host memory: at least one more PCIe read.
        assertThat(fetched.tTypicalUs() - inline.tTypicalUs())
                .isGreaterThan(P.getLong(Parameters.PCIE_HOST_READ_LATENCY) / 1e6);
    }

    @Test
    void readLatencyExceedsWriteLatency() {
        LatResult w = lat(PerfOptions.builder(PerfTest.WRITE_LAT, P).size(64).iterations(100).build());
        LatResult r = lat(PerfOptions.builder(PerfTest.READ_LAT, P).size(64).iterations(100).build());
        assertThat(r.tTypicalUs()).isGreaterThan(w.tTypicalUs());
    }

    @Test
    void latencyIsAtLeastWhatPcieAndTheWireNeed() {
        // One way: the doorbell's PCIe hop, a frame on the wire, propagation, the payload's PCIe hop.
        long frame = RoceLayout.EXT_OFFSET + RoceLayout.RETH + 64 + RoceLayout.ICRC + RoceLayout.FCS
                + RoceLayout.PREAMBLE_SFD + RoceLayout.INTER_FRAME_GAP;
        double boundUs = (2 * P.getLong(Parameters.PCIE_LINK_LATENCY) + P.getLong(Parameters.LINK_PROPAGATION_DELAY)
                + frame * 8 * 1e12 / P.getLong(Parameters.LINK_RATE)) / 1e6;
        for (PerfTest t : new PerfTest[] {PerfTest.SEND_LAT, PerfTest.WRITE_LAT, PerfTest.READ_LAT}) {
            LatResult r = lat(PerfOptions.builder(t, P).size(64).iterations(60).build());
            assertThat(r.tMinUs()).as(t.label()).isGreaterThanOrEqualTo(boundUs);
            assertThat(r.tMinUs()).isLessThanOrEqualTo(r.tTypicalUs());
            assertThat(r.tTypicalUs()).isLessThanOrEqualTo(r.tMaxUs());
            assertThat(r.tP99Us()).isLessThanOrEqualTo(r.tP999Us());
            assertThat(r.iterations()).isEqualTo(60);
        }
    }

    @Test
    void sizesRunInOrderOnTheSameConnections() {
        List<PerfResult> r = Perf.run(PerfOptions.builder(PerfTest.SEND_LAT, P).sizes(List.of(2, 1024, 8192))
                .iterations(20).build());
        assertThat(r).extracting(PerfResult::bytes).containsExactly(2, 1024, 8192);
        assertThat(((LatResult) r.get(2)).tTypicalUs()).isGreaterThan(((LatResult) r.get(0)).tTypicalUs());
        List<PerfResult> w = Perf.run(PerfOptions.builder(PerfTest.WRITE_LAT, P).sizes(List.of(4, 2, 300))
                .iterations(20).build());
        assertThat(w).extracting(PerfResult::bytes).containsExactly(4, 2, 300);
    }

    /** A result with its wall-clock time cleared: everything that must repeat exactly. */
    private static PerfResult simulated(PerfResult r) {
        if (r instanceof BwResult b) {
            return new BwResult(b.test(), b.bytes(), b.iterations(), b.bwPeakGbps(), b.bwAvgGbps(), b.msgRateMpps(),
                    b.latP50Us(), b.latP99Us(), b.latP999Us(),
                    b.simTimePs(), 0);
        }
        LatResult l = (LatResult) r;
        return new LatResult(l.test(), l.bytes(), l.iterations(), l.tMinUs(), l.tMaxUs(), l.tTypicalUs(), l.tAvgUs(),
                l.tStdevUs(), l.tP99Us(), l.tP999Us(), l.simTimePs(), 0);
    }

    @Test
    void equalOptionsGiveEqualResults() {
        // Seeded frame drops make the run depend on the seed (retransmissions), and on nothing else.
        Profile lossy = P.withOverrides(List.of("link.dropProbability=0.002"));
        PerfOptions o = PerfOptions.builder(PerfTest.SEND_BW, lossy).sizes(List.of(1024, 4096)).iterations(200)
                .seed(7).build();
        List<PerfResult> a = Perf.run(o).stream().map(PerfWorkloadTest::simulated).toList();
        List<PerfResult> b = Perf.run(o).stream().map(PerfWorkloadTest::simulated).toList();
        assertThat(a).isEqualTo(b);
        List<PerfResult> other = Perf.run(PerfOptions.builder(PerfTest.SEND_BW, lossy).sizes(List.of(1024, 4096))
                .iterations(200).seed(8).build()).stream().map(PerfWorkloadTest::simulated).toList();
        assertThat(other).as("other drops, other retransmissions").isNotEqualTo(a);
        PerfOptions l = PerfOptions.builder(PerfTest.WRITE_LAT, lossy).iterations(50).seed(7).build();
        assertThat(simulated(Perf.run(l).get(0))).isEqualTo(simulated(Perf.run(l).get(0)));
    }

    @Test
    void aFailedConnectionEndsTheRunWithItsStatus() {
        // Every frame dropped: the connection itself never comes up.
        Profile dead = P.withOverrides(List.of("link.dropProbability=1"));
        assertThatThrownBy(() -> Perf.run(PerfOptions.builder(PerfTest.WRITE_BW, dead).iterations(10).build()))
                .isInstanceOf(PerfFailure.class).hasMessageContaining("NdkConnect");
    }
}
