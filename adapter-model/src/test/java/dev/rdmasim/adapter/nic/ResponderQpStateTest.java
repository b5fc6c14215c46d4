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
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
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
        byte[] b = new byte[len];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    private static List<byte[]> drain(TestHost h) {
        List<byte[]> out = new ArrayList<>();
        for (byte[] c = h.poll(); c != null; c = h.poll()) {
            out.add(c);
        }
        return out;
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
}
