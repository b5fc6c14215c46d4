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
    private NdkPair p;

    private void setUp(long inline) {
        p = new NdkPair(inline);
    }

    private static byte[] pattern(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + seed);
        }
        return b;
    }

    private static NdkSge[] sge(long address, long length, NdkMr mr) {
        return new NdkSge[] {new NdkSge(address, length, mr.getLocalToken())};
    }

    @Test
    void pingSendLandsInThePostedReceive() {
        setUp(0);
        HostMemory memA = NdkTestBed.memory(p.bed.a);
        HostMemory memB = NdkTestBed.memory(p.bed.b);
        byte[] msg = pattern(100, 1);
        memA.write(p.bufA, msg, 0, msg.length);
        assertThat(p.qpB.receive("recv1", sge(p.bufB + 64, 256, p.mrB), 1)).isEqualTo(STATUS_SUCCESS);
        assertThat(p.qpA.send("send1", sge(p.bufA, 100, p.mrA), 1, 0)).isEqualTo(STATUS_SUCCESS);

        NdkResultEx sent = p.bed.take(p.cqA, 1).get(0);
        assertThat(sent.status).isEqualTo(STATUS_SUCCESS);
        assertThat(sent.type).isEqualTo(NdkOperationTypeSend);
        assertThat(sent.qpContext).isEqualTo("qpA");
        assertThat(sent.requestContext).isEqualTo("send1");
        NdkResultEx got = p.bed.take(p.cqB, 1).get(0);
        assertThat(got.status).isEqualTo(STATUS_SUCCESS);
        assertThat(got.type).isEqualTo(NdkOperationTypeReceive);
        assertThat(got.bytesTransferred).isEqualTo(100);
        assertThat(got.qpContext).isEqualTo("qpB");
        assertThat(got.requestContext).isEqualTo("recv1");
        assertThat(memB.equalsRange(p.bufB + 64, msg, 0, 100)).isTrue();
        // Nothing around it moved.
        assertThat(memB.getByte(p.bufB + 63)).isZero();
        assertThat(memB.getByte(p.bufB + 164)).isZero();
        assertThat(p.qpA.initiatorOutstanding()).isZero();
        assertThat(p.qpB.receiveOutstanding()).isZero();
    }

    @Test
    void writeAndReadThroughAnAdvertisedBufferThenAZeroByteSend() {
        setUp(0);
        HostMemory memA = NdkTestBed.memory(p.bed.a);
        HostMemory memB = NdkTestBed.memory(p.bed.b);
        byte[] data = pattern(5000, 7);
        memA.write(p.bufA, data, 0, data.length);
        // B advertises {address, token}; A writes into it, reads it back elsewhere, then tells B with a 0-byte send.
        long remote = p.bufB + 1000;
        int token = p.mrB.getRemoteToken();
        assertThat(p.qpB.receive("done?", null, 0)).isEqualTo(STATUS_SUCCESS);
        assertThat(p.qpA.write("w", sge(p.bufA, 5000, p.mrA), 1, remote, token, 0)).isEqualTo(STATUS_SUCCESS);
        assertThat(p.qpA.read("r", sge(p.bufA + 20000, 5000, p.mrA), 1, remote, token, 0)).isEqualTo(STATUS_SUCCESS);
        assertThat(p.qpA.send("done", null, 0, 0)).isEqualTo(STATUS_SUCCESS);

        List<NdkResultEx> a = p.bed.take(p.cqA, 3);
        assertThat(a).extracting(r -> r.requestContext).containsExactly("w", "r", "done");
        assertThat(a).extracting(r -> r.type).containsExactly(NdkOperationTypeWrite, NdkOperationTypeRead,
                NdkOperationTypeSend);
        assertThat(a).allMatch(r -> r.status == STATUS_SUCCESS);
        NdkResultEx b = p.bed.take(p.cqB, 1).get(0);
        assertThat(b.requestContext).isEqualTo("done?");
        assertThat(b.bytesTransferred).isZero();
        assertThat(memB.equalsRange(remote, data, 0, 5000)).isTrue();
        assertThat(memA.equalsRange(p.bufA + 20000, data, 0, 5000)).isTrue();
    }

    @Test
    void inlineSendCarriesItsBytesInTheWqe() {
        setUp(200);
        HostMemory memA = NdkTestBed.memory(p.bed.a);
        byte[] head = pattern(40, 3);
        byte[] tail = pattern(60, 9);
        memA.write(p.bufA, head, 0, 40);
        memA.write(p.bufA + 4096, tail, 0, 60);
        assertThat(p.qpB.receive("r", sge(p.bufB, 200, p.mrB), 1)).isEqualTo(STATUS_SUCCESS);
        // Three SGEs although the QP allows two: INLINE is exempt from the SGE limit. Tokens are ignored.
        NdkSge[] sgl = {new NdkSge(p.bufA, 40, 0xDEAD), new NdkSge(p.bufA + 4096, 60, 0), new NdkSge(p.bufA, 0, 0)};
        assertThat(p.qpA.send("s", sgl, 3, NDK_OP_FLAG_INLINE)).isEqualTo(STATUS_SUCCESS);
        assertThat(p.bed.take(p.cqA, 1).get(0).status).isEqualTo(STATUS_SUCCESS);
        NdkResultEx r = p.bed.take(p.cqB, 1).get(0);
        assertThat(r.bytesTransferred).isEqualTo(100);
        HostMemory memB = NdkTestBed.memory(p.bed.b);
        assertThat(memB.equalsRange(p.bufB, head, 0, 40)).isTrue();
        assertThat(memB.equalsRange(p.bufB + 40, tail, 0, 60)).isTrue();
    }

    @Test
    void flushWithTwoReceivesPostedCancelsBoth() {
        setUp(0);
        assertThat(p.qpB.receive("r1", sge(p.bufB, 64, p.mrB), 1)).isEqualTo(STATUS_SUCCESS);
        assertThat(p.qpB.receive("r2", sge(p.bufB + 64, 64, p.mrB), 1)).isEqualTo(STATUS_SUCCESS);
        p.qpB.flush();
        List<NdkResultEx> r = p.bed.take(p.cqB, 2);
        assertThat(r).extracting(x -> x.requestContext).containsExactly("r1", "r2");
        assertThat(r).allMatch(x -> x.status == STATUS_CANCELLED && x.type == NdkOperationTypeReceive);
        assertThat(p.bed.drain(p.cqB)).isEmpty();
        // Flushed: no longer connected.
        assertThat(p.qpB.send("late", null, 0, 0)).isEqualTo(STATUS_CONNECTION_INVALID);
    }

    @Test
    void silentSuccessCompletesOnlyWhenSomethingFails() {
        setUp(0);
        long remote = p.bufB;
        int token = p.mrB.getRemoteToken();
        assertThat(p.qpA.write("quiet1", sge(p.bufA, 64, p.mrA), 1, remote, token, NDK_OP_FLAG_SILENT_SUCCESS))
                .isEqualTo(STATUS_SUCCESS);
        assertThat(p.qpA.write("quiet2", sge(p.bufA, 64, p.mrA), 1, remote, token, NDK_OP_FLAG_SILENT_SUCCESS))
                .isEqualTo(STATUS_SUCCESS);
        assertThat(p.qpA.write("loud", sge(p.bufA, 64, p.mrA), 1, remote, token, 0)).isEqualTo(STATUS_SUCCESS);
        List<NdkResultEx> r = p.bed.take(p.cqA, 1);
        assertThat(r.get(0).requestContext).isEqualTo("loud");
        // The silent ones are retired with it: the queue is empty again.
        assertThat(p.qpA.initiatorOutstanding()).isZero();
        // A silent request that fails still completes: a bad remote token.
        assertThat(p.qpA.write("quietBad", sge(p.bufA, 64, p.mrA), 1, remote, token + 0x100, NDK_OP_FLAG_SILENT_SUCCESS))
                .isEqualTo(STATUS_SUCCESS);
        NdkResultEx bad = p.bed.take(p.cqA, 1).get(0);
        assertThat(bad.requestContext).isEqualTo("quietBad");
        assertThat(bad.status).isEqualTo(STATUS_ACCESS_VIOLATION);
        assertThat(p.bed.drain(p.cqA)).isEmpty();
    }

    @Test
    void deferredRequestsShareOneDoorbell() {
        setUp(0);
        long remote = p.bufB;
        int token = p.mrB.getRemoteToken();
        long doorbellsBefore = NdkTestBed.counter(p.bed.hostA, "doorbells")
                + NdkTestBed.counter(p.bed.hostA, "blueflameWqes");
        for (int i = 0; i < 3; i++) {
            assertThat(p.qpA.write("d" + i, sge(p.bufA, 64, p.mrA), 1, remote + i * 64, token, NDK_OP_FLAG_DEFER))
                    .isEqualTo(STATUS_SUCCESS);
        }
        assertThat(p.qpA.write("last", sge(p.bufA, 64, p.mrA), 1, remote + 192, token, 0)).isEqualTo(STATUS_SUCCESS);
        List<NdkResultEx> r = p.bed.take(p.cqA, 4);
        assertThat(r).extracting(x -> x.requestContext).containsExactly("d0", "d1", "d2", "last");
        long doorbells = NdkTestBed.counter(p.bed.hostA, "doorbells")
                + NdkTestBed.counter(p.bed.hostA, "blueflameWqes") - doorbellsBefore;
        assertThat(doorbells).isEqualTo(1);
    }

    /** When the fenced (or unfenced) WRITE's bytes appear at B, after a 32 KiB READ from B; the READ's bytes too. */
    private long[] readThenWrite(boolean fence) {
        NdkPair t = new NdkPair(0);
        HostMemory memB = NdkTestBed.memory(t.bed.b);
        byte[] old = pattern(32768, 11);
        memB.write(t.bufB, old, 0, old.length);
        byte[] fresh = pattern(64, 5);
        NdkTestBed.memory(t.bed.a).write(t.bufA + 40000, fresh, 0, 64);
        int token = t.mrB.getRemoteToken();
        // READ B's 32 KiB, then overwrite its last 64 bytes with a WRITE.
        assertThat(t.qpA.read("r", t.a(0, 32768), 1, t.bufB, token, 0)).isEqualTo(STATUS_SUCCESS);
        assertThat(t.qpA.write("w", t.a(40000, 64), 1, t.bufB + 32768 - 64, token,
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
        long bfBefore = NdkTestBed.counter(p.bed.hostA, "blueflameWqes");
        assertThat(p.qpA.write("w", sge(p.bufA, 100, p.mrA), 1, p.bufB, p.mrB.getRemoteToken(), NDK_OP_FLAG_INLINE))
                .isEqualTo(STATUS_SUCCESS);
        assertThat(p.bed.take(p.cqA, 1).get(0).status).isEqualTo(STATUS_SUCCESS);
        assertThat(NdkTestBed.counter(p.bed.hostA, "blueflameWqes") - bfBefore).isEqualTo(1);
    }

    @Test
    void theDriversCpuTimeIsPartOfTheLatency() {
        long[] done = new long[2];
        for (int k = 0; k < 2; k++) {
            // Without FEC: a frame's wait for the end of its codeword depends on where the codeword boundaries
            // fall, which a later start moves.
            NdkTestBed t = new NdkTestBed(Profile.defaults().with("host.wqeBuildTime", k == 0 ? "25ns" : "1025ns")
                    .with("link.fec", "none"));
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
