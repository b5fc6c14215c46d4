package dev.rdmasim.adapter.nic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.cache.SetAssocCache;
import dev.rdmasim.adapter.format.BigEndian;
import dev.rdmasim.adapter.format.SendWqeBuilder;
import dev.rdmasim.kernel.Event;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The WQE fetch engine alone, between a stand-in driver (writes random basic blocks into each QP's send ring in
 * host memory and rings, or offers them whole by BlueFlame) and a stand-in parser (consumes staged blocks at random
 * paces, gives the WQE cache blocks back and requeues the QP). Small QP-context cache, few fetch slots, a small WQE
 * cache and a shallow DMA channel make every stall happen. Scoreboard: every block the driver wrote reaches the
 * staging buffer byte-exact, once, in ring order, announced only once it and everything older has arrived; the WQE
 * cache is full again at the end with as many blocks given back as were produced; BlueFlame placement happens only
 * when nothing older is missing (otherwise the staged bytes would come out of order).
 */
class WqeFetchEngineTest {

    private static final int BB = SendWqeBuilder.BB;

    private static final class Run implements WqeFetchEngine.Output {
        final SplittableRandom rnd;
        final BlockHarness h;
        final ContextMemory contexts;
        final WqeCredits credits;
        final int cacheBbs;
        final WqeFetchEngine fetch;
        final int perQp;
        final List<Q> qs = new ArrayList<>();
        long blueflames;
        long released;

        /** The driver's and the parser's view of one QP. */
        final class Q {
            final Qp qp;
            final List<byte[]> blocks = new ArrayList<>();
            int produced;
            int consumed;
            /** Blocks staged, as the engine last announced (16-bit counter). */
            int staged;
            final Event post;
            final Event consume;

            Q(Qp qp) {
                this.qp = qp;
                post = h.sim.event("driver" + qp.qpn, this::post);
                consume = h.sim.event("parser" + qp.qpn, this::consume);
            }

            int ringBbs() {
                return qp.sqMaskBbs() + 1;
            }

            void post() {
                int k = 1 + rnd.nextInt(4);
                k = Math.min(k, perQp - produced);
                if (produced - consumed + k <= ringBbs()) {
                    int index = produced & 0xFFFF;
                    byte[] wqe = new byte[k * BB];
                    rnd.nextBytes(wqe);
                    for (int b = 0; b < k; b++) {
                        byte[] block = Arrays.copyOfRange(wqe, b * BB, (b + 1) * BB);
                        blocks.add(block);
                        long at = qp.cfg.sqBase() + (long) ((produced + b) & qp.sqMaskBbs()) * BB;
                        h.mem.write(at, block, 0, BB);
                    }
                    produced += k;
                    boolean older = qp.sq.fetchedBb() != index;
                    if (rnd.nextInt(3) == 0 && fetch.takeBlueFlame(qp, wqe, index, k)) {
                        assertThat(older).as("BlueFlame placed with older blocks missing").isFalse();
                        blueflames++;
                        staged(qp, qp.sq.fetchedBb());
                    } else {
                        fetch.ring(qp, produced & 0xFFFF);
                    }
                }
                if (produced < perQp) {
                    post.scheduleIn(rnd.nextInt(4) == 0 ? rnd.nextLong(3_000_000) : rnd.nextLong(50_000));
                }
            }

            void consume() {
                int avail = (staged - consumed) & 0xFFFF;
                if (avail == 0) {
                    return;
                }
                int n = 1 + rnd.nextInt(avail);
                for (int i = 0; i < n; i++) {
                    int off = ((consumed + i) & (qp.sq.stagingBbs() - 1)) * BB;
                    assertThat(consumed + i).as("QP %d staged beyond what was produced", qp.qpn).isLessThan(produced);
                    assertThat(Arrays.copyOfRange(qp.sq.staging(), off, off + BB))
                            .as("QP %d block %d in staging", qp.qpn, consumed + i).isEqualTo(blocks.get(consumed + i));
                }
                consumed += n;
                fetch.stagingFreed(qp, n);
                released += n;
                credits.releaseWqeCache(n);
                fetch.requeue(qp);
                if (((staged - consumed) & 0xFFFF) > 0 && !consume.scheduled()) {
                    consume.scheduleIn(rnd.nextLong(400_000));
                }
            }
        }

        Run(long seed) {
            rnd = new SplittableRandom(seed);
            h = new BlockHarness(seed, BlockHarness.randomPcie(rnd));
            int ways = 1 + rnd.nextInt(2);
            ContextMemory.Params cp = new ContextMemory.Params(16, 4, 4, ways * (1 + rnd.nextInt(2)), ways,
                    SetAssocCache.Policy.values()[rnd.nextInt(3)]);
            contexts = new ContextMemory(h.top, cp, h.mem, h.mem.allocate(cp.bytes(), 4096), h.port("contextWriteBack", 16, 0));
            cacheBbs = 4 + rnd.nextInt(12);
            credits = new WqeCredits(h.top, new WqeCredits.Params(cacheBbs, 1024));
            int fetchMax = 1 + rnd.nextInt(4);
            fetch = new WqeFetchEngine(h.top, new WqeFetchEngine.Params(1 + rnd.nextInt(3), fetchMax, 16), h.clock, h.work, h,
                    contexts, credits, h.port("wqeFetch", 1 + rnd.nextInt(2), 1));
            fetch.connect(this);
            perQp = 150 + rnd.nextInt(100);
            int n = 2 + rnd.nextInt(5);
            for (int i = 0; i < n; i++) {
                Qp qp = h.addQp(i + 1, 3 + rnd.nextInt(3), 16, fetchMax, 256, 4, 64);
                contexts.writeQpContext(qp.qpn, qp.cfg);
                Q q = new Q(qp);
                qs.add(q);
                q.post.schedule(rnd.nextLong(100_000));
            }
        }

        Q of(Qp qp) {
            for (Q q : qs) {
                if (q.qp == qp) {
                    return q;
                }
            }
            throw new AssertionError();
        }

        @Override
        public void staged(Qp qp, int fetchedBb) {
            Q q = of(qp);
            assertThat(fetchedBb).as("the announced pointer is the engine's").isEqualTo(qp.sq.fetchedBb());
            q.staged = fetchedBb;
            int staged = (fetchedBb - q.consumed) & 0xFFFF;
            assertThat(staged).as("staged blocks fit the staging buffer").isLessThanOrEqualTo(qp.sq.stagingBbs());
            assertThat(q.consumed + staged).as("nothing announced that was not produced").isLessThanOrEqualTo(q.produced);
            if (staged > 0 && !q.consume.scheduled()) {
                q.consume.scheduleIn(rnd.nextInt(3) == 0 ? rnd.nextLong(2_000_000) : rnd.nextLong(30_000));
            }
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void everyBlockLandsInStagingOnceInOrderAndCreditsBalance(long seed) {
        Run run = new Run(seed);
        run.h.sim.run();

        long produced = 0;
        for (Run.Q q : run.qs) {
            assertThat(q.produced).isEqualTo(run.perQp);
            assertThat(q.consumed).as("QP %d: every block staged and consumed", q.qp.qpn).isEqualTo(q.produced);
            assertThat(q.qp.sq.readsInFlight()).isZero();
            assertThat(q.qp.sq.queued()).isFalse();
            assertThat(q.qp.sq.issuedBb()).isEqualTo(q.qp.sq.fetchedBb());
            assertThat(q.qp.sq.context()).isNotEqualTo(WqeFetchEngine.SendRing.Context.FILLING);
            assertThat(run.fetch.busyWith(q.qp)).isFalse();
            produced += q.produced;
            int r = run.contexts.lookup(q.qp.qpn);
            if (r >= 0) {
                assertThat(BigEndian.i32(run.contexts.line(r), 0)).as("QP %d's cached context is its own", q.qp.qpn)
                        .isEqualTo(q.qp.qpn);
            }
        }
        assertThat(run.released).as("WQE cache blocks given back == blocks produced").isEqualTo(produced);
        assertThat(run.credits.wqeCacheFree()).as("WQE cache credits conserved").isEqualTo(run.cacheBbs);
        assertThat(BlockHarness.counter(run.fetch, "wqeFetches")).isPositive();
    }

    /** What the scoreboard above relies on does happen across its seeds: BlueFlame, credit stalls, context misses. */
    @Test
    void theSeedsExerciseBlueFlameCacheStallsAndContextMisses() {
        long blueflames = 0;
        long stalls = 0;
        long writeBacks = 0;
        for (long seed = 1; seed <= 8; seed++) {
            Run run = new Run(seed);
            run.h.sim.run();
            blueflames += run.blueflames;
            stalls += BlockHarness.counter(run.fetch, "wqeCacheStalls");
            writeBacks += BlockHarness.counter(run.contexts, "contextWriteBacks");
        }
        assertThat(blueflames).isPositive();
        assertThat(stalls).isPositive();
        assertThat(writeBacks).isPositive();
    }

    private static final class Sink implements WqeFetchEngine.Output {
        int calls;

        @Override
        public void staged(Qp qp, int fetchedBb) {
            calls++;
        }
    }

    /** BlueFlame placement: only with nothing older missing, room in staging and WQE cache credits. */
    @Test
    void blueFlameIsPlacedOnlyWhenNothingOlderIsMissingAndThereIsRoom() {
        BlockHarness h = new BlockHarness(1);
        ContextMemory.Params cp = new ContextMemory.Params(4, 1, 1, 2, 1, SetAssocCache.Policy.LRU);
        ContextMemory ctx = new ContextMemory(h.top, cp, h.mem, h.mem.allocate(cp.bytes(), 4096), h.port("wb", 4, 0));
        WqeCredits credits = new WqeCredits(h.top, new WqeCredits.Params(6, 64));
        WqeFetchEngine fetch = new WqeFetchEngine(h.top, new WqeFetchEngine.Params(1, 4, 16), h.clock, h.work, h, ctx,
                credits, h.port("wqeFetch", 2, 1));
        fetch.connect(new Sink());
        // QPs not yet ready to send take doorbells without fetching: the engine stays passive.
        Qp qp = h.addQp(1, 4, 16, 4, 256, 2, 64, QpState.INIT);
        byte[] wqe = new byte[3 * BB];
        Arrays.fill(wqe, (byte) 0x11);

        assertThat(fetch.takeBlueFlame(qp, wqe, 0, 3)).as("nothing older, room, credits").isTrue();
        assertThat(Arrays.copyOfRange(qp.sq.staging(), 0, 3 * BB)).isEqualTo(wqe);
        assertThat(qp.sq.producerIndex()).isEqualTo(3);
        assertThat(qp.sq.fetchedBb()).isEqualTo(3);
        assertThat(qp.sq.issuedBb()).isEqualTo(3);
        assertThat(qp.sq.cameByBlueFlame(0)).isTrue();
        assertThat(qp.sq.cameByBlueFlame(1)).isFalse();
        assertThat(credits.wqeCacheFree()).isEqualTo(3);

        byte[] before = qp.sq.staging().clone();
        Arrays.fill(wqe, (byte) 0x22);
        fetch.ring(qp, 5); // blocks 3 and 4 announced, not fetched
        assertThat(fetch.takeBlueFlame(qp, wqe, 5, 1)).as("blocks 3-4 are missing").isFalse();
        assertThat(fetch.takeBlueFlame(qp, wqe, 3, 1)).as("index 3 is older than the doorbell's 5").isFalse();
        assertThat(qp.sq.staging()).isEqualTo(before);
        assertThat(credits.wqeCacheFree()).isEqualTo(3);
        assertThat(qp.sq.producerIndex()).isEqualTo(5);

        // Nothing missing (a second QP): now staging room and credits decide. Its 8-block staging takes 5 at once.
        credits.releaseWqeCache(3); // the first QP's 3 blocks parsed
        Qp q2 = h.addQp(2, 4, 16, 4, 256, 2, 64, QpState.INIT);
        assertThat(q2.sq.stagingBbs()).isEqualTo(8);
        assertThat(fetch.takeBlueFlame(q2, new byte[5 * BB], 0, 5)).isTrue();
        assertThat(fetch.takeBlueFlame(q2, wqe, 5, 2)).as("2 blocks with 1 credit").isFalse();
        credits.releaseWqeCache(2);
        assertThat(fetch.takeBlueFlame(q2, wqe, 5, 3)).as("5 + 3 blocks fill the 8-block staging").isTrue();
        assertThat(Arrays.copyOfRange(q2.sq.staging(), 5 * BB, 8 * BB)).isEqualTo(Arrays.copyOfRange(wqe, 0, 3 * BB));
        assertThat(credits.wqeCacheFree()).isZero();
        credits.releaseWqeCache(3);
        assertThat(fetch.takeBlueFlame(q2, wqe, 8, 1)).as("staging full").isFalse();
        fetch.stagingFreed(q2, 7); // the parser took 7 of the 8
        assertThat(fetch.takeBlueFlame(q2, wqe, 8, 2)).as("wraps to the staging buffer's start").isTrue();
        assertThat(Arrays.copyOfRange(q2.sq.staging(), 0, 2 * BB)).isEqualTo(Arrays.copyOfRange(wqe, 0, 2 * BB));
        assertThat(q2.sq.producerIndex()).isEqualTo(10);
        assertThat(q2.sq.cameByBlueFlame(8)).as("staging block 0 now holds the BlueFlame WQE at 8").isTrue();
    }
}
