package dev.rdmasim.adapter.pcie;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.stats.Formula;
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

    /**
     * Reads, writes and MMIO stores in both directions: each link counts the TLPs and wire bytes of every kind it
     * carried, the payload of writes and completions, and its DLLP and SKIP bytes, whose share of all wire bytes is
     * the overhead fraction.
     */
    @Test
    void eachKindOfTlpAndOverheadIsCountedOnItsOwnLink() {
        PcieConfig cfg = PcieConfig.defaults();
        Simulator sim = new Simulator(1);
        PcieLink link = new PcieLink(sim, "pcie", cfg, new HostMemory("host"));
        link.dma().setMmioTarget((off, data, o, len) -> { });
        long[][] seen = new long[2][6]; // per link: TLPs and wire bytes of MWr, MRd, CplD
        long[] payload = new long[2];
        link.up().connect(link.dma().linkEnd, new TlpTap(link.host().linkEnd, t -> {
            seen[0][2 * t.kind().ordinal()]++;
            seen[0][2 * t.kind().ordinal() + 1] += t.wireBytes();
            payload[0] += t.kind() == TlpKind.MRD ? 0 : t.length();
        }));
        link.down().connect(link.host().linkEnd, new TlpTap(link.dma().linkEnd, t -> {
            seen[1][2 * t.kind().ordinal()]++;
            seen[1][2 * t.kind().ordinal() + 1] += t.wireBytes();
            payload[1] += t.kind() == TlpKind.MRD ? 0 : t.length();
        }));
        DmaChannel ch = link.dma().addChannel("dma", 8);
        DmaCallback cb = new DmaCallback() {
            @Override
            public void readDone(DmaRequest request) {
            }

            @Override
            public void writeSent(DmaRequest request) {
            }
        };
        for (int i = 0; i < 8; i++) {
            int n = i;
            sim.event("dma" + i, () -> ch.submit(n % 2 == 0
                    ? new DmaRequest().read(0x10000L * n, new byte[3000], 0, 1000 + 250 * n, cb, n)
                    : new DmaRequest().write(0x10000L * n, new byte[3000], 0, 700 + 300 * n, cb, n, false)))
                    .schedule(n * 200_000L);
            sim.event("mmio" + i, () -> link.host().mmioWrite(0x800, new byte[64], 0, 8 + 8 * n)).schedule(n * 150_000L);
        }
        sim.run();
        String[] links = {"up", "down"};
        LinkTransmitter[] tx = {link.up(), link.down()};
        for (int l = 0; l < 2; l++) {
            String p = "pcie." + links[l] + ".";
            assertThat(DmaBoundsTest.counter(sim, p + "tlpsMWr")).as(p + "tlpsMWr").isEqualTo(seen[l][0]);
            assertThat(DmaBoundsTest.counter(sim, p + "bytesMWr")).as(p + "bytesMWr").isEqualTo(seen[l][1]);
            assertThat(DmaBoundsTest.counter(sim, p + "tlpsMRd")).as(p + "tlpsMRd").isEqualTo(seen[l][2]);
            assertThat(DmaBoundsTest.counter(sim, p + "bytesMRd")).as(p + "bytesMRd").isEqualTo(seen[l][3]);
            assertThat(DmaBoundsTest.counter(sim, p + "tlpsCplD")).as(p + "tlpsCplD").isEqualTo(seen[l][4]);
            assertThat(DmaBoundsTest.counter(sim, p + "bytesCplD")).as(p + "bytesCplD").isEqualTo(seen[l][5]);
            assertThat(tx[l].payloadBytes()).as(p + "payloadBytes").isEqualTo(payload[l]);
            long ack = DmaBoundsTest.counter(sim, p + "bytesAck");
            long fc = DmaBoundsTest.counter(sim, p + "bytesFc");
            long skip = DmaBoundsTest.counter(sim, p + "bytesSkip");
            assertThat(new long[] {ack % 8, fc % 8, skip % 4}).containsOnly(0L);
            assertThat(tx[l].overheadBytes()).isEqualTo(ack + fc + skip);
            long tlpBytes = seen[l][1] + seen[l][3] + seen[l][5];
            assertThat(tx[l].wireBytes()).isEqualTo(tlpBytes + ack + fc + skip);
            double fraction = ((Formula) DmaBoundsTest.stat(sim, p + "overheadFraction")).value();
            assertThat(fraction).isEqualTo((double) (ack + fc + skip) / (tlpBytes + ack + fc + skip));
        }
        // Both directions carried enough to need every kind of overhead.
        assertThat(seen[0][0] * seen[0][2] * seen[1][0] * seen[1][4]).isPositive();
        for (String c : new String[] {"up.bytesAck", "up.bytesFc", "up.bytesSkip", "down.bytesAck", "down.bytesSkip"}) {
            assertThat(DmaBoundsTest.counter(sim, "pcie." + c)).as(c).isPositive();
        }
    }

    /** Each link names its class limits after what they are on its side; a class it never carries has none. */
    @Test
    void theClassLimitsAreNamedForTheirSide() {
        PcieConfig cfg = PcieConfig.defaults().withQueues(12, 5);
        PcieLink link = new PcieLink(new Simulator(1), "pcie", cfg, new HostMemory("host"));
        assertThat(link.up().stats().bounds()).extracting(b -> b.what() + " / " + b.parameter() + " / " + b.fractionName())
                .containsExactly("posted-write transmit credits / built in: 12 TLPs / postedFullFraction",
                        "read-request transmit credits / built in: 12 TLPs / nonPostedFullFraction");
        int cpl = cfg.readTags() * HostBridge.maxCompletionsPerRead(cfg);
        assertThat(link.down().stats().bounds()).extracting(b -> b.what() + " / " + b.parameter() + " / " + b.fractionName())
                .containsExactly("MMIO posted queue / built in: 5 TLPs / postedFullFraction",
                        "completion transmit credits / built in: " + cpl + " TLPs / completionFullFraction");
    }
}
