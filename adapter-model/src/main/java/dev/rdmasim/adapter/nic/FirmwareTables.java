package dev.rdmasim.adapter.nic;

import static dev.rdmasim.adapter.config.Parameters.*;

import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.format.AccessFlags;
import dev.rdmasim.adapter.format.Command;
import dev.rdmasim.adapter.format.Doorbells;
import dev.rdmasim.adapter.format.SendWqeBuilder;
import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.Simulator;
import java.util.BitSet;
import org.eclipse.collections.impl.map.mutable.primitive.IntIntHashMap;
import org.eclipse.collections.impl.map.mutable.primitive.IntObjectHashMap;

/**
 * The firmware's object tables: which CQs, QPs, memory keys and protection domains exist, with their numbers
 * allocated lowest-free, and the effect of every object command. Each effect lives in one try* method: it checks
 * its inputs and, when they pass, changes the tables and the blocks' per-object state (contexts in context memory,
 * key contexts, a QP's connection and state), and returns a {@code Command.STATUS_*} code; a refusal leaves its
 * reason in {@link #refusal()}. The command unit calls them after the firmware's latency; the adapter's public
 * create/modify/destroy methods are the time-zero setup path, the same try* applied at once.
 *
 * <p>It is also the blocks' lookup of QPs and CQs by number ({@link QpTable}).
 */
final class FirmwareTables implements QpTable, CqTable {
    /** What the firmware is built with, taken from the profile once. */
    record Params(int maxQps, int maxCqs, int maxMrs, int maxPds, long maxCqDepth, long maxInline, long maxSendSge,
            long maxRecvSge, long maxReceiveDepth, long maxRegistration, int moderationCount, long moderationPeriodPs,
            int outstandingPerQp, int fetchMaxBbs, int blueFlameBytes, int maxInboundReads, int maxOutboundReads,
            int retryCount, int rnrRetryCount, int mtu) {
        static Params of(Profile p) {
            return new Params(p.getInt(NIC_MAX_QPS), p.getInt(NIC_MAX_CQS), p.getInt(NIC_MAX_MRS), p.getInt(NIC_MAX_PDS),
                    p.getLong(NDK_MAX_CQ_DEPTH), p.getLong(NDK_MAX_INLINE_DATA_SIZE), p.getLong(NDK_MAX_INITIATOR_REQUEST_SGE),
                    p.getLong(NDK_MAX_RECEIVE_REQUEST_SGE), p.getLong(NDK_MAX_RECEIVE_QUEUE_DEPTH),
                    p.getLong(NDK_MAX_REGISTRATION_SIZE), p.getInt(CQ_MODERATION_COUNT), p.getLong(CQ_MODERATION_PERIOD),
                    p.getInt(NIC_MAX_OUTSTANDING_PER_QP), Math.max(1, p.getInt(NIC_WQE_FETCH_MAX_BYTES) / SendWqeBuilder.BB),
                    p.getInt(NIC_BLUEFLAME_BYTES), p.getInt(TRANSPORT_MAX_INBOUND_READS),
                    p.getInt(TRANSPORT_MAX_OUTBOUND_READS), p.getInt(TRANSPORT_RETRY_COUNT),
                    p.getInt(TRANSPORT_RNR_RETRY_COUNT), p.getInt(LINK_MTU));
        }
    }

    /** The first QP number a data QP gets: 0 and 1 are the special QPs of the IB architecture. */
    static final int FIRST_DATA_QPN = 2;

    private final Params params;
    private final Simulator sim;
    /** The adapter's name, for refusals and event names. */
    private final String owner;
    private final HostMemory memory;
    private final ContextMemory contexts;
    private final KeyUnit keys;
    private final WqeCredits credits;
    private final WqeFetchEngine fetch;
    private final WqeParser parser;
    private CqeWriter cqe;
    private SendScheduler scheduler;
    private RequesterTransport req;
    private Transmitter tx;
    private Responder responder;
    private RecvWqePrefetcher rq;
    private PayloadWriter payload;
    private final IntObjectHashMap<Qp> qps = new IntObjectHashMap<>();
    private final IntObjectHashMap<Cq> cqs = new IntObjectHashMap<>();
    // The last QP and CQ looked up: blocks look up the same few again and again, one hash probe saved per hit.
    // Cleared whenever its table changes.
    private Qp lastQp;
    private Cq lastCq;
    // Numbers in use, for the firmware's lowest-free allocation.
    private final BitSet cqNumbers = new BitSet();
    private final BitSet qpNumbers = new BitSet();
    private final BitSet keyIndices = new BitSet();
    private final BitSet pdNumbers = new BitSet();
    /** Protection domain of each registered key index, so a PD in use is not freed. */
    private final IntIntHashMap keyPd = new IntIntHashMap();
    /** The whole key (index and variant byte) registered at each key index. */
    private final IntIntHashMap keyValue = new IntIntHashMap();
    private String refusal;

    FirmwareTables(Params params, Simulator sim, String owner, HostMemory memory, ContextMemory contexts, KeyUnit keys,
            WqeCredits credits, WqeFetchEngine fetch, WqeParser parser) {
        this.params = params;
        this.sim = sim;
        this.owner = owner;
        this.memory = memory;
        this.contexts = contexts;
        this.keys = keys;
        this.credits = credits;
        this.fetch = fetch;
        this.parser = parser;
    }

    /**
     * The blocks downstream that objects' effects reach, and that hold per-QP state a destroy must find idle: the
     * send scheduler, requester transport, transmitter, responder, receive-WQE prefetcher, payload writer and CQE writer.
     */
    void connect(SendScheduler sendScheduler, RequesterTransport requester, Transmitter transmitter, Responder resp,
            RecvWqePrefetcher recvQueue, PayloadWriter payloadWriter, CqeWriter cqeWriter) {
        this.scheduler = sendScheduler;
        this.req = requester;
        this.tx = transmitter;
        this.responder = resp;
        this.rq = recvQueue;
        this.payload = payloadWriter;
        this.cqe = cqeWriter;
    }

    // Object commands (firmware effects).
    //
    // Each command's effect lives in one try* method: it checks its inputs and, when they pass, changes the
    // adapter's state, and returns a Command.STATUS_* code. The command unit calls them for commands the driver
    // posts through the command queue, after the firmware's latency. The public methods are the time-zero setup
    // path (the demo, tests, HostDriver's synchronous calls): the same try* applied at once, throwing
    // IllegalArgumentException where a command would answer with a failure status.

    /** Lowest free CQ number, or -1 when all {@code nic.maxCqs} are in use. */
    public int freeCqn() {
        return lowestFree(cqNumbers, 0, params.maxCqs());
    }

    /**
     * Lowest free QP number, or -1 when all are in use. 0 and 1 are reserved (the subnet management and general
     * services QPs: the GSI unit answers on QP1, and Wireshark decodes anything sent to QP 1 as a MAD).
     */
    public int freeQpn() {
        return lowestFree(qpNumbers, FIRST_DATA_QPN, params.maxQps());
    }

    /** Lowest free memory key index (0 is reserved), or -1 when all {@code nic.maxMrs} are in use. */
    public int freeKeyIndex() {
        return lowestFree(keyIndices, 1, params.maxMrs());
    }

    /** Lowest free protection domain (0 is reserved), or -1 when all {@code nic.maxPds} are in use. */
    public int freePd() {
        return lowestFree(pdNumbers, 1, params.maxPds());
    }

    private static int lowestFree(BitSet used, int first, int limit) {
        int n = used.nextClearBit(first);
        return n < limit ? n : -1;
    }

    /** Why the last try* method refused, for exceptions and diagnostics. */
    String refusal() {
        return refusal;
    }

    private int refuse(int status, String why) {
        refusal = owner + ": " + why;
        return status;
    }

    private void require(int status) {
        if (status != Command.STATUS_OK) {
            throw new IllegalArgumentException(refusal);
        }
    }

    /** NO_RESOURCES for a number outside {@code first..limit-1} (-1: none was free), else OK. */
    private int numberStatus(String kind, int n, int first, int limit) {
        if (n < 0) {
            return refuse(Command.STATUS_NO_RESOURCES, "every " + kind + " number is in use");
        }
        if (n < first || n >= limit) {
            return refuse(Command.STATUS_NO_RESOURCES, kind + " number " + n + " outside " + first + ".." + (limit - 1));
        }
        return Command.STATUS_OK;
    }

    /** Allocates protection domain {@link #freePd()}; returns it. */
    public int allocatePd() {
        int pd = freePd();
        require(tryAllocatePd(pd));
        return pd;
    }

    int tryAllocatePd(int pd) {
        int s = numberStatus("PD", pd, 1, params.maxPds());
        if (s == Command.STATUS_OK && pdNumbers.get(pd)) {
            s = refuse(Command.STATUS_BAD_PARAM, "PD " + pd + " already allocated");
        }
        if (s == Command.STATUS_OK) {
            pdNumbers.set(pd);
        }
        return s;
    }

    public boolean pdAllocated(int pd) {
        return pd > 0 && pdNumbers.get(pd);
    }

    /** Frees a protection domain no QP or memory key uses any more. */
    public void deallocatePd(int pd) {
        require(tryDeallocatePd(pd));
    }

    int tryDeallocatePd(int pd) {
        if (!pdAllocated(pd)) {
            return refuse(Command.STATUS_BAD_RESOURCE, "no PD " + pd);
        }
        for (Qp qp : qps.values()) {
            if (qp.cfg.pd() == pd) {
                return refuse(Command.STATUS_RESOURCE_BUSY, "PD " + pd + " is used by QP " + qp.qpn);
            }
        }
        for (int index = keyIndices.nextSetBit(0); index >= 0; index = keyIndices.nextSetBit(index + 1)) {
            if (keyPd.get(index) == pd) {
                return refuse(Command.STATUS_RESOURCE_BUSY, "PD " + pd + " is used by key index " + index);
            }
        }
        pdNumbers.clear(pd);
        return Command.STATUS_OK;
    }

    /** Creates a CQ of 2^logSize entries whose ring and doorbell record the driver allocated. */
    public void createCq(int cqn, long ring, int logSize, long dbRecord) {
        require(tryCreateCq(cqn, ring, logSize, dbRecord));
    }

    int tryCreateCq(int cqn, long ring, int logSize, long dbRecord) {
        int s = numberStatus("CQ", cqn, 0, params.maxCqs());
        if (s != Command.STATUS_OK) {
            return s;
        }
        if (cqs.containsKey(cqn)) {
            return refuse(Command.STATUS_BAD_PARAM, "CQ " + cqn + " already exists");
        }
        if (!cqSizeOk(logSize)) {
            return refuse(Command.STATUS_BAD_PARAM, "CQ of 2^" + logSize + " entries: expected 2^0..2^22 within ndk.maxCqDepth");
        }
        Cq cq = new Cq(cqn, ring, logSize, dbRecord);
        cq.moderationCount = params.moderationCount();
        cq.moderationPeriodPs = params.moderationPeriodPs();
        cq.moderationTimer = sim.event(owner + ".cq" + cqn + ".moderation", () -> cqe.moderationExpired(cq));
        cqs.put(cqn, cq);
        cqNumbers.set(cqn);
        contexts.writeCqContext(cqn, ring, logSize, dbRecord);
        return Command.STATUS_OK;
    }

    private boolean cqSizeOk(int logSize) {
        // A driver rounds a CQ of depth d up to the next power of two above d (one entry stays unused, as mlx5's
        // max_cqe = 2^22 - 1 says), so the largest ring is the one that depth ndk.maxCqDepth needs.
        return logSize >= 0 && logSize <= 22 && (logSize == 0 || (1L << (logSize - 1)) <= params.maxCqDepth());
    }

    /**
     * Interrupt moderation of a CQ: an event is raised after {@code count} CQEs since the arm was
     * used, or {@code periodPs} after the first, whichever comes first (count 1 = no moderation).
     */
    public void moderateCq(int cqn, int count, long periodPs) {
        require(tryModerateCq(cqn, count, periodPs));
    }

    int tryModerateCq(int cqn, int count, long periodPs) {
        if (count < 1 || count > 0xFFFF || periodPs < 0 || periodPs > 65_535_000_000L) {
            return refuse(Command.STATUS_BAD_PARAM,
                    "moderation count must be 1..65535 and period 0..65535us, got " + count + ", " + periodPs + " ps");
        }
        Cq cq = cqs.get(cqn);
        if (cq == null) {
            return refuse(Command.STATUS_BAD_RESOURCE, "no CQ " + cqn);
        }
        cq.moderationCount = count;
        cq.moderationPeriodPs = periodPs;
        return Command.STATUS_OK;
    }

    /**
     * Moves a CQ to a new ring of 2^logSize entries (RESIZE). CQEs already issued land in the old ring; every
     * later one goes to the new ring at its running index, so the driver reads the old ring up to
     * {@link #cqProducer} as of the resize, then the new one. Refused if the unconsumed CQEs (by the
     * doorbell record, which firmware reads) would not fit.
     */
    public void resizeCq(int cqn, long ring, int logSize) {
        require(tryResizeCq(cqn, ring, logSize));
    }

    int tryResizeCq(int cqn, long ring, int logSize) {
        Cq cq = cqs.get(cqn);
        if (cq == null) {
            return refuse(Command.STATUS_BAD_RESOURCE, "no CQ " + cqn);
        }
        if (cq.overflowed) {
            return refuse(Command.STATUS_BAD_RESOURCE_STATE, "CQ " + cqn + " overflowed");
        }
        if (!cqSizeOk(logSize)) {
            return refuse(Command.STATUS_BAD_PARAM, "CQ of 2^" + logSize + " entries: expected 2^0..2^22 within ndk.maxCqDepth");
        }
        long consumer = cq.producer - ((cq.producer - (memory.getIntBE(cq.dbRecord + Doorbells.OFF_CQ_SET_CI) & 0xFF_FFFF)) & 0xFF_FFFF);
        if (cq.producer - consumer > 1L << logSize) {
            return refuse(Command.STATUS_BAD_PARAM, "CQ " + cqn + " holds " + (cq.producer - consumer)
                    + " unconsumed CQEs, more than 2^" + logSize);
        }
        cq.ring = ring;
        cq.logSize = logSize;
        cqe.contextChanged(cqn);
        contexts.writeCqContext(cqn, ring, logSize, cq.dbRecord);
        return Command.STATUS_OK;
    }

    /** Running count of CQEs the adapter has issued to a CQ. */
    public long cqProducer(int cqn) {
        return cq(cqn).producer;
    }

    public boolean cqExists(int cqn) {
        return cqs.containsKey(cqn);
    }

    /** Destroys a CQ no QP uses and no pending completion names. */
    public void destroyCq(int cqn) {
        require(tryDestroyCq(cqn));
    }

    int tryDestroyCq(int cqn) {
        Cq cq = cqs.get(cqn);
        if (cq == null) {
            return refuse(Command.STATUS_BAD_RESOURCE, "no CQ " + cqn);
        }
        for (Qp qp : qps.values()) {
            if (qp.cfg.sendCqn() == cqn || qp.cfg.recvCqn() == cqn) {
                return refuse(Command.STATUS_RESOURCE_BUSY, "CQ " + cqn + " is used by QP " + qp.qpn);
            }
        }
        if (cqe.hasJobsFor(cqn)) {
            return refuse(Command.STATUS_RESOURCE_BUSY, "CQ " + cqn + " has completions being written");
        }
        cq.moderationTimer.cancel();
        cqs.remove(cqn);
        lastCq = null;
        cqNumbers.clear(cqn);
        cqe.contextChanged(cqn);
        contexts.clearCqContext(cqn);
        return Command.STATUS_OK;
    }

    /** Creates a QP in INIT state. */
    public void createQp(int qpn, QpConfig cfg) {
        require(tryCreateQp(qpn, cfg));
    }

    int tryCreateQp(int qpn, QpConfig cfg) {
        int s = numberStatus("QP", qpn, FIRST_DATA_QPN, params.maxQps());
        if (s != Command.STATUS_OK) {
            return s;
        }
        if (qps.containsKey(qpn)) {
            return refuse(Command.STATUS_BAD_PARAM, "QP " + qpn + " already exists");
        }
        if (!cqs.containsKey(cfg.sendCqn()) || !cqs.containsKey(cfg.recvCqn())) {
            return refuse(Command.STATUS_BAD_RESOURCE, "QP " + qpn + " names a CQ that does not exist");
        }
        if (cfg.maxInline() > params.maxInline()
                || cfg.maxSendSge() > params.maxSendSge()
                || cfg.maxRecvSge() > params.maxRecvSge()
                || (1L << cfg.rqLogSize()) > Long.highestOneBit(2 * params.maxReceiveDepth() - 1)
                || (1L << cfg.sqLogBbs()) > MAX_SEND_RING_BBS) {
            return refuse(Command.STATUS_BAD_PARAM, "QP " + qpn + " asks beyond the adapter's limits (ndk.maxInlineDataSize,"
                    + " SGEs, receive depth, the 32768-block send ring): " + cfg);
        }
        Qp qp = new Qp(qpn, cfg, params.outstandingPerQp(), params.fetchMaxBbs(), params.blueFlameBytes(),
                params.maxInboundReads());
        req.open(qp, owner + ".qp" + qpn + ".timer");
        qps.put(qpn, qp);
        qpNumbers.set(qpn);
        contexts.writeQpContext(qpn, cfg);
        return Command.STATUS_OK;
    }

    public boolean qpExists(int qpn) {
        return qps.containsKey(qpn);
    }

    /**
     * Destroys a QP with nothing in flight: no request, fetch, read, receive write or completion of it pending
     * anywhere in the adapter. A busy QP is refused (RESOURCE_BUSY): move it to ERROR and let it drain first.
     */
    public void destroyQp(int qpn) {
        require(tryDestroyQp(qpn));
    }

    int tryDestroyQp(int qpn) {
        Qp qp = qps.get(qpn);
        if (qp == null) {
            return refuse(Command.STATUS_BAD_RESOURCE, "no QP " + qpn);
        }
        if (inFlight(qp)) {
            return refuse(Command.STATUS_RESOURCE_BUSY, "QP " + qpn + " still has work in flight");
        }
        req.close(qp);
        qps.remove(qpn);
        lastQp = null;
        qpNumbers.clear(qpn);
        contexts.clearQpContext(qpn);
        return Command.STATUS_OK;
    }

    /** Whether any block still holds work of the QP: every block holding state of it is asked. */
    private boolean inFlight(Qp qp) {
        return fetch.busyWith(qp) || parser.busyWith(qp) || scheduler.busyWith(qp) || req.busyWith(qp)
                || tx.busyWith(qp) || responder.busyWith(qp) || payload.busyWith(qp) || rq.busyWith(qp)
                || cqe.hasJobsForQp(qp.qpn);
    }

    /** Connects a QP to its peer and moves it to ready-to-send (the INIT->RTR->RTS modify sequence). */
    public void connectQp(int qpn, int remoteQpn, long peerMac, int peerIp, int sendPsn, int expectedPsn) {
        connectQp(qpn, remoteQpn, peerMac, peerIp, sendPsn, expectedPsn, QpState.READY_TO_SEND);
    }

    /**
     * Connects a QP to its peer and moves it to {@code target}: READY_TO_RECEIVE (INIT->RTR, the responder's
     * step when it sends its REP; a later {@link #modifyQp} to READY_TO_SEND completes it) or READY_TO_SEND.
     */
    public void connectQp(int qpn, int remoteQpn, long peerMac, int peerIp, int sendPsn, int expectedPsn, QpState target) {
        if (target != QpState.READY_TO_RECEIVE && target != QpState.READY_TO_SEND) {
            throw new IllegalArgumentException("a connect moves a QP to READY_TO_RECEIVE or READY_TO_SEND, not " + target);
        }
        Qp qp = qp(qpn);
        toReadyToReceive(qp, remoteQpn, peerMac, peerIp, expectedPsn);
        if (target == QpState.READY_TO_SEND) {
            toReadyToSend(qp, sendPsn, -1, -1);
        } else {
            // The send PSN is agreed now (it went out in the REP); the move to ready-to-send comes later.
            setSendPsn(qp, sendPsn, -1, -1);
        }
    }

    /** The RTR half of a connection: who the peer is and the first PSN expected from it. */
    private void toReadyToReceive(Qp qp, int remoteQpn, long peerMac, int peerIp, int expectedPsn) {
        qp.remoteQpn = remoteQpn;
        qp.peerMac = peerMac;
        qp.peerIp = peerIp;
        qp.mtu = params.mtu();
        responder.open(qp, expectedPsn);
        qp.moveTo(QpState.READY_TO_RECEIVE);
    }

    /** The RTS half: the first PSN this side sends; WQEs posted meanwhile may now be fetched. */
    private void toReadyToSend(Qp qp, int sendPsn, int retryCount, int rnrRetry) {
        setSendPsn(qp, sendPsn, retryCount, rnrRetry);
        qp.moveTo(QpState.READY_TO_SEND);
        fetch.queue(qp);
    }

    /** The send PSN and the retry counts (-1: the profile's) of a QP about to send. */
    private void setSendPsn(Qp qp, int sendPsn, int retryCount, int rnrRetry) {
        req.start(qp, sendPsn, retryCount >= 0 ? retryCount : params.retryCount(),
                rnrRetry >= 0 ? rnrRetry : params.rnrRetryCount(), params.maxOutboundReads());
    }

    /** Registers a memory region: key context plus translation table the driver filled. */
    public void registerMemory(int key, int pd, int access, int logPageSize, long va, long length, long mttAddr) {
        require(tryRegisterMemory(key, pd, access, logPageSize, va, length, mttAddr));
    }

    int tryRegisterMemory(int key, int pd, int access, int logPageSize, long va, long length, long mttAddr) {
        int index = key >>> 8;
        int s = numberStatus("key index", key < 0 ? -1 : index, 1, params.maxMrs());
        if (s != Command.STATUS_OK) {
            return s;
        }
        if (length <= 0 || length > params.maxRegistration() || logPageSize < 12 || logPageSize > 30
                || access < 0 || access > AccessFlags.ALL) {
            return refuse(Command.STATUS_BAD_PARAM, "region of " + length + " B, 2^" + logPageSize
                    + " B pages, access 0x" + Integer.toHexString(access) + ": out of range");
        }
        keys.writeContext(key, pd, access, logPageSize, va, length, mttAddr, true);
        keyIndices.set(index);
        keyPd.put(index, pd);
        keyValue.put(index, key);
        return Command.STATUS_OK;
    }

    public void deregisterMemory(int key) {
        require(tryDeregisterMemory(key));
    }

    int tryDeregisterMemory(int key) {
        int index = key >>> 8;
        if (!keyRegistered(key) || keyValue.get(index) != key) {
            return refuse(Command.STATUS_BAD_RESOURCE, "no key 0x" + Integer.toHexString(key));
        }
        keys.writeContext(key, 0, 0, 12, 0, 0, 0, false);
        keyIndices.clear(index);
        keyPd.remove(index);
        keyValue.remove(index);
        return Command.STATUS_OK;
    }

    /** Whether a registration holds key index {@code key >> 8}. */
    public boolean keyRegistered(int key) {
        return key >= 0 && keyIndices.get(key >>> 8);
    }



    /**
     * Moves a QP to {@code next} (the modify-QP command); transitions the state machine does not
     * allow are refused. Moving to ERROR flushes its outstanding requests, send and receive. A reset
     * clears the responder's connection state and is refused while the QP has work in flight.
     */
    public void modifyQp(int qpn, QpState next) {
        require(tryModifyQp(qpn, next, null));
    }

    /**
     * Moves a QP to {@code next} with the attributes that transition takes: to READY_TO_RECEIVE the peer
     * (remote QPN, MAC, IP) and the expected PSN, to READY_TO_SEND from READY_TO_RECEIVE the send PSN.
     */
    public void modifyQp(int qpn, QpState next, QpPeer peer) {
        require(tryModifyQp(qpn, next, peer));
    }

    int tryModifyQp(int qpn, QpState next, QpPeer peer) {
        Qp qp = qps.get(qpn);
        if (qp == null) {
            return refuse(Command.STATUS_BAD_RESOURCE, "no QP " + qpn);
        }
        if (!qp.state().canMoveTo(next)) {
            return refuse(Command.STATUS_BAD_RESOURCE_STATE, "QP " + qpn + " cannot move from " + qp.state() + " to " + next);
        }
        boolean connects = next == QpState.READY_TO_RECEIVE || (next == QpState.READY_TO_SEND && qp.state() == QpState.READY_TO_RECEIVE);
        if (peer != null && connects) {
            if (next == QpState.READY_TO_RECEIVE) {
                toReadyToReceive(qp, peer.remoteQpn(), peer.mac(), peer.ip(), peer.expectedPsn());
                if (peer.maxReadsIn() >= 0) {
                    responder.limitReads(qp, peer.maxReadsIn());
                }
            } else {
                toReadyToSend(qp, peer.sendPsn(), peer.retryCount(), peer.rnrRetry());
                if (peer.maxReadsOut() >= 0) {
                    req.limitReads(qp, Math.min(peer.maxReadsOut(), params.maxOutboundReads()));
                }
            }
            return Command.STATUS_OK;
        }
        if (next == QpState.RESET) {
            // The reset clears the responder's connection state, which blocks still working on the QP would use.
            if (inFlight(qp)) {
                return refuse(Command.STATUS_RESOURCE_BUSY, "QP " + qpn + " still has work in flight (let it drain"
                        + " in ERROR before the reset)");
            }
            responder.reset(qp);
        }
        qp.moveTo(next);
        if (next == QpState.READY_TO_SEND) {
            fetch.queue(qp); // WQEs posted while it was not yet ready
        }
        if (next == QpState.ERROR) {
            req.queue(qp);
            responder.startRecvFlush(qp);
        }
        return Command.STATUS_OK;
    }

    /** A one-line dump of a QP's requester state, for diagnostics. */
    public String describeQp(int qpn) {
        Qp qp = qp(qpn);
        var r = qp.req;
        return "QP " + qpn + " " + qp.state() + ": sqPi=" + qp.sq.producerIndex() + " fetched=" + qp.sq.fetchedBb()
                + " parsed=" + qp.parse.parsedBb()
                + " inFlight=" + r.inFlight() + " sent=" + r.sent() + " nextPsn=" + r.nextPsn() + " unacked=" + r.unackedPsn()
                + " fetchQueued=" + qp.sq.queued() + " fetching=" + qp.sq.readsInFlight() + " parseQueued=" + qp.parse.queued()
                + " txQueued=" + qp.turn.queued() + " parseStalledOnInline=" + parser.stalledOnInline() + " inlineFree=" + credits.inlineFree()
                + " wqeCacheFree=" + credits.wqeCacheFree() + " cqeQueued=" + cqe.queuedJobs()
                + " timer=" + r.deadline() + " retries=" + r.retriesLeft()
                + (r.inFlight() > 0 ? " head[op=" + r.wr(0).opcode + " psn=" + r.wr(0).firstPsn + "+" + r.wr(0).packets
                + " queued=" + r.wr(0).packetsQueued + " responses=" + r.wr(0).responses + " writes=" + r.wr(0).pendingWrites + "]" : "")
                + " responder[expected=" + qp.resp.transport().expectedPsn() + " inboundReads=" + qp.resp.reads()
                + " readSent=" + qp.tx.readSent() + "]";
    }

    /**
     * Fails if a QP holds requests, or WQEs its doorbells announced, that nothing will move on: called once the
     * simulation has run out of events, when a live QP always has its retransmission timer pending.
     */
    void checkNothingOutstanding() {
        int stuck = -1;
        for (Qp qp : qps.values()) {
            boolean work = qp.req.inFlight() > 0
                    || (qp.state() == QpState.READY_TO_SEND && qp.parse.parsedBb() != qp.sq.producerIndex());
            if (work && (stuck < 0 || qp.qpn < stuck)) {
                stuck = qp.qpn;
            }
        }
        if (stuck >= 0) {
            throw new InvariantViolation(owner + ": the simulation ran out of events with requests outstanding: "
                    + describeQp(stuck));
        }
    }

    public QpState qpState(int qpn) {
        return qp(qpn).state();
    }

    // Lookups for blocks.

    @Override
    public Qp qp(int qpn) {
        Qp qp = qpOrNull(qpn);
        if (qp == null) {
            throw new IllegalArgumentException(owner + ": no QP " + qpn);
        }
        return qp;
    }

    @Override
    public Qp qpOrNull(int qpn) {
        Qp last = lastQp;
        if (last != null && last.qpn == qpn) {
            return last;
        }
        Qp qp = qps.get(qpn);
        if (qp != null) {
            lastQp = qp;
        }
        return qp;
    }

    Cq cqOrNull(int cqn) {
        Cq last = lastCq;
        if (last != null && last.cqn == cqn) {
            return last;
        }
        Cq cq = cqs.get(cqn);
        if (cq != null) {
            lastCq = cq;
        }
        return cq;
    }

    @Override
    public Cq cq(int cqn) {
        Cq cq = cqOrNull(cqn);
        if (cq == null) {
            throw new InvariantViolation(owner + ": no CQ " + cqn);
        }
        return cq;
    }

    @Override
    public void cqOverflowed(Cq cq) {
        for (Qp qp : qps.values()) {
            if (qp.cfg.sendCqn() == cq.cqn || qp.cfg.recvCqn() == cq.cqn) {
                qp.moveTo(QpState.ERROR);
            }
        }
    }
}
