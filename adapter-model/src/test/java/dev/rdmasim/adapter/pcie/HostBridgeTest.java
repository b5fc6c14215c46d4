package dev.rdmasim.adapter.pcie;

import static dev.rdmasim.adapter.pcie.DmaBoundsTest.counter;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.kernel.Simulator;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.collections.impl.list.mutable.primitive.LongArrayList;
import org.junit.jupiter.api.Test;

/**
 * The root complex as the host and the device see it: MMIO store sizes and counts, MSI-X data words built from the
 * write's own bytes only, and the reads and writes it holds while host memory works on them.
 */
class HostBridgeTest {
    private static final DmaCallback WRITES = new DmaCallback() {
        @Override
        public void writeSent(DmaRequest request) {
        }
    };

    /**
     * One vector raised again and again with shorter words: TLPs are recycled without clearing their payload, so a
     * data word that took a byte past the write's length would show the previous interrupt's byte.
     */
    @Test
    void aShortMsixWriteCarriesOnlyItsOwnBytesAndReleasesItsTlp() {
        PcieConfig cfg = PcieConfig.defaults();
        Simulator sim = new Simulator(1);
        PcieLink link = new PcieLink(sim, "pcie", cfg, new HostMemory("host"));
        List<String> irqs = new ArrayList<>();
        link.host().setInterruptHandler((vector, data) -> irqs.add(vector + ":" + Integer.toHexString(data)));
        DmaChannel ch = link.dma().addChannel("irq", 128);
        byte[] full = {(byte) 0x81, (byte) 0xA2, (byte) 0xC3, (byte) 0xF4};
        byte[] low = {0x11, 0x22, 0x33, 0x44};
        int[] lens = {4, 1, 2, 3};
        for (int i = 0; i < lens.length; i++) {
            DmaRequest r = new DmaRequest().write(cfg.msixAddress(7), i == 0 ? full : low, 0, lens[i], WRITES, i, false);
            sim.event("raise" + i, () -> ch.submit(r)).schedule(i * 10_000_000L);
        }
        int before = link.tlpsAllocated();
        // A hundred more at once: more than the pool holds at start, so a TLP kept by an interrupt would show.
        sim.event("burst", () -> {
            for (int i = 0; i < 100; i++) {
                assertThat(ch.submit(new DmaRequest().write(cfg.msixAddress(1), low, 0, 4, WRITES, 100 + i, false)))
                        .isTrue();
            }
        }).schedule(50_000_000L);
        sim.run();
        assertThat(irqs.subList(0, 4)).containsExactly("7:f4c3a281", "7:11", "7:2211", "7:332211");
        assertThat(irqs).hasSize(104);
        assertThat(counter(sim, "pcie.rc.interrupts")).isEqualTo(104);
        assertThat(link.tlpsAllocated()).isEqualTo(before);
    }

    @Test
    void mmioStoresOfOneByteUpToMpsGoThroughAndAreCounted() {
        PcieConfig cfg = PcieConfig.defaults();
        Simulator sim = new Simulator(1);
        PcieLink link = new PcieLink(sim, "pcie", cfg, new HostMemory("host"));
        List<String> got = new ArrayList<>();
        link.dma().setMmioTarget((off, data, o, len) -> got.add(Long.toHexString(off) + "+" + len + ":"
                + Integer.toHexString(data[o] & 0xff) + "," + Integer.toHexString(data[o + len - 1] & 0xff)));
        byte[] src = new byte[cfg.mps() + 1];
        for (int i = 0; i < src.length; i++) {
            src[i] = (byte) (i + 1);
        }
        assertThatThrownBy(() -> link.host().mmioWrite(0x800, src, 0, 0)).hasMessageContaining("1..MPS");
        assertThatThrownBy(() -> link.host().mmioWrite(0x800, src, 0, cfg.mps() + 1)).hasMessageContaining("1..MPS");
        sim.event("store", () -> {
            assertThat(link.host().mmioWrite(0x800, src, 0, 1)).isTrue();
            assertThat(link.host().mmioWrite(0x1000, src, 1, cfg.mps())).isTrue();
        }).schedule(0);
        sim.run();
        assertThat(got).containsExactly("800+1:1,1", "1000+256:2,1");
        assertThat(counter(sim, "pcie.rc.mmioWrites")).isEqualTo(2);
        assertThat(counter(sim, "pcie.rc.mmioBytes")).isEqualTo(1 + cfg.mps());
        assertThat(counter(sim, "pcie.rc.mmioRefusals")).isZero();
        assertThat(counter(sim, "pcie.dma.mmioWrites")).isEqualTo(2);
    }

    @Test
    void aStoreRefusedByAFullPostedQueueIsCounted() {
        Simulator sim = new Simulator(1);
        PcieLink link = new PcieLink(sim, "pcie", PcieConfig.defaults().withQueues(16, 1), new HostMemory("host"));
        link.dma().setMmioTarget((off, data, o, len) -> { });
        boolean[] taken = new boolean[3];
        sim.event("store", () -> {
            for (int i = 0; i < 3; i++) {
                taken[i] = link.host().mmioWrite(0x800, new byte[64], 0, 64);
            }
        }).schedule(0);
        sim.run();
        // The first store starts on the line at once, the second waits in the queue of one, the third is refused.
        assertThat(taken).containsExactly(true, true, false);
        assertThat(counter(sim, "pcie.rc.mmioWrites")).isEqualTo(2);
        assertThat(counter(sim, "pcie.rc.mmioRefusals")).isEqualTo(1);
        assertThat(counter(sim, "pcie.dma.mmioWrites")).isEqualTo(2);
    }

    /** A write waits out the host write latency after it arrives, a read the host read latency. */
    @Test
    void writesCommittingAndReadsPendingAreVisibleWhileHostMemoryWorks() {
        Simulator sim = new Simulator(1);
        PcieConfig cfg = PcieConfig.defaults().withHostWriteLatency(1_000_000);
        PcieLink link = new PcieLink(sim, "pcie", cfg, new HostMemory("host"));
        DmaChannel ch = link.dma().addChannel("dma", 4);
        LongArrayList applied = new LongArrayList();
        link.host().setWriteObserver((addr, len) -> applied.add(sim.now()));
        DmaCallback cb = new DmaCallback() {
            @Override
            public void writeSent(DmaRequest request) {
            }

            @Override
            public void readDone(DmaRequest request) {
            }
        };
        DmaRequest w = new DmaRequest().write(0x1000, new byte[64], 0, 64, cb, 0, false);
        sim.event("write", () -> ch.submit(w)).schedule(0);
        int[] seen = new int[4];
        // The write arrives about 90 ns after it is submitted and commits 1 us later.
        sim.event("w.mid", () -> seen[0] = link.host().writesCommitting()).schedule(500_000);
        sim.event("w.after", () -> seen[1] = link.host().writesCommitting()).schedule(1_500_000);
        // A read at 2 us: its request reaches the root complex about 85 ns later and is served 400 ns after that.
        DmaRequest r = new DmaRequest().read(0x1000, new byte[64], 0, 64, cb, 1);
        sim.event("read", () -> ch.submit(r)).schedule(2_000_000);
        sim.event("r.mid", () -> seen[2] = link.host().pendingReads()).schedule(2_300_000);
        sim.event("r.after", () -> seen[3] = link.host().pendingReads()).schedule(3_000_000);
        sim.run();
        assertThat(seen).containsExactly(1, 0, 1, 0);
        assertThat(applied.size()).isEqualTo(1);
        assertThat(applied.get(0)).isBetween(1_000_000L, 1_200_000L);
        assertThat(counter(sim, "pcie.rc.readsServed")).isEqualTo(1);
    }

    /**
     * Forty writes reach the root complex while the first ten are still committing: the writes waiting to commit
     * outgrow the sixteen places the root complex starts with after those it took first have left, so the places
     * have wrapped. Every write still commits the host write latency after it arrives, in arrival order, with its
     * own bytes.
     */
    @Test
    void writesCommitInArrivalOrderWhileMoreArriveThanTheFirstSixteenPlaces() {
        long latency = 2_000_000;
        Simulator sim = new Simulator(1);
        HostMemory mem = new HostMemory("host");
        PcieLink link = new PcieLink(sim, "pcie", PcieConfig.defaults().withHostWriteLatency(latency), mem);
        List<String> arrived = new ArrayList<>();
        link.up().connect(link.dma().linkEnd, new TlpTap(link.host().linkEnd,
                t -> arrived.add(Long.toHexString(t.address()) + "@" + (sim.now() + latency))));
        List<String> committed = new ArrayList<>();
        int[] most = {0};
        link.host().setWriteObserver((addr, len) -> {
            committed.add(Long.toHexString(addr) + "@" + sim.now());
            most[0] = Math.max(most[0], link.host().writesCommitting() + 1);
        });
        DmaChannel ch = link.dma().addChannel("wr", 64);
        byte[][] data = new byte[40][];
        for (int i = 0; i < 40; i++) {
            data[i] = new byte[32];
            java.util.Arrays.fill(data[i], (byte) (i + 1));
            DmaRequest w = new DmaRequest().write(0x10000L * (i + 1), data[i], 0, 32, WRITES, i, false);
            // Ten at once; thirty more arriving as the first ten commit, one about every 7 ns.
            sim.event("w" + i, () -> ch.submit(w)).schedule(i < 10 ? 0 : latency);
        }
        sim.run();
        assertThat(committed).hasSize(40).containsExactlyElementsOf(arrived);
        assertThat(most[0]).isGreaterThan(16);
        for (int i = 0; i < 40; i++) {
            byte[] got = new byte[32];
            mem.read(0x10000L * (i + 1), got, 0, 32);
            assertThat(got).as("write %d", i).isEqualTo(data[i]);
        }
        assertThat(counter(sim, "pcie.rc.writesApplied")).isEqualTo(40);
        assertThat(counter(sim, "pcie.rc.bytesApplied")).isEqualTo(40 * 32);
    }
}
