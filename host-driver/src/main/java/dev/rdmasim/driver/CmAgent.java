package dev.rdmasim.driver;

import static dev.rdmasim.adapter.config.Parameters.LINK_MTU;
import static dev.rdmasim.adapter.config.Parameters.NIC_MAX_QPS;
import static dev.rdmasim.adapter.config.Parameters.TRANSPORT_MAX_INBOUND_READS;
import static dev.rdmasim.adapter.config.Parameters.TRANSPORT_MAX_OUTBOUND_READS;
import static dev.rdmasim.adapter.config.Parameters.TRANSPORT_RETRY_COUNT;
import static dev.rdmasim.adapter.config.Parameters.TRANSPORT_RNR_RETRY_COUNT;

import dev.rdmasim.adapter.format.BigEndian;
import dev.rdmasim.adapter.format.Command;
import dev.rdmasim.adapter.format.Doorbells;
import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.adapter.nic.AdapterControl;
import dev.rdmasim.adapter.nic.GsiUnit;
import dev.rdmasim.adapter.nic.QpState;
import dev.rdmasim.adapter.wire.CmMad;
import dev.rdmasim.adapter.wire.RoceLayout;
import dev.rdmasim.driver.Connection.Outcome;
import dev.rdmasim.driver.Connection.State;
import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.wave.Signal;
import org.eclipse.collections.impl.map.mutable.primitive.IntObjectHashMap;
import org.eclipse.collections.impl.map.mutable.primitive.LongObjectHashMap;

/**
 * The connection manager of one host: the IB CM protocol for RC connections (IBA vol. 1, chapter 12) run over
 * the adapter's QP1 ({@link GsiUnit}), so its MADs cross the modeled link as RoCEv2 UD frames.
 *
 * <p>Active side: {@link #connect} sends a REQ; a REP moves the QP to RTR and RTS and is reported through
 * {@link Connection.Events#replied}, after which {@link #completeConnect} sends the RTU. Passive side:
 * {@link #listen} on a service ID; a REQ for it is handed to the listener's handler, which
 * {@link #accept}s (QP to RTR, REP sent; RTS when the RTU arrives) or {@link #reject}s (REJ with private data).
 * A REQ for a service nobody listens on is answered by a REJ with reason "invalid service ID". Either side may
 * {@link #disconnect}: its QP goes to error and a DREQ is sent; the peer moves its QP to error, answers with a
 * DREP and is told once.
 *
 * <p>REQ, REP and DREQ are sent again when no answer comes within the response timeout (4.096 us x 2^exponent),
 * up to the retry count; then the connection fails (a REJ with reason "timeout" tells the peer) or, for a DREQ,
 * the disconnect completes anyway. Duplicates are answered from the connection's state: a repeated REQ gets the
 * REP again, a repeated REP the RTU, a repeated DREQ the DREP.
 *
 * <p>Everything goes through the hardware interface: MADs are written into QP1's send ring in host memory and
 * announced by a doorbell through the host CPU; received MADs are read from the receive buffers an event
 * announced, and each buffer is posted again at once. Building or parsing a MAD costs the CPU four WQE builds
 * ({@code host.wqeBuildTime}; a MAD is four 64-byte lines).
 */
public final class CmAgent extends dev.rdmasim.kernel.hw.Module {
    /** 4.096 us, the unit of IB CM timeouts, in picoseconds. */
    static final long TIMEOUT_UNIT_PS = 4_096_000L;

    /**
     * @param responseTimeout exponent of this side's CM response timeout: it waits 4.096 us x 2^responseTimeout for
     *                        an answer, and asks its peer to do the same (0..31)
     * @param maxRetries      times a REQ, REP or DREQ is sent again before giving up (0..15)
     * @param sendLog         log2 of QP1's send ring entries
     * @param recvLog         log2 of QP1's receive buffers
     * @param rnrRetryCount   RNR retries this side asks its peer to make before failing a SEND (7 = forever), sent
     *                        in the REQ and REP; -1 for the profile's {@code transport.rnrRetryCount}
     */
    public record Config(int responseTimeout, int maxRetries, int sendLog, int recvLog, int rnrRetryCount) {
        /** With the profile's {@code transport.rnrRetryCount} asked of the peer. */
        public Config(int responseTimeout, int maxRetries, int sendLog, int recvLog) {
            this(responseTimeout, maxRetries, sendLog, recvLog, -1);
        }

        public Config {
            if (rnrRetryCount < -1 || rnrRetryCount > 7) {
                throw new IllegalArgumentException("rnrRetryCount must be 0..7 (7 = forever) or -1 for the profile's, got "
                        + rnrRetryCount);
            }
            if (responseTimeout < 0 || responseTimeout > 31) {
                throw new IllegalArgumentException("responseTimeout must be 0..31, got " + responseTimeout);
            }
            if (maxRetries < 0 || maxRetries > 15) {
                throw new IllegalArgumentException("maxRetries must be 0..15, got " + maxRetries);
            }
            if (sendLog < 0 || sendLog > 12) {
                throw new IllegalArgumentException("sendLog must be 0..12, got " + sendLog);
            }
            if (recvLog < 0 || recvLog > 12) {
                throw new IllegalArgumentException("recvLog must be 0..12, got " + recvLog);
            }
        }

        /** 2^16 x 4.096 us = 268 ms per try, 15 retries (as Linux RDMA CM), 16 send entries, 32 receive buffers. */
        public static Config defaults() {
            return new Config(16, 15, 4, 5, -1);
        }

        /** The same with {@code rnrRetryCount} asked of the peer. */
        public Config withRnrRetryCount(int count) {
            return new Config(responseTimeout, maxRetries, sendLog, recvLog, count);
        }

        public long timeoutPs() {
            return TIMEOUT_UNIT_PS << responseTimeout;
        }
    }

    /** A listener's handler: a REQ arrived for its service ID. Accept or reject {@code request}, now or later. */
    public interface RequestHandler {
        void requested(Connection request);
    }

    private final HostDriver driver;
    private final AdapterControl nic;
    private final HostMemory memory;
    private final HostCpu cpu;
    private final GsiUnit gsi;
    private final CommandQueue commands;
    private final Config config;
    private final int askedRnrRetry;
    private final int maxInbound;
    private final int maxOutbound;
    private final long caGuid;
    private final long madCostPs;
    private final long sendRing;
    private final long sendRecord;
    private final int sendSlots;
    private final long recvRing;
    private final int recvSlots;
    private final long sendDoorbell;
    private final long recvDoorbell;
    private int sendProducer;
    private int recvConsumer;
    private int nextCommId;
    private final byte[] slot = new byte[GsiUnit.SEND_SLOT];
    private final byte[] received = new byte[GsiUnit.RECV_SLOT];
    private final CmMad out = new CmMad();
    private final CmMad in = new CmMad();

    private final IntObjectHashMap<Connection> byLocalId = new IntObjectHashMap<>();
    /** Passive connections by (peer IP, peer's communication ID), to recognise a repeated REQ. */
    private final LongObjectHashMap<Connection> byPeer = new LongObjectHashMap<>();
    private final LongObjectHashMap<RequestHandler> listeners = new LongObjectHashMap<>();

    private final Counter[] sent = new Counter[7];
    private final Counter[] receivedCount = new Counter[7];
    private final Counter retransmits;
    private final Counter timeouts;
    private final Counter duplicates;
    private final Counter stale;
    private final Counter badMads;
    private final Counter sendDrops;
    private final Counter repostMisses;
    private final Counter established;
    private final Signal openSignal;

    CmAgent(HostDriver driver, Config config) {
        super(driver, "cm");
        this.driver = driver;
        this.nic = driver.nic();
        this.memory = driver.memory();
        this.cpu = driver.cpu();
        this.config = config;
        this.gsi = nic.gsi();
        // QP transitions go through the firmware command queue, as a driver's connection manager's do.
        this.commands = driver.commands();
        this.askedRnrRetry = config.rnrRetryCount() >= 0 ? config.rnrRetryCount()
                : nic.profile().getInt(TRANSPORT_RNR_RETRY_COUNT);
        maxInbound = nic.profile().getInt(TRANSPORT_MAX_INBOUND_READS);
        maxOutbound = nic.profile().getInt(TRANSPORT_MAX_OUTBOUND_READS);
        long mac = driver.mac();
        // EUI-64 from the port's MAC, as a CA GUID is commonly formed.
        caGuid = ((mac >>> 24) ^ 0x02_0000L) << 40 | 0xFF_FEL << 24 | (mac & 0xFF_FFFFL);
        madCostPs = 4 * driver.wqeBuildPs;
        sendSlots = 1 << config.sendLog();
        recvSlots = 1 << config.recvLog();
        sendRing = memory.allocate((long) sendSlots * GsiUnit.SEND_SLOT, HostDriver.PAGE);
        sendRecord = memory.allocate(GsiUnit.SEND_RECORD_BYTES, 64);
        recvRing = memory.allocate((long) recvSlots * GsiUnit.RECV_SLOT, HostDriver.PAGE);
        gsi.create(sendRing, config.sendLog(), sendRecord, recvRing, config.recvLog());
        int maxQps = nic.profile().getInt(NIC_MAX_QPS);
        sendDoorbell = Doorbells.gsiSendDoorbellOffset(maxQps);
        recvDoorbell = Doorbells.gsiRecvDoorbellOffset(maxQps);
        nextCommId = random().nextInt() | 1;
        int[] attrs = {CmMad.ATTR_REQ, CmMad.ATTR_MRA, CmMad.ATTR_REJ, CmMad.ATTR_REP, CmMad.ATTR_RTU, CmMad.ATTR_DREQ, CmMad.ATTR_DREP};
        for (int a : attrs) {
            String n = CmMad.attributeName(a);
            String lower = n.toLowerCase(java.util.Locale.ROOT);
            sent[a - CmMad.ATTR_REQ] = stats().counter(lower + "Sent", "MADs", n + " messages sent (retransmissions included)");
            receivedCount[a - CmMad.ATTR_REQ] = stats().counter(lower + "Received", "MADs", n + " messages received");
        }
        retransmits = stats().counter("retransmits", "MADs", "REQ, REP or DREQ sent again after a response timeout");
        timeouts = stats().counter("timeouts", "connections", "exchanges that ran out of retries");
        duplicates = stats().counter("duplicates", "MADs", "repeated REQ, REP or DREQ answered from the connection state");
        stale = stats().counter("stale", "MADs", "messages for no known connection, or out of place in its state");
        badMads = stats().counter("badMads", "MADs", "received MADs that are not CM messages this agent handles");
        sendDrops = stats().counter("sendDrops", "MADs", "MADs not sent because QP1's send ring or the CPU queue was full");
        repostMisses = stats().counter("repostMisses", "posts", "receive buffer reposts deferred because the CPU queue was full");
        established = stats().counter("established", "connections", "connections established");
        openSignal = signal("connections", 16);
        postReceives();
    }

    public Config config() {
        return config;
    }

    // ---------------------------------------------------------------- passive side

    /** Listens on {@code serviceId}; each REQ for it is handed to {@code handler}. One listener per service ID. */
    public void listen(long serviceId, RequestHandler handler) {
        if (handler == null) {
            throw new IllegalArgumentException("handler must not be null");
        }
        if (listeners.containsKey(serviceId)) {
            throw new IllegalStateException("service ID 0x" + Long.toHexString(serviceId) + " already has a listener");
        }
        listeners.put(serviceId, handler);
    }

    /** Stops listening on {@code serviceId}; later REQs for it are rejected as for no listener. */
    public void stopListening(long serviceId) {
        listeners.remove(serviceId);
    }

    /**
     * Accepts a connection request on {@code qp} (in INIT): the read limits become min(asked, adapter maximum,
     * the peer's opposite limit); the QP goes to RTR with the peer's QPN and PSN and the REP (with up to 196 bytes
     * of private data) is sent. {@code events} hears of the RTU ({@code established}) or of failure.
     */
    public void accept(Connection c, QueuePair qp, int inboundReadLimit, int outboundReadLimit, byte[] privateData,
                       Connection.Events events) {
        checkOwn(c);
        if (c.state != State.REQ_RECEIVED) {
            throw new IllegalStateException(c + " is not a request waiting for an answer");
        }
        checkPrivateData(CmMad.ATTR_REP, privateData);
        checkQp(qp);
        checkLimits(inboundReadLimit, outboundReadLimit);
        c.qp = qp;
        c.events = events == null ? new Connection.Events() {
        } : events;
        c.inboundReadLimit = Math.min(Math.min(inboundReadLimit, maxInbound), c.peerInitiatorDepth);
        c.outboundReadLimit = Math.min(Math.min(outboundReadLimit, maxOutbound), c.peerResponderResources);
        c.localPsn = random().nextInt(1 << 24);
        c.state = State.REP_SENT;
        byte[] data = privateData == null ? null : privateData.clone();
        // The REP goes out once the QP is ready to receive (INIT2RTR done): the peer may send as soon as it has it.
        qpTransition(c, () -> commands.readyToReceive(qp, c.peerQpn, c.peerMac, c.peerIp, c.peerPsn,
                c.inboundReadLimit, (status, q) -> afterTransition(c, status, State.REP_SENT, () -> sendRep(c, data))));
    }

    private void sendRep(Connection c, byte[] privateData) {
        CmMad m = start(CmMad.ATTR_REP, c);
        m.qpn = c.qp.qpn();
        m.startingPsn = c.localPsn;
        m.responderResources = c.inboundReadLimit;
        m.initiatorDepth = c.outboundReadLimit;
        m.rnrRetryCount = askedRnrRetry;
        m.localCaGuid = caGuid;
        m.privateData(privateData, 0, privateData == null ? 0 : privateData.length);
        // The active side said how long it takes to answer and how often to try.
        c.timeoutPs = TIMEOUT_UNIT_PS << c.peerResponseTimeout;
        sendAndArm(c, m, c.peerMaxRetries);
    }

    /** Rejects a connection request, with up to 148 bytes of private data for the active side. */
    public void reject(Connection c, byte[] privateData) {
        checkOwn(c);
        if (c.state != State.REQ_RECEIVED) {
            throw new IllegalStateException(c + " is not a request waiting for an answer");
        }
        checkPrivateData(CmMad.ATTR_REJ, privateData);
        CmMad m = start(CmMad.ATTR_REJ, c);
        m.rejectReason = CmMad.REJ_CONSUMER_DEFINED;
        m.messageRejected = CmMad.REJECTED_REQ;
        m.privateData(privateData, 0, privateData == null ? 0 : privateData.length);
        sendOnce(m, c.peerMac, c.peerIp);
        forget(c, State.FAILED);
    }

    // ---------------------------------------------------------------- active side

    /**
     * Connects {@code qp} (in INIT) to whoever listens on {@code serviceId} at {@code remoteIp}, asking for the given
     * read limits (capped by the adapter's) and carrying up to 92 bytes of private data in the REQ.
     *
     * @throws IllegalArgumentException for oversized private data, limits outside 0..255, or an unresolved address
     */
    public Connection connect(QueuePair qp, int remoteIp, long serviceId, int inboundReadLimit, int outboundReadLimit,
                              byte[] privateData, Connection.Events events) {
        checkPrivateData(CmMad.ATTR_REQ, privateData);
        checkQp(qp);
        checkLimits(inboundReadLimit, outboundReadLimit);
        long mac = driver.neighbourMac(remoteIp);
        if (mac < 0) {
            throw new IllegalArgumentException("no neighbour entry for " + ipString(remoteIp) + " (address not resolved)");
        }
        Connection c = open(true, serviceId, remoteIp, mac);
        c.qp = qp;
        c.events = events == null ? new Connection.Events() {
        } : events;
        c.inboundReadLimit = Math.min(inboundReadLimit, maxInbound);
        c.outboundReadLimit = Math.min(outboundReadLimit, maxOutbound);
        c.localPsn = random().nextInt(1 << 24);
        c.transactionId = (long) nic.ip() << 32 | (c.localCommId & 0xFFFF_FFFFL);
        CmMad m = start(CmMad.ATTR_REQ, c);
        m.serviceId = serviceId;
        m.localCaGuid = caGuid;
        m.qpn = qp.qpn();
        m.startingPsn = c.localPsn;
        m.responderResources = c.inboundReadLimit;
        m.initiatorDepth = c.outboundReadLimit;
        m.remoteCmResponseTimeout = config.responseTimeout();
        m.localCmResponseTimeout = config.responseTimeout();
        m.maxCmRetries = config.maxRetries();
        m.retryCount = nic.profile().getInt(TRANSPORT_RETRY_COUNT);
        m.rnrRetryCount = askedRnrRetry;
        m.pathMtuCode = CmMad.mtuCode(nic.profile().getInt(LINK_MTU));
        m.localIp = nic.ip();
        m.remoteIp = remoteIp;
        m.privateData(privateData, 0, privateData == null ? 0 : privateData.length);
        c.state = State.REQ_SENT;
        c.timeoutPs = config.timeoutPs();
        sendAndArm(c, m, config.maxRetries());
        return c;
    }

    /** Active side, after {@code replied}: sends the RTU; the connection is established. */
    public void completeConnect(Connection c) {
        checkOwn(c);
        if (c.state != State.REP_RECEIVED) {
            throw new IllegalStateException(c + " has no REP to complete");
        }
        CmMad m = start(CmMad.ATTR_RTU, c);
        c.state = State.ESTABLISHED;
        m.encode(c.lastSent, 0); // kept to answer a repeated REP
        post(c.lastSent, c.peerMac, c.peerIp, CmMad.ATTR_RTU);
        established.inc();
        c.events.established(c);
    }

    // ---------------------------------------------------------------- either side

    /** Disconnects an established connection: the QP goes to error (its work is flushed) and a DREQ is sent. */
    public void disconnect(Connection c, byte[] privateData) {
        checkOwn(c);
        if (c.state != State.ESTABLISHED && c.state != State.REP_RECEIVED && c.state != State.REP_SENT) {
            throw new IllegalStateException(c + " is not connected");
        }
        checkPrivateData(CmMad.ATTR_DREQ, privateData);
        c.timer.cancel();
        qpError(c);
        if (!c.active) {
            c.transactionId = (long) nic.ip() << 32 | (c.localCommId & 0xFFFF_FFFFL);
        }
        CmMad m = start(CmMad.ATTR_DREQ, c);
        m.qpn = c.peerQpn;
        m.privateData(privateData, 0, privateData == null ? 0 : privateData.length);
        c.state = State.DREQ_SENT;
        c.timeoutPs = config.timeoutPs();
        sendAndArm(c, m, config.maxRetries());
    }

    // ---------------------------------------------------------------- QP transitions (one place, for the firmware command path)

    /**
     * Starts a firmware command that moves the connection's QP; {@code post} posts it (false: no room). Until its
     * answer, messages that would move the QP again are treated as duplicates.
     */
    private void qpTransition(Connection c, java.util.function.BooleanSupplier post) {
        c.modifying = true;
        if (!post.getAsBoolean()) {
            throw new InvariantViolation(fullName() + ": no room in the command queue for " + c);
        }
    }

    /**
     * The answer of a command that moved the connection's QP: if the connection is still in {@code expected},
     * go on with {@code next}; a failed command fails the connection.
     */
    private void afterTransition(Connection c, int status, State expected, Runnable next) {
        c.modifying = false;
        if (c.state != expected) {
            return; // Rejected, timed out or disconnected meanwhile.
        }
        if (status != Command.STATUS_OK) {
            throw new InvariantViolation(fullName() + ": the firmware refused a transition of " + c + ": "
                    + Command.statusName(status));
        }
        next.run();
    }

    private void qpError(Connection c) {
        if (c.qp != null && !c.qpErrored) {
            c.qpErrored = true;
            if (!commands.modifyQp(c.qp, Command.OP_2ERR_QP, (status, q) -> { })) {
                throw new InvariantViolation(fullName() + ": no room in the command queue to stop " + c);
            }
        }
    }

    // ---------------------------------------------------------------- receive

    /** An event said QP1 wrote a MAD into the next receive buffer. */
    void madArrived() {
        long addr = recvRing + (long) (recvConsumer & (recvSlots - 1)) * GsiUnit.RECV_SLOT;
        memory.read(addr, received, 0, GsiUnit.RECV_SLOT);
        recvConsumer++;
        cpu.charge(madCostPs);
        postReceives();
        if (!in.decode(received, GsiUnit.MAD_OFFSET)) {
            badMads.inc();
            return;
        }
        receivedCount[in.attributeId - CmMad.ATTR_REQ].inc();
        long srcMac = BigEndian.i64(received, GsiUnit.RECV_SRC_MAC) & 0xFFFF_FFFF_FFFFL;
        int srcIp = BigEndian.i32(received, GsiUnit.RECV_SRC_IP);
        switch (in.attributeId) {
            case CmMad.ATTR_REQ -> onReq(in, srcMac, srcIp);
            case CmMad.ATTR_REP -> onRep(in);
            case CmMad.ATTR_REJ -> onRej(in);
            case CmMad.ATTR_RTU -> onRtu(in);
            case CmMad.ATTR_DREQ -> onDreq(in, srcMac, srcIp);
            case CmMad.ATTR_DREP -> onDrep(in);
            default -> stale.inc(); // MRA: this model never delays its answers, and ignores a peer's
        }
    }

    private void onReq(CmMad m, long srcMac, int srcIp) {
        Connection known = byPeer.get(peerKey(srcIp, m.localCommId));
        if (known != null) {
            duplicates.inc();
            if (known.state == State.REP_SENT && !known.modifying) {
                post(known.lastSent, known.peerMac, known.peerIp, CmMad.ATTR_REP); // our REP was lost
            }
            return; // Still deciding, or already past: nothing to repeat.
        }
        RequestHandler h = listeners.get(m.serviceId);
        if (h == null) {
            out.clear();
            out.attributeId = CmMad.ATTR_REJ;
            out.transactionId = m.transactionId;
            out.remoteCommId = m.localCommId;
            out.rejectReason = CmMad.REJ_INVALID_SERVICE_ID;
            out.messageRejected = CmMad.REJECTED_REQ;
            sendOnce(out, srcMac, srcIp);
            return;
        }
        Connection c = open(false, m.serviceId, srcIp, srcMac);
        c.remoteCommId = m.localCommId;
        c.transactionId = m.transactionId;
        c.peerQpn = m.qpn;
        c.peerPsn = m.startingPsn;
        c.peerResponderResources = m.responderResources;
        c.peerInitiatorDepth = m.initiatorDepth;
        c.peerResponseTimeout = m.localCmResponseTimeout;
        c.peerMaxRetries = m.maxCmRetries;
        c.peerRetryCount = m.retryCount;
        c.peerRnrRetry = m.rnrRetryCount;
        c.takePrivateData(m);
        c.state = State.REQ_RECEIVED;
        byPeer.put(peerKey(srcIp, c.remoteCommId), c);
        h.requested(c);
    }

    private void onRep(CmMad m) {
        Connection c = byLocalId.get(m.remoteCommId);
        if (c == null || !c.active) {
            stale.inc();
            return;
        }
        if (c.state == State.ESTABLISHED) {
            duplicates.inc();
            post(c.lastSent, c.peerMac, c.peerIp, CmMad.ATTR_RTU); // our RTU was lost
            return;
        }
        if (c.state != State.REQ_SENT || c.modifying) {
            if (c.state == State.REP_RECEIVED || c.modifying) {
                duplicates.inc();
            } else {
                stale.inc();
            }
            return;
        }
        c.timer.cancel();
        c.remoteCommId = m.localCommId;
        c.peerQpn = m.qpn;
        c.peerPsn = m.startingPsn;
        c.peerResponderResources = m.responderResources;
        c.peerInitiatorDepth = m.initiatorDepth;
        c.inboundReadLimit = Math.min(c.inboundReadLimit, m.initiatorDepth);
        c.outboundReadLimit = Math.min(c.outboundReadLimit, m.responderResources);
        c.peerRnrRetry = m.rnrRetryCount;
        c.takePrivateData(m);
        // INIT2RTR and RTR2RTS, posted together; the application hears of the REP once the QP can send.
        qpTransition(c, () -> commands.readyToReceive(c.qp, c.peerQpn, c.peerMac, c.peerIp, c.peerPsn,
                c.inboundReadLimit, (s1, q) -> { })
                && commands.readyToSend(c.qp, c.localPsn, -1, c.peerRnrRetry, c.outboundReadLimit,
                        (status, q) -> afterTransition(c, status, State.REQ_SENT, () -> {
                            c.state = State.REP_RECEIVED;
                            c.events.replied(c);
                        })));
    }

    private void onRej(CmMad m) {
        Connection c = byLocalId.get(m.remoteCommId);
        if (c == null || (c.state != State.REQ_SENT && c.state != State.REP_SENT)) {
            stale.inc();
            return;
        }
        c.timer.cancel();
        c.rejectReason = m.rejectReason;
        c.takePrivateData(m);
        Outcome why = m.rejectReason == CmMad.REJ_INVALID_SERVICE_ID ? Outcome.NO_LISTENER
                : m.rejectReason == CmMad.REJ_TIMEOUT ? Outcome.TIMED_OUT : Outcome.REJECTED;
        qpErrorIfPassive(c);
        forget(c, State.FAILED);
        c.events.failed(c, why);
    }

    private void onRtu(CmMad m) {
        Connection c = byLocalId.get(m.remoteCommId);
        if (c == null || c.state != State.REP_SENT) {
            stale.inc();
            return;
        }
        if (c.modifying) {
            duplicates.inc();
            return;
        }
        c.timer.cancel();
        // Established once the QP can send (RTR2RTS done), with the retry counts the REQ asked for.
        qpTransition(c, () -> commands.readyToSend(c.qp, c.localPsn, c.peerRetryCount, c.peerRnrRetry, c.outboundReadLimit,
                (status, q) -> afterTransition(c, status, State.REP_SENT, () -> {
                    c.state = State.ESTABLISHED;
                    established.inc();
                    c.events.established(c);
                })));
    }

    private void onDreq(CmMad m, long srcMac, int srcIp) {
        Connection c = byLocalId.get(m.remoteCommId);
        if (c == null) {
            stale.inc();
            return;
        }
        switch (c.state) {
            case ESTABLISHED, REP_SENT, REP_RECEIVED -> {
                c.timer.cancel();
                qpError(c);
                c.state = State.CLOSED;
                sendDrep(c, m);
                armTimeWait(c);
                if (!c.peerDisconnectTold) {
                    c.peerDisconnectTold = true;
                    c.events.disconnected(c);
                }
            }
            case DREQ_SENT -> sendDrep(c, m); // Both sides disconnect at once: each answers the other.
            case CLOSED -> {
                duplicates.inc();
                sendDrep(c, m); // our DREP was lost
            }
            default -> stale.inc();
        }
    }

    private void sendDrep(Connection c, CmMad dreq) {
        out.clear();
        out.attributeId = CmMad.ATTR_DREP;
        out.transactionId = dreq.transactionId;
        out.localCommId = c.localCommId;
        out.remoteCommId = c.remoteCommId;
        sendOnce(out, c.peerMac, c.peerIp);
    }

    private void onDrep(CmMad m) {
        Connection c = byLocalId.get(m.remoteCommId);
        if (c == null || c.state != State.DREQ_SENT) {
            stale.inc();
            return;
        }
        c.timer.cancel();
        c.state = State.CLOSED;
        armTimeWait(c);
        c.events.disconnectCompleted(c);
    }

    // ---------------------------------------------------------------- timers

    void timerFired(Connection c) {
        switch (c.state) {
            case REQ_SENT, REP_SENT, DREQ_SENT -> {
                if (c.retriesLeft > 0) {
                    c.retriesLeft--;
                    retransmits.inc();
                    post(c.lastSent, c.peerMac, c.peerIp, BigEndian.u16(c.lastSent, CmMad.OFF_ATTRIBUTE_ID));
                    c.timer.schedule(now() + c.timeoutPs);
                    return;
                }
                timeouts.inc();
                if (c.state == State.DREQ_SENT) {
                    c.state = State.CLOSED;
                    armTimeWait(c);
                    c.events.disconnectCompleted(c);
                    return;
                }
                // Tell the peer, in case only its answers were lost.
                CmMad m = start(CmMad.ATTR_REJ, c);
                m.rejectReason = CmMad.REJ_TIMEOUT;
                m.messageRejected = c.state == State.REQ_SENT ? CmMad.REJECTED_OTHER : CmMad.REJECTED_REP;
                sendOnce(m, c.peerMac, c.peerIp);
                qpErrorIfPassive(c);
                forget(c, State.FAILED);
                c.events.failed(c, Outcome.TIMED_OUT);
            }
            case CLOSED -> forget(c, State.CLOSED); // end of time-wait
            default -> throw new InvariantViolation(fullName() + ": timer of " + c + " fired");
        }
    }

    private void armTimeWait(Connection c) {
        c.timer.schedule(now() + c.timeoutPs);
    }

    /** A passive side that sent its REP has its QP in RTR: a failed exchange leaves it in error. */
    private void qpErrorIfPassive(Connection c) {
        if (!c.active && c.state == State.REP_SENT) {
            qpError(c);
        }
    }

    // ---------------------------------------------------------------- sending

    private CmMad start(int attributeId, Connection c) {
        out.clear();
        out.attributeId = attributeId;
        out.transactionId = c.transactionId;
        out.localCommId = c.localCommId;
        out.remoteCommId = c.remoteCommId;
        return out;
    }

    private void sendAndArm(Connection c, CmMad m, int retries) {
        m.encode(c.lastSent, 0);
        c.retriesLeft = retries;
        post(c.lastSent, c.peerMac, c.peerIp, m.attributeId);
        c.timer.reschedule(now() + c.timeoutPs);
    }

    private final byte[] onceBuf = new byte[CmMad.SIZE];

    private void sendOnce(CmMad m, long mac, int ip) {
        m.encode(onceBuf, 0);
        post(onceBuf, mac, ip, m.attributeId);
    }

    /**
     * Writes the MAD into the next send ring entry and rings QP1's doorbell through the CPU. A full ring (the
     * record the adapter writes says so) or CPU queue drops it: the protocol's retries cover the loss.
     */
    private void post(byte[] mad, long mac, int ip, int attributeId) {
        cpu.charge(driver.pollPs); // reading the send record
        int consumer = memory.getIntBE(sendRecord);
        if (sendProducer - consumer >= sendSlots || !cpu.hasRoom(1)) {
            sendDrops.inc();
            return;
        }
        BigEndian.putI64(slot, GsiUnit.SEND_DST_MAC, mac);
        BigEndian.putI32(slot, GsiUnit.SEND_DST_IP, ip);
        BigEndian.putI32(slot, GsiUnit.SEND_DST_QPN, GsiUnit.QPN);
        BigEndian.putI32(slot, GsiUnit.SEND_QKEY, RoceLayout.GSI_QKEY);
        BigEndian.putI32(slot, GsiUnit.SEND_LENGTH, CmMad.SIZE);
        System.arraycopy(mad, 0, slot, GsiUnit.MAD_OFFSET, CmMad.SIZE);
        // The adapter reads the entry only after the doorbell below, which the CPU issues after the build.
        memory.write(sendRing + (long) (sendProducer & (sendSlots - 1)) * GsiUnit.SEND_SLOT, slot, 0, slot.length);
        sendProducer++;
        cpu.charge(madCostPs);
        byte[] d = cpu.mmio(sendDoorbell, 8, driver.mmioStorePs);
        BigEndian.putI64(d, 0, sendProducer & 0xFFFF_FFFFL);
        cpu.kick();
        sent[attributeId - CmMad.ATTR_REQ].inc();
    }

    /** Tells QP1 every buffer up to one ring ahead of the consumer is posted. */
    private void postReceives() {
        if (!cpu.hasRoom(1)) {
            repostMisses.inc(); // the next MAD's repost covers this one too
            return;
        }
        byte[] d = cpu.mmio(recvDoorbell, 8, driver.mmioStorePs);
        BigEndian.putI64(d, 0, (recvConsumer + recvSlots) & 0xFFFF_FFFFL);
        cpu.kick();
    }

    // ---------------------------------------------------------------- bookkeeping

    private Connection open(boolean active, long serviceId, int peerIp, long peerMac) {
        int id;
        do {
            id = nextCommId++;
        } while (id == 0 || byLocalId.containsKey(id));
        Connection c = new Connection(this, active, id, serviceId, peerIp, peerMac);
        byLocalId.put(id, c);
        openSignal.set(byLocalId.size());
        return c;
    }

    private void forget(Connection c, State finalState) {
        c.timer.cancel();
        c.state = finalState;
        byLocalId.remove(c.localCommId);
        if (!c.active) {
            byPeer.remove(peerKey(c.peerIp, c.remoteCommId));
        }
        openSignal.set(byLocalId.size());
    }

    /** Connections this agent still tracks (including those in time-wait). */
    public int openConnections() {
        return byLocalId.size();
    }

    private static long peerKey(int ip, int commId) {
        return (long) ip << 32 | (commId & 0xFFFF_FFFFL);
    }

    private void checkOwn(Connection c) {
        if (c.agent != this) {
            throw new IllegalArgumentException(c + " belongs to " + c.agent.fullName() + ", not " + fullName());
        }
    }

    private void checkQp(QueuePair qp) {
        if (qp.driver() != driver) {
            throw new IllegalArgumentException("QP " + qp.qpn() + " belongs to " + qp.driver().name() + ", not " + driver.name());
        }
        if (nic.qpState(qp.qpn()) != QpState.INIT) {
            throw new IllegalStateException("QP " + qp.qpn() + " is " + nic.qpState(qp.qpn()) + "; a connection needs it in INIT");
        }
    }

    private static void checkLimits(int inbound, int outbound) {
        if (inbound < 0 || inbound > 255 || outbound < 0 || outbound > 255) {
            throw new IllegalArgumentException("read limits must be 0..255, got inbound " + inbound + ", outbound " + outbound);
        }
    }

    private static void checkPrivateData(int attributeId, byte[] data) {
        int max = CmMad.privateDataSize(attributeId);
        if (data != null && data.length > max) {
            throw new IllegalArgumentException("private data of " + data.length + " B exceeds the " + max + " B a "
                    + CmMad.attributeName(attributeId) + " carries");
        }
    }

    static String ipString(int ip) {
        return (ip >>> 24) + "." + (ip >>> 16 & 0xFF) + "." + (ip >>> 8 & 0xFF) + "." + (ip & 0xFF);
    }
}
