package dev.rdmasim.adapter.nic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.cache.SetAssocCache;
import dev.rdmasim.adapter.format.BigEndian;
import dev.rdmasim.adapter.pcie.DmaPort;
import dev.rdmasim.adapter.pcie.PcieConfig;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Context memory and its QP-context cache alone, with the test as the fetch engine: it looks QPs up, fills missed
 * lines, changes the state of lines on chip, and checks that every replaced line goes back to its QP's context by
 * DMA with the bytes it held when it was replaced; that a write-back finding its port refusing or every buffer busy
 * is counted as dropped; and the context memory layout (QP, CQ, key contexts back to back, no overlap).
 */
class ContextMemoryTest {
    private static final int QP_BYTES = ContextMemory.QP_CONTEXT_BYTES;

    private static ContextMemory.Params params(int qpcEntries, int qpcWays, SetAssocCache.Policy policy) {
        return new ContextMemory.Params(32, 16, 8, qpcEntries, qpcWays, policy);
    }

    @Test
    void contextsLieBackToBackInTheCarvedRegion() {
        BlockHarness h = new BlockHarness(1);
        ContextMemory.Params p = new ContextMemory.Params(10, 6, 5, 4, 2, SetAssocCache.Policy.LRU);
        long base = h.mem.allocate(p.bytes(), 4096);
        ContextMemory ctx = new ContextMemory(h.top, p, h.mem, base, h.port("wb", 4, 0));
        assertThat(p.bytes()).isEqualTo(10L * QP_BYTES + 6L * ContextMemory.CQ_CONTEXT_BYTES + 5L * KeyUnit.CONTEXT_BYTES);
        assertThat(ctx.qpContextAddress(0)).isEqualTo(base);
        assertThat(ctx.qpContextAddress(7)).isEqualTo(base + 7L * QP_BYTES);
        assertThat(ctx.cqContextAddress(0)).as("CQ contexts follow the last QP's").isEqualTo(ctx.qpContextAddress(9) + QP_BYTES);
        assertThat(ctx.cqContextAddress(5)).isEqualTo(ctx.cqContextAddress(0) + 5L * ContextMemory.CQ_CONTEXT_BYTES);
        assertThat(ctx.keyContextBase()).as("key contexts follow the last CQ's")
                .isEqualTo(ctx.cqContextAddress(5) + ContextMemory.CQ_CONTEXT_BYTES);
        assertThat(ctx.keyContextBase() + 5L * KeyUnit.CONTEXT_BYTES).as("the region ends with the last key's")
                .isEqualTo(base + p.bytes());
    }

    @Test
    void firmwareWritesAndClearsOnlyTheObjectsContext() {
        BlockHarness h = new BlockHarness(1);
        ContextMemory.Params p = params(4, 2, SetAssocCache.Policy.LRU);
        long base = h.mem.allocate(p.bytes(), 4096);
        h.mem.fill(base, p.bytes(), (byte) 0xAA);
        ContextMemory ctx = new ContextMemory(h.top, p, h.mem, base, h.port("wb", 4, 0));
        QpConfig cfg = new QpConfig(0x1234, 1, 2, 0x1_0000_1000L, 4, 0x1_0000_2000L, 3, 1, 0x1_0000_3000L, 2, 2, 64, 0);
        ctx.writeQpContext(5, cfg);
        long a = ctx.qpContextAddress(5);
        byte[] b = new byte[QP_BYTES];
        h.mem.read(a, b, 0, QP_BYTES);
        assertThat(BigEndian.i32(b, 0)).isEqualTo(5);
        assertThat(BigEndian.i32(b, 4)).isEqualTo(0x1234);
        assertThat(BigEndian.i64(b, 8)).isEqualTo(0x1_0000_1000L);
        assertThat(BigEndian.i64(b, 16)).isEqualTo(0x1_0000_2000L);
        assertThat(BigEndian.i64(b, 24)).isEqualTo(0x1_0000_3000L);
        assertThat(h.mem.getByte(a - 1)).as("QP 4's context untouched").isEqualTo((byte) 0xAA);
        assertThat(h.mem.getByte(a + QP_BYTES)).as("QP 6's context untouched").isEqualTo((byte) 0xAA);

        ctx.writeCqContext(3, 0x2_0000_0000L, 7, 0x2_0000_1000L);
        long c = ctx.cqContextAddress(3);
        assertThat(h.mem.getLongBE(c)).isEqualTo(0x2_0000_0000L);
        assertThat(h.mem.getIntBE(c + 8)).isEqualTo(7);
        assertThat(h.mem.getLongBE(c + 16)).isEqualTo(0x2_0000_1000L);
        assertThat(h.mem.getByte(c + ContextMemory.CQ_CONTEXT_BYTES)).isEqualTo((byte) 0xAA);

        ctx.clearQpContext(5);
        ctx.clearCqContext(3);
        assertThat(h.mem.equalsRange(a, new byte[QP_BYTES], 0, QP_BYTES)).isTrue();
        assertThat(h.mem.equalsRange(c, new byte[ContextMemory.CQ_CONTEXT_BYTES], 0, ContextMemory.CQ_CONTEXT_BYTES)).isTrue();
        assertThat(h.mem.getByte(a - 1)).isEqualTo((byte) 0xAA);
        assertThat(h.mem.getByte(a + QP_BYTES)).isEqualTo((byte) 0xAA);
        assertThat(h.mem.getByte(c - 1)).isEqualTo((byte) 0xAA);
        assertThat(h.mem.getByte(c + ContextMemory.CQ_CONTEXT_BYTES)).isEqualTo((byte) 0xAA);
    }

    /** A destroyed QP's line leaves the cache: a new QP with its number does not see the old context. */
    @Test
    void clearingAContextDropsItsCachedLine() {
        BlockHarness h = new BlockHarness(1);
        ContextMemory.Params p = params(4, 2, SetAssocCache.Policy.LRU);
        ContextMemory ctx = new ContextMemory(h.top, p, h.mem, h.mem.allocate(p.bytes(), 4096), h.port("wb", 4, 0));
        int r = ctx.lookup(3);
        assertThat(SetAssocCache.missSlot(r)).isGreaterThanOrEqualTo(0);
        ctx.fill(SetAssocCache.missSlot(r));
        assertThat(ctx.lookup(3)).as("a hit once filled").isEqualTo(SetAssocCache.missSlot(r));
        ctx.clearQpContext(3);
        assertThat(SetAssocCache.missSlot(ctx.lookup(3))).as("a miss after the QP is destroyed").isGreaterThanOrEqualTo(0);
    }

    /**
     * Seeded lookups over more QPs than lines, the state of lines on chip changed between them, the DMA running for
     * random times in between: every replaced line is written back once, to its own context, with the bytes it held.
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6})
    void everyEvictedLineIsWrittenBackWithItsBytes(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        BlockHarness h = new BlockHarness(seed, BlockHarness.randomPcie(rnd));
        int ways = 1 << rnd.nextInt(3);
        int entries = ways * (1 + rnd.nextInt(3));
        SetAssocCache.Policy policy = SetAssocCache.Policy.values()[rnd.nextInt(3)];
        ContextMemory.Params p = params(entries, ways, policy);
        long base = h.mem.allocate(p.bytes(), 4096);
        DmaPort port = h.port("contextWriteBack", 16, 0);
        ContextMemory ctx = new ContextMemory(h.top, p, h.mem, base, port);
        int qps = entries + 2 + rnd.nextInt(8);
        Map<Integer, Integer> slotOwner = new HashMap<>();
        Map<Integer, byte[]> lastEvicted = new HashMap<>();
        List<Long> written = new ArrayList<>();
        h.link.host().setWriteObserver((addr, len) -> written.add(addr));
        List<Long> expectedWrites = new ArrayList<>();
        int evictions = 0;
        for (int step = 0; step < 600; step++) {
            int q = rnd.nextInt(qps);
            int r = ctx.lookup(q);
            if (r >= 0) {
                assertThat(slotOwner.get(r)).as("a hit is the QP's own line").isEqualTo(q);
                // The QP's state changes on chip (PSNs, indices): the line becomes what must go back.
                byte[] line = ctx.line(r);
                line[rnd.nextInt(QP_BYTES)] = (byte) rnd.nextInt();
            } else {
                int slot = SetAssocCache.missSlot(r);
                assertThat(slot).as("lines are filled at once, so no lookup finds one pending").isGreaterThanOrEqualTo(0);
                Integer victim = slotOwner.get(slot);
                ctx.writeBackEvicted();
                if (victim != null) {
                    evictions++;
                    lastEvicted.put(victim, ctx.line(slot).clone());
                    expectedWrites.add(ctx.qpContextAddress(victim));
                }
                // The fill lands over the old bytes: the write-back must already hold its own copy.
                rnd.nextBytes(ctx.line(slot));
                ctx.fill(slot);
                slotOwner.put(slot, q);
            }
            if (rnd.nextInt(3) == 0) {
                h.sim.runUntil(h.sim.now() + rnd.nextLong(3_000_000));
            }
        }
        h.sim.run();
        assertThat(evictions).isPositive();
        assertThat(BlockHarness.counter(ctx, "droppedWriteBacks")).isZero();
        assertThat(BlockHarness.counter(ctx, "contextWriteBacks")).isEqualTo(evictions);
        assertThat(starts(written)).as("one write-back per eviction, in eviction order").isEqualTo(expectedWrites);
        for (var e : lastEvicted.entrySet()) {
            assertThat(h.mem.equalsRange(ctx.qpContextAddress(e.getKey()), e.getValue(), 0, QP_BYTES))
                    .as("QP %d's context holds its last evicted line", e.getKey()).isTrue();
        }
    }

    /**
     * The write-backs the host saw: one that a small MPS splits into TLPs shows up as pieces, and only its first
     * starts on a context boundary.
     */
    private static List<Long> starts(List<Long> writes) {
        List<Long> out = new ArrayList<>(writes);
        out.removeIf(a -> a % QP_BYTES != 0);
        return out;
    }

    /** With every write-back buffer still sending, further evictions are counted as dropped, not written. */
    @Test
    void writeBacksBeyondTheBuffersAreDropped() {
        BlockHarness h = new BlockHarness(1);
        ContextMemory.Params p = params(1, 1, SetAssocCache.Policy.LRU);
        long base = h.mem.allocate(p.bytes(), 4096);
        ContextMemory ctx = new ContextMemory(h.top, p, h.mem, base, h.port("contextWriteBack", 64, 0));
        byte[][] lines = new byte[21][];
        for (int q = 0; q <= 20; q++) {
            int slot = SetAssocCache.missSlot(ctx.lookup(q));
            ctx.writeBackEvicted();
            lines[q] = new byte[QP_BYTES];
            Arrays.fill(lines[q], (byte) (q + 1));
            System.arraycopy(lines[q], 0, ctx.line(slot), 0, QP_BYTES);
            ctx.fill(slot);
        }
        // 20 evictions with no time passing: 16 buffers, then every one is still in the engine.
        assertThat(BlockHarness.counter(ctx, "contextWriteBacks")).isEqualTo(16);
        assertThat(BlockHarness.counter(ctx, "droppedWriteBacks")).isEqualTo(4);
        h.sim.run();
        for (int q = 0; q < 16; q++) {
            assertThat(h.mem.equalsRange(ctx.qpContextAddress(q), lines[q], 0, QP_BYTES)).as("QP %d written back", q).isTrue();
        }
        for (int q = 16; q < 20; q++) {
            assertThat(h.mem.equalsRange(ctx.qpContextAddress(q), new byte[QP_BYTES], 0, QP_BYTES)).as("QP %d dropped", q).isTrue();
        }
        // Once they have left, the buffers take write-backs again.
        int slot = SetAssocCache.missSlot(ctx.lookup(21));
        ctx.writeBackEvicted();
        ctx.fill(slot);
        h.sim.run();
        assertThat(BlockHarness.counter(ctx, "contextWriteBacks")).isEqualTo(17);
        assertThat(h.mem.equalsRange(ctx.qpContextAddress(20), lines[20], 0, QP_BYTES)).isTrue();
    }

    /** A port whose channel refuses the write-back (full, no backlog) drops it and counts it. */
    @Test
    void writeBacksTheChannelRefusesAreDropped() {
        // A one-deep transmit queue and channel: the engine holds a few requests, the channel refuses the rest.
        BlockHarness h = new BlockHarness(1, PcieConfig.defaults().withQueues(1, 16));
        ContextMemory.Params p = params(1, 1, SetAssocCache.Policy.LRU);
        long base = h.mem.allocate(p.bytes(), 4096);
        ContextMemory ctx = new ContextMemory(h.top, p, h.mem, base, h.port("contextWriteBack", 1, 0));
        for (int q = 0; q <= 12; q++) {
            int slot = SetAssocCache.missSlot(ctx.lookup(q));
            ctx.writeBackEvicted();
            Arrays.fill(ctx.line(slot), (byte) (q + 1));
            ctx.fill(slot);
        }
        long sent = BlockHarness.counter(ctx, "contextWriteBacks");
        long dropped = BlockHarness.counter(ctx, "droppedWriteBacks");
        assertThat(sent + dropped).isEqualTo(12);
        assertThat(dropped).as("a one-deep channel refuses some of 12 at once (fewer than the 16 buffers)").isPositive();
        h.sim.run();
        int inMemory = 0;
        for (int q = 0; q < 12; q++) {
            byte[] want = new byte[QP_BYTES];
            Arrays.fill(want, (byte) (q + 1));
            if (h.mem.equalsRange(ctx.qpContextAddress(q), want, 0, QP_BYTES)) {
                inMemory++;
            } else {
                assertThat(h.mem.equalsRange(ctx.qpContextAddress(q), new byte[QP_BYTES], 0, QP_BYTES)).isTrue();
            }
        }
        assertThat(inMemory).as("exactly the write-backs counted as sent reach memory").isEqualTo(sent);
    }
}
