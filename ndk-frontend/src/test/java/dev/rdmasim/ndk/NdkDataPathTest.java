package dev.rdmasim.ndk;

import static dev.rdmasim.ndk.NdkConstants.*;
import static dev.rdmasim.ndk.NdkOpFlags.*;
import static dev.rdmasim.ndk.NdkOperationType.*;
import static dev.rdmasim.ndk.NtStatus.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.adapter.config.Parameters;
import dev.rdmasim.adapter.config.Profile;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Sends, receives, writes, reads and flushes through the NDK calls, with bytes checked where they land. */
class NdkDataPathTest {
    private final NdkTestBed bed = new NdkTestBed();
    private NdkCq cqA;
    private NdkCq cqB;
    private NdkQp qpA;
    private NdkQp qpB;
    private NdkMr mrA;
    private NdkMr mrB;
    private long bufA;
    private long bufB;

    private void setUp(long inline) {
        cqA = bed.cq(bed.a, 64);
        cqB = bed.cq(bed.b, 64);
        NdkPd pdA = bed.pd(bed.a);
        NdkPd pdB = bed.pd(bed.b);
        qpA = bed.qp(pdA, cqA, cqA, "qpA", 16, 16, 2, 2, inline);
        qpB = bed.qp(pdB, cqB, cqB, "qpB", 16, 16, 2, 2, inline);
        bufA = bed.hostA.allocate(1 << 16);
        bufB = bed.hostB.allocate(1 << 16);
        int all = NDK_MR_FLAG_ALLOW_LOCAL_WRITE | NDK_MR_FLAG_ALLOW_REMOTE_READ | NDK_MR_FLAG_ALLOW_REMOTE_WRITE;
        mrA = bed.mr(bed.a, pdA, bufA, 1 << 16, all);
        mrB = bed.mr(bed.b, pdB, bufB, 1 << 16, all);
        bed.connect(qpA, qpB);
    }

    private static byte[] pattern(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + seed);
        }
        return b;
    }

    private NdkSge[] sge(long address, long length, NdkMr mr) {
        return new NdkSge[] {new NdkSge(address, length, mr.getLocalToken())};
    }

    @Test
    void pingSendLandsInThePostedReceive() {
        setUp(0);
        HostMemory memA = NdkTestBed.memory(bed.a);
        HostMemory memB = NdkTestBed.memory(bed.b);
        byte[] msg = pattern(100, 1);
        memA.write(bufA, msg, 0, msg.length);
        assertThat(qpB.receive("recv1", sge(bufB + 64, 256, mrB), 1)).isEqualTo(STATUS_SUCCESS);
        assertThat(qpA.send("send1", sge(bufA, 100, mrA), 1, 0)).isEqualTo(STATUS_SUCCESS);

        NdkResultEx sent = bed.take(cqA, 1).get(0);
        assertThat(sent.status).isEqualTo(STATUS_SUCCESS);
        assertThat(sent.type).isEqualTo(NdkOperationTypeSend);
        assertThat(sent.qpContext).isEqualTo("qpA");
        assertThat(sent.requestContext).isEqualTo("send1");
        NdkResultEx got = bed.take(cqB, 1).get(0);
        assertThat(got.status).isEqualTo(STATUS_SUCCESS);
        assertThat(got.type).isEqualTo(NdkOperationTypeReceive);
        assertThat(got.bytesTransferred).isEqualTo(100);
        assertThat(got.qpContext).isEqualTo("qpB");
        assertThat(got.requestContext).isEqualTo("recv1");
        assertThat(memB.equalsRange(bufB + 64, msg, 0, 100)).isTrue();
        // Nothing around it moved.
        assertThat(memB.getByte(bufB + 63)).isZero();
        assertThat(memB.getByte(bufB + 164)).isZero();
        assertThat(qpA.initiatorOutstanding()).isZero();
        assertThat(qpB.receiveOutstanding()).isZero();
    }

    @Test
    void writeAndReadThroughAnAdvertisedBufferThenAZeroByteSend() {
        setUp(0);
        HostMemory memA = NdkTestBed.memory(bed.a);
        HostMemory memB = NdkTestBed.memory(bed.b);
        byte[] data = pattern(5000, 7);
        memA.write(bufA, data, 0, data.length);
        // B advertises {address, token}; A writes into it, reads it back elsewhere, then tells B with a 0-byte send.
        long remote = bufB + 1000;
        int token = mrB.getRemoteToken();
        assertThat(qpB.receive("done?", null, 0)).isEqualTo(STATUS_SUCCESS);
        assertThat(qpA.write("w", sge(bufA, 5000, mrA), 1, remote, token, 0)).isEqualTo(STATUS_SUCCESS);
        assertThat(qpA.read("r", sge(bufA + 20000, 5000, mrA), 1, remote, token, 0)).isEqualTo(STATUS_SUCCESS);
        assertThat(qpA.send("done", null, 0, 0)).isEqualTo(STATUS_SUCCESS);

        List<NdkResultEx> a = bed.take(cqA, 3);
        assertThat(a).extracting(r -> r.requestContext).containsExactly("w", "r", "done");
        assertThat(a).extracting(r -> r.type).containsExactly(NdkOperationTypeWrite, NdkOperationTypeRead,
                NdkOperationTypeSend);
        assertThat(a).allMatch(r -> r.status == STATUS_SUCCESS);
        NdkResultEx b = bed.take(cqB, 1).get(0);
        assertThat(b.requestContext).isEqualTo("done?");
        assertThat(b.bytesTransferred).isZero();
        assertThat(memB.equalsRange(remote, data, 0, 5000)).isTrue();
        assertThat(memA.equalsRange(bufA + 20000, data, 0, 5000)).isTrue();
    }

    @Test
    void inlineSendCarriesItsBytesInTheWqe() {
        setUp(200);
        HostMemory memA = NdkTestBed.memory(bed.a);
        byte[] head = pattern(40, 3);
        byte[] tail = pattern(60, 9);
        memA.write(bufA, head, 0, 40);
        memA.write(bufA + 4096, tail, 0, 60);
        assertThat(qpB.receive("r", sge(bufB, 200, mrB), 1)).isEqualTo(STATUS_SUCCESS);
        // Three SGEs although the QP allows two: INLINE is exempt from the SGE limit. Tokens are ignored.
        NdkSge[] sgl = {new NdkSge(bufA, 40, 0xDEAD), new NdkSge(bufA + 4096, 60, 0), new NdkSge(bufA, 0, 0)};
        assertThat(qpA.send("s", sgl, 3, NDK_OP_FLAG_INLINE)).isEqualTo(STATUS_SUCCESS);
        assertThat(bed.take(cqA, 1).get(0).status).isEqualTo(STATUS_SUCCESS);
        NdkResultEx r = bed.take(cqB, 1).get(0);
        assertThat(r.bytesTransferred).isEqualTo(100);
        HostMemory memB = NdkTestBed.memory(bed.b);
        assertThat(memB.equalsRange(bufB, head, 0, 40)).isTrue();
        assertThat(memB.equalsRange(bufB + 40, tail, 0, 60)).isTrue();
    }

    @Test
    void flushWithTwoReceivesPostedCancelsBoth() {
        setUp(0);
        assertThat(qpB.receive("r1", sge(bufB, 64, mrB), 1)).isEqualTo(STATUS_SUCCESS);
        assertThat(qpB.receive("r2", sge(bufB + 64, 64, mrB), 1)).isEqualTo(STATUS_SUCCESS);
        qpB.flush();
        List<NdkResultEx> r = bed.take(cqB, 2);
        assertThat(r).extracting(x -> x.requestContext).containsExactly("r1", "r2");
        assertThat(r).allMatch(x -> x.status == STATUS_CANCELLED && x.type == NdkOperationTypeReceive);
        assertThat(bed.drain(cqB)).isEmpty();
        // Flushed: no longer connected.
        assertThat(qpB.send("late", null, 0, 0)).isEqualTo(STATUS_CONNECTION_INVALID);
    }

    @Test
    void silentSuccessCompletesOnlyWhenSomethingFails() {
        setUp(0);
        long remote = bufB;
        int token = mrB.getRemoteToken();
        assertThat(qpA.write("quiet1", sge(bufA, 64, mrA), 1, remote, token, NDK_OP_FLAG_SILENT_SUCCESS))
                .isEqualTo(STATUS_SUCCESS);
        assertThat(qpA.write("quiet2", sge(bufA, 64, mrA), 1, remote, token, NDK_OP_FLAG_SILENT_SUCCESS))
                .isEqualTo(STATUS_SUCCESS);
        assertThat(qpA.write("loud", sge(bufA, 64, mrA), 1, remote, token, 0)).isEqualTo(STATUS_SUCCESS);
        List<NdkResultEx> r = bed.take(cqA, 1);
        assertThat(r.get(0).requestContext).isEqualTo("loud");
        // The silent ones are retired with it: the queue is empty again.
        assertThat(qpA.initiatorOutstanding()).isZero();
        // A silent request that fails still completes: a bad remote token.
        assertThat(qpA.write("quietBad", sge(bufA, 64, mrA), 1, remote, token + 0x100, NDK_OP_FLAG_SILENT_SUCCESS))
                .isEqualTo(STATUS_SUCCESS);
        NdkResultEx bad = bed.take(cqA, 1).get(0);
        assertThat(bad.requestContext).isEqualTo("quietBad");
        assertThat(bad.status).isEqualTo(STATUS_ACCESS_VIOLATION);
        assertThat(bed.drain(cqA)).isEmpty();
    }

    @Test
    void deferredRequestsShareOneDoorbell() {
        setUp(0);
        long remote = bufB;
        int token = mrB.getRemoteToken();
        long doorbellsBefore = NdkTestBed.counter(bed.hostA, "doorbells")
                + NdkTestBed.counter(bed.hostA, "blueflameWqes");
        for (int i = 0; i < 3; i++) {
            assertThat(qpA.write("d" + i, sge(bufA, 64, mrA), 1, remote + i * 64, token, NDK_OP_FLAG_DEFER))
                    .isEqualTo(STATUS_SUCCESS);
        }
        assertThat(qpA.write("last", sge(bufA, 64, mrA), 1, remote + 192, token, 0)).isEqualTo(STATUS_SUCCESS);
        List<NdkResultEx> r = bed.take(cqA, 4);
        assertThat(r).extracting(x -> x.requestContext).containsExactly("d0", "d1", "d2", "last");
        long doorbells = NdkTestBed.counter(bed.hostA, "doorbells")
                + NdkTestBed.counter(bed.hostA, "blueflameWqes") - doorbellsBefore;
        assertThat(doorbells).isEqualTo(1);
    }

    /** When the fenced (or unfenced) WRITE's bytes appear at B, after a 32 KiB READ from B; the READ's bytes too. */
    private long[] readThenWrite(boolean fence) {
        NdkDataPathTest t = new NdkDataPathTest();
        t.setUp(0);
        HostMemory memB = NdkTestBed.memory(t.bed.b);
        byte[] old = pattern(32768, 11);
        memB.write(t.bufB, old, 0, old.length);
        byte[] fresh = pattern(64, 5);
        NdkTestBed.memory(t.bed.a).write(t.bufA + 40000, fresh, 0, 64);
        int token = t.mrB.getRemoteToken();
        // READ B's 32 KiB, then overwrite its last 64 bytes with a WRITE.
        assertThat(t.qpA.read("r", t.sge(t.bufA, 32768, t.mrA), 1, t.bufB, token, 0)).isEqualTo(STATUS_SUCCESS);
        assertThat(t.qpA.write("w", t.sge(t.bufA + 40000, 64, t.mrA), 1, t.bufB + 32768 - 64, token,
                fence ? NDK_OP_FLAG_READ_FENCE : 0)).isEqualTo(STATUS_SUCCESS);
        long placed = -1;
        while (t.bed.sim.step()) {
            if (placed < 0 && memB.equalsRange(t.bufB + 32768 - 64, fresh, 0, 64)) {
                placed = t.bed.sim.now();
            }
        }
        assertThat(t.bed.take(t.cqA, 2)).extracting(r -> r.requestContext).containsExactly("r", "w");
        boolean readSawOld = NdkTestBed.memory(t.bed.a).equalsRange(t.bufA, old, 0, 32768);
        return new long[] {placed, readSawOld ? 1 : 0};
    }

    @Test
    void readFenceHoldsALaterWriteUntilTheEarlierReadCompleted() {
        long[] plain = readThenWrite(false);
        long[] fenced = readThenWrite(true);
        // Fenced, the WRITE starts only after the READ's 32 KiB came back: at least their time on the wire later.
        long readOnWirePs = 32768L * 8 * 1_000_000_000_000L / Profile.defaults().getLong(Parameters.LINK_RATE);
        assertThat(fenced[0] - plain[0]).isGreaterThan(readOnWirePs);
        assertThat(fenced[1]).as("the fenced WRITE cannot change what the READ returns").isEqualTo(1);
    }

    @Test
    void aSmallInlineRequestGoesWholeThroughBlueFlame() {
        setUp(200);
        long bfBefore = NdkTestBed.counter(bed.hostA, "blueflameWqes");
        assertThat(qpA.write("w", sge(bufA, 100, mrA), 1, bufB, mrB.getRemoteToken(), NDK_OP_FLAG_INLINE))
                .isEqualTo(STATUS_SUCCESS);
        assertThat(bed.take(cqA, 1).get(0).status).isEqualTo(STATUS_SUCCESS);
        assertThat(NdkTestBed.counter(bed.hostA, "blueflameWqes") - bfBefore).isEqualTo(1);
    }

    @Test
    void theDriversCpuTimeIsPartOfTheLatency() {
        long[] done = new long[2];
        for (int k = 0; k < 2; k++) {
            NdkTestBed t = new NdkTestBed(Profile.defaults().with("host.wqeBuildTime", k == 0 ? "25ns" : "1025ns"));
            NdkCq cq1 = t.cq(t.a, 8);
            NdkCq cq2 = t.cq(t.b, 8);
            NdkPd p1 = t.pd(t.a);
            NdkPd p2 = t.pd(t.b);
            NdkQp q1 = t.qp(p1, cq1, cq1, null, 4, 4, 1, 1, 0);
            NdkQp q2 = t.qp(p2, cq2, cq2, null, 4, 4, 1, 1, 0);
            long b1 = t.hostA.allocate(4096);
            long b2 = t.hostB.allocate(4096);
            NdkMr m1 = t.mr(t.a, p1, b1, 4096, NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
            NdkMr m2 = t.mr(t.b, p2, b2, 4096, NDK_MR_FLAG_ALLOW_LOCAL_WRITE | NDK_MR_FLAG_ALLOW_REMOTE_WRITE);
            t.connect(q1, q2);
            t.sim.run();
            long start = t.sim.now();
            assertThat(q1.write(null, new NdkSge[] {new NdkSge(b1, 64, m1.getLocalToken())}, 1, b2,
                    m2.getRemoteToken(), 0)).isEqualTo(STATUS_SUCCESS);
            t.take(cq1, 1);
            done[k] = t.sim.now() - start;
        }
        // One WQE build more expensive by 1 us: the completion comes 1 us later.
        assertThat(done[1] - done[0]).isEqualTo(1_000_000L);
    }
}
