package dev.rdmasim.adapter.pcie;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.kernel.Simulator;
import java.math.BigInteger;
import org.junit.jupiter.api.Test;

class PcieLatencyTest {
    /** Gen3 x8: 8 bits / (8 GT/s x 128/130 x 8 lanes) = 126.953125 ps per byte, exact in binary. */
    private static final double PS_PER_BYTE_GEN3_X8 = 1000.0 * 8 / (8.0 * 128 / 130 * 8);

    private static long serPs(int bytes) {
        return (long) Math.ceil(bytes * PS_PER_BYTE_GEN3_X8);
    }

    private record Result(long donePs, byte[] data, PcieLink link) {
    }

    private static Result readOnce(PcieConfig cfg, int size, long addr) {
        Simulator sim = new Simulator(1);
        HostMemory mem = new HostMemory("host");
        for (int i = 0; i < size; i++) {
            mem.putByte(addr + i, (byte) (i * 7 + 3));
        }
        PcieLink link = new PcieLink(sim, "pcie", cfg, mem);
        DmaChannel ch = link.dma().addChannel("rd", 4);
        byte[] buf = new byte[size];
        long[] done = {-1};
        DmaRequest r = new DmaRequest().read(addr, buf, 0, size, new DmaCallback() {
            @Override
            public void readDone(DmaRequest req) {
                done[0] = sim.now();
            }
        }, 0);
        assertThat(ch.submit(r)).isTrue();
        sim.run();
        return new Result(done[0], buf, link);
    }

    @Test
    void single64ByteReadIsTwoFlightsTwoSerializationsAndTheHostLatency() {
        PcieConfig cfg = PcieConfig.defaults();
        Result res = readOnce(cfg, 64, 0x2000_0040L);
        long expected = serPs(24) + cfg.linkLatencyPs() + cfg.hostReadLatencyPs() + serPs(20 + 64) + cfg.linkLatencyPs();
        assertThat(res.donePs).isEqualTo(expected);
        // The defaults are calibrated on pcie-bench's measured 64 B read latency, ~550-600 ns.
        assertThat(res.donePs).isBetween(550_000L, 600_000L);
        for (int i = 0; i < 64; i++) {
            assertThat(res.data[i]).isEqualTo((byte) (i * 7 + 3));
        }
        assertThat(res.link.dma().readLatency().max()).isEqualTo(expected / 1000);
    }

    @Test
    void latencyGrowsWithSizeByTheSerializationOfTheCompletions() {
        PcieConfig cfg = PcieConfig.defaults().withLatencies(400_000, 80_000);
        long base = readOnce(cfg, 64, 0x3000_0000L).donePs;
        long big = readOnce(cfg, 2048, 0x3000_0000L).donePs;
        // 2048 B = 4 MRd of 512 (sent back to back) and 8 completions of 256 B + 20 B; a loaded link would also
        // pay the DLLP share, an idle one mostly not: bound the extra time between the two.
        long extraBytes = 8 * (256 + 20) - (64 + 20);
        double minExtra = extraBytes * PS_PER_BYTE_GEN3_X8;
        double maxExtra = minExtra / (1 - (16 / 203.0 + 4 / 1538.0)) + 3 * serPs(24);
        assertThat((double) (big - base)).isBetween(minExtra, maxExtra);
    }

    /**
     * Every generation and width: an idle 64 B read takes exactly the two serializations (rounded up to the
     * picosecond, computed here with exact rationals) plus the latencies, whatever the shape of ps per byte.
     */
    @Test
    void everyGenerationAndWidthSerializesExactly() {
        int[] halfGt = {5, 10, 16, 32, 64};
        for (int gen = 1; gen <= 5; gen++) {
            for (int lanes = 1; lanes <= 32; lanes *= 2) {
                PcieConfig cfg = PcieConfig.defaults().withLink(gen, lanes);
                // ps per byte = 8 bits x 2000 / halfGT x (10/8 or 130/128) / lanes
                BigInteger num = BigInteger.valueOf(8L * 2000 * (gen <= 2 ? 10 : 130));
                BigInteger den = BigInteger.valueOf((long) halfGt[gen - 1] * (gen <= 2 ? 8 : 128) * lanes);
                int req = cfg.requestOverheadBytes();
                int cpl = cfg.completionOverheadBytes() + 64;
                long ser = 0;
                for (int bytes : new int[] {req, cpl}) {
                    BigInteger[] qr = num.multiply(BigInteger.valueOf(bytes)).divideAndRemainder(den);
                    ser += qr[0].longValueExact() + (qr[1].signum() > 0 ? 1 : 0);
                }
                Result res = readOnce(cfg, 64, 0x1000);
                assertThat(res.donePs).as("gen %d x%d", gen, lanes)
                        .isEqualTo(ser + 2 * cfg.linkLatencyPs() + cfg.hostReadLatencyPs());
            }
        }
    }

    @Test
    void zeroLatencyLinkStillSerializes() {
        PcieConfig cfg = PcieConfig.defaults().withLatencies(0, 0);
        Result res = readOnce(cfg, 64, 0x1000);
        assertThat(res.donePs).isEqualTo(serPs(24) + serPs(84));
        assertThat((double) res.donePs).isCloseTo(108 * PS_PER_BYTE_GEN3_X8, within(2.0));
    }

    @Test
    void aResetIdleLinkTimesTheNextReadAsIfFresh() {
        PcieConfig cfg = PcieConfig.defaults();
        Simulator sim = new Simulator(1);
        PcieLink link = new PcieLink(sim, "pcie", cfg, new HostMemory("host"));
        DmaChannel ch = link.dma().addChannel("rd", 2);
        long[] done = new long[2];
        byte[] buf = new byte[64];
        DmaCallback cb = new DmaCallback() {
            @Override
            public void readDone(DmaRequest r) {
                done[(int) r.cookie()] = sim.now();
            }
        };
        DmaRequest r = new DmaRequest();
        assertThat(ch.submit(r.read(0x1000, buf, 0, 64, cb, 0))).isTrue();
        sim.run();
        link.reset();
        long start = sim.now();
        assertThat(ch.submit(r.read(0x1000, buf, 0, 64, cb, 1))).isTrue();
        sim.run();
        assertThat(done[1] - start).isEqualTo(done[0]);
    }
}
