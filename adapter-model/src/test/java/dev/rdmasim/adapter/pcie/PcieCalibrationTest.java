package dev.rdmasim.adapter.pcie;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.kernel.Simulator;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The product's calibration requirement: DMA streams through the simulated link reach within 3% of the pcie-bench
 * analytic model, computed here independently of the model's code.
 */
class PcieCalibrationTest {
    private static final int[] SIZES = {64, 128, 256, 257, 512, 1024, 2048, 4096};
    private static final int[] MPSS = {128, 256, 512};
    private static final int MRRS = 512;

    // ---- the analytic model, kept separate from the simulator's code -------------------------------------------

    /** Gen3 raw rate: 8 GT/s x 128/130 per lane. */
    private static double rawGbps(int lanes) {
        return 8.0 * 128.0 / 130.0 * lanes;
    }

    /** Spec-recommended Ack / FC update limits for the configurations tested. */
    private static int dllpLimit(int lanes, int mps) {
        if (lanes == 8) {
            return switch (mps) {
                case 128 -> 163;
                case 256 -> 203;
                case 512 -> 182;
                default -> throw new IllegalArgumentException("untabulated MPS " + mps);
            };
        }
        if (lanes == 16 && mps == 256) {
            return 168;
        }
        throw new IllegalArgumentException("untabulated x" + lanes + " MPS " + mps);
    }

    private static double tlpGbps(int lanes, int mps) {
        double limit = dllpLimit(lanes, mps);
        return rawGbps(lanes) * (1 - (8 / limit + 8 / limit + 4 / 1538.0));
    }

    private static int ceilDiv(int a, int b) {
        return (a + b - 1) / b;
    }

    private static double writeModel(int size, int mps) {
        return tlpGbps(8, mps) * size / (ceilDiv(size, mps) * 24.0 + size);
    }

    private static double readModel(int size, int mps) {
        int requests = ceilDiv(size, MRRS);
        int completions = 0;
        for (int left = size; left > 0; left -= MRRS) {
            completions += ceilDiv(Math.min(left, MRRS), mps);
        }
        double up = tlpGbps(8, mps) * size / (requests * 24.0);
        double down = tlpGbps(8, mps) * size / (size + completions * 20.0);
        return Math.min(up, down);
    }

    // ---- the simulated measurement ----------------------------------------------------------------------------

    private static PcieConfig gen3x8(int mps) {
        return PcieConfig.defaults().withLink(3, 8).withMps(mps).withMrrs(MRRS).withReadTags(256);
    }

    static double measure(PcieConfig cfg, boolean read, int size) {
        Simulator sim = new Simulator(1);
        PcieLink link = new PcieLink(sim, "pcie", cfg, new HostMemory("host"));
        DmaChannel ch = link.dma().addChannel(read ? "rd" : "wr", read ? 128 : 32);
        int measured = Math.max(300, (1 << 19) / size);
        StreamClient client = new StreamClient(sim, ch, read, size, 0x10_0000L, measured / 5, measured);
        client.start();
        sim.run();
        return client.gbps();
    }

    @Test
    void writeAndReadStreamsMatchTheAnalyticModelWithin3Percent() {
        List<String> report = new ArrayList<>();
        for (int mps : MPSS) {
            for (int size : SIZES) {
                double w = measure(gen3x8(mps), false, size);
                double wModel = writeModel(size, mps);
                double r = measure(gen3x8(mps), true, size);
                double rModel = readModel(size, mps);
                report.add(String.format("MPS %d S %d: write %.2f (model %.2f) read %.2f (model %.2f)",
                        mps, size, w, wModel, r, rModel));
                assertThat(w).as("write S=%d MPS=%d", size, mps).isCloseTo(wModel, within(wModel * 0.03));
                assertThat(r).as("read S=%d MPS=%d", size, mps).isCloseTo(rModel, within(rModel * 0.03));
            }
        }
        report.forEach(System.out::println);
    }

    @Test
    void hardwareAnchorsAtGen3x8Mps256() {
        PcieConfig cfg = gen3x8(256);
        double[][] writes = {{64, 42.10}, {128, 48.75}, {256, 52.92}, {257, 48.78}};
        for (double[] a : writes) {
            assertThat(measure(cfg, false, (int) a[0])).as("write %d B", (int) a[0]).isCloseTo(a[1], within(a[1] * 0.03));
        }
        double[][] reads = {{64, 44.10}, {256, 53.69}};
        for (double[] a : reads) {
            assertThat(measure(cfg, true, (int) a[0])).as("read %d B", (int) a[0]).isCloseTo(a[1], within(a[1] * 0.03));
        }
        // The MPS sawtooth: one byte past MPS costs a whole extra TLP header.
        assertThat(measure(cfg, false, 257)).isLessThan(measure(cfg, false, 256) * 0.95);
    }

    @Test
    void gen3x16TlpBandwidth() {
        PcieConfig cfg = PcieConfig.defaults().withLink(3, 16).withMps(256);
        Simulator sim = new Simulator(1);
        PcieLink link = new PcieLink(sim, "pcie", cfg, new HostMemory("host"));
        DmaChannel ch = link.dma().addChannel("wr", 32);
        StreamClient client = new StreamClient(sim, ch, false, 4096, 0x10_0000L, 200, 800);
        client.start();
        // Sample TLP wire bytes over the window where the link is saturated.
        sim.runUntil(200_000_000L);
        long b0 = link.up().wireBytes() - link.up().overheadBytes();
        long t0 = sim.now();
        sim.runUntil(t0 + 200_000_000L);
        long b1 = link.up().wireBytes() - link.up().overheadBytes();
        double tlpGbps = (double) (b1 - b0) * 8 * 1000 / (sim.now() - t0);
        assertThat(tlpGbps).isCloseTo(113.70, within(113.70 * 0.03));
        assertThat(tlpGbps).isCloseTo(tlpGbps(16, 256), within(tlpGbps(16, 256) * 0.005));
        assertThat(link.up().busyFraction()).isGreaterThan(0.99);
    }
}
