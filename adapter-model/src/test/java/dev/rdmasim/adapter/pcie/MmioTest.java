package dev.rdmasim.adapter.pcie;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.kernel.Simulator;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class MmioTest {
    private static final double PS_PER_BYTE = 1000.0 * 8 / (8.0 * 128 / 130 * 8);
    private static final long DOORBELL = 0x800;
    private static final long WC = 0x1000;

    private record Arrival(long timePs, long offset, byte[] bytes) {
    }

    /** Host writer that issues a fixed sequence of MMIO writes as fast as the posted queue takes them. */
    private static final class Writer {
        final HostBridge host;
        final List<long[]> plan; // {offset, length, seq}
        int next;
        int refusals;

        Writer(HostBridge host, List<long[]> plan) {
            this.host = host;
            this.plan = plan;
            host.setMmioRetry(this::pump);
        }

        void pump() {
            while (next < plan.size()) {
                long[] p = plan.get(next);
                if (!host.mmioWrite(p[0], payload((int) p[2], (int) p[1]), 0, (int) p[1])) {
                    refusals++;
                    return;
                }
                next++;
            }
        }
    }

    static byte[] payload(int seq, int len) {
        byte[] b = new byte[len];
        for (int i = 0; i < len; i++) {
            b[i] = (byte) (seq * 31 + i);
        }
        return b;
    }

    private static List<Arrival> run(PcieConfig cfg, List<long[]> plan) {
        Simulator sim = new Simulator(1);
        PcieLink link = new PcieLink(sim, "pcie", cfg, new HostMemory("host"));
        List<Arrival> got = new ArrayList<>();
        link.dma().setMmioTarget((off, data, o, len) ->
                got.add(new Arrival(sim.now(), off, Arrays.copyOfRange(data, o, o + len))));
        Writer w = new Writer(link.host(), plan);
        sim.event("start", w::pump).schedule(0);
        sim.run();
        assertThat(w.refusals).as("the bounded posted queue pushed back").isPositive();
        return got;
    }

    @Test
    void doorbellsAndWriteCombinedChunksArriveInOrderWithTheirBytes() {
        SplittableRandom rnd = new SplittableRandom(9);
        List<long[]> plan = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            plan.add(rnd.nextBoolean() ? new long[] {DOORBELL, 8, i} : new long[] {WC + 64 * (i % 4), 64, i});
        }
        PcieConfig cfg = PcieConfig.defaults();
        List<Arrival> got = run(cfg, plan);
        assertThat(got).hasSize(plan.size());
        for (int i = 0; i < plan.size(); i++) {
            long[] p = plan.get(i);
            assertThat(got.get(i).offset).isEqualTo(p[0]);
            assertThat(got.get(i).bytes).isEqualTo(payload(i, (int) p[1]));
        }
        // The first write: its own serialization (header 24 B + data) plus one link flight.
        long firstWire = 24 + plan.get(0)[1];
        assertThat(got.get(0).timePs).isEqualTo((long) Math.ceil(firstWire * PS_PER_BYTE) + cfg.linkLatencyPs());
        // Back-to-back writes are at least one serialization apart, never closer.
        for (int i = 1; i < got.size(); i++) {
            long minGap = (long) Math.floor((24 + plan.get(i)[1]) * PS_PER_BYTE);
            assertThat(got.get(i).timePs - got.get(i - 1).timePs).isGreaterThanOrEqualTo(minGap);
        }
    }

    /**
     * The uncore path: every store reaches the root port mmioLatency later, so each arrives exactly that much later
     * than without it, in the same order with the same bytes, and the link's rate is unchanged.
     */
    @Test
    void theUncorePathDelaysEveryStoreAlikeAndKeepsTheirOrder() {
        SplittableRandom rnd = new SplittableRandom(4);
        List<long[]> plan = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            plan.add(rnd.nextBoolean() ? new long[] {DOORBELL, 8, i} : new long[] {WC + 64 * (i % 4), 64, i});
        }
        long uncore = 150_000;
        // Stores in the uncore hold their posted-queue slot: a deep queue keeps the link's rate (a shallow one is
        // bounded by depth / latency, Little's law, as the test below shows).
        PcieConfig deep = PcieConfig.defaults().withQueues(8, 64);
        List<Arrival> bare = run(deep, plan);
        List<Arrival> slow = run(deep.withMmioLatency(uncore), plan);
        assertThat(slow).hasSize(bare.size());
        assertThat(slow.get(0).timePs).isEqualTo(bare.get(0).timePs + uncore);
        for (int i = 0; i < slow.size(); i++) {
            assertThat(slow.get(i).offset).isEqualTo(bare.get(i).offset);
            assertThat(slow.get(i).bytes).isEqualTo(bare.get(i).bytes);
            if (i > 0) {
                assertThat(slow.get(i).timePs).as("in order").isGreaterThan(slow.get(i - 1).timePs);
            }
        }
        // A long run of stores: the same rate once the pipeline is full.
        long bareSpan = bare.get(199).timePs - bare.get(50).timePs;
        long slowSpan = slow.get(199).timePs - slow.get(50).timePs;
        assertThat((double) slowSpan).isCloseTo(bareSpan, within(bareSpan * 0.02));
    }

    /** With a shallow posted queue the uncore latency bounds the store rate: at most depth stores per latency. */
    @Test
    void aShallowPostedQueueBoundsTheStoreRateByItsDepthOverTheLatency() {
        List<long[]> plan = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            plan.add(new long[] {DOORBELL, 8, i});
        }
        long uncore = 400_000;
        int depth = 4;
        List<Arrival> got = run(PcieConfig.defaults().withQueues(8, depth).withMmioLatency(uncore), plan);
        double perStore = (got.get(399).timePs - got.get(100).timePs) / 299.0;
        // A slot is held from the store until its TLP starts: depth stores per latency, the link being faster.
        assertThat(perStore).as("ps per store").isCloseTo((double) uncore / depth, within(uncore / depth * 0.02));
    }

    @Test
    void chunkRateIsBoundByTheDownstreamLink() {
        List<long[]> plan = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            plan.add(new long[] {WC + 64 * (i % 8), 64, i});
        }
        List<Arrival> got = run(PcieConfig.defaults(), plan);
        Arrival a = got.get(1000);
        Arrival b = got.get(4999);
        double perSecond = 3999 / ((b.timePs - a.timePs) * 1e-12);
        double tlpBytesPerSecond = 8.0 * 128 / 130 * 8 * (1 - (16 / 203.0 + 4 / 1538.0)) * 1e9 / 8;
        double expected = tlpBytesPerSecond / (64 + 24);
        assertThat(perSecond).isCloseTo(expected, within(expected * 0.03));
    }

    /**
     * With room for one waiting write, the first write starts at once and the second waits for it; the third is
     * refused, and the writer hears of it (in an event of its own) at the very picosecond the second starts, then the
     * fourth at the picosecond the third starts: no earlier, no later, and no other event in between.
     */
    @Test
    void aRefusedWriterIsRetriedTheInstantAQueueSlotFrees() {
        Simulator sim = new Simulator(1);
        PcieLink link = new PcieLink(sim, "pcie", PcieConfig.defaults().withQueues(8, 1), new HostMemory("host"));
        List<Long> arrivals = new ArrayList<>();
        link.dma().setMmioTarget((off, data, o, len) -> arrivals.add(sim.now()));
        List<Long> retries = new ArrayList<>();
        int[] written = {0};
        Runnable writeUntilRefused = () -> {
            while (written[0] < 4 && link.host().mmioWrite(WC, new byte[64], 0, 64)) {
                written[0]++;
            }
        };
        link.host().setMmioRetry(() -> {
            retries.add(sim.now());
            writeUntilRefused.run();
        });
        sim.event("start", writeUntilRefused).schedule(0);
        sim.run();

        // 88 wire bytes per write at 126.953125 ps per byte; the Ack DLLP (limit 203 B) follows the third write.
        long second = (long) Math.ceil(88 * PS_PER_BYTE);
        long third = (long) Math.ceil(176 * PS_PER_BYTE);
        assertThat(retries).containsExactly(second, third);
        assertThat(written[0]).isEqualTo(4);
        assertThat(arrivals).hasSize(4);
        assertThat(arrivals.get(2)).isEqualTo((long) Math.ceil(264 * PS_PER_BYTE) + PcieConfig.defaults().linkLatencyPs());
        // The start, two retries and four deliveries.
        assertThat(sim.eventsExecuted()).isEqualTo(7);
    }

    @Test
    void oversizedMmioIsRejected() {
        Simulator sim = new Simulator(1);
        PcieLink link = new PcieLink(sim, "pcie", PcieConfig.defaults(), new HostMemory("host"));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> link.host().mmioWrite(0, new byte[512], 0, 512))
                .hasMessageContaining("MPS");
    }
}
