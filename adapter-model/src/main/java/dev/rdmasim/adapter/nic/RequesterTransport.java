package dev.rdmasim.adapter.nic;

import static dev.rdmasim.adapter.config.Parameters.*;

import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.format.Cqe;
import dev.rdmasim.adapter.format.CqeSyndrome;
import dev.rdmasim.adapter.format.WqeOpcode;
import dev.rdmasim.adapter.transport.Psn;
import dev.rdmasim.adapter.wire.Aeth;
import dev.rdmasim.adapter.wire.Frame;
import dev.rdmasim.adapter.wire.RoceReader;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.stats.Bound;
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
final class RequesterTransport extends Module implements SendScheduler.Requester, WqeParser.Requests, Responder.Requester,
        Receiver.Requests {
    static final int INFINITE_RNR_RETRY = 7;

    /**
     * One QP's requester state: its ring of parsed requests in flight (oldest first), where it is in the PSN space,
     * its retries and its retransmission timer. Written by this block only.
     */
    static final class QpRequests {
        private final Wr[] wrs;
        private int head;
        private int count;
        /** Requests (counted from head) whose packets have all been queued for transmission. */
        private int sent;
        private int nextPsn;
        /** Oldest PSN not yet acknowledged (and not waiting for a READ response): where go-back-N resumes. */
        private int unackedPsn;
        /** A READ re-request was made for this missing response PSN (one per gap). */
        private boolean readRetryArmed;
        private int readRetryPsn;
        /** Newest PSN the responder acknowledged. */
        private int ackedPsn;
        private int retriesLeft;
        private int rnrRetriesLeft;
        /** Retries after a timeout or sequence NAK this QP was connected with (restored on progress). */
        private int retryCount;
        /** RNR retries this QP was connected with (restored on progress, like retryCount). */
        private int rnrRetryCount;
        /** Outbound READs outstanding at once (initiator depth); set at RTS. */
        private int maxReadsOut;
        private Event timer;
        /** When the retransmission timer really expires; MAX_VALUE when stopped. */
        private long deadline = Long.MAX_VALUE;
        /** Waiting out an RNR NAK's delay before resending. */
        private boolean rnrWaiting;
        private boolean retireQueued;
        /** A packet waits for the PSN window: the PSN it would take, for telling when an ACK opens the window. */
        private boolean windowWait;
        private int windowWaitPsn;
        /** A READ waits for one of the QP's outbound READ slots (ORD). */
        private boolean readsWait;

        QpRequests(QpConfig cfg, int outstanding) {
            int sqWqes = 1 << cfg.sqLogBbs();
            int cap = Math.max(1, Math.min(outstanding, sqWqes));
            wrs = new Wr[cap];
            for (int i = 0; i < cap; i++) {
                wrs[i] = new Wr(cfg.maxSendSge(), cfg.maxInline());
            }
        }

        /** Request {@code i} of the ring, counted from the oldest. */
        Wr wr(int i) {
            int k = head + i;
            return wrs[k < wrs.length ? k : k - wrs.length];
        }

        /** Requests in flight (parsed, not yet retired). */
        int inFlight() {
            return count;
        }

        /** Requests in flight whose packets are not all queued yet. */
        int unsent() {
            return count - sent;
        }

        int sent() {
            return sent;
        }

        /** Free entries of the ring. */
        int room() {
            return wrs.length - count;
        }

        boolean full() {
            return count == wrs.length;
        }

        int nextPsn() {
            return nextPsn;
        }

        int unackedPsn() {
            return unackedPsn;
        }

        int retriesLeft() {
            return retriesLeft;
        }

        /** The retransmission deadline, or -1 when the timer is stopped. */
        long deadline() {
            return deadline == Long.MAX_VALUE ? -1 : deadline;
        }

        boolean retireQueued() {
            return retireQueued;
        }
    }

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
    /** The fetch engine's signals: requests retired (room in the ring), a request's last packet queued. */
    private final Consumer<Qp> fetchRequeue;
    private final Consumer<Qp> fetchSentOne;
    private final CqeWriter cqe;
    private final SendScheduler scheduler;
    private final Retirements retirements;
    private Packetizer tx;
    private PayloadWriter payload;
    private Consumer<Qp> recvFlush;
    private final IntRing retireQueue = new IntRing(16);
    /** Requests retired so far, successfully or not, signaled or not: the requester's forward progress. */
    private long retired;
    private final Counter retransmits;
    private final Counter fenceWaits;
    private final Counter timeouts;
    private final Bound ringFull;
    private final Bound windowFull;
    private final Bound readsFull;

    RequesterTransport(Module parent, Params params, WorkClock work, QpTable qps, WqeCredits credits,
            Consumer<Qp> fetchRequeue, Consumer<Qp> fetchSentOne, CqeWriter cqe, SendScheduler scheduler,
            Retirements retirements) {
        super(parent, "req");
        this.params = params;
        this.work = work;
        this.qps = qps;
        this.credits = credits;
        this.fetchRequeue = fetchRequeue;
        this.fetchSentOne = fetchSentOne;
        this.cqe = cqe;
        this.scheduler = scheduler;
        this.retirements = retirements;
        retransmits = stats().counter("rewinds", "events", "go-back-N rewinds (sequence NAK, RNR NAK or timeout)");
        fenceWaits = stats().counter("fenceWaits", "events",
                "times a READ_FENCE request was held back for an earlier READ still completing");
        timeouts = stats().counter("timeouts", "events", "retransmission timer expiries");
        // Per-QP limits: each counts the time at least one QP is at its limit.
        ringFull = stats().bound("outstanding", "per-QP outstanding limit", "at least one QP's ring of requests in"
                + " flight is full", "nic.maxOutstandingPerQp, or the send queue's size when smaller");
        windowFull = stats().bound("psnWindow", "PSN window", "at least one QP has a packet waiting because its"
                + " unacknowledged PSNs fill the window", "transport.maxUnackedPsns");
        readsFull = stats().bound("ord", "outbound READ limit (ORD)", "at least one QP has a READ waiting because"
                + " its READs in flight fill its initiator depth", "transport.maxOutboundReads");
    }

    /**
     * Packets go to the transmitter, READ response payload to the payload writer; a QP this side fails has its
     * receive queue flushed by the responder.
     */
    void connect(Packetizer transmitter, PayloadWriter payloadWriter, Consumer<Qp> receiveFlush) {
        this.tx = transmitter;
        this.payload = payloadWriter;
        this.recvFlush = receiveFlush;
    }

    long retired() {
        return retired;
    }

    /** A QP was created: its retransmission timer. */
    void open(Qp qp, String timerName) {
        qp.req.timer = sim().event(timerName, () -> timeout(qp));
    }

    /** A QP reaches ready-to-send (or agrees its send PSN): its PSN space, retries and READ depth start. */
    void start(Qp qp, int sendPsn, int retryCount, int rnrRetry, int maxReadsOut) {
        QpRequests r = qp.req;
        r.nextPsn = sendPsn;
        r.unackedPsn = sendPsn;
        r.ackedPsn = (sendPsn - 1) & 0xFF_FFFF;
        r.retryCount = retryCount;
        r.retriesLeft = retryCount;
        r.rnrRetryCount = rnrRetry;
        r.rnrRetriesLeft = rnrRetry;
        r.maxReadsOut = maxReadsOut;
    }

    /** The connection agreed a smaller initiator depth. */
    void limitReads(Qp qp, int maxReadsOut) {
        qp.req.maxReadsOut = maxReadsOut;
    }

    /** Whether the QP has requests in flight or a retirement waiting for CQE room. */
    boolean busyWith(Qp qp) {
        return qp.req.count != 0 || qp.req.retireQueued;
    }

    /** A QP is destroyed: its timer stops for good. */
    void close(Qp qp) {
        qp.req.timer.cancel();
    }

    @Override
    public boolean full(Qp qp) {
        return qp.req.full();
    }

    @Override
    public Wr claim(Qp qp) {
        Wr w = qp.req.wr(qp.req.count);
        w.clear();
        return w;
    }

    @Override
    public void post(Qp qp, Wr w) {
        QpRequests r = qp.req;
        if (w != r.wr(r.count)) {
            throw new InvariantViolation(fullName() + ": QP " + qp.qpn + " posted a request that is not its ring's tail");
        }
        if (w.syndrome == 0) {
            // A WQE that failed validation takes no PSN.
            w.firstPsn = r.nextPsn;
            r.nextPsn = (r.nextPsn + w.packets) & 0xFF_FFFF;
        }
        if (++r.count == r.wrs.length) {
            ringFull.enter();
        }
    }

    /** A QP has parsed requests to send (or, in error, to flush). */
    @Override
    public void queue(Qp qp) {
        if (qp.state() == QpState.ERROR) {
            flushAll(qp);
            return;
        }
        scheduler.add(qp);
        tx.pump();
    }

    /** Decides the next request packet of {@code qp} and has it built: 1 = more to send, 0 = nothing more now, -1 = wait. */
    @Override
    public int nextRequestPacket(Qp qp) {
        if (qp.state() != QpState.READY_TO_SEND || qp.req.sent >= qp.req.count || qp.req.rnrWaiting) {
            return 0;
        }
        // Whatever held the QP back before is decided again below.
        stopWaiting(qp);
        Wr w = qp.req.wr(qp.req.sent);
        if (w.syndrome != 0) {
            // A WQE that failed validation: it never reaches the wire and fails the QP.
            qp.req.sent++;
            failFrom(qp, qp.req.sent - 1, w.syndrome);
            return 0;
        }
        boolean read = w.opcode == WqeOpcode.RDMA_READ;
        if (read && w.responses == w.packets) {
            // Its last responses came in while it waited to be asked again: there is nothing left to ask.
            w.packetsQueued = w.packets;
            qp.req.sent++;
            fetchSentOne.accept(qp);
            return qp.req.sent < qp.req.count ? 1 : 0;
        }
        // A READ asked again asks from its first missing response on (the responder answers a duplicate READ
        // from the PSN and range it names); a first request has none yet.
        int k = read ? w.responses : w.packetsQueued;
        int psn = Psn.add(w.firstPsn, k);
        // A READ takes the window at its first PSN, asked again or not: the acknowledged PSNs stop at the READ's
        // first missing response (READ responses acknowledge nothing until the READ is complete), so a READ asked
        // again for its rest from beyond the window would wait for an ACK that only its own responses can bring.
        int windowPsn = read ? w.firstPsn : psn;
        if (Psn.diff(windowPsn, qp.req.unackedPsn) >= params.maxUnacked()) {
            qp.req.windowWait = true;
            qp.req.windowWaitPsn = windowPsn;
            windowFull.enter();
            return 0; // Window full; an ACK requeues the QP.
        }
        if (k == 0 && w.fence && readsUnfinished(qp)) {
            fenceWaits.inc();
            return 0; // Fenced: it starts once the earlier READs are complete, whose completion requeues the QP.
        }
        if (read && w.packetsQueued == 0) {
            if (qp.req.maxReadsOut == 0) {
                qp.req.sent++;
                failFrom(qp, qp.req.sent - 1, CqeSyndrome.LOCAL_QP_OP);
                return 0;
            }
            if (readsInFlight(qp) >= qp.req.maxReadsOut) {
                qp.req.readsWait = true;
                readsFull.enter();
                return 0; // Its READ slots are full (ORD); a completing READ requeues the QP.
            }
        }
        boolean last = read || k == w.packets - 1;
        boolean ackRequest = last || ((Psn.diff(psn, qp.req.unackedPsn) + 1) % params.ackEvery() == 0);
        int st = tx.buildRequest(qp, w, k, psn, ackRequest);
        if (st == KeyUnit.WAIT) {
            return -1;
        }
        if (st != KeyUnit.OK) {
            qp.req.sent++;
            failFrom(qp, qp.req.sent - 1, st);
            return 0;
        }
        w.packetsQueued = read ? w.packets : k + 1;
        if (w.packetsQueued == w.packets) {
            qp.req.sent++;
            fetchSentOne.accept(qp);
        }
        tx.commitRequest();
        return qp.req.sent < qp.req.count ? 1 : 0;
    }

    /** A request packet of {@code qp} left at {@code t}: the retransmission timer runs from the first one. */
    void packetSent(Qp qp, long t) {
        if (qp.req.deadline == Long.MAX_VALUE) {
            restartTimerAt(qp, t + params.ackTimeoutPs());
        }
    }

    /** The QP no longer waits for its PSN window or READ slots (they opened, or it was rewound or failed). */
    private void stopWaiting(Qp qp) {
        if (qp.req.windowWait) {
            qp.req.windowWait = false;
            windowFull.leave();
        }
        if (qp.req.readsWait) {
            qp.req.readsWait = false;
            readsFull.leave();
        }
    }

    /** Whether a READ handed to the wire before the next request is not complete (responses or their writes). */
    private static boolean readsUnfinished(Qp qp) {
        for (int i = 0; i < qp.req.sent; i++) {
            Wr w = qp.req.wr(i);
            if (w.opcode == WqeOpcode.RDMA_READ && (w.responses < w.packets || w.pendingWrites > 0)) {
                return true;
            }
        }
        return false;
    }

    /** READs of the QP handed to the wire whose responses have not all arrived. */
    private static int readsInFlight(Qp qp) {
        int n = 0;
        for (int i = 0; i < qp.req.sent; i++) {
            Wr w = qp.req.wr(i);
            if (w.opcode == WqeOpcode.RDMA_READ && w.responses < w.packets) {
                n++;
            }
        }
        return n;
    }

    /** An ACK (or the implicit ACK of a READ response) for every PSN up to {@code psn}. */
    @Override
    public void acknowledge(Qp qp, int psn) {
        if (Psn.diff(psn, qp.req.nextPsn) >= 0) {
            return; // For PSNs never assigned: a stray or corrupt acknowledgement.
        }
        // The responder's acknowledgement only ever moves forward; a call with an older PSN (a READ
        // whose response writes have now left) re-runs retirement against the newest one.
        if (Psn.diff(psn, qp.req.ackedPsn) > 0) {
            qp.req.ackedPsn = psn;
        }
        psn = qp.req.ackedPsn;
        boolean progress = false;
        while (qp.req.count > 0) {
            Wr w = qp.req.wr(0);
            if (qp.req.sent == 0 && w.syndrome != 0) {
                break; // A WQE that failed validation fails the QP when its turn comes.
            }
            // A request rewound and not yet sent again retires too: the responder acknowledged its PSNs, and
            // waiting for a second acknowledgement of the copy to come would spend retries on it if that is lost.
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
        for (int i = 0; i < qp.req.count; i++) {
            Wr w = qp.req.wr(i);
            if (Psn.diff(psn, w.firstPsn) < 0) {
                break;
            }
            if (w.opcode == WqeOpcode.RDMA_READ && w.responses < w.packets
                    && Psn.diff(psn, Psn.add(w.firstPsn, w.responses)) >= 0) {
                psn = Psn.add(w.firstPsn, w.responses - 1);
                break;
            }
        }
        if (Psn.diff(psn, qp.req.unackedPsn) >= 0) {
            qp.req.unackedPsn = Psn.add(psn, 1);
            // Forward progress gives the QP its retries back: the counts bound retries of one stuck request,
            // not the QP's whole life (a receiver that is briefly out of receives now and then never fails it).
            qp.req.retriesLeft = qp.req.retryCount;
            qp.req.rnrRetriesLeft = qp.req.rnrRetryCount;
            progress = true;
            if (qp.req.windowWait && Psn.diff(qp.req.windowWaitPsn, qp.req.unackedPsn) < params.maxUnacked()) {
                qp.req.windowWait = false;
                windowFull.leave();
            }
        }
        if (progress) {
            if (qp.req.count > 0) {
                restartTimer(qp, params.ackTimeoutPs());
            } else {
                stopTimer(qp);
            }
            fetchRequeue.accept(qp);
            queue(qp);
        }
    }

    /** Retires the oldest request with {@code syndrome} (0 = success); false if the CQE writer is full. */
    private boolean retireHead(Qp qp, int syndrome) {
        Wr w = qp.req.wr(0);
        if (cqe.full()) {
            if (!qp.req.retireQueued) {
                qp.req.retireQueued = true;
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
        qp.req.head = qp.req.head + 1 == qp.req.wrs.length ? 0 : qp.req.head + 1;
        if (qp.req.count-- == qp.req.wrs.length) {
            ringFull.leave();
        }
        if (qp.req.sent > 0) {
            qp.req.sent--;
        }
        return true;
    }

    /** The CQE writer has room again: finish retirements that waited for it. */
    void cqeSpace() {
        while (!retireQueue.isEmpty() && !cqe.full()) {
            Qp qp = qps.qp(retireQueue.poll());
            qp.req.retireQueued = false;
            if (qp.state() == QpState.ERROR) {
                flush(qp);
            } else {
                acknowledge(qp, Psn.add(qp.req.unackedPsn, -1));
            }
        }
    }

    /** A NAK from the responder. */
    @Override
    public void nak(Qp qp, int psn, int syndrome) {
        int kind = Aeth.kind(syndrome);
        int code = Aeth.value(syndrome);
        if (kind == Aeth.KIND_NAK && code == 0) {
            acknowledge(qp, Psn.add(psn, -1));
            rewind(qp, psn);
            return;
        }
        if (kind == Aeth.KIND_RNR_NAK) {
            // Resend from the refused PSN only after the RNR delay, without spending a retry. The wait starts
            // before the acknowledgement of the PSNs ahead of it (which may open the window) and before the
            // rewind, either of which would otherwise send at once.
            qp.req.rnrWaiting = true;
            acknowledge(qp, Psn.add(psn, -1));
            // An RNR retry count of 7 means retry forever (InfiniBand convention).
            if (qp.req.rnrRetriesLeft != INFINITE_RNR_RETRY && --qp.req.rnrRetriesLeft < 0) {
                failAt(qp, psn, CqeSyndrome.RNR_RETRY_EXC);
                return;
            }
            rewind(qp, psn);
            restartTimer(qp, params.rnrTimerPs());
            return;
        }
        acknowledge(qp, Psn.add(psn, -1));
        failAt(qp, psn, code == 2 ? CqeSyndrome.REMOTE_ACCESS : code == 1 ? CqeSyndrome.REMOTE_INVAL_REQ
                : CqeSyndrome.REMOTE_OP);
    }

    /** A request failed locally (e.g. a READ response cannot be written: bad local key): complete it with the error. */
    private void failRequest(Qp qp, Wr w, int syndrome) {
        for (int i = 0; i < qp.req.count; i++) {
            if (qp.req.wr(i) == w) {
                failFrom(qp, i, syndrome);
                return;
            }
        }
    }

    /**
     * A READ response arrived ahead of the one expected (of this READ or a later one): re-request the READ from
     * its first missing response, once per gap until a timeout or NAK rewinds the QP again.
     */
    private void readGap(Qp qp, Wr w) {
        int missing = Psn.add(w.firstPsn, w.responses);
        if (qp.req.readRetryArmed && qp.req.readRetryPsn == missing) {
            return;
        }
        rewind(qp, missing);
        qp.req.readRetryArmed = true;
        qp.req.readRetryPsn = missing;
    }

    /** {@link #readResponse} outcomes: wait and offer the frame again, done, frame held by its writes, dropped. */
    static final int WAIT = -1;
    static final int DONE = 0;
    static final int HELD = 1;
    static final int DROPPED = 2;

    /**
     * A READ response frame for the QP: its payload is placed in the READ's local buffers if it is the response
     * expected next; a duplicate is dropped, and one ahead of the expected means responses were lost, so the READ is
     * asked again from the first missing one at once rather than at the timeout.
     */
    @Override
    public int readResponse(Qp qp, Frame f, RoceReader reader) {
        QpRequests r = qp.req;
        Wr w = null;
        Wr behind = null;
        int psn = reader.psn();
        for (int i = 0; i < r.count; i++) {
            Wr c = r.wr(i);
            if (c.opcode == WqeOpcode.RDMA_READ) {
                if (Psn.diff(psn, c.firstPsn) >= 0 && Psn.diff(psn, c.lastPsn()) <= 0) {
                    w = c;
                    break;
                }
                if (behind == null && c.responses < c.packets) {
                    behind = c;
                }
            }
        }
        if (w != null && behind != null) {
            // The responder answers READs in PSN order: a response of a later READ means the earlier one's missing
            // responses were lost. Ask again now rather than at the timeout.
            readGap(qp, behind);
        }
        if (w == null || Psn.diff(psn, Psn.add(w.firstPsn, w.responses)) != 0) {
            if (w != null && Psn.diff(psn, Psn.add(w.firstPsn, w.responses)) > 0) {
                // A response is missing: ask again from it at once rather than waiting for the timer.
                readGap(qp, w);
            }
            return DROPPED; // Duplicates are simply dropped.
        }
        int held = payload.scatter(qp, f, reader.payloadOffset(), w.sgeAddr, w.sgeLen, w.sgeKey, w.sgeCount,
                (long) w.responses * params.mtu(), reader.payloadLength(), w);
        if (held == PayloadWriter.WAIT) {
            return WAIT;
        }
        if (held == PayloadWriter.KEY_ERROR) {
            failRequest(qp, w, CqeSyndrome.LOCAL_PROT);
            return DONE;
        }
        w.responses++;
        if (w.responses == w.packets && qp.req.readsWait) {
            // A READ has all its responses: one of the QP's READ slots is free.
            qp.req.readsWait = false;
            readsFull.leave();
        }
        readProgress(qp);
        if (w.responses == w.packets && w.pendingWrites == 0) {
            acknowledge(qp, w.lastPsn());
        }
        return held > 0 ? HELD : DONE;
    }

    /** Writes of a READ's response payload have left: once all have, the READ's PSNs are acknowledged. */
    @Override
    public void responseWritten(Qp qp, Wr w) {
        if (w.responses == w.packets && w.pendingWrites == 0) {
            acknowledge(qp, w.lastPsn());
        }
    }

    /** A READ response in order: forward progress, so the QP gets its retries back and its timer restarts. */
    private void readProgress(Qp qp) {
        qp.req.retriesLeft = qp.req.retryCount;
        qp.req.rnrRetriesLeft = qp.req.rnrRetryCount;
        if (!qp.req.rnrWaiting && qp.state() == QpState.READY_TO_SEND) {
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
        qp.req.deadline = deadline;
        if (!qp.req.timer.scheduled()) {
            qp.req.timer.schedule(deadline);
        } else if (qp.req.timer.time() > deadline) {
            qp.req.timer.reschedule(deadline);
        }
    }

    /** Stops the timer, and with it an RNR wait it was timing: nothing is left to resend. */
    private void stopTimer(Qp qp) {
        qp.req.deadline = Long.MAX_VALUE;
        qp.req.rnrWaiting = false;
    }

    /** The retransmission timer event fired: act if the deadline has really passed. */
    void timeout(Qp qp) {
        if (qp.req.deadline == Long.MAX_VALUE) {
            return;
        }
        if (now() < qp.req.deadline) {
            qp.req.timer.schedule(qp.req.deadline);
            return;
        }
        qp.req.deadline = Long.MAX_VALUE;
        // An RNR wait ends when its delay does, even with nothing left to resend (a stale RNR NAK): a wait left
        // set would hold back every later request of the QP.
        boolean rnrWaited = qp.req.rnrWaiting;
        qp.req.rnrWaiting = false;
        if (qp.req.count == 0 || qp.state() != QpState.READY_TO_SEND) {
            return;
        }
        if (rnrWaited) {
            restartTimer(qp, params.ackTimeoutPs());
            queue(qp);
            return;
        }
        timeouts.inc();
        if (--qp.req.retriesLeft < 0) {
            failAt(qp, qp.req.unackedPsn, CqeSyndrome.TRANSPORT_RETRY_EXC);
            return;
        }
        rewind(qp, qp.req.unackedPsn);
        restartTimer(qp, params.ackTimeoutPs());
    }

    /** Go-back-N: make every packet from {@code psn} on be sent again. */
    private void rewind(Qp qp, int psn) {
        retransmits.inc();
        stopWaiting(qp);
        qp.req.readRetryArmed = false;
        for (int i = 0; i < qp.req.count; i++) {
            Wr w = qp.req.wr(i);
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
        while (sent < qp.req.count && qp.req.wr(sent).packetsQueued == qp.req.wr(sent).packets) {
            sent++;
        }
        qp.req.sent = sent;
        queue(qp);
    }

    private void failAt(Qp qp, int psn, int syndrome) {
        for (int i = 0; i < qp.req.count; i++) {
            Wr w = qp.req.wr(i);
            if (Psn.diff(psn, w.firstPsn) >= 0 && Psn.diff(psn, w.lastPsn()) <= 0) {
                failFrom(qp, i, syndrome);
                return;
            }
        }
        failFrom(qp, 0, syndrome);
    }

    /** Completes request {@code index} with {@code syndrome}, flushes every later one, QP to error. */
    private void failFrom(Qp qp, int index, int syndrome) {
        stopWaiting(qp);
        qp.moveTo(QpState.ERROR);
        // The receive queue of a QP in error is flushed as well.
        recvFlush.accept(qp);
        stopTimer(qp);
        for (int i = 0; i < qp.req.count; i++) {
            Wr w = qp.req.wr(i);
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
        stopWaiting(qp);
        stopTimer(qp);
        for (int i = 0; i < qp.req.count; i++) {
            Wr w = qp.req.wr(i);
            if (w.syndrome == 0) {
                w.syndrome = CqeSyndrome.WR_FLUSH;
            }
        }
        flush(qp);
    }

    /**
     * Retires every request of a QP in error, each with its syndrome (flushed unless it has its own error). The
     * ring's room is announced like an acknowledgement's, so WQEs still to be fetched or parsed come through and
     * are flushed in turn.
     */
    private void flush(Qp qp) {
        boolean retiredAny = false;
        while (qp.req.count > 0) {
            Wr w = qp.req.wr(0);
            int syn = w.syndrome;
            if (qp.req.sent == 0) {
                qp.req.sent = 1; // Not yet sent: still completes, flushed.
            }
            if (!retireHead(qp, syn == 0 ? CqeSyndrome.WR_FLUSH : syn)) {
                break;
            }
            retiredAny = true;
        }
        if (retiredAny) {
            fetchRequeue.accept(qp);
        }
    }
}
