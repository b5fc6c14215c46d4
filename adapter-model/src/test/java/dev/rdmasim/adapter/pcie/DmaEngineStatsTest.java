package dev.rdmasim.adapter.pcie;

import static dev.rdmasim.adapter.pcie.DmaBoundsTest.counter;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.kernel.Simulator;
import org.junit.jupiter.api.Test;

/**
 * What the DMA engine reports of its reads: both latency histograms for a lone read, the tags held over time, and
 * the stalls of a read that finds every tag taken.
 */
class DmaEngineStatsTest {
    /** Round trip of one 64 B read at the defaults (PcieLatencyTest). */
    private static final long ROUND_TRIP_PS = 3047 + 80_000 + 400_000 + 10_665 + 80_000;

    private static final DmaCallback READS = new DmaCallback() {
        @Override
        public void readDone(DmaRequest request) {
        }
    };

    @Test
    void aLoneReadRecordsItsRoundTripAndHoldsItsTagOnlyUntilThen() {
        Simulator sim = new Simulator(1);
        PcieLink link = new PcieLink(sim, "pcie", PcieConfig.defaults(), new HostMemory("host"));
        DmaChannel ch = link.dma().addChannel("rd", 1);
        ch.submit(new DmaRequest().read(0x1000, new byte[64], 0, 64, READS, 0));
        // The run goes on idle for as long again, so the tag is held half of it.
        sim.event("idle", () -> { }).schedule(2 * ROUND_TRIP_PS);
        sim.run();
        DmaEngine dma = link.dma();
        assertThat(dma.readLatency().count()).isEqualTo(1);
        assertThat(dma.readLatency().max()).isEqualTo(ROUND_TRIP_PS / 1000);
        var mrd = (dev.rdmasim.kernel.stats.Histogram) DmaBoundsTest.stat(sim, "pcie.dma.mrdLatency");
        assertThat(mrd.count()).isEqualTo(1);
        assertThat(mrd.max()).isEqualTo(ROUND_TRIP_PS / 1000);
        assertThat(dma.maxTagsInUse()).isEqualTo(1);
        assertThat(dma.averageTagsInUse()).isCloseTo(0.5, within(1e-9));
        assertThat(counter(sim, "pcie.dma.tagStalls")).isZero();
    }

    /**
     * A read's ready time is its latency's start: the read TLP round trip counts from the ready time, not from the
     * submission, as does the request's latency.
     */
    @Test
    void aDelayedReadCountsItsLatencyFromItsReadyTime() {
        Simulator sim = new Simulator(1);
        PcieLink link = new PcieLink(sim, "pcie", PcieConfig.defaults(), new HostMemory("host"));
        DmaChannel ch = link.dma().addChannel("rd", 1);
        ch.submit(new DmaRequest().read(0x1000, new byte[64], 0, 64, READS, 0).notBefore(1_000_000));
        sim.run();
        var mrd = (dev.rdmasim.kernel.stats.Histogram) DmaBoundsTest.stat(sim, "pcie.dma.mrdLatency");
        assertThat(mrd.max()).isEqualTo(ROUND_TRIP_PS / 1000);
        assertThat(link.dma().readLatency().max()).isEqualTo(ROUND_TRIP_PS / 1000);
    }

    @Test
    void aReadThatFindsEveryTagTakenStallsAndIsCounted() {
        Simulator sim = new Simulator(1);
        PcieLink link = new PcieLink(sim, "pcie", PcieConfig.defaults().withReadTags(1), new HostMemory("host"));
        DmaChannel ch = link.dma().addChannel("rd", 2);
        ch.submit(new DmaRequest().read(0x1000, new byte[64], 0, 64, READS, 0));
        ch.submit(new DmaRequest().read(0x2000, new byte[64], 0, 64, READS, 1));
        sim.run();
        assertThat(counter(sim, "pcie.dma.tagStalls")).isPositive();
        assertThat(counter(sim, "pcie.dma.readRequests")).isEqualTo(2);
        // The second read's TLP waits a whole round trip for the tag; its round trip counts from its issue.
        var mrd = (dev.rdmasim.kernel.stats.Histogram) DmaBoundsTest.stat(sim, "pcie.dma.mrdLatency");
        assertThat(mrd.count()).isEqualTo(2);
        assertThat(mrd.max()).isEqualTo(ROUND_TRIP_PS / 1000);
        assertThat(link.dma().readLatency().max()).isGreaterThanOrEqualTo(2 * ROUND_TRIP_PS / 1000);
    }

    /** With one tag, the tags are all held for exactly the read's round trip, not for the idle time after it. */
    @Test
    void theReadTagsAreFullOnlyWhileTheReadIsOutstanding() {
        Simulator sim = new Simulator(1);
        PcieLink link = new PcieLink(sim, "pcie", PcieConfig.defaults().withReadTags(1), new HostMemory("host"));
        DmaChannel ch = link.dma().addChannel("rd", 1);
        ch.submit(new DmaRequest().read(0x1000, new byte[64], 0, 64, READS, 0));
        sim.event("idle", () -> { }).schedule(2 * ROUND_TRIP_PS);
        sim.run();
        assertThat(counter(sim, "pcie.dma.readTagsFullTime")).isEqualTo(ROUND_TRIP_PS);
    }
}
