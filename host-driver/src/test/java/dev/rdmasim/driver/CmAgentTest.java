package dev.rdmasim.driver;

import static dev.rdmasim.driver.StatsProbe.counter;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.adapter.config.Parameters;
import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.format.Cqe;
import dev.rdmasim.adapter.format.CqeSyndrome;
import dev.rdmasim.adapter.format.WqeOpcode;
import dev.rdmasim.adapter.nic.GsiUnit;
import dev.rdmasim.adapter.nic.QpState;
import dev.rdmasim.adapter.wire.CmMad;
import dev.rdmasim.driver.Connection.Outcome;
import dev.rdmasim.driver.Connection.State;
import dev.rdmasim.kernel.Simulator;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CmAgentTest {
    private static final long SERVICE = CmMad.tcpServiceId(445);
    /** 2^8 x 4.096 us = 1.048576 ms per try, three retries: short runs for the loss tests. */
    private static final CmAgent.Config FAST = new CmAgent.Config(8, 3, 4, 5);
    private static final long T = FAST.timeoutPs();

    private static byte[] pattern(long seed, int len) {
        byte[] b = new byte[len];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    /** Everything a side was told, in order, with the instant. */
    private static final class Log implements Connection.Events {
        final List<String> events = new ArrayList<>();
        final List<Long> times = new ArrayList<>();
        final Simulator sim;
        Runnable onEstablished = () -> {
        };

        Log(Simulator sim) {
            this.sim = sim;
        }

        private void add(String e) {
            events.add(e);
            times.add(sim.now());
        }

        @Override
        public void replied(Connection c) {
            add("replied");
            c.agent().completeConnect(c);
        }

        @Override
        public void established(Connection c) {
            add("established");
            onEstablished.run();
        }

        @Override
        public void failed(Connection c, Outcome why) {
            add("failed " + why);
        }

        @Override
        public void disconnected(Connection c) {
            add("disconnected");
        }

        @Override
        public void disconnectCompleted(Connection c) {
            add("disconnectCompleted");
        }
    }

    private record Setup(Simulator sim, HostPair p, CmAgent a, CmAgent b, Log logA, Log logB, List<Connection> passive) {
    }

    /** B listens and accepts with the given limits and private data; nothing is started yet. */
    private static Setup setup(CmAgent.Config config, int bInbound, int bOutbound, byte[] bData) {
        Simulator sim = new Simulator(7);
        HostPair p = HostPair.createUnconnected(sim, Profile.defaults());
        CmAgent a = p.a().driver().cm(config);
        CmAgent b = p.b().driver().cm(config);
        Log logA = new Log(sim);
        Log logB = new Log(sim);
        List<Connection> passive = new ArrayList<>();
        b.listen(SERVICE, req -> {
            passive.add(req);
            b.accept(req, p.b().qp(), bInbound, bOutbound, bData, logB);
        });
        return new Setup(sim, p, a, b, logA, logB, passive);
    }

    private static Connection connect(Setup s, byte[] data) {
        return s.a.connect(s.p.a().qp(), s.p.b().driver().ip(), SERVICE, 16, 2, data, s.logA);
    }

    @Test
    void connectAndAcceptThenWriteAndSendRecvCrossTheConnectedQps() {
        byte[] reqData = pattern(1, 40);
        byte[] repData = pattern(2, 150);
        Setup s = setup(CmAgent.Config.defaults(), 4, 8, repData);
        HostPair.Side a = s.p.a();
        HostPair.Side b = s.p.b();
        byte[] payload = pattern(3, 3000);
        byte[] message = pattern(4, 700);
        a.driver().memory().write(a.mr().address(), payload, 0, payload.length);
        a.driver().memory().write(a.mr().address() + 8192, message, 0, message.length);
        assertThat(b.rq().post(77, new SgeList(1).set(b.mr(), 65536, 1024))).isTrue();
        s.logA.onEstablished = () -> {
            assertThat(a.sq().post(1, WqeOpcode.RDMA_WRITE, SendQueue.SIGNALED, 0, b.mr().address() + 4096, b.mr().rkey(),
                    new SgeList(1).set(a.mr(), 0, payload.length))).isTrue();
            assertThat(a.sq().post(2, WqeOpcode.SEND, SendQueue.SIGNALED, 0, 0, 0,
                    new SgeList(1).set(a.mr(), 8192, message.length))).isTrue();
        };
        Connection c = connect(s, reqData);
        s.sim.runUntil(10_000_000_000L);

        assertThat(s.logA.events).containsExactly("replied", "established");
        assertThat(s.logB.events).containsExactly("established");
        Connection pc = s.passive.get(0);
        assertThat(c.state()).isEqualTo(State.ESTABLISHED);
        assertThat(pc.state()).isEqualTo(State.ESTABLISHED);
        assertThat(c.peerQpn()).isEqualTo(b.qp().qpn());
        assertThat(pc.peerQpn()).isEqualTo(a.qp().qpn());
        assertThat(c.remoteCommId()).isEqualTo(pc.localCommId());
        assertThat(pc.remoteCommId()).isEqualTo(c.localCommId());
        assertThat(pc.serviceId()).isEqualTo(SERVICE);
        // Private data arrives as the whole field: what was sent, then zeros.
        assertThat(pc.peerPrivateData()).hasSize(CmMad.REQ_PRIVATE_DATA_SIZE)
                .startsWith(reqData).endsWith(new byte[CmMad.REQ_PRIVATE_DATA_SIZE - reqData.length]);
        assertThat(c.peerPrivateData()).hasSize(CmMad.REP_PRIVATE_DATA_SIZE).startsWith(repData);
        // Limits: min(own, adapter's 16, the peer's opposite).
        assertThat(pc.inboundReadLimit()).isEqualTo(2); // min(4, 16, A's outbound 2)
        assertThat(pc.outboundReadLimit()).isEqualTo(8); // min(8, 16, A's inbound 16)
        assertThat(c.inboundReadLimit()).isEqualTo(8); // min(16, B's outbound 8)
        assertThat(c.outboundReadLimit()).isEqualTo(2); // min(2, B's inbound 2)
        assertThat(a.host().adapter().qpState(a.qp().qpn())).isEqualTo(QpState.READY_TO_SEND);
        assertThat(b.host().adapter().qpState(b.qp().qpn())).isEqualTo(QpState.READY_TO_SEND);

        // The data path works over what the CM set up.
        assertThat(b.driver().memory().equalsRange(b.mr().address() + 4096, payload, 0, payload.length)).isTrue();
        assertThat(b.driver().memory().equalsRange(b.mr().address() + 65536, message, 0, message.length)).isTrue();
        List<Integer> aOps = new ArrayList<>();
        for (Completion x = a.cq().poll(); x != null; x = a.cq().poll()) {
            assertThat(x.syndrome()).isZero();
            aOps.add(x.wqeOpcode());
        }
        assertThat(aOps).containsExactly(WqeOpcode.RDMA_WRITE, WqeOpcode.SEND);
        Completion r = b.cq().poll();
        assertThat(r.opcode()).isEqualTo(Cqe.RESP_SEND);
        assertThat(r.byteCount()).isEqualTo(message.length);
        assertThat(r.wrId()).isEqualTo(77);

        // Three MADs crossed the link as UD frames to QP1: REQ and RTU from A, REP from B.
        Simulator sim = s.sim;
        assertThat(counter(sim, "nicA.gsi.madsSent")).isEqualTo(2);
        assertThat(counter(sim, "nicB.gsi.madsSent")).isEqualTo(1);
        assertThat(counter(sim, "nicB.gsi.madsReceived")).isEqualTo(2);
        assertThat(counter(sim, "nicA.gsi.madsReceived")).isEqualTo(1);
        assertThat(counter(sim, "hostA.cm.reqSent")).isEqualTo(1);
        assertThat(counter(sim, "hostB.cm.repSent")).isEqualTo(1);
        assertThat(counter(sim, "hostA.cm.rtuSent")).isEqualTo(1);
        assertThat(counter(sim, "hostB.cm.rtuReceived")).isEqualTo(1);
        assertThat(counter(sim, "hostA.cm.retransmits") + counter(sim, "hostB.cm.retransmits")).isZero();
        // The REP reaches A after B's INIT2RTR command, and A hears of it after its own INIT2RTR and RTR2RTS: three
        // firmware commands, plus a few microseconds of PCIe round trips and link crossings per MAD and command.
        long fw = s.p.a().host().adapter().profile().getLong(Parameters.NIC_FIRMWARE_COMMAND_LATENCY);
        assertThat(s.logA.times.get(0)).isBetween(3 * fw, 3 * fw + 30_000_000L);
    }

    @Test
    void rejectCarriesItsPrivateDataToTheActiveSide() {
        byte[] rejData = pattern(5, CmMad.REJ_PRIVATE_DATA_SIZE);
        Simulator sim = new Simulator(3);
        HostPair p = HostPair.createUnconnected(sim, Profile.defaults());
        CmAgent a = p.a().driver().cm();
        CmAgent b = p.b().driver().cm();
        List<Connection> seen = new ArrayList<>();
        b.listen(SERVICE, req -> {
            seen.add(req);
            b.reject(req, rejData);
        });
        Log logA = new Log(sim);
        Connection c = a.connect(p.a().qp(), p.b().driver().ip(), SERVICE, 1, 1, pattern(6, 8), logA);
        sim.runUntil(1_000_000_000L);
        assertThat(logA.events).containsExactly("failed REJECTED");
        assertThat(c.state()).isEqualTo(State.FAILED);
        assertThat(c.rejectReason()).isEqualTo(CmMad.REJ_CONSUMER_DEFINED);
        assertThat(c.peerPrivateData()).isEqualTo(rejData);
        assertThat(seen.get(0).state()).isEqualTo(State.FAILED);
        assertThat(p.a().host().adapter().qpState(p.a().qp().qpn())).isEqualTo(QpState.INIT);
        assertThat(a.openConnections()).isZero();
        assertThat(b.openConnections()).isZero();
    }

    @Test
    void noListenerIsRefused() {
        Simulator sim = new Simulator(3);
        HostPair p = HostPair.createUnconnected(sim, Profile.defaults());
        CmAgent a = p.a().driver().cm();
        p.b().driver().cm().listen(SERVICE + 1, req -> {
            throw new AssertionError("wrong listener");
        });
        Log logA = new Log(sim);
        Connection c = a.connect(p.a().qp(), p.b().driver().ip(), SERVICE, 1, 1, null, logA);
        sim.runUntil(1_000_000_000L);
        assertThat(logA.events).containsExactly("failed NO_LISTENER");
        assertThat(c.rejectReason()).isEqualTo(CmMad.REJ_INVALID_SERVICE_ID);
        assertThat(counter(sim, "hostB.cm.rejSent")).isEqualTo(1);
        assertThat(p.b().driver().cm().openConnections()).isZero();
    }

    @Test
    void aLostReqIsSentAgainAfterTheTimeoutAndStillConnects() {
        Setup s = setup(FAST, 4, 4, null);
        // Everything from A to B is lost for the first half timeout: the first REQ only.
        s.p.link().aToB().setFaults(1.0, 0);
        s.sim.event("heal", () -> s.p.link().aToB().setFaults(0, 0)).schedule(T / 2);
        Connection c = connect(s, null);
        s.sim.runUntil(10 * T);
        assertThat(s.logA.events).containsExactly("replied", "established");
        assertThat(c.state()).isEqualTo(State.ESTABLISHED);
        assertThat(s.p.link().aToB().framesDropped()).isEqualTo(1);
        assertThat(counter(s.sim, "hostA.cm.reqSent")).isEqualTo(2);
        assertThat(counter(s.sim, "hostA.cm.retransmits")).isEqualTo(1);
        // The REP came after the retransmission, one timeout after the first try (and three firmware commands).
        long fw = s.p.a().host().adapter().profile().getLong(Parameters.NIC_FIRMWARE_COMMAND_LATENCY);
        assertThat(s.logA.times.get(0)).isBetween(T + 3 * fw, T + 3 * fw + 30_000_000L);
    }

    @Test
    void reqsAllLostTimeOutAfterTheRetryCount() {
        Setup s = setup(FAST, 4, 4, null);
        s.p.link().aToB().setFaults(1.0, 0);
        Connection c = connect(s, null);
        s.sim.runUntil(20 * T);
        assertThat(s.logA.events).containsExactly("failed TIMED_OUT");
        // The first try and three retries, each waiting one timeout; then a REJ (timeout) that is lost too.
        long failedAt = s.logA.times.get(0);
        assertThat(failedAt).isBetween(4 * T, 4 * T + 1_000_000L);
        assertThat(counter(s.sim, "hostA.cm.reqSent")).isEqualTo(4);
        assertThat(counter(s.sim, "hostA.cm.rejSent")).isEqualTo(1);
        assertThat(counter(s.sim, "hostA.cm.timeouts")).isEqualTo(1);
        assertThat(s.p.link().aToB().framesDropped()).isEqualTo(5);
        assertThat(s.passive).isEmpty();
        assertThat(c.state()).isEqualTo(State.FAILED);
        assertThat(s.a.openConnections()).isZero();
    }

    @Test
    void aLostRepIsRepeatedForTheRepeatedReq() {
        Setup s = setup(FAST, 4, 4, null);
        s.p.link().bToA().setFaults(1.0, 0);
        s.sim.event("heal", () -> s.p.link().bToA().setFaults(0, 0)).schedule(T / 2);
        connect(s, null);
        s.sim.runUntil(10 * T);
        assertThat(s.logA.events).containsExactly("replied", "established");
        assertThat(s.logB.events).containsExactly("established");
        assertThat(s.passive).hasSize(1); // the repeated REQ is recognised, not a second request
        assertThat(counter(s.sim, "hostB.cm.duplicates")).isEqualTo(1);
        // B answers the repeated REQ with its REP and, its own timer running out one firmware command later (it
        // was armed when the first REP left, after INIT2RTR), sends it once more. That copy reaches A while A's
        // QP is still being moved to RTS, so A counts it as a duplicate and sends a single RTU.
        assertThat(counter(s.sim, "hostB.cm.repSent")).isEqualTo(3);
        assertThat(counter(s.sim, "hostB.cm.retransmits")).isEqualTo(1);
        assertThat(counter(s.sim, "hostA.cm.duplicates")).isEqualTo(1);
        assertThat(counter(s.sim, "hostA.cm.rtuSent")).isEqualTo(1);
        assertThat(counter(s.sim, "hostB.cm.stale")).isZero();
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void disconnectTellsThePeerOnceAndFlushesReceivesOnBothSides(boolean loseFirstDrep) {
        Setup s = setup(FAST, 4, 4, null);
        HostPair.Side a = s.p.a();
        HostPair.Side b = s.p.b();
        for (int i = 0; i < 2; i++) {
            assertThat(a.rq().post(100 + i, new SgeList(1).set(a.mr(), 4096L * i, 4096))).isTrue();
        }
        for (int i = 0; i < 3; i++) {
            assertThat(b.rq().post(200 + i, new SgeList(1).set(b.mr(), 4096L * i, 4096))).isTrue();
        }
        Connection c = connect(s, null);
        s.sim.runUntil(T / 4);
        assertThat(c.state()).isEqualTo(State.ESTABLISHED);
        if (loseFirstDrep) {
            s.p.link().bToA().setFaults(1.0, 0);
            s.sim.event("heal", () -> s.p.link().bToA().setFaults(0, 0)).schedule(s.sim.now() + T / 2);
        }
        s.a.disconnect(c, pattern(9, CmMad.DREQ_PRIVATE_DATA_SIZE));
        s.sim.runUntil(20 * T);

        assertThat(s.logA.events).containsExactly("replied", "established", "disconnectCompleted");
        assertThat(s.logB.events).containsExactly("established", "disconnected");
        assertThat(counter(s.sim, "hostA.cm.dreqSent")).isEqualTo(loseFirstDrep ? 2 : 1);
        assertThat(counter(s.sim, "hostB.cm.drepSent")).isEqualTo(loseFirstDrep ? 2 : 1);
        assertThat(counter(s.sim, "hostB.cm.duplicates")).isEqualTo(loseFirstDrep ? 1 : 0);
        assertThat(a.host().adapter().qpState(a.qp().qpn())).isEqualTo(QpState.ERROR);
        assertThat(b.host().adapter().qpState(b.qp().qpn())).isEqualTo(QpState.ERROR);
        assertThat(flushedReceives(a.cq())).containsExactly(100L, 101L);
        assertThat(flushedReceives(b.cq())).containsExactly(200L, 201L, 202L);
        // Both ends forget the connection after their time-wait.
        assertThat(s.a.openConnections()).isZero();
        assertThat(s.b.openConnections()).isZero();
    }

    private static List<Long> flushedReceives(CompletionQueue cq) {
        List<Long> ids = new ArrayList<>();
        for (Completion x = cq.poll(); x != null; x = cq.poll()) {
            assertThat(x.syndrome()).isEqualTo(CqeSyndrome.WR_FLUSH);
            ids.add(x.wrId());
        }
        return ids;
    }

    @Test
    void privateDataLimitsAreEnforcedAndTheMaximumIsAccepted() {
        byte[] req = pattern(10, CmMad.REQ_PRIVATE_DATA_SIZE);
        byte[] rep = pattern(11, CmMad.REP_PRIVATE_DATA_SIZE);
        Simulator sim = new Simulator(5);
        HostPair p = HostPair.createUnconnected(sim, Profile.defaults());
        CmAgent a = p.a().driver().cm();
        CmAgent b = p.b().driver().cm();
        List<String> errors = new ArrayList<>();
        List<Connection> passive = new ArrayList<>();
        b.listen(SERVICE, r -> {
            passive.add(r);
            try {
                b.accept(r, p.b().qp(), 1, 1, new byte[CmMad.REP_PRIVATE_DATA_SIZE + 1], null);
            } catch (IllegalArgumentException e) {
                errors.add(e.getMessage());
            }
            assertThatThrownBy(() -> b.reject(r, new byte[CmMad.REJ_PRIVATE_DATA_SIZE + 1]))
                    .isInstanceOf(IllegalArgumentException.class);
            b.accept(r, p.b().qp(), 1, 1, rep, null);
        });
        assertThatThrownBy(() -> a.connect(p.a().qp(), p.b().driver().ip(), SERVICE, 1, 1,
                new byte[CmMad.REQ_PRIVATE_DATA_SIZE + 1], null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("93 B exceeds the 92 B a REQ");
        assertThatThrownBy(() -> a.connect(p.a().qp(), 0x0A00_0099, SERVICE, 1, 1, null, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("10.0.0.153");
        Log logA = new Log(sim);
        Connection c = a.connect(p.a().qp(), p.b().driver().ip(), SERVICE, 1, 1, req, logA);
        sim.runUntil(1_000_000_000L);
        assertThat(errors).containsExactly("private data of 197 B exceeds the 196 B a REP carries");
        assertThat(passive.get(0).peerPrivateData()).isEqualTo(req);
        assertThat(c.peerPrivateData()).isEqualTo(rep);
        assertThat(logA.events).containsExactly("replied", "established");
        assertThatThrownBy(() -> a.disconnect(c, new byte[CmMad.DREQ_PRIVATE_DATA_SIZE + 1]))
                .isInstanceOf(IllegalArgumentException.class);
        // A QP that is not in INIT cannot be connected again.
        assertThatThrownBy(() -> a.connect(p.a().qp(), p.b().driver().ip(), SERVICE, 1, 1, null, null))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aMadWithNoPostedReceiveBufferIsDroppedAndCounted() {
        Simulator sim = new Simulator(5);
        HostPair p = HostPair.createUnconnected(sim, Profile.defaults());
        CmAgent a = p.a().driver().cm(FAST);
        // B has QP1 but its driver posts no receive buffer.
        HostDriver db = p.b().driver();
        GsiUnit gsi = p.b().host().adapter().gsi();
        gsi.create(db.allocate(4096), 2, db.allocate(64), db.allocate(4096), 2);
        Log logA = new Log(sim);
        a.connect(p.a().qp(), db.ip(), SERVICE, 1, 1, null, logA);
        sim.runUntil(10 * T);
        assertThat(logA.events).containsExactly("failed TIMED_OUT");
        assertThat(counter(sim, "nicB.gsi.dropNoBuffer")).isEqualTo(4 + 1); // four REQs and the timeout REJ
        assertThat(counter(sim, "nicB.gsi.madsReceived")).isZero();
        assertThat(p.link().aToB().framesDelivered()).isEqualTo(5);
    }

    @Test
    void configRejectsImpossibleValues() {
        assertThatThrownBy(() -> new CmAgent.Config(32, 1, 1, 1)).hasMessageContaining("responseTimeout");
        assertThatThrownBy(() -> new CmAgent.Config(1, 16, 1, 1)).hasMessageContaining("maxRetries");
        assertThatThrownBy(() -> new CmAgent.Config(1, 1, 13, 1)).hasMessageContaining("sendLog");
        assertThat(Arrays.asList(FAST.timeoutPs())).containsExactly(1_048_576_000L);
    }
}
