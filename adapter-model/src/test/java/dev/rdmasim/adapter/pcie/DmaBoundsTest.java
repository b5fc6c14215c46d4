package dev.rdmasim.adapter.pcie;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.Formula;
import dev.rdmasim.kernel.stats.Stat;
import dev.rdmasim.kernel.stats.StatsGroup;
import org.eclipse.collections.impl.list.mutable.primitive.LongArrayList;
import org.junit.jupiter.api.Test;

/**
 * The DMA engine's bounds report the time they are at their limit exactly: the read tags while every tag holds a
 * read, a channel's queue while every entry holds a request.
 */
class DmaBoundsTest {
    /** Round trip of one 64 B read at the defaults (PcieLatencyTest). */
    private static final long ROUND_TRIP_PS = 3047 + 80_000 + 400_000 + 10_665 + 80_000;

    static Stat stat(Simulator sim, String fullName) {
        for (StatsGroup g : sim.stats().groups()) {
            g.refresh();
            for (Stat s : g.stats()) {
                if (s.fullName().equals(fullName)) {
                    return s;
                }
            }
        }
        throw new AssertionError("no statistic " + fullName);
    }

    static long counter(Simulator sim, String fullName) {
        return ((Counter) stat(sim, fullName)).value();
    }

    @Test
    void oneTagTwoReadsKeepTheTagsFullUntilTheSecondCompletesAndTheQueueUntilTheFirstDoes() {
        Simulator sim = new Simulator(1);
        PcieLink link = new PcieLink(sim, "pcie", PcieConfig.defaults().withReadTags(1), new HostMemory("host"));
        DmaChannel ch = link.dma().addChannel("rd", 1, "test depth");
        LongArrayList done = new LongArrayList();
        DmaCallback cb = new DmaCallback() {
            @Override
            public void readDone(DmaRequest r) {
                done.add(sim.now());
            }

        };
        byte[] buf = new byte[128];
        DmaRequest first = new DmaRequest().read(0x1000, buf, 0, 64, cb, 0);
        DmaRequest second = new DmaRequest().read(0x2000, buf, 64, 64, cb, 1);
        boolean[] taken = new boolean[2];
        sim.event("post", () -> {
            taken[0] = ch.submit(first);
            taken[1] = ch.submit(second);
        }).schedule(0);
        sim.run();
        assertThat(done.size()).isEqualTo(2);
        // The first read takes the tag at 0 and frees it at its completion, when the second takes it at once.
        assertThat(done.get(0)).isEqualTo(ROUND_TRIP_PS);
        assertThat(counter(sim, "pcie.dma.readTagsFullTime")).isEqualTo(done.get(1));
        assertThat(((Formula) stat(sim, "pcie.dma.readTagsFullFraction")).value()).isEqualTo(1.0);
        // The queue of one: the first read leaves it at once (a tag is free); the second waits in it for the tag.
        assertThat(taken).containsExactly(true, true);
        assertThat(counter(sim, "pcie.dma.rd_queueFullTime")).isEqualTo(ROUND_TRIP_PS);
    }

    /**
     * A posted queue of one: the first MMIO write starts on the wire at once, the second takes its place and waits
     * for the line, the third is refused until the second starts. The queue is full from the second write's
     * acceptance (0) until it starts, one TLP time later, then from the third's acceptance until it starts: as long
     * as the first and the third write arrive apart.
     */
    @Test
    void theMmioPostedQueueIsFullWhileAWriteWaitsForTheLine() {
        Simulator sim = new Simulator(1);
        PcieLink link = new PcieLink(sim, "pcie", PcieConfig.defaults().withQueues(16, 1), new HostMemory("host"));
        LongArrayList arrivals = new LongArrayList();
        link.dma().setMmioTarget((off, data, o, len) -> arrivals.add(sim.now()));
        int[] next = {0};
        Runnable pump = () -> {
            while (next[0] < 3 && link.host().mmioWrite(0x800, new byte[64], 0, 64)) {
                next[0]++;
            }
        };
        link.host().setMmioRetry(pump);
        sim.event("post", pump).schedule(0);
        sim.run();
        assertThat(arrivals.size()).isEqualTo(3);
        assertThat(counter(sim, "pcie.down.postedFullTime")).isEqualTo(arrivals.get(2) - arrivals.get(0));
        assertThat(counter(sim, "pcie.up.postedFullTime")).isZero();
    }

    @Test
    void nothingIsFullWhenTheTagsAreNeverAllHeld() {
        Simulator sim = new Simulator(1);
        PcieLink link = new PcieLink(sim, "pcie", PcieConfig.defaults().withReadTags(4), new HostMemory("host"));
        DmaChannel ch = link.dma().addChannel("rd", 8, "test depth");
        StreamClient client = new StreamClient(sim, ch, true, 64, 0x10_0000L, 0, 3);
        // Three reads at a time can never hold four tags, nor fill a queue of eight.
        for (int i = 0; i < 3; i++) {
            ch.submit(new DmaRequest().read(0x10_0000L + i * 4096L, new byte[64], 0, 64, client, i));
        }
        sim.run();
        assertThat(counter(sim, "pcie.dma.readTagsFullTime")).isZero();
        assertThat(counter(sim, "pcie.dma.rd_queueFullTime")).isZero();
    }
}
