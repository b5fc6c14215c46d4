package dev.rdmasim.adapter.nic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.cache.SetAssocCache;
import dev.rdmasim.adapter.format.Cqe;
import dev.rdmasim.adapter.format.CqeSyndrome;
import dev.rdmasim.adapter.format.Eqe;
import dev.rdmasim.kernel.Event;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The CQE writer alone: a stand-in requester commits completion jobs for a few CQs at random times (whenever the
 * writer has room), a stand-in driver consumes CQEs at random paces and publishes its consumer index in the CQ's
 * doorbell record. Scoreboard: every job's CQE lands at its running index with the owner bit of its pass and its
 * fields, per CQ in commit order, no entry is overwritten before the driver consumed it, and every reported job is
 * retired once, in commit order, after its CQE is in host memory. A CQ nobody consumes overflows: the CQE is
 * dropped, the firmware hears of it and a CQ-error event follows.
 */
class CqeWriterTest {
    private static final long MSIX = 0xFEE0_0000L;

    private static final class Rig implements CqTable {
        final BlockHarness h;
        final List<Cq> cqs = new ArrayList<>();
        final List<Integer> overflowed = new ArrayList<>();
        final List<long[]> retired = new ArrayList<>();
        final ContextMemory contexts;
        final EventQueueUnit eq;
        final CqeWriter writer;
        final long eqRing;

        Rig(long seed, SplittableRandom rnd, int depth) {
            h = new BlockHarness(seed, BlockHarness.randomPcie(rnd));
            long base = h.mem.allocate(1 << 20, 4096);
            contexts = new ContextMemory(h.top, new ContextMemory.Params(8, 8, 4, 16, 4, SetAssocCache.Policy.LRU), h.mem,
                    base, h.port("writeBack", 16, 0));
            eq = new EventQueueUnit(h.top, MSIX, 16);
            eqRing = h.mem.allocate(64 * Eqe.SIZE, 4096);
            eq.create(eqRing, 6);
            writer = new CqeWriter(h.top, new CqeWriter.Params(depth, 2, 4, 2, SetAssocCache.Policy.LRU), h.clock, h.work,
                    this, contexts, eq, h.port("cqe", 1 + rnd.nextInt(8), 1), h.port("event", 16, 0),
                    (qpn, wqe, op, bytes, syndrome, stamps) -> retired.add(new long[] {qpn, wqe, syndrome}));
        }

        Cq addCq(int logSize) {
            int cqn = cqs.size();
            long ring = h.mem.allocate((long) Cqe.SIZE << logSize, 4096);
            long record = h.mem.allocate(64, 64);
            byte[] init = new byte[Cqe.SIZE << logSize];
            Cqe.initRing(init, 0, 1 << logSize);
            h.mem.write(ring, init, 0, init.length);
            Cq cq = new Cq(cqn, ring, logSize, record);
            cq.moderationCount = 1;
            cq.moderationTimer = h.sim.event("cq" + cqn + ".moderation", () -> writer.moderationExpired(cq));
            contexts.writeCqContext(cqn, ring, logSize, record);
            cqs.add(cq);
            return cq;
        }

        @Override
        public Cq cq(int cqn) {
            return cqs.get(cqn);
        }

        @Override
        public void cqOverflowed(Cq cq) {
            overflowed.add(cq.cqn);
        }

        void commit(int cqn, int qpn, int wqe, int bytes, int syndrome, boolean report) {
            CqeWriter.Job j = writer.claim();
            j.cqn = cqn;
            j.qpn = qpn;
            j.opcode = syndrome != 0 ? Cqe.REQ_ERR : Cqe.REQ;
            j.wqeOpcode = 8;
            j.wqeCounter = wqe;
            j.byteCount = bytes;
            j.syndrome = syndrome;
            j.report = report;
            j.bytes = bytes;
            writer.commit();
        }
    }

    /** One job as committed, the CQE the driver expects for it. */
    private record Expected(int qpn, int wqe, int bytes, int syndrome) {
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6})
    void cqesLandInOrderWithTheirOwnerBitAndNothingIsOverwrittenUnconsumed(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        Rig rig = new Rig(seed, rnd, 4 + rnd.nextInt(29));
        int cqCount = 1 + rnd.nextInt(3);
        List<ArrayDeque<Expected>> expected = new ArrayList<>();
        long[] consumed = new long[cqCount];
        for (int c = 0; c < cqCount; c++) {
            rig.addCq(2 + rnd.nextInt(3));
            expected.add(new ArrayDeque<>());
        }
        int total = 300;
        int[] made = {0};
        List<long[]> reportedOrder = new ArrayList<>();
        Event[] ev = new Event[2]; // produce, consume
        Runnable producer = () -> {
            while (made[0] < total && !rig.writer.full() && rnd.nextInt(4) != 0) {
                int cqn = rnd.nextInt(cqCount);
                if (expected.get(cqn).size() >= rig.cq(cqn).size()) {
                    break; // the requester never has more completions outstanding than the CQ holds
                }
                int syndrome = rnd.nextInt(10) == 0 ? CqeSyndrome.REMOTE_ACCESS : 0;
                Expected e = new Expected(2 + rnd.nextInt(60), made[0] & 0xFFFF, rnd.nextInt(1 << 16), syndrome);
                boolean report = rnd.nextBoolean();
                expected.get(cqn).add(e);
                if (report) {
                    reportedOrder.add(new long[] {e.qpn(), e.wqe(), syndrome});
                }
                rig.commit(cqn, e.qpn(), e.wqe(), e.bytes(), syndrome, report);
                made[0]++;
            }
            if (made[0] < total && !ev[0].scheduled()) {
                ev[0].scheduleIn(rnd.nextLong(200_000));
            }
        };
        Runnable consumer = () -> {
            for (int c = 0; c < cqCount; c++) {
                Cq cq = rig.cq(c);
                int take = rnd.nextInt(4);
                while (take-- > 0) {
                    long addr = cq.ring + Cqe.entryOffset(consumed[c], cq.logSize);
                    byte[] b = new byte[Cqe.SIZE];
                    rig.h.mem.read(addr, b, 0, Cqe.SIZE);
                    if (!Cqe.isSoftwareOwned(b, 0, consumed[c], cq.logSize)) {
                        break; // not written yet for this pass
                    }
                    Expected e = expected.get(c).poll();
                    assertThat(e).as("CQ %d entry %d has a job behind it", c, consumed[c]).isNotNull();
                    assertThat(Cqe.qpn(b, 0)).isEqualTo(e.qpn());
                    assertThat(Cqe.wqeCounter(b, 0)).isEqualTo(e.wqe());
                    if (e.syndrome() != 0) {
                        assertThat(Cqe.opcode(b, 0)).isEqualTo(Cqe.REQ_ERR);
                        assertThat(Cqe.syndrome(b, 0)).isEqualTo(e.syndrome());
                    } else {
                        assertThat(Cqe.opcode(b, 0)).isEqualTo(Cqe.REQ);
                        assertThat(Cqe.byteCount(b, 0)).isEqualTo(e.bytes());
                    }
                    assertThat(Cqe.owner(b, 0)).isEqualTo(Cqe.ownerBit(consumed[c], cq.logSize));
                    consumed[c]++;
                }
                byte[] rec = new byte[8];
                dev.rdmasim.adapter.format.Doorbells.putCqConsumerIndex(rec, 0, (int) consumed[c]);
                rig.h.mem.write(cq.dbRecord, rec, 0, 8);
            }
            boolean left = made[0] < total || expected.stream().anyMatch(q -> !q.isEmpty());
            if (left) {
                ev[1].scheduleIn(rnd.nextInt(3) == 0 ? rnd.nextLong(3_000_000) : rnd.nextLong(100_000));
            }
        };
        ev[0] = rig.h.sim.event("produce", producer);
        ev[1] = rig.h.sim.event("consume", consumer);
        ev[0].schedule(0);
        ev[1].schedule(0);
        // A job slot freed in the writer lets the producer go on.
        rig.writer.onSpace(() -> {
            if (!ev[0].scheduled() && made[0] < total) {
                ev[0].scheduleIn(0);
            }
        });
        rig.h.sim.runUntil(1_000_000_000_000L); // bounded: a lost CQE would otherwise keep the driver polling

        assertThat(made[0]).isEqualTo(total);
        for (int c = 0; c < cqCount; c++) {
            assertThat(expected.get(c)).as("CQ %d: every CQE consumed", c).isEmpty();
        }
        assertThat(rig.overflowed).as("a driver that keeps consuming never overflows").isEmpty();
        assertThat(rig.retired).as("reported jobs retire once, in commit order").hasSize(reportedOrder.size());
        for (int i = 0; i < reportedOrder.size(); i++) {
            assertThat(rig.retired.get(i)).containsExactly(reportedOrder.get(i));
        }
        assertThat(rig.writer.queuedJobs()).isZero();
        assertThat(BlockHarness.counter(rig.writer, "cqes")).isEqualTo(total);
    }

    /** Nobody consumes: the CQE after a full ring is dropped, the firmware is told, and a CQ-error EQE is written. */
    @Test
    void aRingNobodyConsumesOverflowsWithAnEvent() {
        SplittableRandom rnd = new SplittableRandom(9);
        Rig rig = new Rig(9, rnd, 16);
        Cq cq = rig.addCq(2);
        for (int i = 0; i < 5; i++) {
            rig.commit(0, 7, i, 64, 0, true);
        }
        rig.h.sim.run();
        assertThat(cq.overflowed).isTrue();
        assertThat(rig.overflowed).containsExactly(0);
        assertThat(BlockHarness.counter(rig.writer, "cqes")).isEqualTo(4);
        assertThat(BlockHarness.counter(rig.writer, "overflows")).isEqualTo(1);
        assertThat(rig.retired).hasSize(5);
        assertThat(rig.retired.get(4)[2]).as("the dropped job retires with syndrome -1").isEqualTo(-1);
        byte[] eqe = new byte[Eqe.SIZE];
        rig.h.mem.read(rig.eqRing, eqe, 0, Eqe.SIZE);
        assertThat(Eqe.type(eqe, 0)).isEqualTo(Eqe.TYPE_CQ_ERROR);
        assertThat(Eqe.cqErrorCqn(eqe, 0)).isEqualTo(0);
    }
}
