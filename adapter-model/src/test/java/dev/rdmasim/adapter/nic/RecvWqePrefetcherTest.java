package dev.rdmasim.adapter.nic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.cache.SetAssocCache;
import dev.rdmasim.adapter.format.Cqe;
import dev.rdmasim.adapter.format.CqeSyndrome;
import dev.rdmasim.adapter.format.DataSegments;
import dev.rdmasim.adapter.format.Doorbells;
import dev.rdmasim.adapter.format.Eqe;
import dev.rdmasim.adapter.format.RecvWqe;
import dev.rdmasim.adapter.format.ScatterList;
import dev.rdmasim.adapter.format.WqeError;
import dev.rdmasim.adapter.pcie.DmaCallback;
import dev.rdmasim.adapter.pcie.DmaChannel;
import dev.rdmasim.adapter.pcie.DmaRequest;
import dev.rdmasim.adapter.pcie.HostReads;
import dev.rdmasim.kernel.Event;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The receive-WQE prefetcher alone. A stand-in driver writes real receive WQEs into each QP's receive ring in host
 * memory and advances the QP's doorbell record at random paces (never more than a ring ahead of what was consumed);
 * a stand-in responder takes a WQE for a message at random times, retries a WAIT when told to resume, drops the
 * message on NONE_POSTED (RNR) and later says it has consumed what it took; a noise client shares the prefetcher's
 * DMA channel so its requests are refused at random; the CQE writer is the real one, with a small job ring. Every
 * read request the root complex serves is observed at the instant it reads host memory.
 *
 * <p>Scoreboard: each posted WQE is taken exactly once, in ring order, with its exact scatter list and validation
 * result; each is read from the ring exactly once, only once posted and before it is taken; NONE_POSTED is answered
 * only after a doorbell-record read made since the previous answer, and only if that read showed nothing posted
 * beyond what was taken; a QP flushed completes exactly its posted but unconsumed WQEs, in order, as WR_FLUSH CQEs
 * on its receive CQ, waiting for CQE room as it must; the block is idle at the end.
 */
class RecvWqePrefetcherTest {
    private static final long MSIX = 0xFEE0_0000L;

    /** One QP's receive ring as the driver and the scoreboard see it (running indices). */
    private static final class Ring {
        final Qp qp;
        final int size;
        final int stride;
        final int total;
        final long[][] addr;
        final int[][] len;
        final int[][] key;
        final int[] syndrome;
        /** Bytes of each WQE read from the ring. */
        final int[] readBytes;
        int posted;
        int taken;
        int consumed;
        /** Holding a taken WQE not yet consumed; waiting for a resume after WAIT. */
        boolean holding;
        boolean waiting;
        boolean flushing;
        int postedAtFlush;
        int consumedAtFlush;
        /** Doorbell-record reads since the last TAKEN or NONE_POSTED, and what the last one read. */
        int recordReadsSinceAnswer;
        int lastRecordRead = -1;
        int recordReads;
        int nonePosted;
        Event post;
        Event arrive;
        Event finish;

        Ring(Qp qp, int total) {
            this.qp = qp;
            this.size = 1 << qp.cfg.rqLogSize();
            this.stride = qp.cfg.rqStrideBytes();
            this.total = total;
            addr = new long[total][];
            len = new int[total][];
            key = new int[total][];
            syndrome = new int[total];
            readBytes = new int[total];
        }

        boolean done() {
            return flushing || taken == total;
        }
    }

    private static final class Rig implements CqTable, RecvWqePrefetcher.Responder {
        final BlockHarness h;
        final SplittableRandom rnd;
        final ContextMemory contexts;
        final EventQueueUnit eq;
        final CqeWriter cqe;
        final RecvWqePrefetcher rq;
        final DmaChannel channel;
        final List<Cq> cqs = new ArrayList<>();
        final List<Ring> rings = new ArrayList<>();
        final ArrayDeque<Qp> cqeWaiters = new ArrayDeque<>();
        final Event resumeEvent;
        /** What the stand-ins found wrong, before the test stopped at the first of it. */
        final List<String> failures = new ArrayList<>();
        /** The prefetcher's reads as the root complex served them: {address, length}. */
        final List<long[]> reads = new ArrayList<>();
        final int fetchMaxBytes;
        int cqeWaits;
        int resumes;
        /** The stand-in responder's answer delays: up to this many ps (0: at once). */
        long paceMax = 400_000;

        Rig(long seed, SplittableRandom rnd, int depth, int fetchMaxBytes, int cqeDepth, int channelDepth) {
            this.rnd = rnd;
            this.fetchMaxBytes = fetchMaxBytes;
            h = new BlockHarness(seed, BlockHarness.randomPcie(rnd));
            long base = h.mem.allocate(1 << 20, 4096);
            contexts = new ContextMemory(h.top, new ContextMemory.Params(8, 8, 4, 16, 4, SetAssocCache.Policy.LRU), h.mem,
                    base, h.port("writeBack", 16, 0));
            eq = new EventQueueUnit(h.top, MSIX, 16);
            eq.create(h.mem.allocate(64 * Eqe.SIZE, 4096), 6);
            cqe = new CqeWriter(h.top, new CqeWriter.Params(cqeDepth, 2, 4, 2, SetAssocCache.Policy.LRU), h.clock, h.work,
                    this, contexts, eq, h.port("cqe", 4, 1), h.port("event", 16, 0),
                    (qpn, wqe, op, bytes, syndrome, stamps) -> failures.add("flush CQE of QP " + qpn + " reported"));
            cqe.onSpace(this::cqeSpace);
            channel = h.link.dma().addChannel("rq", channelDepth);
            rq = new RecvWqePrefetcher(h.top, new RecvWqePrefetcher.Params(depth, fetchMaxBytes), h.work, h, cqe, channel);
            rq.connect(this);
            resumeEvent = h.sim.event("responder.resume", this::retryWaiting);
            HostReads.observe(h.link, this::served);
        }

        /** A QP with a receive ring of 2^logSize WQEs of 2^logStride segments, its doorbell record and receive CQ. */
        Ring addQp(int qpn, int logSize, int logStride, int maxRecvSge, int total) {
            int cqn = cqs.size();
            long cqRing = h.mem.allocate((long) Cqe.SIZE << 10, 4096);
            byte[] init = new byte[Cqe.SIZE << 10];
            Cqe.initRing(init, 0, 1 << 10);
            h.mem.write(cqRing, init, 0, init.length);
            Cq cq = new Cq(cqn, cqRing, 10, h.mem.allocate(64, 64));
            cq.moderationCount = 1;
            cq.moderationTimer = h.sim.event("cq" + cqn + ".moderation", () -> cqe.moderationExpired(cq));
            contexts.writeCqContext(cqn, cqRing, 10, cq.dbRecord);
            cqs.add(cq);
            long rqBase = h.mem.allocate((long) RecvWqe.strideBytes(logStride) << logSize, 4096);
            long record = h.mem.allocate(64, 64);
            QpConfig cfg = new QpConfig(1, cqn, cqn, 0, 0, rqBase, logSize, logStride, record, 1, maxRecvSge, 0, 0);
            Qp qp = new Qp(qpn, cfg, 1, 1, 64, 1);
            h.qps.put(qpn, qp);
            Ring r = new Ring(qp, total);
            r.post = h.sim.event("driver" + qpn + ".post", () -> post(r));
            r.arrive = h.sim.event("responder" + qpn + ".message", () -> arrive(r));
            r.finish = h.sim.event("responder" + qpn + ".consumed", () -> finish(r));
            rings.add(r);
            return r;
        }

        /** Stops the run at the first wrong answer (an endless RNR loop would otherwise pile them up). */
        void fail(String what) {
            failures.add(what);
            throw new AssertionError(what);
        }

        @Override
        public Cq cq(int cqn) {
            return cqs.get(cqn);
        }

        @Override
        public void cqOverflowed(Cq cq) {
            fail("CQ " + cq.cqn + " overflowed");
        }

        long pace() {
            return paceMax == 0 ? 0 : rnd.nextInt(3) == 0 ? 0 : rnd.nextLong(paceMax);
        }

        // -------------------------------------------------------------- the stand-in driver

        /** Makes WQE {@code i} of the ring: 1..max SGEs, now and then an invalid one (a zero-length SGE). */
        void makeWqe(Ring r, int i) {
            int max = r.qp.cfg.maxRecvSge();
            int n = 1 + rnd.nextInt(max);
            r.addr[i] = new long[n];
            r.len[i] = new int[n];
            r.key[i] = new int[n];
            boolean bad = rnd.nextInt(25) == 0;
            for (int s = 0; s < n; s++) {
                r.addr[i][s] = rnd.nextLong(1L << 48);
                r.len[i][s] = 1 + rnd.nextInt(1 << 16);
                int k = rnd.nextInt();
                r.key[i][s] = k == DataSegments.INVALID_LKEY ? k + 1 : k;
            }
            if (bad) {
                r.len[i][rnd.nextInt(n)] = 0;
                r.syndrome[i] = WqeError.syndrome(WqeError.ZERO_LENGTH_SGE);
            }
        }

        /** Posts WQEs {@code posted..posted+k-1}: their bytes first, then the doorbell record's counter. */
        void postSome(Ring r, int k) {
            byte[] b = new byte[r.stride];
            for (int j = 0; j < k; j++) {
                int i = r.posted;
                if (r.addr[i] == null) {
                    makeWqe(r, i);
                }
                Arrays.fill(b, (byte) 0x5A);
                for (int s = 0; s < r.addr[i].length; s++) {
                    RecvWqe.writeSge(b, 0, s, r.addr[i][s], r.len[i][s], r.key[i][s]);
                }
                RecvWqe.terminate(b, 0, r.addr[i].length, 1 << r.qp.cfg.rqLogStride());
                h.mem.write(r.qp.cfg.rqBase() + (long) (i & (r.size - 1)) * r.stride, b, 0, r.stride);
                r.posted++;
            }
            byte[] rec = new byte[4];
            Doorbells.putRecvCounter(rec, 0, r.posted);
            h.mem.write(r.qp.cfg.dbRecord() + Doorbells.OFF_RECV_COUNTER, rec, 0, 4);
        }

        void post(Ring r) {
            if (r.flushing || r.posted == r.total) {
                return;
            }
            int room = r.consumed + r.size - r.posted; // the ring holds what is not yet consumed
            int k = Math.min(Math.min(room, r.total - r.posted), 1 + rnd.nextInt(4));
            if (k > 0) {
                postSome(r, k);
            }
            if (r.posted < r.total) {
                r.post.scheduleIn(rnd.nextInt(4) == 0 ? rnd.nextLong(3_000_000) : rnd.nextLong(300_000));
            }
        }

        // -------------------------------------------------------------- the stand-in responder

        void arrive(Ring r) {
            if (r.done() || r.holding) {
                return;
            }
            int result = rq.take(r.qp);
            if (result == RecvWqePrefetcher.WAIT) {
                r.waiting = true;
                return;
            }
            r.waiting = false;
            if (result == RecvWqePrefetcher.NONE_POSTED) {
                r.nonePosted++;
                if (r.recordReadsSinceAnswer == 0) {
                    fail("QP " + r.qp.qpn + ": NONE_POSTED without a doorbell-record read since the last answer");
                } else if (r.lastRecordRead != r.taken) {
                    fail("QP " + r.qp.qpn + ": NONE_POSTED but the last record read showed " + r.lastRecordRead
                            + " posted, " + r.taken + " taken");
                }
                r.recordReadsSinceAnswer = 0;
                r.arrive.scheduleIn(1 + rnd.nextLong(1_000_000)); // the requester retries after an RNR delay
                return;
            }
            assertThat(result).isEqualTo(RecvWqePrefetcher.TAKEN);
            r.recordReadsSinceAnswer = 0;
            int i = r.taken;
            if (i >= r.posted) {
                fail("QP " + r.qp.qpn + ": took WQE " + i + " of " + r.posted + " posted");
                return;
            }
            if (r.readBytes[i] != r.stride) {
                fail("QP " + r.qp.qpn + ": took WQE " + i + " of which " + r.readBytes[i] + " bytes were read");
            }
            if (rq.syndrome() != r.syndrome[i]) {
                fail("QP " + r.qp.qpn + ": WQE " + i + " syndrome " + rq.syndrome() + ", expected " + r.syndrome[i]);
            } else if (r.syndrome[i] == 0) {
                ScatterList sg = rq.sges();
                List<String> got = new ArrayList<>();
                List<String> want = new ArrayList<>();
                for (int s = 0; s < sg.count(); s++) {
                    got.add(sg.address(s) + "/" + sg.length(s) + "/" + sg.lkey(s));
                }
                for (int s = 0; s < r.addr[i].length; s++) {
                    want.add(r.addr[i][s] + "/" + r.len[i][s] + "/" + r.key[i][s]);
                }
                if (!got.equals(want)) {
                    fail("QP " + r.qp.qpn + ": WQE " + i + " scatter list " + got + ", posted " + want);
                }
            }
            if (r.qp.rq.consumedCount() != i) {
                fail("QP " + r.qp.qpn + ": took WQE " + i + " with " + r.qp.rq.consumedCount() + " consumed");
            }
            r.taken++;
            r.holding = true;
            rq.topUp(r.qp); // as the responder does once the message has its WQE
            r.finish.scheduleIn(pace());
        }

        /** The message's payload is placed and its completion on its way: the WQE is consumed. */
        void finish(Ring r) {
            r.holding = false;
            rq.consumed(r.qp);
            r.consumed++;
            if (!r.done()) {
                r.arrive.scheduleIn(pace());
            }
        }

        @Override
        public void resume() {
            resumes++;
            if (!resumeEvent.scheduled()) {
                resumeEvent.scheduleIn(pace());
            }
        }

        void retryWaiting() {
            for (Ring r : rings) {
                if (r.waiting && !r.arrive.scheduled()) {
                    arrive(r);
                }
            }
        }

        @Override
        public void waitForCqeSpace(Qp qp) {
            cqeWaits++;
            if (!cqeWaiters.contains(qp)) {
                cqeWaiters.add(qp);
            }
        }

        void cqeSpace() {
            while (!cqeWaiters.isEmpty() && !cqe.full()) {
                rq.flushMore(cqeWaiters.poll());
            }
        }

        /** The QP goes to error: the driver posts no more; a WQE taken and not consumed is flushed with the rest. */
        void flush(Ring r) {
            r.flushing = true;
            r.waiting = false;
            r.holding = false;
            r.post.cancel();
            r.arrive.cancel();
            r.finish.cancel();
            r.postedAtFlush = r.posted;
            r.consumedAtFlush = r.consumed;
            rq.startFlush(r.qp);
        }

        // -------------------------------------------------------------- what the root complex reads

        void served(long address, int length) {
            for (Ring r : rings) {
                long rec = r.qp.cfg.dbRecord() + Doorbells.OFF_RECV_COUNTER;
                if (address == rec) {
                    reads.add(new long[] {address, length});
                    if (length != 4) {
                        fail("QP " + r.qp.qpn + ": doorbell record read of " + length + " bytes");
                    }
                    r.recordReads++;
                    r.recordReadsSinceAnswer++;
                    r.lastRecordRead = r.posted;
                    return;
                }
                long base = r.qp.cfg.rqBase();
                long end = base + (long) r.size * r.stride;
                if (address >= base && address < end) {
                    reads.add(new long[] {address, length});
                    if (length > Math.max(r.stride, fetchMaxBytes)) {
                        fail("QP " + r.qp.qpn + ": a ring read of " + length + " bytes");
                    }
                    if (address + length > end) {
                        fail("QP " + r.qp.qpn + ": ring read runs past the ring's end");
                    }
                    for (long a = address; a < address + length && a < end; ) {
                        int slot = (int) ((a - base) / r.stride);
                        long slotEnd = base + (long) (slot + 1) * r.stride;
                        int bytes = (int) (Math.min(slotEnd, address + length) - a);
                        // The one running index in [taken, taken + size) that lives in this slot.
                        int i = r.taken + ((slot - r.taken) & (r.size - 1));
                        if (i >= r.posted) {
                            fail("QP " + r.qp.qpn + ": ring slot " + slot + " read with only " + r.posted
                                    + " posted and " + r.taken + " taken");
                        } else {
                            r.readBytes[i] += bytes;
                            if (r.readBytes[i] > r.stride) {
                                fail("QP " + r.qp.qpn + ": WQE " + i + " read more than once");
                            }
                        }
                        a += bytes;
                    }
                    return;
                }
            }
        }
    }

    /** Reads other requests on the prefetcher's channel at random times, so the channel refuses it now and then. */
    private static void noise(Rig rig, SplittableRandom rnd, int count) {
        long scratch = rig.h.mem.allocate(1 << 16, 4096);
        byte[] buf = new byte[512];
        DmaRequest[] reqs = {new DmaRequest(), new DmaRequest(), new DmaRequest()};
        DmaCallback ignore = new DmaCallback() {
            @Override
            public void readDone(DmaRequest r) {
            }
        };
        int[] left = {count};
        Event[] ev = new Event[1];
        ev[0] = rig.h.sim.event("noise", () -> {
            for (DmaRequest r : reqs) {
                if (!r.inEngine() && rnd.nextBoolean()) {
                    r.read(scratch + rnd.nextInt(1 << 15), buf, 0, 64 + rnd.nextInt(449), ignore, 0);
                    rig.channel.submit(r);
                    break;
                }
            }
            if (--left[0] > 0) {
                ev[0].scheduleIn(rnd.nextLong(500_000));
            }
        });
        ev[0].schedule(0);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
    void everyPostedWqeIsTakenOnceInOrderAndAFlushCompletesTheRest(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        int depth = 1 + rnd.nextInt(16);
        int fetchMax = 16 << rnd.nextInt(6);
        Rig rig = new Rig(seed, rnd, depth, fetchMax, 1 + rnd.nextInt(4), 1 + rnd.nextInt(3));
        int qpCount = 1 + rnd.nextInt(3);
        for (int q = 0; q < qpCount; q++) {
            int logStride = rnd.nextInt(4);
            rig.addQp(10 + 7 * q, rnd.nextInt(7), logStride, 1 + rnd.nextInt(1 << logStride), 60 + rnd.nextInt(120));
        }
        noise(rig, rnd, 400);
        for (Ring r : rig.rings) {
            r.post.schedule(rnd.nextLong(2_000_000));
            r.arrive.schedule(rnd.nextLong(2_000_000));
            if (rnd.nextInt(3) == 0) {
                rig.h.sim.event("flush" + r.qp.qpn, () -> rig.flush(r)).schedule(rnd.nextLong(60_000_000));
            }
        }
        rig.h.sim.runUntil(2_000_000_000_000L); // bounded: a prefetcher answering RNR forever would not end

        assertThat(rig.failures).isEmpty();
        for (Ring r : rig.rings) {
            String qp = "QP " + r.qp.qpn;
            if (r.flushing) {
                checkFlushed(rig, r);
                continue;
            }
            assertThat(r.taken).as("%s: every posted WQE taken", qp).isEqualTo(r.total);
            assertThat(r.consumed).isEqualTo(r.total);
            assertThat(r.qp.rq.consumedCount()).isEqualTo(r.total);
            for (int i = 0; i < r.total; i++) {
                assertThat(r.readBytes[i]).as("%s: WQE %d read from the ring exactly once", qp, i).isEqualTo(r.stride);
            }
            assertThat(rig.cqs.get(r.qp.cfg.recvCqn()).producer).as("%s: no CQE without a flush", qp).isZero();
        }
        for (Ring r : rig.rings) {
            assertThat(rig.rq.busyWith(r.qp)).as("QP %d busy at the end", r.qp.qpn).isFalse();
        }
        assertThat(rig.rq.flushPending()).isFalse();
        assertThat(rig.cqe.queuedJobs()).isZero();
        assertThat(rig.cqeWaiters).isEmpty();
    }

    /** The QP's receive CQ holds exactly its posted, unconsumed WQEs, flushed, in order, and nothing after them. */
    private static void checkFlushed(Rig rig, Ring r) {
        Cq cq = rig.cqs.get(r.qp.cfg.recvCqn());
        int expected = r.postedAtFlush - r.consumedAtFlush;
        byte[] b = new byte[Cqe.SIZE];
        for (int k = 0; k <= expected; k++) {
            rig.h.mem.read(cq.ring + Cqe.entryOffset(k, cq.logSize), b, 0, Cqe.SIZE);
            if (k == expected) {
                assertThat(Cqe.isSoftwareOwned(b, 0, k, cq.logSize)).as("QP %d: no CQE after the flushed ones", r.qp.qpn)
                        .isFalse();
                break;
            }
            assertThat(Cqe.isSoftwareOwned(b, 0, k, cq.logSize)).as("QP %d: flush CQE %d of %d written", r.qp.qpn, k, expected)
                    .isTrue();
            assertThat(Cqe.qpn(b, 0)).isEqualTo(r.qp.qpn);
            assertThat(Cqe.opcode(b, 0)).isEqualTo(Cqe.RESP_ERR);
            assertThat(Cqe.syndrome(b, 0)).isEqualTo(CqeSyndrome.WR_FLUSH);
            assertThat(Cqe.wqeCounter(b, 0)).as("QP %d: flush CQE %d", r.qp.qpn, k).isEqualTo((r.consumedAtFlush + k) & 0xFFFF);
        }
        assertThat(r.qp.rq.consumedCount()).isEqualTo(r.postedAtFlush);
        for (int i = 0; i < r.total; i++) {
            assertThat(r.readBytes[i]).as("QP %d: WQE %d read at most once", r.qp.qpn, i).isLessThanOrEqualTo(r.stride);
        }
    }
    /** A rig for the step-by-step cases: default PCIe timing, no noise, answers at once. */
    private static Rig quietRig(int depth, int fetchMaxBytes, int cqeDepth) {
        Rig rig = new Rig(5, new SplittableRandom(5), depth, fetchMaxBytes, cqeDepth, 4);
        rig.paceMax = 0;
        return rig;
    }

    private static long[] record(Ring r) {
        return new long[] {r.qp.cfg.dbRecord() + Doorbells.OFF_RECV_COUNTER, 4};
    }

    private static long[] ring(Ring r, int slot, int wqes) {
        return new long[] {r.qp.cfg.rqBase() + (long) slot * r.stride, (long) wqes * r.stride};
    }

    /** Takes the next WQE the way the stand-in responder does, and says it consumed it. */
    private static int takeAndConsume(Rig rig, Ring r) {
        int result = rig.rq.take(r.qp);
        if (result == RecvWqePrefetcher.TAKEN) {
            rig.rq.topUp(r.qp);
            rig.rq.consumed(r.qp);
            r.taken++;
            r.consumed++;
        }
        return result;
    }

    /** Takes and consumes the next WQE, letting the reads it waits for land (a few at most). */
    private static void takeWhenRead(Rig rig, Ring r) {
        for (int tries = 0; tries < 4; tries++) {
            int result = takeAndConsume(rig, r);
            if (result == RecvWqePrefetcher.TAKEN) {
                return;
            }
            assertThat(result).as("QP %d: WQE %d is posted", r.qp.qpn, r.taken).isEqualTo(RecvWqePrefetcher.WAIT);
            rig.h.sim.run();
        }
        throw new AssertionError("QP " + r.qp.qpn + ": WQE " + r.taken + " not taken after the reads it waited for");
    }

    @Test
    void noneIsPostedOnlyAfterARecordReadMadeSinceTheLastAnswer() {
        Rig rig = quietRig(4, 1024, 4);
        Ring r = rig.addQp(3, 3, 1, 2, 10);
        assertThat(takeAndConsume(rig, r)).as("nothing known: the record is read").isEqualTo(RecvWqePrefetcher.WAIT);
        assertThat(rig.rq.busyWith(r.qp)).isTrue();
        rig.h.sim.run();
        assertThat(takeAndConsume(rig, r)).isEqualTo(RecvWqePrefetcher.NONE_POSTED);
        assertThat(takeAndConsume(rig, r)).as("an answer used the read up: the next message reads again")
                .isEqualTo(RecvWqePrefetcher.WAIT);
        rig.h.sim.run();
        assertThat(takeAndConsume(rig, r)).isEqualTo(RecvWqePrefetcher.NONE_POSTED);
        rig.postSome(r, 3);
        assertThat(takeAndConsume(rig, r)).as("the adapter cannot see a post before it reads the record")
                .isEqualTo(RecvWqePrefetcher.WAIT);
        rig.h.sim.run();
        for (int i = 0; i < 3; i++) {
            assertThat(takeAndConsume(rig, r)).isEqualTo(RecvWqePrefetcher.TAKEN);
        }
        assertThat(takeAndConsume(rig, r)).as("a take used the read up too").isEqualTo(RecvWqePrefetcher.WAIT);
        rig.h.sim.run();
        assertThat(takeAndConsume(rig, r)).isEqualTo(RecvWqePrefetcher.NONE_POSTED);
        assertThat(rig.reads).containsExactly(record(r), record(r), record(r), ring(r, 0, 3), record(r));
        assertThat(rig.failures).isEmpty();
        assertThat(rig.rq.busyWith(r.qp)).isFalse();
    }

    @Test
    void theCacheIsToppedUpInTheBackgroundOnceHalfOfItIsUsed() {
        Rig rig = quietRig(4, 1024, 4);
        Ring r = rig.addQp(3, 4, 0, 1, 10);
        rig.postSome(r, 10);
        assertThat(takeAndConsume(rig, r)).isEqualTo(RecvWqePrefetcher.WAIT);
        rig.h.sim.run(); // the record read, then a ring read filling the cache
        assertThat(rig.reads).containsExactly(record(r), ring(r, 0, 4));
        for (int i = 0; i < 10; i++) {
            assertThat(takeAndConsume(rig, r)).as("WQE %d is in the cache when its message comes", i)
                    .isEqualTo(RecvWqePrefetcher.TAKEN);
            rig.h.sim.run();
        }
        // Half used (two taken of four): the next two known WQEs come in one read; none past the ten known.
        assertThat(rig.reads).containsExactly(record(r), ring(r, 0, 4), ring(r, 4, 2), ring(r, 6, 2), ring(r, 8, 2));
        assertThat(takeAndConsume(rig, r)).isEqualTo(RecvWqePrefetcher.WAIT);
        rig.h.sim.run();
        assertThat(rig.reads).hasSize(6).last().isEqualTo(record(r));
        assertThat(rig.failures).isEmpty();
    }

    @Test
    void aRingReadStopsAtTheRingsEndAndAtTheFetchLimit() {
        Rig rig = quietRig(8, 48, 4);
        Ring r = rig.addQp(3, 3, 0, 1, 20);
        rig.postSome(r, 6);
        for (int i = 0; i < 6; i++) {
            takeWhenRead(rig, r);
        }
        rig.postSome(r, 8); // WQEs 6..13: slots 6 and 7, then 0..5 (a read ends at the ring's end)
        takeWhenRead(rig, r);
        rig.h.sim.run();
        assertThat(rig.reads).containsExactly(record(r), ring(r, 0, 3), ring(r, 3, 3), record(r), ring(r, 6, 2),
                ring(r, 0, 3), ring(r, 3, 3));
        assertThat(rig.failures).isEmpty();
    }

    @Test
    void aFlushCompletesThePostedUnconsumedWqesInOrderWaitingForCqeRoom() {
        Rig rig = quietRig(4, 1024, 1);
        Ring r = rig.addQp(3, 5, 1, 2, 20);
        rig.postSome(r, 20);
        for (int i = 0; i < 3; i++) {
            takeWhenRead(rig, r);
        }
        assertThat(rig.rq.take(r.qp)).isEqualTo(RecvWqePrefetcher.TAKEN); // WQE 3, its message cut short by the error
        rig.rq.topUp(r.qp);
        assertThat(rig.rq.busyWith(r.qp)).as("a top-up read is in flight").isTrue();
        rig.flush(r);
        rig.h.sim.run();
        assertThat(rig.cqeWaits).as("seventeen flush CQEs through a writer of one job").isGreaterThan(0);
        checkFlushed(rig, r);
        assertThat(r.consumedAtFlush).isEqualTo(3);
        assertThat(BlockHarness.counter(rig.cqe, "cqes")).isEqualTo(17);
        assertThat(rig.rq.busyWith(r.qp)).isFalse();
        assertThat(rig.rq.flushPending()).isFalse();
        assertThat(rig.failures).isEmpty();
    }
}
