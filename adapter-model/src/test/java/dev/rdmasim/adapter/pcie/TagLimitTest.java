package dev.rdmasim.adapter.pcie;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.Simulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TagLimitTest {
    /** Round trip of one 64 B read at the defaults, computed in PcieLatencyTest: 573.712 ns. */
    private static final double ROUND_TRIP_NS = (3047 + 80_000 + 400_000 + 10_665 + 80_000) / 1000.0;
    /** pcie-bench read bandwidth for 64 B at Gen3 x8 MPS 256. */
    private static final double LINK_BOUND_GBPS = 8.0 * 128 / 130 * 8 * (1 - (16 / 203.0 + 4 / 1538.0)) * 64 / 84;

    private record Run(double gbps, long maxTags, double avgTags, long maxSampled) {
    }

    private static Run stream(int tags) {
        Simulator sim = new Simulator(1);
        PcieLink link = new PcieLink(sim, "pcie", PcieConfig.defaults().withReadTags(tags), new HostMemory("host"));
        DmaChannel ch = link.dma().addChannel("rd", 64);
        StreamClient client = new StreamClient(sim, ch, true, 64, 0x10_0000L, 100, 600);
        // An independent probe: count reads the root complex holds plus those on either wire, every 7 ns.
        long[] maxSeen = {0};
        Event[] probe = new Event[1];
        probe[0] = sim.event("probe", () -> {
            long outstanding = link.host().pendingReads() + link.up().queued() + link.up().onWire()
                    + link.down().queued() + link.down().onWire();
            maxSeen[0] = Math.max(maxSeen[0], outstanding);
            probe[0].scheduleIn(7_000);
        });
        probe[0].schedule(0);
        client.start();
        sim.run();
        return new Run(client.gbps(), link.dma().maxTagsInUse(), link.dma().averageTagsInUse(), maxSeen[0]);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 4, 16, 32})
    void outstandingReadsNeverExceedTheTagsAndThroughputFollowsLittlesLaw(int tags) {
        Run run = stream(tags);
        assertThat(run.maxTags).isEqualTo(tags);
        // Every outstanding read is one MRd or one CplD in some bounded place (64 B < MPS: one completion each).
        assertThat(run.maxSampled).isLessThanOrEqualTo(tags);
        assertThat(run.avgTags).isCloseTo(tags, within(tags * 0.05));
        double little = tags * 64 * 8 / ROUND_TRIP_NS;
        assertThat(run.gbps).isCloseTo(little, within(little * 0.03));
    }

    @Test
    void smallReadThroughputRisesWithTagsUntilTheLinkLimits() {
        double prev = 0;
        for (int tags : new int[] {1, 2, 8, 32, 64}) {
            double g = stream(tags).gbps;
            assertThat(g).as("%d tags", tags).isGreaterThan(prev);
            prev = g;
        }
        assertThat(prev).isCloseTo(LINK_BOUND_GBPS, within(LINK_BOUND_GBPS * 0.03));
        // Past the bandwidth-delay product (~50 reads) more tags change nothing.
        assertThat(stream(256).gbps).isCloseTo(prev, within(prev * 0.01));
    }
}
