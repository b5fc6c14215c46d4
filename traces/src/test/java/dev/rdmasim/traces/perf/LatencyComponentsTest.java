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
    private static final Profile P = Profile.defaults();

    private static double writeLatUs(List<String> overrides) {
        Profile p = P.withOverrides(overrides);
        List<PerfResult> r = Perf.run(PerfOptions.builder(PerfTest.WRITE_LAT, p).size(8).iterations(200).build());
        return ((LatResult) r.get(0)).tTypicalUs();
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

    /** The payload's posted write at the receiver is seen by the polling CPU only once committed. */
    @Test
    void theHostWriteCommitDelaysWhatThePollerSees() {
        double base = writeLatUs(List.of());
        double commit = writeLatUs(List.of("pcie.hostWriteLatency=250ns"));
        assertThat(commit - base).isCloseTo(0.250, within(0.002));
    }

    /** The doorbell (or BlueFlame) store's uncore path is on the sender's side of every one-way trip. */
    @Test
    void theMmioUncorePathDelaysTheDoorbell() {
        double base = writeLatUs(List.of());
        double mmio = writeLatUs(List.of("pcie.mmioLatency=120ns"));
        assertThat(mmio - base).isCloseTo(0.120, within(0.002));
    }
}
