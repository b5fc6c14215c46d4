package dev.rdmasim.adapter.nic;

import static dev.rdmasim.adapter.config.Parameters.*;

import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.format.Cqe;
import dev.rdmasim.adapter.format.CqeSyndrome;
import dev.rdmasim.adapter.format.WqeOpcode;
import dev.rdmasim.adapter.transport.Psn;
import dev.rdmasim.adapter.wire.Aeth;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.stats.Counter;
import java.util.function.Consumer;

/**
 * The requester side of the RC transport: a QP's ring of parsed requests from the parser to their completion.
 * It decides each QP's next request packet when the send scheduler gives the QP its turn (within the window of
 * unacknowledged PSNs, behind a READ_FENCE, within the READs the QP may have outstanding) and has the transmitter
 * build it; it arms the QP's retransmission timer when a packet leaves. Acknowledgements retire requests in order
 * and hand their completions to the CQE writer (or, unsignaled, to the lifecycle listeners), giving back the
 * inline buffer bytes and the ring entries upstream. A sequence NAK, an RNR NAK or a timeout rewinds the QP to
 * the PSN to resend (go-back-N) and the payload is read again; a remote-access or invalid-request NAK, or running
 * out of retries, completes the failing request with an error, flushes the rest and moves the QP to error.
 */
final class RequesterTransport extends Module implements SendScheduler.Requester {
    static final int INFINITE_RNR_RETRY = 7;

    /** What the block is built with, taken from the profile once. */
    record Params(int maxUnacked, long ackTimeoutPs, long rnrTimerPs, int ackEvery, int mtu) {
        static Params of(Profile p) {
            return new Params(p.getInt(TRANSPORT_MAX_UNACKED_PSNS), p.getLong(TRANSPORT_ACK_TIMEOUT),
                    p.getLong(TRANSPORT_RNR_TIMER), Math.max(1, p.getInt(TRANSPORT_ACK_COALESCE)), p.getInt(LINK_MTU));
        }
    }

    /** The transmitter's side for request packets. */
    interface Packetizer {
        /**
         * Builds packet {@code k} (at {@code psn}) of request {@code w} into the next transmit slot, payload read
         * issued or inline bytes copied, without handing it on: {@link KeyUnit#OK}, {@link KeyUnit#WAIT} (a key or
         * translation line is on its way; the slot is not taken) or the syndrome of a failed local key check.
         */
        int buildRequest(Qp qp, Wr w, int k, int psn, boolean ackRequest);

        /** Hands the packet just built on to emission. */
        void commitRequest();

        /** Something may be sent now. */
        void pump();
    }

    /** Told about every request retired without a CQE (unsignaled successes). */
    interface Retirements {
        void retired(int qpn, int wqeIndex, int wqeOpcode, long bytes, int syndrome, long[] stamps);
    }

    private final Params params;
    private final WorkClock work;
    private final QpTable qps;
    private final WqeCredits credits;
    private final WqeFetchEngine fetch;
    private final CqeWriter cqe;
    private final SendScheduler scheduler;
    private final Retirements retirements;
    private Packetizer tx;
    private Consumer<Qp> recvFlush;
    private final IntRing retireQueue = new IntRing(16);
    /** Requests retired so far, successfully or not, signaled or not: the requester's forward progress. */
    private long retired;
    private final Counter retransmits;
    private final Counter fenceWaits;
    private final Counter timeouts;

    RequesterTransport(Module parent, Params params, WorkClock work, QpTable qps, WqeCredits credits,
            WqeFetchEngine fetch, CqeWriter cqe, SendScheduler scheduler, Retirements retirements) {
        super(parent, "req");
        this.params = params;
        this.work = work;
        this.qps = qps;
        this.credits = credits;
        this.fetch = fetch;
        this.cqe = cqe;
        this.scheduler = scheduler;
        this.retirements = retirements;
        retransmits = stats().counter("rewinds", "events", "go-back-N rewinds (sequence NAK, RNR NAK or timeout)");
        fenceWaits = stats().counter("fenceWaits", "events",
                "times a READ_FENCE request was held back for an earlier READ still completing");
        timeouts = stats().counter("timeouts", "events", "retransmission timer expiries");
    }

    /** Packets go to the transmitter; a QP this side fails has its receive queue flushed by the receiver. */
    void connect(Packetizer transmitter, Consumer<Qp> receiveFlush) {
        this.tx = transmitter;
        this.recvFlush = receiveFlush;
    }

    long retired() {
        return retired;
    }

    /** A QP has parsed requests to send (or, in error, to flush). */
    void queue(Qp qp) {
        if (qp.state == QpState.ERROR) {
            flushAll(qp);
            return;
        }
        scheduler.add(qp);
        tx.pump();
    }

    /** Decides the next request packet of {@code qp} and has it built: 1 = more to send, 0 = nothing more now, -1 = wait. */
    @Override
    public int nextRequestPacket(Qp qp) {
        if (qp.state != QpState.READY_TO_SEND || qp.wrSent >= qp.wrCount || qp.rnrWaiting) {
            return 0;
        }
        Wr w = qp.wr(qp.wrSent);
        if (w.syndrome != 0) {
            // A WQE that failed validation: it never reaches the wire and fails the QP.
            qp.wrSent++;
            failFrom(qp, qp.wrSent - 1, w.syndrome);
            return 0;
        }
        boolean read = w.opcode == WqeOpcode.RDMA_READ;
        if (read && w.responses == w.packets) {
            // Its last responses came in while it waited to be asked again: there is nothing left to ask.
            w.packetsQueued = w.packets;
            qp.wrSent++;
            fetch.sentOne(qp);
            return qp.wrSent < qp.wrCount ? 1 : 0;
        }
        // A READ asked again asks from its first missing response on (the responder answers a duplicate READ
        // from the PSN and range it names); a first request has none yet.
        int k = read ? w.responses : w.packetsQueued;
        int psn = Psn.add(w.firstPsn, k);
        if (Psn.diff(psn, qp.unackedPsn) >= params.maxUnacked()) {
            return 0; // Window full; an ACK requeues the QP.
        }
        if (k == 0 && w.fence && readsUnfinished(qp)) {
            fenceWaits.inc();
            return 0; // Fenced: it starts once the earlier READs are complete, whose completion requeues the QP.
        }
        if (read && w.packetsQueued == 0) {
            if (qp.maxReadsOut == 0) {
                qp.wrSent++;
                failFrom(qp, qp.wrSent - 1, CqeSyndrome.LOCAL_QP_OP);
                return 0;
            }
            if (readsInFlight(qp) >= qp.maxReadsOut) {
                return 0; // Its READ slots are full (ORD); a completing READ requeues the QP.
            }
        }
        boolean last = read || k == w.packets - 1;
        boolean ackRequest = last || ((Psn.diff(psn, qp.unackedPsn) + 1) % params.ackEvery() == 0);
        int st = tx.buildRequest(qp, w, k, psn, ackRequest);
        if (st == KeyUnit.WAIT) {
            return -1;
        }
        if (st != KeyUnit.OK) {
            qp.wrSent++;
            failFrom(qp, qp.wrSent - 1, st);
            return 0;
        }
        w.packetsQueued = read ? w.packets : k + 1;
        if (w.packetsQueued == w.packets) {
            qp.wrSent++;
            fetch.sentOne(qp);
        }
        tx.commitRequest();
        return qp.wrSent < qp.wrCount ? 1 : 0;
    }

    /** A request packet of {@code qp} left at {@code t}: the retransmission timer runs from the first one. */
    void packetSent(Qp qp, long t) {
        if (qp.timerDeadline == Long.MAX_VALUE) {
            restartTimerAt(qp, t + params.ackTimeoutPs());
        }
    }

    /** Whether a READ handed to the wire before the next request is not complete (responses or their writes). */
    private static boolean readsUnfinished(Qp qp) {
        for (int i = 0; i < qp.wrSent; i++) {
            Wr w = qp.wr(i);
            if (w.opcode == WqeOpcode.RDMA_READ && (w.responses < w.packets || w.pendingWrites > 0)) {
                return true;
            }
        }
        return false;
    }

    /** READs of the QP handed to the wire whose responses have not all arrived. */
    private static int readsInFlight(Qp qp) {
        int n = 0;
        for (int i = 0; i < qp.wrSent; i++) {
            Wr w = qp.wr(i);
            if (w.opcode == WqeOpcode.RDMA_READ && w.responses < w.packets) {
                n++;
            }
        }
        return n;
    }

    /** An ACK (or the implicit ACK of a READ response) for every PSN up to {@code psn}. */
    void acknowledge(Qp qp, int psn) {
        if (Psn.diff(psn, qp.nextPsn) >= 0) {
            return; // For PSNs never assigned: a stray or corrupt acknowledgement.
        }
        // The responder's acknowledgement only ever moves forward; a call with an older PSN (a READ
        // whose response writes have now left) re-runs retirement against the newest one.
        if (Psn.diff(psn, qp.ackedPsn) > 0) {
            qp.ackedPsn = psn;
        }
        psn = qp.ackedPsn;
        boolean progress = false;
        while (qp.wrCount > 0 && qp.wrSent > 0) {
            Wr w = qp.wr(0);
            boolean read = w.opcode == WqeOpcode.RDMA_READ;
            if (Psn.diff(w.lastPsn(), psn) > 0 || (read && (w.responses < w.packets || w.pendingWrites > 0))) {
                break;
            }
            if (!retireHead(qp, 0)) {
                break;
            }
            progress = true;
        }
        // An ACK never covers READ data that has not arrived: stop at the first response missing.
        // Requests hold consecutive PSNs in ring order, so none past the first one starting after psn matters.
        for (int i = 0; i < qp.wrCount; i++) {
            Wr w = qp.wr(i);
            if (Psn.diff(psn, w.firstPsn) < 0) {
                break;
            }
            if (w.opcode == WqeOpcode.RDMA_READ && w.responses < w.packets
                    && Psn.diff(psn, Psn.add(w.firstPsn, w.responses)) >= 0) {
                psn = Psn.add(w.firstPsn, w.responses - 1);
                break;
            }
        }
        if (Psn.diff(psn, qp.unackedPsn) >= 0) {
            qp.unackedPsn = Psn.add(psn, 1);
            qp.retriesLeft = qp.retryCount;
            progress = true;
        }
        if (progress) {
            if (qp.wrCount > 0) {
                restartTimer(qp, params.ackTimeoutPs());
            } else {
                stopTimer(qp);
            }
            fetch.requeue(qp);
            queue(qp);
        }
    }

    /** Retires the oldest request with {@code syndrome} (0 = success); false if the CQE writer is full. */
    private boolean retireHead(Qp qp, int syndrome) {
        Wr w = qp.wr(0);
        if (cqe.full()) {
            if (!qp.inRetireQueue) {
                qp.inRetireQueue = true;
                retireQueue.add(qp.qpn);
            }
            return false;
        }
        w.stamp(Stage.ACKED, work.at());
        retired++;
        if (w.inline) {
            credits.releaseInline(w.length);
        }
        int err = syndrome != 0 ? syndrome : w.syndrome;
        if (w.signaled || err != 0) {
            CqeWriter.Job j = cqe.claim();
            j.cqn = qp.cfg.sendCqn();
            j.qpn = qp.qpn;
            j.opcode = err != 0 ? Cqe.REQ_ERR : Cqe.REQ;
            j.wqeOpcode = w.opcode;
            j.wqeCounter = w.wqeIndex;
            j.byteCount = (int) w.length;
            j.syndrome = err;
            j.report = true;
            j.bytes = w.length;
            System.arraycopy(w.stamps, 0, j.stamps, 0, j.stamps.length);
            cqe.commit();
        } else {
            retirements.retired(qp.qpn, w.wqeIndex, w.opcode, w.length, 0, w.stamps);
        }
        qp.wrHead = qp.wrHead + 1 == qp.wrs.length ? 0 : qp.wrHead + 1;
        qp.wrCount--;
        qp.wrSent--;
        return true;
    }

    /** The CQE writer has room again: finish retirements that waited for it. */
    void cqeSpace() {
        while (!retireQueue.isEmpty() && !cqe.full()) {
            Qp qp = qps.qp(retireQueue.poll());
            qp.inRetireQueue = false;
            if (qp.state == QpState.ERROR) {
                flush(qp);
            } else {
                acknowledge(qp, Psn.add(qp.unackedPsn, -1));
            }
        }
    }

    /** A NAK from the responder. */
    void nak(Qp qp, int psn, int syndrome) {
        int kind = Aeth.kind(syndrome);
        int code = Aeth.value(syndrome);
        if (kind == Aeth.KIND_NAK && code == 0) {
            acknowledge(qp, Psn.add(psn, -1));
            rewind(qp, psn);
            return;
        }
        if (kind == Aeth.KIND_RNR_NAK) {
            acknowledge(qp, Psn.add(psn, -1));
            // An RNR retry count of 7 means retry forever (InfiniBand convention).
            if (qp.rnrRetriesLeft != INFINITE_RNR_RETRY && --qp.rnrRetriesLeft < 0) {
                failAt(qp, psn, CqeSyndrome.RNR_RETRY_EXC);
                return;
            }
            // Resend from the refused PSN only after the RNR delay, without spending a retry. The wait starts
            // before the rewind, which would otherwise resend at once.
            qp.rnrWaiting = true;
            rewind(qp, psn);
            restartTimer(qp, params.rnrTimerPs());
            return;
        }
        acknowledge(qp, Psn.add(psn, -1));
        failAt(qp, psn, code == 2 ? CqeSyndrome.REMOTE_ACCESS : code == 1 ? CqeSyndrome.REMOTE_INVAL_REQ
                : CqeSyndrome.REMOTE_OP);
    }

    /** A request failed locally (e.g. a READ response cannot be written: bad local key): complete it with the error. */
    void failRequest(Qp qp, Wr w, int syndrome) {
        for (int i = 0; i < qp.wrCount; i++) {
            if (qp.wr(i) == w) {
                failFrom(qp, i, syndrome);
                return;
            }
        }
    }

    /**
     * A READ response arrived ahead of the one expected (of this READ or a later one): re-request the READ from
     * its first missing response, once per gap until a timeout or NAK rewinds the QP again.
     */
    void readGap(Qp qp, Wr w) {
        int missing = Psn.add(w.firstPsn, w.responses);
        if (qp.readRetryArmed && qp.readRetryPsn == missing) {
            return;
        }
        rewind(qp, missing);
        qp.readRetryArmed = true;
        qp.readRetryPsn = missing;
    }

    /** A READ response in order: forward progress, so the QP gets its retries back and its timer restarts. */
    void readProgress(Qp qp) {
        qp.retriesLeft = qp.retryCount;
        if (!qp.rnrWaiting && qp.state == QpState.READY_TO_SEND) {
            restartTimer(qp, params.ackTimeoutPs());
        }
    }

    /**
     * (Re)arms the QP's retransmission deadline. The timer event is moved only when the deadline
     * comes earlier; a later deadline is picked up when the event fires, so the ACK of every
     * request does not reschedule a far-future event.
     */
    private void restartTimer(Qp qp, long delayPs) {
        restartTimerAt(qp, work.at() + delayPs);
    }

    private void restartTimerAt(Qp qp, long deadline) {
        qp.timerDeadline = deadline;
        if (!qp.retransmitTimer.scheduled()) {
            qp.retransmitTimer.schedule(deadline);
        } else if (qp.retransmitTimer.time() > deadline) {
            qp.retransmitTimer.reschedule(deadline);
        }
    }

    private void stopTimer(Qp qp) {
        qp.timerDeadline = Long.MAX_VALUE;
    }

    /** The retransmission timer event fired: act if the deadline has really passed. */
    void timeout(Qp qp) {
        if (qp.timerDeadline == Long.MAX_VALUE) {
            return;
        }
        if (now() < qp.timerDeadline) {
            qp.retransmitTimer.schedule(qp.timerDeadline);
            return;
        }
        qp.timerDeadline = Long.MAX_VALUE;
        if (qp.wrCount == 0 || qp.state != QpState.READY_TO_SEND) {
            return;
        }
        if (qp.rnrWaiting) {
            qp.rnrWaiting = false;
            restartTimer(qp, params.ackTimeoutPs());
            queue(qp);
            return;
        }
        timeouts.inc();
        if (--qp.retriesLeft < 0) {
            failAt(qp, qp.unackedPsn, CqeSyndrome.TRANSPORT_RETRY_EXC);
            return;
        }
        rewind(qp, qp.unackedPsn);
        restartTimer(qp, params.ackTimeoutPs());
    }

    /** Go-back-N: make every packet from {@code psn} on be sent again. */
    private void rewind(Qp qp, int psn) {
        retransmits.inc();
        qp.readRetryArmed = false;
        for (int i = 0; i < qp.wrCount; i++) {
            Wr w = qp.wr(i);
            int d = Psn.diff(psn, w.firstPsn);
            if (d < w.packets) {
                int from = Math.max(0, d);
                if (w.opcode == WqeOpcode.RDMA_READ) {
                    // Responses that arrived stay (their bytes are placed): the READ is asked again for the rest,
                    // and not at all once every response is in.
                    from = w.responses < w.packets ? 0 : w.packets;
                }
                w.packetsQueued = Math.min(w.packetsQueued, from);
            }
        }
        int sent = 0;
        while (sent < qp.wrCount && qp.wr(sent).packetsQueued == qp.wr(sent).packets) {
            sent++;
        }
        qp.wrSent = sent;
        queue(qp);
    }

    private void failAt(Qp qp, int psn, int syndrome) {
        for (int i = 0; i < qp.wrCount; i++) {
            Wr w = qp.wr(i);
            if (Psn.diff(psn, w.firstPsn) >= 0 && Psn.diff(psn, w.lastPsn()) <= 0) {
                failFrom(qp, i, syndrome);
                return;
            }
        }
        failFrom(qp, 0, syndrome);
    }

    /** Completes request {@code index} with {@code syndrome}, flushes every later one, QP to error. */
    private void failFrom(Qp qp, int index, int syndrome) {
        qp.state = QpState.ERROR;
        // The receive queue of a QP in error is flushed as well.
        recvFlush.accept(qp);
        stopTimer(qp);
        for (int i = 0; i < qp.wrCount; i++) {
            Wr w = qp.wr(i);
            if (i == index) {
                w.syndrome = syndrome;
            } else if (i > index) {
                w.syndrome = CqeSyndrome.WR_FLUSH;
            }
        }
        flush(qp);
    }

    /** A QP in error: everything it holds completes, flushed unless it already has an error. */
    private void flushAll(Qp qp) {
        stopTimer(qp);
        for (int i = 0; i < qp.wrCount; i++) {
            Wr w = qp.wr(i);
            if (w.syndrome == 0) {
                w.syndrome = CqeSyndrome.WR_FLUSH;
            }
        }
        flush(qp);
    }

    /** Retires every request of a QP in error, each with its syndrome (earlier ones succeed). */
    private void flush(Qp qp) {
        while (qp.wrCount > 0) {
            Wr w = qp.wr(0);
            int syn = w.syndrome;
            if (qp.wrSent == 0) {
                qp.wrSent = 1; // Not yet sent: still completes, flushed.
            }
            if (!retireHead(qp, syn == 0 ? CqeSyndrome.WR_FLUSH : syn)) {
                return;
            }
        }
    }
}
