package dev.rdmasim.traces.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.rdmasim.adapter.config.Profile;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The latency mechanisms of the physical paths, seen end to end: each one set alone moves perftest's small-WRITE
 * latency (half the round trip of a ping-pong) by what it costs on the one-way path, because it sits on that path
 * exactly once, and by nothing else. This is how a latency budget adds up from its parts.
 */
class LatencyComponentsTest {
    /** Every latency mechanism of the calibration at zero: the base each test adds one mechanism to. */
    private static final List<String> NONE = List.of("pcie.hostWriteLatency=0ns", "pcie.mmioLatency=0ns",
            "nic.wqePipelineCycles=0", "nic.txPipelineCycles=0", "nic.rxPipelineCycles=0", "nic.cqePipelineCycles=0",
            "link.fec=none", "link.phyTxLatency=0ns", "link.phyRxLatency=0ns", "host.pollMissTime=0ns");
    private static final Profile P = Profile.defaults().withOverrides(NONE);

    private static double writeLatUs(List<String> overrides) {
        return latUs(PerfTest.WRITE_LAT, overrides);
    }

    private static double latUs(PerfTest test, List<String> overrides) {
        Profile p = P.withOverrides(overrides);
        List<PerfResult> r = Perf.run(PerfOptions.builder(test, p).size(8).iterations(200).build());
        return ((LatResult) r.get(0)).tTypicalUs();
    }

    /** One nic.clock cycle in microseconds. */
    private static double cycleUs() {
        return 1e6 / P.getLong(dev.rdmasim.adapter.config.Parameters.NIC_CLOCK);
    }

    /**
     * The adapter's pipeline depths: the WQE, packet-build and receive pipelines are each crossed once on the
     * one-way path of a WRITE (requester WQE, requester packet, responder placement); the CQE pipeline is on the
     * path of a SEND, whose receiver polls its CQ.
     */
    @Test
    void eachAdapterPipelineDepthIsCrossedOnceOneWay() {
        double base = writeLatUs(List.of());
        double c = cycleUs();
        assertThat(writeLatUs(List.of("nic.wqePipelineCycles=50")) - base).isCloseTo(50 * c, within(0.002));
        assertThat(writeLatUs(List.of("nic.txPipelineCycles=60")) - base).isCloseTo(60 * c, within(0.002));
        assertThat(writeLatUs(List.of("nic.rxPipelineCycles=70")) - base).isCloseTo(70 * c, within(0.002));
        double sendBase = latUs(PerfTest.SEND_LAT, List.of());
        assertThat(latUs(PerfTest.SEND_LAT, List.of("nic.cqePipelineCycles=40")) - sendBase).isCloseTo(40 * c, within(0.002));
    }

    @Test
    void thePhyPipelineAddsItsTwoLatenciesToTheOneWayPath() {
        double base = writeLatUs(List.of());
        double phy = writeLatUs(List.of("link.phyTxLatency=70ns", "link.phyRxLatency=90ns"));
        assertThat(phy - base).isCloseTo(0.160, within(0.002));
    }

    @Test
    void fecAddsAWaitOfUnderOneCodeword() {
        double base = writeLatUs(List.of());
        double fec = writeLatUs(List.of("link.fec=rs528"));
        assertThat(fec - base).isBetween(0.0, 0.0512);
    }

    /**
     * The payload's posted write at the receiver is seen by the polling CPU only once committed. (The poller finds
     * new data at its next poll, host.pollTime apart: a delay that is a multiple of the 20 ns poll moves the
     * latency by exactly itself, any other by up to one poll more or less.)
     */
    @Test
    void theHostWriteCommitDelaysWhatThePollerSees() {
        double base = writeLatUs(List.of());
        double commit = writeLatUs(List.of("pcie.hostWriteLatency=240ns"));
        assertThat(commit - base).isCloseTo(0.240, within(0.002));
    }

    /** The doorbell (or BlueFlame) store's uncore path is on the sender's side of every one-way trip. */
    @Test
    void theMmioUncorePathDelaysTheDoorbell() {
        double base = writeLatUs(List.of());
        double mmio = writeLatUs(List.of("pcie.mmioLatency=120ns"));
        assertThat(mmio - base).isCloseTo(0.120, within(0.002));
    }

    /**
     * The poll that finds the peer's data misses in the core's caches: one miss per one-way trip, for a WRITE
     * (the polled buffer) and for a SEND (the polled CQE) alike.
     */
    @Test
    void thePollThatFindsNewDataPaysItsCacheMiss() {
        double w = writeLatUs(List.of());
        double s = latUs(PerfTest.SEND_LAT, List.of());
        assertThat(writeLatUs(List.of("host.pollMissTime=80ns")) - w).isCloseTo(0.080, within(0.002));
        assertThat(latUs(PerfTest.SEND_LAT, List.of("host.pollMissTime=80ns")) - s).isCloseTo(0.080, within(0.002));
    }

    /** Pipeline depth is latency, not occupancy: with enough requests in flight the message rate stays the same. */
    @Test
    void pipelineDepthsLeaveTheMessageRateAlone() {
        List<String> deep = List.of("nic.wqePipelineCycles=100", "nic.txPipelineCycles=100", "nic.rxPipelineCycles=100",
                "nic.cqePipelineCycles=100");
        double base = ((BwResult) Perf.run(PerfOptions.builder(PerfTest.WRITE_BW, P).size(64).iterations(20_000).build())
                .get(0)).msgRateMpps();
        double piped = ((BwResult) Perf.run(PerfOptions.builder(PerfTest.WRITE_BW, P.withOverrides(deep)).size(64)
                .iterations(20_000).build()).get(0)).msgRateMpps();
        assertThat(piped).isCloseTo(base, within(base * 0.03));
    }

    /**
     * Latency tests behave as perftest's: one request outstanding, every one signaled, so the queue depth and CQ
     * moderation options change nothing.
     */
    @Test
    void latencyTestsIgnoreDepthAndModeration() {
        for (PerfTest t : new PerfTest[] {PerfTest.WRITE_LAT, PerfTest.SEND_LAT, PerfTest.READ_LAT}) {
            LatResult plain = (LatResult) Perf.run(PerfOptions.builder(t, P).size(8).iterations(200).build()).get(0);
            LatResult deep = (LatResult) Perf.run(PerfOptions.builder(t, P).size(8).iterations(200).txDepth(128).cqMod(10)
                    .build()).get(0);
            assertThat(deep.tTypicalUs()).as(t.label()).isEqualTo(plain.tTypicalUs());
            assertThat(deep.tAvgUs()).as(t.label()).isEqualTo(plain.tAvgUs());
        }
    }

    /**
     * Bandwidth tests report each request's post-to-completion latency under load: ordered percentiles, under one
     * period of the rate at depth 1, and at a deep queue what Little's law says (requests in flight over the rate).
     */
    @Test
    void bandwidthTestsReportLatencyUnderLoad() {
        BwResult one = (BwResult) Perf.run(PerfOptions.builder(PerfTest.WRITE_BW, P).size(64).iterations(2000).txDepth(1)
                .cqMod(1).build()).get(0);
        BwResult deep = (BwResult) Perf.run(PerfOptions.builder(PerfTest.WRITE_BW, P).size(64).iterations(20_000)
                .txDepth(128).cqMod(1).build()).get(0);
        for (BwResult b : new BwResult[] {one, deep}) {
            assertThat(b.latP50Us()).isPositive().isLessThanOrEqualTo(b.latP99Us());
            assertThat(b.latP99Us()).isLessThanOrEqualTo(b.latP999Us());
        }
        // Depth 1: a request completes before the next is posted, so its latency is under one period of the rate.
        assertThat(one.latP50Us()).isLessThan(1 / one.msgRateMpps());
        // Depth 128: 128 requests in flight at the measured rate.
        assertThat(deep.latP50Us()).isCloseTo(128 / deep.msgRateMpps(), within(0.25 * 128 / deep.msgRateMpps()));
        assertThat(deep.latP50Us()).isGreaterThan(one.latP50Us());
    }

    /**
     * The calibrated default is the bare path plus each mechanism once: its small-WRITE latency is the base plus
     * the sum of the parts (docs/calibration.md's budget), up to the FEC codeword wait, which depends on where the
     * frame falls in its codeword (at most one codeword per crossing).
     */
    @Test
    void theCalibratedBudgetIsTheSumOfItsParts() {
        Profile d = Profile.defaults();
        double c = 1e6 / d.getLong(dev.rdmasim.adapter.config.Parameters.NIC_CLOCK);
        double parts = (d.getLong(dev.rdmasim.adapter.config.Parameters.PCIE_MMIO_LATENCY)
                + d.getLong(dev.rdmasim.adapter.config.Parameters.PCIE_HOST_WRITE_LATENCY)
                + d.getLong(dev.rdmasim.adapter.config.Parameters.LINK_PHY_TX_LATENCY)
                + d.getLong(dev.rdmasim.adapter.config.Parameters.LINK_PHY_RX_LATENCY)
                + d.getLong(dev.rdmasim.adapter.config.Parameters.HOST_POLL_MISS_TIME)) / 1e6
                + c * (d.getLong(dev.rdmasim.adapter.config.Parameters.NIC_WQE_PIPELINE_CYCLES)
                + d.getLong(dev.rdmasim.adapter.config.Parameters.NIC_TX_PIPELINE_CYCLES)
                + d.getLong(dev.rdmasim.adapter.config.Parameters.NIC_RX_PIPELINE_CYCLES));
        assertThat(parts).as("the calibrated default has latency mechanisms").isGreaterThan(0.4);
        double base = writeLatUs(List.of());
        double full = ((LatResult) Perf.run(PerfOptions.builder(PerfTest.WRITE_LAT, d).size(8).iterations(200).build())
                .get(0)).tTypicalUs();
        assertThat(full - base - parts).isBetween(0.0, 0.0512);
    }
}
