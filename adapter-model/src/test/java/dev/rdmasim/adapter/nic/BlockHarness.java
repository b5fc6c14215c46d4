package dev.rdmasim.adapter.nic;

import dev.rdmasim.adapter.format.BigEndian;
import dev.rdmasim.adapter.format.SendWqeBuilder;
import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.adapter.pcie.DmaPort;
import dev.rdmasim.adapter.pcie.PcieConfig;
import dev.rdmasim.adapter.pcie.PcieLink;
import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.hw.ClockDomain;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.Stat;
import dev.rdmasim.kernel.stats.TimeAverage;
import java.util.Arrays;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.IntSupplier;

/**
 * What a block test builds one adapter block in: a simulator, a parent module, a PCIe link with host memory behind
 * it for the block's DMA port, the NIC clock and work clock, and a QP table that is just a map of QPs built from
 * {@link QpConfig}s. No other block of the adapter exists: the test stands in for the block's neighbours.
 */
final class BlockHarness implements QpTable {
    static final long NIC_HZ = 500_000_000L;

    final Simulator sim;
    final Module top;
    final HostMemory mem;
    final PcieLink link;
    final ClockDomain clock;
    final WorkClock work;
    final TreeMap<Integer, Qp> qps = new TreeMap<>();

    BlockHarness(long seed, PcieConfig pcie) {
        sim = new Simulator(seed);
        top = new Module(sim, "nic") {
        };
        mem = new HostMemory("host");
        link = new PcieLink(sim, "pcie", pcie, mem);
        clock = ClockDomain.ofFrequency(sim, "nic.clk", NIC_HZ);
        work = new WorkClock(sim);
    }

    BlockHarness(long seed) {
        this(seed, PcieConfig.defaults());
    }

    /** A PCIe configuration varied by {@code rnd}: payload sizes, tags and queue depths change the DMA timing. */
    static PcieConfig randomPcie(SplittableRandom rnd) {
        int[] mps = {128, 256, 512};
        return PcieConfig.defaults().withMps(mps[rnd.nextInt(3)]).withMrrs(128 << rnd.nextInt(4))
                .withReadTags(1 + rnd.nextInt(16)).withQueues(1 + rnd.nextInt(4), 16)
                .withLatencies(50_000 + rnd.nextLong(600_000), 20_000 + rnd.nextLong(100_000));
    }

    /** A region registered with a key unit: its virtual range and the physical page behind each of its pages. */
    record Region(int key, int logPage, long va, long length, long[] pages) {
        /** The physical address of virtual address {@code v} of the region. */
        long pa(long v) {
            long base = va & -(1L << logPage);
            return pages[(int) ((v - base) >>> logPage)] + ((v - base) & ((1L << logPage) - 1));
        }
    }

    /**
     * Registers {@code key} for {@code length} bytes at {@code va} over pages of 2^logPage bytes scattered in host
     * memory and filled with random bytes (before each page, {@code gapPages} says how many pages to leave unused:
     * the pages are not contiguous), with its translation table and key context written as the firmware would.
     * Each page and its bytes go to {@code filled} when it is not null.
     */
    Region registerScattered(KeyUnit keys, SplittableRandom rnd, int key, int pd, int access, int logPage, long va,
            long length, IntSupplier gapPages, Map<Long, byte[]> filled) {
        long pageSize = 1L << logPage;
        long base = va & -pageSize;
        int n = (int) ((va + length - 1 - base) >>> logPage) + 1;
        long[] pages = new long[n];
        for (int i = 0; i < n; i++) {
            int gap = gapPages.getAsInt();
            if (gap > 0) {
                mem.allocate(pageSize * gap, pageSize);
            }
            pages[i] = mem.allocate(pageSize, pageSize);
            byte[] fill = new byte[(int) pageSize];
            rnd.nextBytes(fill);
            mem.write(pages[i], fill, 0, fill.length);
            if (filled != null) {
                filled.put(pages[i], fill);
            }
        }
        long mtt = mem.allocate(8L * n, 64);
        byte[] e = new byte[8 * n];
        for (int i = 0; i < n; i++) {
            BigEndian.putI64(e, 8 * i, pages[i]);
        }
        mem.write(mtt, e, 0, e.length);
        keys.writeContext(key, pd, access, logPage, va, length, mtt, true);
        return new Region(key, logPage, va, length, pages);
    }

    /** Host memory holds exactly {@code expected} (page address to bytes); the first difference fails, named. */
    void assertPages(Map<Long, byte[]> expected) {
        for (Map.Entry<Long, byte[]> e : expected.entrySet()) {
            byte[] got = new byte[e.getValue().length];
            mem.read(e.getKey(), got, 0, got.length);
            if (!Arrays.equals(got, e.getValue())) {
                int i = Arrays.mismatch(got, e.getValue());
                throw new AssertionError("host page 0x" + Long.toHexString(e.getKey()) + " differs at byte " + i);
            }
        }
    }

    /** A port on a new DMA channel of {@code depth} requests. */
    DmaPort port(String name, int depth, int backlog) {
        return new DmaPort(link.dma().addChannel(name, depth), backlog);
    }

    /** A QP whose send ring of 2^sqLogBbs blocks is allocated in host memory; READY_TO_SEND. */
    Qp addQp(int qpn, int sqLogBbs, int outstanding, int fetchBbs, int bfBytes, int maxSendSge, int maxInline) {
        return addQp(qpn, sqLogBbs, outstanding, fetchBbs, bfBytes, maxSendSge, maxInline, QpState.READY_TO_SEND);
    }

    /** As {@link #addQp(int, int, int, int, int, int, int)}, left in INIT, READY_TO_RECEIVE or READY_TO_SEND. */
    Qp addQp(int qpn, int sqLogBbs, int outstanding, int fetchBbs, int bfBytes, int maxSendSge, int maxInline, QpState state) {
        long sq = mem.allocate((long) SendWqeBuilder.BB << sqLogBbs, 4096);
        QpConfig cfg = new QpConfig(1, 1, 1, sq, sqLogBbs, 0, 0, 0, 0, maxSendSge, 1, maxInline, 0);
        Qp qp = new Qp(qpn, cfg, outstanding, fetchBbs, bfBytes, 1);
        if (state != QpState.INIT) {
            qp.moveTo(QpState.READY_TO_RECEIVE);
        }
        if (state == QpState.READY_TO_SEND) {
            qp.moveTo(QpState.READY_TO_SEND);
        }
        qps.put(qpn, qp);
        return qp;
    }

    @Override
    public Qp qp(int qpn) {
        Qp qp = qps.get(qpn);
        if (qp == null) {
            throw new AssertionError("no QP " + qpn);
        }
        return qp;
    }

    @Override
    public Qp qpOrNull(int qpn) {
        return qps.get(qpn);
    }

    /** The value of counter {@code name} of block {@code m}. */
    static long counter(Module m, String name) {
        for (Stat s : m.stats().stats()) {
            if (s.name().equals(name) && s instanceof Counter c) {
                return c.value();
            }
        }
        throw new AssertionError(m.fullName() + " has no counter " + name);
    }

    /** The level a block's time-average statistic holds now. */
    static long level(Module m, String name) {
        for (Stat s : m.stats().stats()) {
            if (s.name().equals(name) && s instanceof TimeAverage t) {
                return t.level();
            }
        }
        throw new AssertionError(m.fullName() + " has no time average " + name);
    }
}
