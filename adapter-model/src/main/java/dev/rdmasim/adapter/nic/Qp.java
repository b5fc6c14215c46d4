package dev.rdmasim.adapter.nic;

/**
 * The adapter's on-chip state of one reliable-connection QP, split by owner: each part is a nested class of the
 * block that alone writes it (its fields private to that block), and other blocks read it through its accessors.
 * The static part (the configuration) also lives in host context memory; fetching it on a miss is what the
 * QP-context cache charges for. The QP's state changes only through {@link #moveTo}, which asserts the state
 * machine's transitions.
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

    /** The responder's view: transport checks, the message being received, inbound READs, the ACK owed. */
    final Responder.QpResponder resp;
    /** The receive-WQE prefetcher's view of the receive queue. */
    final RecvWqePrefetcher.QpRecvQueue rq = new RecvWqePrefetcher.QpRecvQueue();
    /** The payload writer's count of the received message's writes in flight. */
    final PayloadWriter.QpWrites writes = new PayloadWriter.QpWrites();
    /** The transmitter's place for the QP's ACKs and READ responses. */
    final Transmitter.QpTx tx = new Transmitter.QpTx();

    Qp(int qpn, QpConfig cfg, int outstanding, int fetchBbs, int bfBytes, int inboundReads) {
        this.qpn = qpn;
        this.cfg = cfg;
        db = new DoorbellUnit.QpDoorbell(bfBytes);
        sq = new WqeFetchEngine.SendRing(fetchBbs);
        req = new RequesterTransport.QpRequests(cfg, outstanding);
        resp = new Responder.QpResponder(cfg, inboundReads);
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
