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
    QpState state = QpState.INIT;

    // Connection.
    int remoteQpn;
    long peerMac;
    int peerIp;
    int mtu;

    // Requester: send ring.
    /** Producer counter in basic blocks, as the last doorbell announced it (16 bits). */
    int sqPi;
    /** Basic blocks fetched into the staging buffer (16-bit counter). */
    int fetchedBb;
    /** Basic blocks requested by fetches, arrived or not (16-bit counter). */
    int issuedBb;
    /** Most fetch reads in flight per QP; a power of two, so fetch ring indices wrap with a mask. */
    static final int MAX_FETCHES = 4;
    /** Fetch reads in flight for this QP, oldest first. */
    final int[] fetchLen = new int[MAX_FETCHES];
    final boolean[] fetchDone = new boolean[MAX_FETCHES];
    int fetchHead;
    int fetchCount;
    /** Basic blocks parsed out of the staging buffer (16-bit counter). */
    int parsedBb;
    final byte[] staging;
    final int stagingBbs;
    /**
     * Per staging slot: the WQE starting there was written whole by BlueFlame, not fetched. The fetch engine sets
     * it when it places such a WQE; the parser reads and clears it, so the request records how it came.
     */
    final boolean[] blueFlameStaged;
    boolean inFetchQueue;
    boolean inParseQueue;
    /** When the last doorbell (or BlueFlame write) for this QP reached the adapter. */
    long doorbellPs = Stage.NOT_REACHED;
    boolean waitingForContext;
    /** The context fill for this QP completed and has not been used yet. */
    boolean contextFilled;

    // Requester: requests in flight, oldest first.
    final Wr[] wrs;
    int wrHead;
    int wrCount;
    /** Requests (counted from wrHead) whose packets have all been queued for transmission. */
    int wrSent;
    int nextPsn;
    /** Oldest PSN not yet acknowledged (and not waiting for a READ response): where go-back-N resumes. */
    int unackedPsn;
    /** A READ re-request was made for this missing response PSN (one per gap). */
    boolean readRetryArmed;
    int readRetryPsn;
    /** Newest PSN the responder acknowledged. */
    int ackedPsn;
    int retriesLeft;
    int rnrRetriesLeft;
    /** Retries after a timeout or sequence NAK this QP was connected with (restored on progress). */
    int retryCount;
    boolean inTxQueue;
    Event retransmitTimer;
    /** When the retransmission timer really expires; MAX_VALUE when stopped. */
    long timerDeadline = Long.MAX_VALUE;
    /** Waiting out an RNR NAK's delay before resending. */
    boolean rnrWaiting;
    /** Retransmission requested by a NAK or timeout: go back to this PSN. */
    boolean rewind;

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

    boolean inRetireQueue;
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

    // BlueFlame staging: the WQE being written to the doorbell page.
    final byte[] bf;
    int bfFill;

    Qp(int qpn, QpConfig cfg, int outstanding, int fetchBbs, int bfBytes, int inboundReads) {
        this.qpn = qpn;
        this.cfg = cfg;
        readVa = new long[inboundReads];
        readRkey = new int[inboundReads];
        readLength = new long[inboundReads];
        readPsn = new int[inboundReads];
        readPackets = new int[inboundReads];
        maxReadsIn = inboundReads;
        int sqWqes = 1 << cfg.sqLogBbs();
        int cap = Math.max(1, Math.min(outstanding, sqWqes));
        wrs = new Wr[cap];
        for (int i = 0; i < cap; i++) {
            wrs[i] = new Wr(cfg.maxSendSge(), cfg.maxInline());
        }
        int bbs = Integer.highestOneBit(Math.max(2 * fetchBbs, 8) - 1) << 1;
        stagingBbs = bbs;
        staging = new byte[bbs * 64];
        blueFlameStaged = new boolean[bbs];
        rsp = new ResponderState(0, (cfg.accessFlags() & dev.rdmasim.adapter.format.AccessFlags.REMOTE_WRITE) != 0,
                (cfg.accessFlags() & dev.rdmasim.adapter.format.AccessFlags.REMOTE_READ) != 0);
        recvAddr = new long[cfg.maxRecvSge()];
        recvLen = new int[cfg.maxRecvSge()];
        recvKey = new int[cfg.maxRecvSge()];
        bf = new byte[Math.max(bfBytes, 64)];
    }

    /** Inbound READs answered at once (responder resources), at most the profile's; set at RTR. */
    int maxReadsIn;
    /** Outbound READs outstanding at once (initiator depth); set at RTS. */
    int maxReadsOut;

    boolean inboundReadsFull() {
        return readCount >= maxReadsIn;
    }

    Wr wr(int i) {
        int k = wrHead + i;
        return wrs[k < wrs.length ? k : k - wrs.length];
    }

    boolean ringFull() {
        return wrCount == wrs.length;
    }

    /** Basic blocks announced by doorbells but not yet fetched. */
    int bbsToFetch() {
        return (sqPi - issuedBb) & 0xFFFF;
    }

    int sqMaskBbs() {
        return (1 << cfg.sqLogBbs()) - 1;
    }
}
