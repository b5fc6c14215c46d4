package dev.rdmasim.driver;

import static dev.rdmasim.driver.StatsProbe.counter;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.adapter.config.Parameters;
import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.format.Cqe;
import dev.rdmasim.adapter.format.WqeOpcode;
import dev.rdmasim.kernel.Simulator;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HostDriverTest {
    private static final long RUN = 200_000_000L; // 200 us of simulated time

    private static byte[] pattern(long seed, int len) {
        byte[] b = new byte[len];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    /** Snapshot of a polled completion (the driver's view is reused). */
    private record Cqe1(int opcode, int wqeOpcode, int syndrome, int qpn, int wqeCounter, int bytes, int imm,
            boolean solicited, long wrId, int retired) {
    }

    private static List<Cqe1> drain(CompletionQueue cq) {
        List<Cqe1> out = new ArrayList<>();
        for (Completion c = cq.poll(); c != null; c = cq.poll()) {
            out.add(new Cqe1(c.opcode(), c.wqeOpcode(), c.syndrome(), c.qpn(), c.wqeCounter(), c.byteCount(),
                    c.immediate(), c.solicited(), c.wrId(), c.retired()));
        }
        return out;
    }

    @Test
    void writeWithTwoSgesLandsExactlyAndCompletesWithItsWrId() {
        Simulator sim = new Simulator(1);
        HostPair p = HostPair.create(sim, Profile.defaults());
        HostPair.Side a = p.a();
        HostPair.Side b = p.b();
        byte[] x = pattern(1, 3000);
        byte[] y = pattern(2, 1500);
        a.driver().memory().write(a.mr().address() + 100, x, 0, x.length);
        a.driver().memory().write(a.mr().address() + 8192, y, 0, y.length);
        SgeList sges = new SgeList(4).add(a.mr().address() + 100, x.length, a.mr().lkey())
                .add(a.mr().address() + 8192, y.length, a.mr().lkey());
        long target = b.mr().address() + 4096 + 7;
        assertThat(a.sq().post(42, WqeOpcode.RDMA_WRITE, SendQueue.SIGNALED, 0, target, b.mr().rkey(), sges)).isTrue();
        sim.runUntil(RUN);
        List<Cqe1> cqes = drain(a.cq());
        assertThat(cqes).containsExactly(new Cqe1(Cqe.REQ, WqeOpcode.RDMA_WRITE, 0, a.qp().qpn(), 0, 4500, 0, false, 42, 1));
        assertThat(b.driver().memory().equalsRange(target, x, 0, x.length)).isTrue();
        assertThat(b.driver().memory().equalsRange(target + x.length, y, 0, y.length)).isTrue();
        assertThat(a.sq().freeBbs()).isEqualTo(a.sq().ringBbs());
        assertThat(drain(b.cq())).isEmpty();
    }

    @Test
    void inlineWriteNeedsNoPayloadReadAndNonInlineDoes() {
        long[] payloadReads = new long[2];
        for (int inline = 0; inline < 2; inline++) {
            Simulator sim = new Simulator(1);
            HostPair p = HostPair.create(sim, Profile.defaults());
            HostPair.Side a = p.a();
            byte[] data = pattern(3, 64);
            a.driver().memory().write(a.mr().address(), data, 0, 64);
            SgeList sge = new SgeList(1).set(a.mr(), 0, 64);
            int flags = SendQueue.SIGNALED | (inline == 1 ? SendQueue.INLINE : 0);
            assertThat(a.sq().post(7, WqeOpcode.RDMA_WRITE, flags, 0, p.b().mr().address(), p.b().mr().rkey(), sge)).isTrue();
            sim.runUntil(RUN);
            assertThat(drain(a.cq())).hasSize(1);
            assertThat(p.b().driver().memory().equalsRange(p.b().mr().address(), data, 0, 64)).isTrue();
            payloadReads[inline] = counter(sim, "nicA.pcie.dma.payload_submitted");
        }
        assertThat(payloadReads[0]).as("non-inline reads its payload").isEqualTo(1);
        assertThat(payloadReads[1]).as("inline carries it in the WQE").isZero();
    }

    @Test
    void blueFlameSkipsTheFetchAndTheDoorbellFetches() {
        for (boolean bf : new boolean[] {true, false}) {
            Simulator sim = new Simulator(1);
            HostPair p = HostPair.create(sim, Profile.defaults());
            HostPair.Side a = p.a();
            a.sq().setBlueFlame(bf);
            byte[] data = pattern(4, 80); // 80 B inline: 32 + align16(84) = 128 B, two BBs
            assertThat(a.sq().postInline(1, WqeOpcode.RDMA_WRITE, SendQueue.SIGNALED, 0, p.b().mr().address(),
                    p.b().mr().rkey(), data, 0, data.length)).isTrue();
            sim.runUntil(RUN);
            assertThat(drain(a.cq())).hasSize(1);
            assertThat(p.b().driver().memory().equalsRange(p.b().mr().address(), data, 0, data.length)).isTrue();
            if (bf) {
                assertThat(counter(sim, "nicA.db.blueflames")).isEqualTo(1);
                assertThat(counter(sim, "nicA.fetch.wqeFetches")).isZero();
                assertThat(counter(sim, "nicA.pcie.rc.mmioWrites")).isEqualTo(2); // two 64 B chunks
                assertThat(counter(sim, "nicA.pcie.rc.mmioBytes")).isEqualTo(128);
            } else {
                assertThat(counter(sim, "nicA.db.blueflames")).isZero();
                assertThat(counter(sim, "nicA.db.doorbells")).isEqualTo(1);
                assertThat(counter(sim, "nicA.fetch.wqeFetches")).isEqualTo(1);
                assertThat(counter(sim, "nicA.pcie.rc.mmioBytes")).isEqualTo(8);
            }
        }
    }

    @Test
    void aBlueFlameWqeRecordsNoFetchStageAndAFetchedOneDoes() {
        for (boolean bf : new boolean[] {true, false}) {
            Simulator sim = new Simulator(1);
            HostPair p = HostPair.create(sim, Profile.defaults());
            HostPair.Side a = p.a();
            a.sq().setBlueFlame(bf);
            List<long[]> seen = new ArrayList<>();
            a.host().adapter().addLifecycleListener((n, qpn, idx, op, bytes, syn, stamps) -> seen.add(stamps.clone()));
            byte[] data = pattern(5, 40);
            assertThat(a.sq().postInline(1, WqeOpcode.RDMA_WRITE, SendQueue.SIGNALED, 0, p.b().mr().address(),
                    p.b().mr().rkey(), data, 0, data.length)).isTrue();
            sim.runUntil(RUN);
            assertThat(seen).hasSize(1);
            long[] s = seen.get(0);
            assertThat(s[dev.rdmasim.adapter.nic.Stage.DOORBELL.ordinal()]).isPositive();
            assertThat(s[dev.rdmasim.adapter.nic.Stage.FIRST_PACKET.ordinal()]).isPositive();
            if (bf) {
                assertThat(s[dev.rdmasim.adapter.nic.Stage.WQE_FETCHED.ordinal()]).as("no fetch after BlueFlame")
                        .isEqualTo(dev.rdmasim.adapter.nic.Stage.NOT_REACHED);
            } else {
                assertThat(s[dev.rdmasim.adapter.nic.Stage.WQE_FETCHED.ordinal()]).as("fetched by DMA")
                        .isGreaterThan(s[dev.rdmasim.adapter.nic.Stage.DOORBELL.ordinal()]);
            }
        }
    }

    @Test
    void blueFlameCarriesWqesUpToHalfTheRegisterAndLargerOnesRingTheDoorbell() {
        Simulator sim = new Simulator(1);
        HostPair p = HostPair.create(sim, Profile.defaults());
        // A second QP pair allowing 16 SGEs and 400 B inline, so WQEs can outgrow a 256 B half.
        HostPair.Side a = p.a();
        HostPair.Side b = p.b();
        QueuePair qa = a.driver().createQp(new QpOptions(a.cq(), a.cq(), a.mr().pd(), 8, 6, 16, 4, 400, HostPair.ALL_ACCESS));
        QueuePair qb = b.driver().createQp(new QpOptions(b.cq(), b.cq(), b.mr().pd(), 8, 6, 16, 4, 400, HostPair.ALL_ACCESS));
        qa.connect(qb);
        long dst = b.mr().address();
        int rkey = b.mr().rkey();
        byte[] fits = pattern(5, 220); // 32 + align16(224) = 256 B: four BBs, exactly one half
        byte[] tooBig = pattern(6, 300); // 32 + 304 = 336 B: six BBs
        SgeList sixteen = new SgeList(16);
        for (int i = 0; i < 16; i++) {
            sixteen.add(a.mr().address() + i * 100L, 10, a.mr().lkey());
        }
        assertThat(qa.sq().postInline(1, WqeOpcode.RDMA_WRITE, SendQueue.SIGNALED, 0, dst, rkey, fits, 0, fits.length)).isTrue();
        sim.runUntil(RUN);
        assertThat(counter(sim, "nicA.db.blueflames")).isEqualTo(1);
        assertThat(counter(sim, "hostA.blueflameChunks")).isEqualTo(4);
        assertThat(qa.sq().postInline(2, WqeOpcode.RDMA_WRITE, SendQueue.SIGNALED, 0, dst + 512, rkey, tooBig, 0, tooBig.length)).isTrue();
        sim.runUntil(2 * RUN);
        // 16 SGEs: 32 + 256 = 288 B, five BBs: doorbell too.
        assertThat(qa.sq().post(3, WqeOpcode.RDMA_WRITE, SendQueue.SIGNALED, 0, dst + 1024, rkey, sixteen)).isTrue();
        sim.runUntil(3 * RUN);
        assertThat(drain(a.cq())).extracting(Cqe1::wrId).containsExactly(1L, 2L, 3L);
        assertThat(counter(sim, "nicA.db.blueflames")).isEqualTo(1);
        assertThat(counter(sim, "hostA.blueflameChunks")).isEqualTo(4);
        assertThat(counter(sim, "hostA.doorbells")).isEqualTo(2);
        assertThat(counter(sim, "nicA.db.doorbells")).isEqualTo(2);
        assertThat(counter(sim, "nicA.pcie.rc.mmioBytes")).isEqualTo(4 * 64 + 2 * 8);
        assertThat(b.driver().memory().equalsRange(dst, fits, 0, fits.length)).isTrue();
        assertThat(b.driver().memory().equalsRange(dst + 512, tooBig, 0, tooBig.length)).isTrue();
        for (int i = 0; i < 16; i++) {
            byte[] piece = new byte[10];
            a.driver().memory().read(a.mr().address() + i * 100L, piece, 0, 10);
            assertThat(b.driver().memory().equalsRange(dst + 1024 + i * 10L, piece, 0, 10)).isTrue();
        }
    }

    @Test
    void completionsOfTwoQpsSharingACqRetireTheirOwnWqes() {
        Simulator sim = new Simulator(1);
        HostPair p = HostPair.create(sim, Profile.defaults());
        HostPair.Side a = p.a();
        HostPair.Side b = p.b();
        QueuePair qa = a.driver().createQp(QpOptions.of(a.cq(), a.mr().pd(), HostPair.ALL_ACCESS));
        QueuePair qb = b.driver().createQp(QpOptions.of(b.cq(), b.mr().pd(), HostPair.ALL_ACCESS));
        qa.connect(qb);
        SendQueue[] sqs = {a.sq(), qa.sq()};
        SgeList sge = new SgeList(1).add(a.mr().address(), 64, a.mr().lkey());
        // QP order 0,1,1,0,0,1: CQEs switch QPs and repeat one, so a remembered QP must be checked each time.
        int[] order = {0, 1, 1, 0, 0, 1};
        for (int i = 0; i < order.length; i++) {
            assertThat(sqs[order[i]].post(100 + i, WqeOpcode.RDMA_WRITE, SendQueue.SIGNALED, 0,
                    b.mr().address() + 64L * i, b.mr().rkey(), sge)).isTrue();
            sim.runUntil((i + 1) * RUN);
        }
        List<Cqe1> done = drain(a.cq());
        assertThat(done).extracting(Cqe1::wrId).containsExactly(100L, 101L, 102L, 103L, 104L, 105L);
        assertThat(done).extracting(Cqe1::qpn).containsExactly(a.sq().qpn(), qa.qpn(), qa.qpn(), a.sq().qpn(),
                a.sq().qpn(), qa.qpn());
        assertThat(a.sq().consumer()).isEqualTo(a.sq().producer());
        assertThat(qa.sq().consumer()).isEqualTo(qa.sq().producer());
    }

    @Test
    void deferredBatchOfSixteenRingsOneDoorbell() {
        Simulator sim = new Simulator(1);
        HostPair p = HostPair.create(sim, Profile.defaults());
        HostPair.Side a = p.a();
        SgeList sge = new SgeList(1);
        for (int i = 0; i < 16; i++) {
            byte[] d = pattern(100 + i, 64);
            a.driver().memory().write(a.mr().address() + i * 64L, d, 0, 64);
            sge.set(a.mr(), i * 64L, 64);
            int flags = SendQueue.SIGNALED | (i < 15 ? SendQueue.DEFER : 0);
            assertThat(a.sq().post(i, WqeOpcode.RDMA_WRITE, flags, 0, p.b().mr().address() + i * 64L,
                    p.b().mr().rkey(), sge)).isTrue();
            if (i < 15) {
                assertThat(a.sq().pendingWqes()).isEqualTo(i + 1);
            }
        }
        assertThat(a.sq().pendingWqes()).isZero();
        sim.runUntil(RUN);
        assertThat(drain(a.cq())).extracting(Cqe1::wrId).containsExactly(
                0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L, 12L, 13L, 14L, 15L);
        for (int i = 0; i < 16; i++) {
            assertThat(p.b().driver().memory().equalsRange(p.b().mr().address() + i * 64L, pattern(100 + i, 64), 0, 64)).isTrue();
        }
        assertThat(counter(sim, "hostA.doorbells")).isEqualTo(1);
        assertThat(counter(sim, "nicA.pcie.rc.mmioWrites")).isEqualTo(1);
        assertThat(counter(sim, "nicA.db.blueflames")).isZero();
        // 16 BBs = 1 KiB of WQEs, fetched in reads of at most nic.wqeFetchMaxBytes (512 B).
        assertThat(counter(sim, "nicA.fetch.wqeFetches")).isEqualTo(2);
    }

    @Test
    void sixteenSeparatePostsCostSixteenMmiosEach() {
        for (boolean bf : new boolean[] {true, false}) {
            Simulator sim = new Simulator(1);
            HostPair p = HostPair.create(sim, Profile.defaults());
            HostPair.Side a = p.a();
            a.sq().setBlueFlame(bf);
            SgeList sge = new SgeList(1);
            for (int i = 0; i < 16; i++) {
                sge.set(a.mr(), i * 64L, 64);
                assertThat(a.sq().post(i, WqeOpcode.RDMA_WRITE, SendQueue.SIGNALED, 0, p.b().mr().address() + i * 64L,
                        p.b().mr().rkey(), sge)).isTrue();
            }
            sim.runUntil(RUN);
            assertThat(drain(a.cq())).hasSize(16);
            assertThat(counter(sim, "nicA.pcie.rc.mmioWrites")).isEqualTo(16);
            assertThat(counter(sim, "nicA.pcie.rc.mmioBytes")).isEqualTo(bf ? 16 * 64 : 16 * 8);
            if (!bf) {
                assertThat(counter(sim, "nicA.db.doorbells")).isEqualTo(16);
            } else {
                // BlueFlame is taken only when nothing older is still being fetched.
                assertThat(counter(sim, "nicA.db.blueflames") + counter(sim, "nicA.db.doorbells")).isEqualTo(16);
                assertThat(counter(sim, "nicA.db.blueflames")).isPositive();
            }
        }
    }

    @Test
    void unsignaledWqesAreRetiredByTheNextSignaledCqe() {
        Simulator sim = new Simulator(1);
        HostPair p = HostPair.create(sim, Profile.defaults());
        HostPair.Side a = p.a();
        SgeList sge = new SgeList(1);
        int[] lens = {64, 64, 64, 64, 64, 64, 64, 64};
        for (int i = 0; i < 7; i++) {
            sge.set(a.mr(), i * 64L, lens[i]);
            assertThat(a.sq().post(i, WqeOpcode.RDMA_WRITE, 0, 0, p.b().mr().address() + i * 64L, p.b().mr().rkey(), sge)).isTrue();
        }
        sim.runUntil(RUN);
        assertThat(drain(a.cq())).as("unsignaled WRITEs write no CQE").isEmpty();
        assertThat(a.sq().freeBbs()).isEqualTo(a.sq().ringBbs() - 7);
        // An inline WQE of 2 BBs, signaled: its counter is 7 and it retires all eight.
        assertThat(a.sq().postInline(99, WqeOpcode.RDMA_WRITE, SendQueue.SIGNALED, 0, p.b().mr().address() + 4096,
                p.b().mr().rkey(), new byte[90], 0, 90)).isTrue();
        sim.runUntil(2 * RUN);
        List<Cqe1> cqes = drain(a.cq());
        assertThat(cqes).hasSize(1);
        assertThat(cqes.get(0).wqeCounter()).isEqualTo(7);
        assertThat(cqes.get(0).wrId()).isEqualTo(99);
        assertThat(cqes.get(0).retired()).isEqualTo(8);
        assertThat(a.sq().freeBbs()).isEqualTo(a.sq().ringBbs());
        assertThat(a.sq().consumer()).isEqualTo(9);
    }

    @Test
    void consumedReceivesAreReportedWithTheirPlacementAndCqe() {
        Simulator sim = new Simulator(1);
        HostPair p = HostPair.create(sim, Profile.defaults());
        HostPair.Side a = p.a();
        HostPair.Side b = p.b();
        List<long[]> sent = new ArrayList<>();
        List<String> received = new ArrayList<>();
        List<long[]> receivedStamps = new ArrayList<>();
        a.host().adapter().addLifecycleListener((n, qpn, idx, op, bytes, syn, stamps) -> sent.add(stamps.clone()));
        b.host().adapter().addLifecycleListener((n, qpn, idx, op, bytes, syn, stamps) -> {
            received.add(op + " " + idx + " " + bytes);
            receivedStamps.add(stamps.clone());
        });
        assertThat(b.rq().post(500, new SgeList(1).set(b.mr(), 0, 4096))).isTrue();
        assertThat(b.rq().post(501, new SgeList(1).set(b.mr(), 8192, 64))).isTrue();
        assertThat(a.sq().post(1, WqeOpcode.SEND, SendQueue.SIGNALED, 0, 0, 0,
                new SgeList(1).set(a.mr(), 0, 1000))).isTrue();
        assertThat(a.sq().post(2, WqeOpcode.RDMA_WRITE_IMM, SendQueue.SIGNALED, 0x1234, b.mr().address() + 30000,
                b.mr().rkey(), new SgeList(1).set(a.mr(), 0, 10))).isTrue();
        sim.runUntil(RUN);
        int receive = dev.rdmasim.adapter.nic.LifecycleListener.RECEIVE;
        assertThat(received).containsExactly(receive + " 0 1000", receive + " 1 10");
        int placed = dev.rdmasim.adapter.nic.Stage.REMOTE_PLACED.ordinal();
        int cqe = dev.rdmasim.adapter.nic.Stage.CQE_WRITTEN.ordinal();
        for (int i = 0; i < 2; i++) {
            long[] r = receivedStamps.get(i);
            assertThat(r[placed]).as("the receive is placed at the instant the sender's request records").isPositive()
                    .isEqualTo(sent.get(i)[placed]);
            assertThat(r[cqe]).as("its CQE after its data").isGreaterThan(r[placed]);
            assertThat(r[dev.rdmasim.adapter.nic.Stage.DOORBELL.ordinal()]).isEqualTo(dev.rdmasim.adapter.nic.Stage.NOT_REACHED);
        }
    }

    @Test
    void sendWithImmediateConsumesAReceiveAndReportsIt() {
        Simulator sim = new Simulator(1);
        HostPair p = HostPair.create(sim, Profile.defaults());
        HostPair.Side a = p.a();
        HostPair.Side b = p.b();
        SgeList rsge = new SgeList(4).add(b.mr().address() + 1000, 100, b.mr().lkey())
                .add(b.mr().address() + 5000, 4000, b.mr().lkey());
        assertThat(b.rq().post(500, rsge)).isTrue();
        assertThat(b.rq().post(501, new SgeList(1).set(b.mr(), 20000, 64))).isTrue();
        byte[] data = pattern(7, 1000);
        a.driver().memory().write(a.mr().address(), data, 0, data.length);
        assertThat(a.sq().post(1, WqeOpcode.SEND_IMM, SendQueue.SIGNALED | SendQueue.SOLICITED, 0xCAFEF00D, 0, 0,
                new SgeList(1).set(a.mr(), 0, 1000))).isTrue();
        assertThat(a.sq().post(2, WqeOpcode.RDMA_WRITE_IMM, SendQueue.SIGNALED, 0x1234, b.mr().address() + 30000,
                b.mr().rkey(), new SgeList(1).set(a.mr(), 0, 10))).isTrue();
        sim.runUntil(RUN);
        assertThat(drain(a.cq())).extracting(Cqe1::wrId).containsExactly(1L, 2L);
        List<Cqe1> rsp = drain(b.cq());
        assertThat(rsp.get(0)).isEqualTo(new Cqe1(Cqe.RESP_SEND_IMM, 0, 0, b.qp().qpn(), 0, 1000, 0xCAFEF00D, true, 500, 1));
        // WRITE with immediate consumed the second receive: its CQE reports the written length and the immediate.
        assertThat(rsp).hasSize(2);
        assertThat(rsp.get(1)).isEqualTo(new Cqe1(Cqe.RESP_WR_IMM, 0, 0, b.qp().qpn(), 1, 10, 0x1234, false, 501, 1));
        assertThat(b.driver().memory().equalsRange(b.mr().address() + 1000, data, 0, 100)).isTrue();
        assertThat(b.driver().memory().equalsRange(b.mr().address() + 5000, data, 100, 900)).isTrue();
        assertThat(b.driver().memory().equalsRange(b.mr().address() + 30000, data, 0, 10)).isTrue();
    }

    @Test
    void readBringsRemoteBytesIntoTheLocalSges() {
        Simulator sim = new Simulator(1);
        HostPair p = HostPair.create(sim, Profile.defaults());
        byte[] data = pattern(8, 6000);
        p.b().driver().memory().write(p.b().mr().address() + 64, data, 0, data.length);
        SgeList sges = new SgeList(2).add(p.a().mr().address() + 10, 2000, p.a().mr().lkey())
                .add(p.a().mr().address() + 9000, 4000, p.a().mr().lkey());
        assertThat(p.a().sq().post(3, WqeOpcode.RDMA_READ, SendQueue.SIGNALED | SendQueue.FENCE, 0,
                p.b().mr().address() + 64, p.b().mr().rkey(), sges)).isTrue();
        sim.runUntil(RUN);
        assertThat(drain(p.a().cq())).extracting(Cqe1::wrId).containsExactly(3L);
        assertThat(p.a().driver().memory().equalsRange(p.a().mr().address() + 10, data, 0, 2000)).isTrue();
        assertThat(p.a().driver().memory().equalsRange(p.a().mr().address() + 9000, data, 2000, 4000)).isTrue();
        assertThatThrownBy(() -> p.a().sq().post(4, WqeOpcode.RDMA_READ, SendQueue.INLINE, 0, 0, 0, sges))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void armedCqRaisesOneEventAndOneInterruptPerArm() {
        Simulator sim = new Simulator(1);
        HostPair p = HostPair.create(sim, Profile.defaults());
        HostPair.Side a = p.a();
        int[] events = {0};
        int[] interrupts = {0};
        a.cq().setEventHandler(() -> events[0]++);
        a.driver().setInterruptListener((vector, data) -> interrupts[0]++);
        assertThat(a.cq().arm(false)).isTrue();
        SgeList sge = new SgeList(1).set(a.mr(), 0, 64);
        for (int i = 0; i < 3; i++) {
            assertThat(a.sq().post(i, WqeOpcode.RDMA_WRITE, SendQueue.SIGNALED, 0, p.b().mr().address(), p.b().mr().rkey(), sge)).isTrue();
        }
        sim.runUntil(RUN);
        assertThat(drain(a.cq())).hasSize(3);
        assertThat(events[0]).isEqualTo(1);
        assertThat(interrupts[0]).isEqualTo(1);
        assertThat(counter(sim, "hostA.eqesPolled")).isEqualTo(1);
        // Without a new arm, further CQEs raise nothing.
        assertThat(a.sq().post(3, WqeOpcode.RDMA_WRITE, SendQueue.SIGNALED, 0, p.b().mr().address(), p.b().mr().rkey(), sge)).isTrue();
        sim.runUntil(2 * RUN);
        assertThat(drain(a.cq())).hasSize(1);
        assertThat(events[0]).isEqualTo(1);
        // Re-armed: exactly one more.
        assertThat(a.cq().arm(false)).isTrue();
        sim.runUntil(3 * RUN);
        assertThat(a.sq().post(4, WqeOpcode.RDMA_WRITE, SendQueue.SIGNALED, 0, p.b().mr().address(), p.b().mr().rkey(), sge)).isTrue();
        assertThat(a.sq().post(5, WqeOpcode.RDMA_WRITE, SendQueue.SIGNALED, 0, p.b().mr().address(), p.b().mr().rkey(), sge)).isTrue();
        sim.runUntil(4 * RUN);
        assertThat(drain(a.cq())).hasSize(2);
        assertThat(events[0]).isEqualTo(2);
        assertThat(interrupts[0]).isEqualTo(2);
        assertThat(counter(sim, "nicA.eq.interrupts")).isEqualTo(2);
    }

    @Test
    void solicitedArmWakesOnlyForSolicitedSends() {
        Simulator sim = new Simulator(1);
        HostPair p = HostPair.create(sim, Profile.defaults());
        HostPair.Side b = p.b();
        int[] events = {0};
        b.cq().setEventHandler(() -> events[0]++);
        for (int i = 0; i < 4; i++) {
            assertThat(b.rq().post(i, new SgeList(1).set(b.mr(), i * 256L, 256))).isTrue();
        }
        assertThat(b.cq().arm(true)).isTrue();
        SgeList sge = new SgeList(1).set(p.a().mr(), 0, 32);
        assertThat(p.a().sq().post(0, WqeOpcode.SEND, SendQueue.SIGNALED, 0, 0, 0, sge)).isTrue();
        sim.runUntil(RUN);
        assertThat(drain(b.cq())).extracting(Cqe1::solicited).containsExactly(false);
        assertThat(events[0]).isZero();
        assertThat(p.a().sq().post(1, WqeOpcode.SEND, SendQueue.SIGNALED | SendQueue.SOLICITED, 0, 0, 0, sge)).isTrue();
        sim.runUntil(2 * RUN);
        assertThat(drain(b.cq())).extracting(Cqe1::solicited).containsExactly(true);
        assertThat(events[0]).isEqualTo(1);
    }

    @Test
    void postingCostsCpuTimeBeforeTheDoorbellLeaves() {
        long build = 100_000;
        long store = 50_000;
        Profile prof = Profile.defaults().with(Parameters.HOST_WQE_BUILD_TIME, build)
                .with(Parameters.HOST_MMIO_STORE_TIME, store);
        Simulator sim = new Simulator(1);
        HostPair p = HostPair.create(sim, prof);
        HostPair.Side a = p.a();
        a.sq().setBlueFlame(false);
        SgeList sge = new SgeList(1).set(a.mr(), 0, 64);
        long t0 = sim.now();
        for (int i = 0; i < 4; i++) {
            assertThat(a.sq().post(i, WqeOpcode.RDMA_WRITE, SendQueue.SIGNALED, 0, p.b().mr().address(), p.b().mr().rkey(), sge)).isTrue();
        }
        assertThat(a.driver().cpu().freeAt()).isEqualTo(t0 + 4 * (build + store));
        sim.runUntil(t0 + build + store - 1);
        assertThat(counter(sim, "hostA.cpu.mmioWrites")).isZero();
        sim.runUntil(t0 + build + store);
        assertThat(counter(sim, "hostA.cpu.mmioWrites")).isEqualTo(1);
        sim.runUntil(t0 + 4 * (build + store));
        assertThat(counter(sim, "hostA.cpu.mmioWrites")).isEqualTo(4);
        assertThat(counter(sim, "hostA.cpu.busyTime")).isEqualTo(4 * (build + store));
        sim.runUntil(RUN);
        assertThat(drain(a.cq())).hasSize(4);
    }

    /** A poll that finds nothing takes the CPU's time but is waiting, not work: it is kept out of busyTime. */
    @Test
    void emptyPollsTakeTimeButAreNotBusy() {
        long poll = 20_000;
        Simulator sim = new Simulator(1);
        HostPair p = HostPair.create(sim, Profile.defaults().with(Parameters.HOST_POLL_TIME, poll));
        HostPair.Side a = p.a();
        long busy0 = counter(sim, "hostA.cpu.busyTime");
        long t0 = a.driver().cpu().freeAt();
        for (int i = 0; i < 3; i++) {
            assertThat(a.cq().poll()).isNull();
        }
        assertThat(a.driver().cpu().freeAt()).isEqualTo(t0 + 3 * poll);
        assertThat(counter(sim, "hostA.cpu.emptyPollTime")).isEqualTo(3 * poll);
        assertThat(counter(sim, "hostA.cpu.busyTime")).isEqualTo(busy0);

        SgeList sge = new SgeList(1).set(a.mr(), 0, 64);
        assertThat(a.sq().post(7, WqeOpcode.RDMA_WRITE, SendQueue.SIGNALED, 0, p.b().mr().address(),
                p.b().mr().rkey(), sge)).isTrue();
        sim.runUntil(RUN);
        long busy1 = counter(sim, "hostA.cpu.busyTime");
        assertThat(a.cq().poll()).isNotNull();
        // The poll that finds the CQE is work, and it misses in the cache on the line the adapter wrote.
        assertThat(counter(sim, "hostA.cpu.busyTime")).isEqualTo(busy1 + poll
                + Profile.defaults().getLong(Parameters.HOST_POLL_MISS_TIME));
        assertThat(counter(sim, "hostA.cpu.emptyPollTime")).isEqualTo(3 * poll);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2})
    void fullMmioQueueStallsTheCpuAndLosesNothing(long seed) {
        // A slow link and free CPU stores: the root complex's posted queue fills up.
        Profile prof = Profile.defaults().with(Parameters.PCIE_GEN, 1L).with(Parameters.PCIE_LANES, 1L)
                .with(Parameters.HOST_WQE_BUILD_TIME, 0L).with(Parameters.HOST_WC_FLUSH_TIME, 0L)
                .with(Parameters.HOST_MMIO_STORE_TIME, 0L);
        Simulator sim = new Simulator(seed);
        HostPair p = HostPair.create(sim, prof, 1 << 20, 8, 8, 6);
        HostPair.Side a = p.a();
        SplittableRandom rnd = new SplittableRandom(seed);
        int n = 100;
        int[] lens = new int[n];
        for (int i = 0; i < n; i++) {
            lens[i] = 1 + rnd.nextInt(150);
            byte[] d = pattern(seed * 1000 + i, lens[i]);
            assertThat(a.sq().postInline(i, WqeOpcode.RDMA_WRITE, i % 10 == 9 ? SendQueue.SIGNALED : 0, 0,
                    p.b().mr().address() + i * 256L, p.b().mr().rkey(), d, 0, lens[i])).isTrue();
        }
        long chunks = counter(sim, "hostA.blueflameChunks");
        sim.runUntil(20 * RUN);
        assertThat(counter(sim, "hostA.cpu.stalls")).as("the CPU must have stalled").isPositive();
        assertThat(counter(sim, "hostA.cpu.stallTime")).isPositive();
        assertThat(counter(sim, "nicA.pcie.rc.mmioRefusals")).isPositive();
        assertThat(counter(sim, "hostA.cpu.mmioWrites")).isEqualTo(chunks);
        assertThat(counter(sim, "nicA.pcie.rc.mmioWrites")).isEqualTo(chunks);
        List<Cqe1> cqes = drain(a.cq());
        assertThat(cqes).hasSize(10);
        assertThat(cqes.stream().mapToInt(Cqe1::retired).sum()).isEqualTo(n);
        for (int i = 0; i < n; i++) {
            assertThat(p.b().driver().memory().equalsRange(p.b().mr().address() + i * 256L,
                    pattern(seed * 1000 + i, lens[i]), 0, lens[i])).as("write %d", i).isTrue();
        }
    }

    @Test
    void fullSendRingRefusesAndRecoversAfterCompletions() {
        Simulator sim = new Simulator(1);
        HostPair p = HostPair.create(sim, Profile.defaults(), 1 << 20, 8, 3, 6); // 8 BBs
        HostPair.Side a = p.a();
        SgeList sge = new SgeList(1).set(a.mr(), 0, 64);
        int posted = 0;
        while (a.sq().post(posted, WqeOpcode.RDMA_WRITE, SendQueue.SIGNALED, 0, p.b().mr().address(), p.b().mr().rkey(), sge)) {
            posted++;
        }
        assertThat(posted).isEqualTo(8);
        assertThat(counter(sim, "hostA.sqFull")).isEqualTo(1);
        sim.runUntil(RUN);
        assertThat(drain(a.cq())).hasSize(8);
        assertThat(a.sq().post(8, WqeOpcode.RDMA_WRITE, SendQueue.SIGNALED, 0, p.b().mr().address(), p.b().mr().rkey(), sge)).isTrue();
    }

    @Test
    void badArgumentsAreRejectedWithTheirName() {
        Simulator sim = new Simulator(1);
        HostPair p = HostPair.create(sim, Profile.defaults());
        SendQueue sq = p.a().sq();
        assertThatThrownBy(() -> sq.post(0, WqeOpcode.LOCAL_INVAL, 0, 0, 0, 0, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a posting opcode");
        SgeList five = new SgeList(5);
        for (int i = 0; i < 5; i++) {
            five.add(p.a().mr().address(), 1, p.a().mr().lkey());
        }
        assertThatThrownBy(() -> sq.post(0, WqeOpcode.SEND, 0, 0, 0, 0, five))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxSendSge");
        assertThatThrownBy(() -> p.b().rq().post(0, five))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxRecvSge");
        assertThatThrownBy(() -> new SgeList(1).add(0, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> p.a().driver().createCq(23)).hasMessageContaining("logSize");
    }
}
