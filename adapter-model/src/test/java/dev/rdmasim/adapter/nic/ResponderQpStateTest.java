package dev.rdmasim.adapter.nic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.config.Parameters;
import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.format.AccessFlags;
import dev.rdmasim.adapter.format.Cqe;
import dev.rdmasim.adapter.format.CqeSyndrome;
import dev.rdmasim.adapter.format.WqeOpcode;
import dev.rdmasim.adapter.wire.EthernetLink;
import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.StatsGroup;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The responder and the QP's state: a QP below ready-to-receive takes no request (the packet is dropped, counted,
 * and answered with nothing), and a QP reset after a fatal NAK and connected again executes requests as a new one.
 * Two adapters on one cable, driven through the model's own create / connect / modify calls.
 */
class ResponderQpStateTest {
    private static final int ALL = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;
    /** A short retransmission timer, so a requester whose packets are all dropped gives up soon. */
    private static final Profile PROFILE = Profile.defaults().with("transport.ackTimeout", "20us");
    private static final int QPN = TestHost.QPN;

    private static final class Pair {
        final Simulator sim = new Simulator(1);
        final TestHost a = new TestHost(sim, "nicA", PROFILE, 0, 1 << 20, ALL);
        final TestHost b = new TestHost(sim, "nicB", PROFILE, 1, 1 << 20, ALL);
        final EthernetLink link = EthernetLink.cable(sim, "wire", new EthernetLink.Config(
                (int) (PROFILE.getLong(Parameters.LINK_RATE) / 1_000_000_000L), 10_000, 64));

        Pair() {
            a.nic.attach(link.a());
            b.nic.attach(link.b());
        }
    }

    private static byte[] pattern(long seed, int len) {
        return EndToEndTest.pattern(seed, len);
    }

    private static List<byte[]> drain(TestHost h) {
        return EndToEndTest.drain(h);
    }

    private static long counter(Simulator sim, String group, String name) {
        StatsGroup g = sim.stats().groups().stream().filter(x -> x.path().equals(group)).findFirst().orElseThrow();
        return g.stats().stream().filter(s -> s instanceof Counter && s.name().equals(name))
                .mapToLong(s -> ((Counter) s).value()).findFirst().orElseThrow();
    }

    /**
     * B's QP is left in INIT (as created) or moved to RESET, never connected, while A's QP is connected to it with a
     * send PSN equal to the PSN B's responder would expect (0): every request A sends is dropped by B, counted in
     * {@code nicB.rx.dropped}, and B sends nothing back, so A's request ends in TRANSPORT_RETRY_EXC and B's memory
     * and receive CQ stay untouched.
     */
    @ParameterizedTest
    @CsvSource({"INIT, RDMA_WRITE", "INIT, SEND", "INIT, RDMA_READ", "RESET, RDMA_WRITE", "RESET, SEND", "RESET, RDMA_READ"})
    void aQpBelowReadyToReceiveDropsRequestsSilently(QpState state, String op) {
        int opcode = switch (op) {
            case "RDMA_WRITE" -> WqeOpcode.RDMA_WRITE;
            case "SEND" -> WqeOpcode.SEND;
            default -> WqeOpcode.RDMA_READ;
        };
        Pair p = new Pair();
        p.a.nic.connectQp(QPN, QPN, p.b.nic.mac, p.b.nic.ip, 0, 0);
        if (state == QpState.RESET) {
            p.b.nic.modifyQp(QPN, QpState.RESET);
        }
        assertThat(p.b.nic.qpState(QPN)).isEqualTo(state);
        p.a.mem.write(p.a.buf, pattern(1, 256), 0, 256);
        p.b.mem.write(p.b.buf, pattern(2, 256), 0, 256);
        p.b.postRecv(p.b.buf + 4096, 512);
        long before = p.b.mem.digest(p.b.buf, p.b.bufSize);
        p.a.post(opcode, opcode == WqeOpcode.SEND ? -1 : p.b.buf, p.b.key, p.a.buf, 256, false, true);
        p.sim.runUntil(10_000_000_000L);

        List<byte[]> req = drain(p.a);
        assertThat(req).hasSize(1);
        assertThat(Cqe.syndrome(req.get(0), 0)).as("A's request, never answered")
                .isEqualTo(CqeSyndrome.TRANSPORT_RETRY_EXC);
        long sent = p.link.aToB().framesSent();
        assertThat(sent).as("A's request and its retries").isEqualTo(1 + PROFILE.getLong(Parameters.TRANSPORT_RETRY_COUNT));
        assertThat(p.link.bToA().framesSent()).as("no ACK, NAK or READ response").isZero();
        assertThat(p.b.mem.digest(p.b.buf, p.b.bufSize)).as("B's memory").isEqualTo(before);
        assertThat(drain(p.b)).as("B's receive completions").isEmpty();
        assertThat(p.b.nic.qpState(QPN)).isEqualTo(state);
        assertThat(p.b.nic.qp(QPN).resp.transport().expectedPsn()).as("B's expected PSN, unmoved").isZero();
        assertThat(counter(p.sim, "nicB.rx", "dropped")).as("every request counted as dropped").isEqualTo(sent);
    }

    /** Connects both QPs through the modify sequence INIT -> RTR -> RTS: A sends from {@code psnA}, B from {@code psnB}. */
    private static void connect(Pair p, int psnA, int psnB) {
        p.a.nic.modifyQp(QPN, QpState.READY_TO_RECEIVE, new QpPeer(QPN, p.b.nic.mac, p.b.nic.ip, psnA, psnB));
        p.b.nic.modifyQp(QPN, QpState.READY_TO_RECEIVE, new QpPeer(QPN, p.a.nic.mac, p.a.nic.ip, psnB, psnA));
        p.a.nic.modifyQp(QPN, QpState.READY_TO_SEND, new QpPeer(QPN, p.b.nic.mac, p.b.nic.ip, psnA, psnB));
        p.b.nic.modifyQp(QPN, QpState.READY_TO_SEND, new QpPeer(QPN, p.a.nic.mac, p.a.nic.ip, psnB, psnA));
    }

    /** Both QPs, drained (after an error, or already reset), go to RESET, INIT and are connected again with new PSNs. */
    private static void resetAndConnect(Pair p, int psnA, int psnB) {
        for (TestHost h : new TestHost[] {p.a, p.b}) {
            if (h.nic.qpState(QPN) != QpState.RESET) {
                assertThat(h.nic.qpState(QPN)).isEqualTo(QpState.ERROR);
                h.nic.modifyQp(QPN, QpState.RESET);
            }
            h.nic.modifyQp(QPN, QpState.INIT);
        }
        connect(p, psnA, psnB);
    }

    /**
     * After new connection: a multi-packet WRITE, a multi-packet SEND into a receive posted now and a READ are all
     * executed by B and complete at A, with every byte in place, and B drops nothing.
     */
    private static void requestsAreExecuted(Pair p, int psnB) {
        long droppedBefore = counter(p.sim, "nicB.rx", "dropped");
        byte[] write = pattern(11, 4000);
        byte[] send = pattern(12, 3000);
        byte[] read = pattern(13, 2000);
        p.a.mem.write(p.a.buf, write, 0, write.length);
        p.a.mem.write(p.a.buf + 8192, send, 0, send.length);
        p.b.mem.write(p.b.buf + 65536, read, 0, read.length);
        p.b.postRecv(p.b.buf + 32768, 4096);
        p.a.post(WqeOpcode.RDMA_WRITE, p.b.buf + 16384, p.b.key, p.a.buf, write.length, false, true);
        p.a.post(WqeOpcode.SEND, -1, 0, p.a.buf + 8192, send.length, false, true);
        p.a.post(WqeOpcode.RDMA_READ, p.b.buf + 65536, p.b.key, p.a.buf + 65536, read.length, false, true);
        p.sim.runUntil(p.sim.now() + 5_000_000_000L);

        List<byte[]> req = drain(p.a);
        assertThat(req).hasSize(3);
        for (byte[] c : req) {
            assertThat(Cqe.opcode(c, 0)).as("A's CQE, syndrome 0x%x", Cqe.syndrome(c, 0)).isEqualTo(Cqe.REQ);
        }
        List<byte[]> rsp = drain(p.b);
        assertThat(rsp).hasSize(1);
        assertThat(Cqe.opcode(rsp.get(0), 0)).isEqualTo(Cqe.RESP_SEND);
        assertThat(Cqe.byteCount(rsp.get(0), 0)).isEqualTo(send.length);
        assertThat(p.b.mem.equalsRange(p.b.buf + 16384, write, 0, write.length)).as("WRITE data at B").isTrue();
        assertThat(p.b.mem.equalsRange(p.b.buf + 32768, send, 0, send.length)).as("SEND data at B").isTrue();
        assertThat(p.a.mem.equalsRange(p.a.buf + 65536, read, 0, read.length)).as("READ data at A").isTrue();
        assertThat(counter(p.sim, "nicB.rx", "dropped")).as("B drops nothing").isEqualTo(droppedBefore);
        // 4 WRITE packets, 3 SEND packets and the READ's 2 response PSNs (1024 B MTU).
        assertThat(p.b.nic.qp(QPN).resp.transport().expectedPsn()).isEqualTo(psnB + 9);
        assertThat(p.a.nic.qpState(QPN)).isEqualTo(QpState.READY_TO_SEND);
        assertThat(p.b.nic.qpState(QPN)).isEqualTo(QpState.READY_TO_SEND);
    }

    /**
     * A fatal NAK (a WRITE with a bad remote key) puts B's responder and both QPs in error, and B's posted receive
     * is flushed. Reset and connected again, B is a new responder: it expects the new PSN and executes requests.
     */
    @org.junit.jupiter.api.Test
    void aQpResetAfterAFatalNakIsConnectedAgainAndExecutesRequests() {
        Pair p = new Pair();
        connect(p, 100, 5000);
        p.b.postRecv(p.b.buf + 32768, 4096);
        p.a.mem.write(p.a.buf, pattern(3, 512), 0, 512);
        p.a.post(WqeOpcode.RDMA_WRITE, p.b.buf, p.b.key ^ 0x100, p.a.buf, 512, false, true);
        p.sim.runUntil(5_000_000_000L);
        List<byte[]> req = drain(p.a);
        assertThat(req).hasSize(1);
        assertThat(Cqe.syndrome(req.get(0), 0)).isEqualTo(CqeSyndrome.REMOTE_ACCESS);
        List<byte[]> flushed = drain(p.b);
        assertThat(flushed).hasSize(1);
        assertThat(Cqe.syndrome(flushed.get(0), 0)).isEqualTo(CqeSyndrome.WR_FLUSH);

        resetAndConnect(p, 70_000, 900_000);
        assertThat(p.b.nic.qp(QPN).resp.transport().expectedPsn()).isEqualTo(70_000);
        requestsAreExecuted(p, 70_000);
    }

    /**
     * B is moved to ERROR (by a modify command), or straight from RTS to RESET, in the middle of a multi-packet WRITE
     * or SEND, so its responder has a message open (for a SEND, a receive WQE taken). A's request then times out.
     * Reset and connected again, B has no message open: the next requests, WRITEs included, open new messages and
     * are executed. A SEND's receive WQE is flushed with the error; a reset without error uses it up without a
     * completion, and the next SEND lands in the next WQE posted.
     */
    @ParameterizedTest
    @CsvSource({"RDMA_WRITE, ERROR", "SEND, ERROR", "RDMA_WRITE, RESET", "SEND, RESET"})
    void aQpResetInTheMiddleOfAMessageStartsTheNextOneAfresh(String op, QpState via) {
        Pair p = new Pair();
        connect(p, 100, 5000);
        boolean write = op.equals("RDMA_WRITE");
        if (!write) {
            p.b.postRecv(p.b.buf + 32768, 1 << 16);
        }
        p.a.post(write ? WqeOpcode.RDMA_WRITE : WqeOpcode.SEND, write ? p.b.buf : -1, p.b.key, p.a.buf, 1 << 16, false, true);
        Qp b = p.b.nic.qp(QPN);
        while (b.resp.transport().openMessage() == null) {
            assertThat(p.sim.step()).as("the message's first packet reaches B").isTrue();
        }
        if (via == QpState.ERROR) {
            p.b.nic.modifyQp(QPN, QpState.ERROR);
        } else {
            // Nothing more reaches B; once its writes and ACKs have left, it is reset with the message open.
            p.link.aToB().setFaults(1.0, 0.0);
            p.sim.runUntil(p.sim.now() + 10_000_000L);
            assertThat(b.resp.message()).isEqualTo(write ? Responder.Message.IDLE : Responder.Message.RECEIVING);
            p.b.nic.modifyQp(QPN, QpState.RESET);
        }
        p.sim.runUntil(p.sim.now() + 5_000_000_000L);
        p.link.aToB().setFaults(0.0, 0.0);
        List<byte[]> req = drain(p.a);
        assertThat(req).hasSize(1);
        assertThat(Cqe.syndrome(req.get(0), 0)).isEqualTo(CqeSyndrome.TRANSPORT_RETRY_EXC);
        List<byte[]> rsp = drain(p.b);
        assertThat(rsp).as("B's receive: flushed in error, used up by a reset").hasSize(!write && via == QpState.ERROR ? 1 : 0);

        resetAndConnect(p, 1234, 5678);
        assertThat(b.resp.transport().openMessage()).isNull();
        requestsAreExecuted(p, 1234);
    }

    /** A reset is refused while the QP has work in flight, and leaves it as it was. */
    @org.junit.jupiter.api.Test
    void aResetWithWorkInFlightIsRefused() {
        Pair p = new Pair();
        connect(p, 100, 5000);
        p.a.post(WqeOpcode.RDMA_WRITE, p.b.buf, p.b.key, p.a.buf, 1 << 16, false, true);
        p.sim.runUntil(p.sim.now() + 1_000_000L);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> p.a.nic.modifyQp(QPN, QpState.RESET))
                .hasMessageContaining("QP " + QPN + " still has work in flight");
        assertThat(p.a.nic.qpState(QPN)).isEqualTo(QpState.READY_TO_SEND);
        p.sim.runUntil(p.sim.now() + 5_000_000_000L);
        List<byte[]> req = drain(p.a);
        assertThat(req).hasSize(1);
        assertThat(Cqe.opcode(req.get(0), 0)).isEqualTo(Cqe.REQ);
    }
}
