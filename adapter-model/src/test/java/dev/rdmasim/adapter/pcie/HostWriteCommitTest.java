package dev.rdmasim.adapter.pcie;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.kernel.Simulator;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The root complex commits a device's posted writes to memory the host write latency after they arrive, in arrival
 * order: the CPU (the write observer, a DMA's writeApplied, an interrupt) sees them then and not before, a CQE never
 * before the data ahead of it; a device read is ordered behind the writes that reached the root complex before it.
 */
class HostWriteCommitTest {

    private static final long COMMIT = 250_000;

    /** A writer that needs nothing when its writes leave. */
    private static final DmaCallback SENT_OK = new DmaCallback() {
        @Override
        public void writeSent(DmaRequest request) {
        }
    };

    /** One 64 B write at time zero; returns when it was applied, and the memory seen one ps before that. */
    private static long[] writeOnce(long commitPs) {
        Simulator sim = new Simulator(1);
        HostMemory mem = new HostMemory("host");
        PcieLink link = new PcieLink(sim, "pcie", PcieConfig.defaults().withHostWriteLatency(commitPs), mem);
        DmaChannel ch = link.dma().addChannel("wr", 4);
        byte[] data = new byte[64];
        java.util.Arrays.fill(data, (byte) 0x5A);
        long[] applied = {-1};
        long[] observed = {-1};
        link.host().setWriteObserver((a, n) -> observed[0] = sim.now());
        DmaRequest r = new DmaRequest().write(0x4000, data, 0, 64, new DmaCallback() {
            @Override
            public void writeSent(DmaRequest req) {
            }

            @Override
            public void writeApplied(DmaRequest req) {
                applied[0] = sim.now();
            }
        }, 0, true);
        assertThat(ch.submit(r)).isTrue();
        // Look at memory just before the commit: nothing may be there yet.
        long[] before = {-1};
        sim.event("peek", () -> before[0] = mem.getByte(0x4000) & 0xff).schedule(1);
        sim.run();
        assertThat(observed[0]).isEqualTo(applied[0]);
        assertThat(mem.getByte(0x4000 + 63)).isEqualTo((byte) 0x5A);
        return new long[] {applied[0], before[0]};
    }

    @Test
    void aWriteIsSeenTheCommitLatencyAfterItArrives() {
        long bare = writeOnce(0)[0];
        long[] slow = writeOnce(COMMIT);
        assertThat(slow[0]).isEqualTo(bare + COMMIT);
        assertThat(slow[1]).as("not in memory before it commits").isZero();
    }

    /**
     * Seeded: writes of random sizes to overlapping places on one channel, then an
     * MSI-X message), a read in between. Writes commit in arrival order; memory ends as the last write of each
     * byte left it; the interrupt is not seen before the data written ahead of it; nothing stays uncommitted.
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4})
    void writesCommitInArrivalOrderAndReadsSeeWhatCameBefore(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        Simulator sim = new Simulator(seed);
        HostMemory mem = new HostMemory("host");
        PcieLink link = new PcieLink(sim, "pcie", PcieConfig.defaults().withHostWriteLatency(COMMIT), mem);
        DmaChannel ch = link.dma().addChannel("data", 128);
        List<long[]> seen = new ArrayList<>(); // {address, length, time}
        link.host().setWriteObserver((a, n) -> seen.add(new long[] {a, n, sim.now()}));
        List<Long> interrupts = new ArrayList<>();
        link.host().setInterruptHandler((vector, data) -> interrupts.add(sim.now()));
        byte[] model = new byte[8192];
        int writes = 40 + rnd.nextInt(40);
        List<DmaRequest> reqs = new ArrayList<>();
        DmaChannel ev = link.dma().addChannel("event", 4);
        byte[] msg = {7, 0, 0, 0};
        // As the adapter's CQE writer does: the interrupt is issued once the last data write has left.
        DmaCallback lastSent = new DmaCallback() {
            @Override
            public void writeSent(DmaRequest request) {
                assertThat(ev.submit(new DmaRequest().write(PcieConfig.defaults().msixBase() + 12, msg, 0, 4, SENT_OK, 0,
                        false))).isTrue();
            }
        };
        for (int i = 0; i < writes; i++) {
            int off = rnd.nextInt(4096);
            int len = 1 + rnd.nextInt(Math.min(600, 8192 - off));
            byte[] b = new byte[len];
            rnd.nextBytes(b);
            System.arraycopy(b, 0, model, off, len);
            DmaRequest r = new DmaRequest().write(0x10_000 + off, b, 0, len, i == writes - 1 ? lastSent : SENT_OK, i, false);
            reqs.add(r);
        }
        // Submit them in order; a read of everything right behind.
        sim.event("submit", () -> {
            for (DmaRequest r : reqs) {
                assertThat(ch.submit(r)).isTrue();
            }
        }).schedule(0);
        byte[] readBack = new byte[4096];
        DmaChannel rd = link.dma().addChannel("rd", 64);
        long[] readDone = {-1};
        sim.event("read", () -> assertThat(rd.submit(new DmaRequest().read(0x10_000, readBack, 0, 4096, new DmaCallback() {
            @Override
            public void readDone(DmaRequest req) {
                readDone[0] = sim.now();
            }
        }, 0))).isTrue()).schedule(1);
        sim.run();

        assertThat(link.host().writesCommitting()).isZero();
        for (int i = 1; i < seen.size(); i++) {
            assertThat(seen.get(i)[2]).as("commits in arrival order").isGreaterThanOrEqualTo(seen.get(i - 1)[2]);
        }
        byte[] end = new byte[8192];
        mem.read(0x10_000, end, 0, 8192);
        assertThat(end).as("the last write of each byte wins").isEqualTo(model);
        assertThat(interrupts).hasSize(1);
        long lastData = seen.stream().filter(w -> w[0] < 0x10_000 + 8192).mapToLong(w -> w[2]).max().orElseThrow();
        assertThat(interrupts.get(0)).as("the interrupt is not seen before the data ahead of it").isGreaterThanOrEqualTo(lastData);
        assertThat(readDone[0]).isPositive();
    }

    /** A read that reaches the root complex right behind a write returns the write's bytes, committed or not. */
    @Test
    void aReadIsOrderedBehindTheWritesBeforeIt() {
        Simulator sim = new Simulator(1);
        HostMemory mem = new HostMemory("host");
        PcieLink link = new PcieLink(sim, "pcie", PcieConfig.defaults().withHostWriteLatency(10 * COMMIT), mem);
        DmaChannel wr = link.dma().addChannel("wr", 4);
        DmaChannel rd = link.dma().addChannel("rd", 4);
        byte[] data = {1, 2, 3, 4, 5, 6, 7, 8};
        byte[] got = new byte[8];
        long[] when = {-1};
        sim.event("go", () -> {
            assertThat(wr.submit(new DmaRequest().write(0x8000, data, 0, 8, SENT_OK, 0, false))).isTrue();
            assertThat(rd.submit(new DmaRequest().read(0x8000, got, 0, 8, new DmaCallback() {
                @Override
                public void readDone(DmaRequest r) {
                    when[0] = sim.now();
                }
            }, 0))).isTrue();
        }).schedule(0);
        sim.run();
        assertThat(got).isEqualTo(data);
        assertThat(when[0]).as("the read did not wait for the commit latency").isLessThan(10 * COMMIT);
    }

    /**
     * A write nobody watches is taken late: it costs no delivery or commit event, yet memory holds it exactly from its
     * commit instant (arrival plus the write latency) on, and the run, whose last event comes earlier, ends at that
     * instant with it applied, as with an event per write.
     */
    @ParameterizedTest
    @ValueSource(longs = {0, 180_000, 1_000_000})
    void aLateWriteIsVisibleFromItsCommitInstantAndTheRunEndsThere(long commitPs) {
        long[] endAndLanded = new long[2];
        long[] events = new long[2];
        for (int perTlp = 0; perTlp < 2; perTlp++) {
            Simulator sim = new Simulator(1);
            HostMemory mem = new HostMemory("host");
            PcieLink link = new PcieLink(sim, "pcie", PcieConfig.defaults().withHostWriteLatency(commitPs), mem);
            link.setEventPerTlp(perTlp == 1);
            DmaChannel ch = link.dma().addChannel("wr", 4);
            byte[] data = new byte[600];
            java.util.Arrays.fill(data, (byte) 0x3C);
            long[] sent = {-1};
            assertThat(ch.submit(new DmaRequest().write(0x8000, data, 0, data.length, new DmaCallback() {
                @Override
                public void writeSent(DmaRequest req) {
                    sent[0] = sim.now();
                }
            }, 0, false))).isTrue();
            sim.run();
            long end = sim.now();
            assertThat(mem.getByte(0x8000 + data.length - 1)).as("the last byte landed").isEqualTo((byte) 0x3C);
            assertThat(end).as("the run ends after the last TLP left").isGreaterThan(sent[0]);
            if (perTlp == 0) {
                endAndLanded[0] = end;
                events[0] = sim.eventsExecuted();
            } else {
                assertThat(end).as("same end with an event per write").isEqualTo(endAndLanded[0]);
                events[1] = sim.eventsExecuted();
            }
        }
        assertThat(events[0]).as("late: no delivery or commit events").isLessThan(events[1]);
        // Read at every picosecond around the commit of the last TLP: nothing before it, everything from it.
        Simulator sim = new Simulator(1);
        HostMemory mem = new HostMemory("host");
        PcieLink link = new PcieLink(sim, "pcie", PcieConfig.defaults().withHostWriteLatency(commitPs), mem);
        DmaChannel ch = link.dma().addChannel("wr", 4);
        byte[] data = new byte[600];
        java.util.Arrays.fill(data, (byte) 0x3C);
        assertThat(ch.submit(new DmaRequest().write(0x8000, data, 0, data.length, new DmaCallback() {
            @Override
            public void writeSent(DmaRequest req) {
            }
        }, 0, false))).isTrue();
        long last = endAndLanded[0];
        List<Long> seen = new ArrayList<>();
        for (long t : new long[] {last - 2, last - 1, last}) {
            sim.event("look" + t, () -> seen.add((long) (mem.getByte(0x8000 + data.length - 1) & 0xff))).schedule(t);
        }
        sim.run();
        assertThat(seen).containsExactly(0L, 0L, 0x3CL);
    }
}
