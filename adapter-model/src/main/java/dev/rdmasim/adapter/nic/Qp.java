package dev.rdmasim.adapter.nic;

import dev.rdmasim.adapter.pcie.DmaRequest;
import dev.rdmasim.adapter.transport.ResponderState;
import dev.rdmasim.kernel.Event;

/**
 * The adapter's on-chip state of one reliable-connection QP: the requester's view of its send
 * ring (producer index from doorbells, what has been fetched, the parsed requests in flight and
 * the PSN window) and the responder's view (expected PSN, receive WQEs consumed, the message being
 * received). The static part also lives in host context memory; fetching it on a miss is what the
 * QP-context cache charges for.
 */
final class Qp {
    final int qpn;
    final QpConfig cfg;
    /** Written by the firmware tables (modify commands) and, on a fatal error, by the block that finds it. */
    private QpState state = QpState.INIT;

    // Connection, set by the firmware tables when the QP connects.
    int remoteQpn;
    long peerMac;
    int peerIp;
    int mtu;

    /** The doorbell unit's view: BlueFlame assembly and the time of the last doorbell. */
    final DoorbellUnit.QpDoorbell db;
    /** The fetch engine's view of the send ring and its staging buffer. */
    final WqeFetchEngine.SendRing sq;
    /** The parser's place in the staging buffer. */
    final WqeParser.QpParse parse = new WqeParser.QpParse();
    /** Whether the QP is in the send scheduler's round. */
    final SendScheduler.Turn turn = new SendScheduler.Turn();
    /** The requester transport's ring of requests in flight, PSN window, retries and timer. */
    final RequesterTransport.QpRequests req;

    // Responder.
    final ResponderState rsp;
    int rqConsumed;
    int rqKnown;
    boolean rqFetchInFlight;
    /** The responder's reads of this QP's receive ring and doorbell record, and where they land. */
    final DmaRequest rqRead = new DmaRequest();
    byte[] rqStage;
    /** Receive WQEs fetched ahead, a ring of slots by running index (allocated at the first fetch). */
    byte[] rqCache;
    /** Running index of the first fetched WQE not yet taken, and how many follow it in the cache. */
    int rqCacheFirst;
    int rqCacheCount;
    /** WQEs the ring read in flight brings. */
    int rqFetchCount;
    /** A frame waiting for a receive WQE had the doorbell record read for it: none known then means none posted. */
    boolean rqDbFresh;
    /** The receive WQE a SEND is being scattered into. */
    boolean recvActive;
    int recvWqeIndex;
    final long[] recvAddr;
    final int[] recvLen;
    final int[] recvKey;
    int recvSges;
    long recvOffset;
    boolean recvError;
    // Current inbound WRITE.
    long writeVa;
    long writeRemaining;
    int writeRkey;
    boolean ackQueued;
    int ackSyndrome;
    int packetsSinceAck;
    /** A NAK ends the responder's ability to take more (remote access / invalid request). */
    boolean responderError;

    // Inbound READs being answered, oldest first; at most transport.maxInboundReads (the IRD).
    final long[] readVa;
    final int[] readRkey;
    final long[] readLength;
    final int[] readPsn;
    final int[] readPackets;
    int readHead;
    /** READs held, from their request until their last response packet has left. */
    int readCount;
    /** Position (from readHead) of the READ whose responses are being queued. */
    int readNext;
    /** Response packets of that READ already queued for the wire. */
    int readSent;
    boolean inReadQueue;
    // Responder: writes of the current SEND still in flight, and the CQE waiting for them.
    int recvWritesPending;
    /** When the last byte of the message being received was handed to PCIe (for the receive's lifecycle). */
    long recvPlacedPs = Stage.NOT_REACHED;
    boolean recvCqePending;
    int recvByteCount;
    int recvImmediate;
    boolean recvSolicited;
    boolean recvHasImm;
    boolean recvWriteImm;
    long writeLength;
    int recvSyndrome;
    boolean rqFlushing;
    boolean inRecvCqeQueue;

    Qp(int qpn, QpConfig cfg, int outstanding, int fetchBbs, int bfBytes, int inboundReads) {
        this.qpn = qpn;
        this.cfg = cfg;
        db = new DoorbellUnit.QpDoorbell(bfBytes);
        sq = new WqeFetchEngine.SendRing(fetchBbs);
        req = new RequesterTransport.QpRequests(cfg, outstanding);
        readVa = new long[inboundReads];
        readRkey = new int[inboundReads];
        readLength = new long[inboundReads];
        readPsn = new int[inboundReads];
        readPackets = new int[inboundReads];
        maxReadsIn = inboundReads;
        rsp = new ResponderState(0, (cfg.accessFlags() & dev.rdmasim.adapter.format.AccessFlags.REMOTE_WRITE) != 0,
                (cfg.accessFlags() & dev.rdmasim.adapter.format.AccessFlags.REMOTE_READ) != 0);
        recvAddr = new long[cfg.maxRecvSge()];
        recvLen = new int[cfg.maxRecvSge()];
        recvKey = new int[cfg.maxRecvSge()];
    }

    /** Inbound READs answered at once (responder resources), at most the profile's; set at RTR. */
    int maxReadsIn;

    boolean inboundReadsFull() {
        return readCount >= maxReadsIn;
    }

    QpState state() {
        return state;
    }

    /** Moves the QP to {@code next}; a move the state machine does not allow is an internal error. */
    void moveTo(QpState next) {
        if (!state.canMoveTo(next)) {
            throw new dev.rdmasim.kernel.InvariantViolation("QP " + qpn + " cannot move from " + state + " to " + next);
        }
        state = next;
    }

    int sqMaskBbs() {
        return (1 << cfg.sqLogBbs()) - 1;
    }
}
