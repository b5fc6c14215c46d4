package dev.rdmasim.adapter.nic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.cache.SetAssocCache;
import dev.rdmasim.adapter.format.Doorbells;
import dev.rdmasim.adapter.format.SendWqeBuilder;
import dev.rdmasim.adapter.format.WqeOpcode;
import dev.rdmasim.adapter.pcie.PcieConfig;
import dev.rdmasim.kernel.Event;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The doorbell unit driven through its MMIO side: 8-byte doorbells and BlueFlame chunks in the two halves of a QP's
 * doorbell page. Its outputs are the fetch engine's doorbell and BlueFlame inputs and the parser's "staged" input.
 * The first tests keep the fetch engine passive (a QP not yet ready to send fetches nothing) and check exactly what
 * the unit hands on; the seeded test lets the engine fetch through a PCIe link and checks every WQE, whichever way
 * it came, reaches staging byte-exact and in order, and each is counted once as a doorbell or a BlueFlame.
 */
class DoorbellUnitTest {
    private static final int BB = SendWqeBuilder.BB;
    private static final int BF = 256;
    private static final int HALF0 = Doorbells.PAGE_BLUEFLAME;
    private static final int HALF1 = Doorbells.PAGE_BLUEFLAME + BF;

    /** The unit with a real fetch engine and credits behind it, and a parser stub that consumes what is staged. */
    private static final class Rig implements WqeFetchEngine.Output {
        final SplittableRandom rnd;
        final BlockHarness h;
        final WqeCredits credits;
        final WqeFetchEngine fetch;
        final DoorbellUnit db;
        final Qp qp;
        final byte[] ring;
        final SendWqeBuilder builder;
        final List<byte[]> blocks = new ArrayList<>();
        final Event consume;
        int stagedCalls;
        int consumed;
        /** Blocks staged, as the engine last announced (16-bit counter). */
        int staged;
        int produced;
        boolean consuming;

        Rig(long seed, boolean live) {
            rnd = new SplittableRandom(seed);
            h = new BlockHarness(seed, live ? BlockHarness.randomPcie(rnd) : PcieConfig.defaults());
            ContextMemory.Params cp = new ContextMemory.Params(4, 1, 1, 2, 1, SetAssocCache.Policy.LRU);
            ContextMemory ctx = new ContextMemory(h.top, cp, h.mem, h.mem.allocate(cp.bytes(), 4096), h.port("wb", 4, 0));
            credits = new WqeCredits(h.top, new WqeCredits.Params(live ? 4 + rnd.nextInt(8) : 16, 1024));
            int fetchMax = 1 + rnd.nextInt(4);
            fetch = new WqeFetchEngine(h.top, new WqeFetchEngine.Params(1 + rnd.nextInt(2), fetchMax, 16), h.clock, h.work,
                    h, ctx, credits, h.port("wqeFetch", 2, 1));
            fetch.connect(this);
            db = new DoorbellUnit(h.top, new DoorbellUnit.Params(BF));
            db.connect(fetch, this);
            qp = h.addQp(3, 5, 16, fetchMax, BF, 4, 128, live ? QpState.READY_TO_SEND : QpState.INIT);
            ctx.writeQpContext(qp.qpn, qp.cfg);
            ring = new byte[BB << qp.cfg.sqLogBbs()];
            builder = new SendWqeBuilder(ring, 0, qp.cfg.sqLogBbs());
            consume = h.sim.event("parser", this::consumeSome);
        }

        /** Builds the next WQE in the driver's ring copy and in host memory; returns its bytes, contiguous. */
        byte[] post(int sges) {
            int index = produced & 0xFFFF;
            builder.begin(index, WqeOpcode.RDMA_WRITE, qp.qpn, 0, 0).remoteAddress(rnd.nextLong(), rnd.nextInt());
            for (int i = 0; i < sges; i++) {
                builder.data(rnd.nextLong(), 1 + rnd.nextInt(4096), rnd.nextInt());
            }
            int bbs = builder.finish();
            byte[] wqe = new byte[bbs * BB];
            for (int b = 0; b < bbs; b++) {
                int at = ((produced + b) & qp.sqMaskBbs()) * BB;
                byte[] block = Arrays.copyOfRange(ring, at, at + BB);
                System.arraycopy(block, 0, wqe, b * BB, BB);
                blocks.add(block);
                h.mem.write(qp.cfg.sqBase() + at, block, 0, BB);
            }
            produced += bbs;
            return wqe;
        }

        void doorbell(int half, byte[] wqe) {
            db.write(qp, half, wqe, 0, Doorbells.MMIO_DOORBELL_SIZE);
        }

        /** The WQE in chunks of multiples of 8 bytes; the first is at least 16 (8 at the start is a doorbell). */
        void blueFlame(int half, byte[] wqe) {
            int off = 0;
            while (off < wqe.length) {
                int len = Math.min(wqe.length - off, 8 * (1 + rnd.nextInt(12)));
                if (off == 0 && len == 8) {
                    len = Math.min(wqe.length, 16);
                }
                db.write(qp, half + off, wqe, off, len);
                off += len;
            }
        }

        @Override
        public void staged(Qp q, int fetchedBb) {
            stagedCalls++;
            staged = fetchedBb;
            if (!consume.scheduled() && !consuming) {
                consume.scheduleIn(rnd.nextInt(3) == 0 ? rnd.nextLong(1_000_000) : 0);
            }
        }

        void consumeSome() {
            int avail = (staged - consumed) & 0xFFFF;
            if (avail == 0) {
                return;
            }
            int n = 1 + rnd.nextInt(avail);
            for (int i = 0; i < n; i++) {
                int off = ((consumed + i) & (qp.sq.stagingBbs() - 1)) * BB;
                assertThat(Arrays.copyOfRange(qp.sq.staging(), off, off + BB)).as("block %d in staging", consumed + i)
                        .isEqualTo(blocks.get(consumed + i));
            }
            consumed += n;
            consuming = true;
            fetch.stagingFreed(qp, n);
            credits.releaseWqeCache(n);
            fetch.requeue(qp);
            consuming = false;
            if (((staged - consumed) & 0xFFFF) > 0 && !consume.scheduled()) {
                consume.scheduleIn(rnd.nextLong(300_000));
            }
        }

        long doorbells() {
            return BlockHarness.counter(db, "doorbells");
        }

        long blueflames() {
            return BlockHarness.counter(db, "blueflames");
        }
    }

    @Test
    void decodesOnlyTheTwoBlueFlameHalves() {
        Rig r = new Rig(1, false);
        assertThat(r.db.blueFlameBytes()).isEqualTo(BF);
        assertThat(r.db.decodes(HALF0 - 1)).isFalse();
        assertThat(r.db.decodes(HALF0)).isTrue();
        assertThat(r.db.decodes(HALF1 + BF - 1)).isTrue();
        assertThat(r.db.decodes(HALF1 + BF)).isFalse();
    }

    /** An 8-byte write at the start of either half announces the WQE's end as the producer index; nothing is staged. */
    @Test
    void doorbellAnnouncesTheProducerIndex() {
        Rig r = new Rig(1, false);
        byte[] w0 = r.post(3); // 16 + 16 + 48 bytes: 2 blocks
        r.h.sim.runUntil(1_000_000);
        r.doorbell(HALF0, w0);
        assertThat(r.qp.sq.producerIndex()).isEqualTo(2);
        assertThat(r.qp.db.lastDoorbellPs()).isEqualTo(1_000_000);
        byte[] w1 = r.post(1);
        r.doorbell(HALF1, w1);
        assertThat(r.qp.sq.producerIndex()).isEqualTo(3);
        assertThat(r.doorbells()).isEqualTo(2);
        assertThat(r.blueflames()).isZero();
        assertThat(r.stagedCalls).isZero();
    }

    /** A BlueFlame WQE is complete only with its last chunk; then it is staged whole, with no doorbell counted. */
    @Test
    void blueFlameChunksAssembleIntoTheStagedWqe() {
        Rig r = new Rig(1, false);
        byte[] w = r.post(4); // 96 bytes: 2 blocks
        r.h.sim.runUntil(2_000_000);
        r.db.write(r.qp, HALF1, w, 0, 32);
        r.db.write(r.qp, HALF1 + 32, w, 32, 8); // an 8-byte write inside a half is a chunk, not a doorbell
        r.db.write(r.qp, HALF1 + 40, w, 40, 56);
        assertThat(r.stagedCalls).as("the WQE's last byte has not arrived yet").isZero();
        assertThat(r.doorbells()).isZero();
        r.db.write(r.qp, HALF1 + 96, w, 96, 32);
        assertThat(r.stagedCalls).isEqualTo(1);
        assertThat(r.blueflames()).isEqualTo(1);
        assertThat(r.doorbells()).isZero();
        assertThat(Arrays.copyOfRange(r.qp.sq.staging(), 0, 128)).isEqualTo(w);
        assertThat(r.qp.sq.producerIndex()).isEqualTo(2);
        assertThat(r.qp.sq.fetchedBb()).isEqualTo(2);
        assertThat(r.qp.db.lastDoorbellPs()).isEqualTo(2_000_000);
        assertThat(r.credits.wqeCacheFree()).isEqualTo(14);
    }

    /** With an older WQE announced and not fetched, a BlueFlame WQE is not placed: it rings as a doorbell instead. */
    @Test
    void blueFlameBehindAMissingWqeFallsBackToADoorbell() {
        Rig r = new Rig(1, false);
        byte[] w0 = r.post(1); // 48 bytes: 1 block
        r.doorbell(HALF0, w0);
        assertThat(r.qp.sq.producerIndex()).isEqualTo(1);
        byte[] before = r.qp.sq.staging().clone();
        byte[] w1 = r.post(3); // 80 bytes: 2 blocks
        r.blueFlame(HALF1, w1);
        assertThat(r.blueflames()).isZero();
        assertThat(r.doorbells()).as("counted as a doorbell").isEqualTo(2);
        assertThat(r.stagedCalls).as("nothing staged out of order").isZero();
        assertThat(r.qp.sq.staging()).isEqualTo(before);
        assertThat(r.qp.sq.producerIndex()).as("the fetch engine is told the new end").isEqualTo(3);
        assertThat(r.credits.wqeCacheFree()).isEqualTo(16);
    }

    /**
     * Seeded: WQEs of random sizes posted by doorbell or by BlueFlame (in random chunks, halves alternating) at random
     * times, fetched through a shallow DMA channel, consumed at random paces. Every WQE reaches staging byte-exact
     * and in order, and each is counted once, as a doorbell or a BlueFlame.
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6})
    void everyWqeArrivesInOrderWhicheverWayItCame(long seed) {
        Rig r = new Rig(seed, true);
        int cache = r.credits.wqeCacheFree();
        int total = 120;
        int[] posted = {0};
        int[] half = {HALF0};
        Event[] driver = new Event[1];
        driver[0] = r.h.sim.event("driver", () -> {
            int sges = 1 + r.rnd.nextInt(4);
            int bbs = (SendWqeBuilder.wqeBytes(WqeOpcode.RDMA_WRITE, sges) + BB - 1) / BB;
            if (r.produced - r.consumed + bbs <= r.qp.sqMaskBbs() + 1) {
                byte[] w = r.post(sges);
                if (r.rnd.nextBoolean()) {
                    r.blueFlame(half[0], w);
                } else {
                    r.doorbell(half[0], w);
                }
                half[0] = half[0] == HALF0 ? HALF1 : HALF0;
                posted[0]++;
            }
            if (posted[0] < total) {
                driver[0].scheduleIn(r.rnd.nextInt(3) == 0 ? r.rnd.nextLong(3_000_000) : r.rnd.nextLong(100_000));
            }
        });
        driver[0].schedule(0);
        r.h.sim.run();

        assertThat(posted[0]).isEqualTo(total);
        assertThat(r.consumed).as("every block staged and consumed").isEqualTo(r.produced);
        assertThat(r.doorbells() + r.blueflames()).as("each WQE counted once").isEqualTo(total);
        assertThat(r.blueflames()).as("some WQEs placed by BlueFlame").isPositive();
        assertThat(r.credits.wqeCacheFree()).isEqualTo(cache);
    }
}
