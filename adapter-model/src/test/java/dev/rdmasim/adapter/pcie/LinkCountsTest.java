package dev.rdmasim.adapter.pcie;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.kernel.Simulator;
import org.junit.jupiter.api.Test;

/**
 * A transmitter's byte counts are current whenever they are asked for, even between its own events: a TLP counts
 * from the instant it starts on the wire, before anything of the link has run since.
 */
class LinkCountsTest {

    @Test
    void bytesCountFromTheStartOfTheTlpNotFromItsDelivery() {
        PcieConfig cfg = PcieConfig.defaults();
        Simulator sim = new Simulator(1);
        PcieLink link = new PcieLink(sim, "pcie", cfg, new HostMemory("host"));
        link.dma().setMmioTarget((off, data, o, len) -> { });
        long[] mid = new long[4];
        // The store starts at once and is delivered after its serialization and the link latency (about 91 ns).
        sim.event("store", () -> link.host().mmioWrite(0x800, new byte[64], 0, 64)).schedule(0);
        sim.event("look", () -> {
            mid[0] = link.down().wireBytes();
            mid[1] = link.down().payloadBytes();
            mid[2] = link.down().overheadBytes();
            mid[3] = link.down().onWire();
        }).schedule(50_000);
        sim.run();
        assertThat(mid[1]).isEqualTo(64);
        assertThat(mid[0] - mid[2]).isEqualTo(cfg.requestOverheadBytes() + 64);
        assertThat(mid[3]).isEqualTo(1);
        assertThat(link.down().onWire()).isZero();
        assertThat(link.down().payloadBytes()).isEqualTo(64);
    }

    @Test
    void serializationTimeIsRoundedUpOnlyWhenItIsNotWhole() {
        LinkTransmitter up = new PcieLink(new Simulator(1), "pcie", PcieConfig.defaults(), new HostMemory("host")).up();
        // Gen3 x8: 8 GT/s per lane with 128b/130b coding, 126.953125 ps a byte; 128 bytes take exactly 16.25 ns.
        assertThat(up.serializationPs(128)).isEqualTo(16_250);
        assertThat(up.serializationPs(24)).isEqualTo(3047);
        assertThat(up.serializationPs(84)).isEqualTo(10_665);
        assertThat(up.serializationPs(0)).isZero();
    }
}
