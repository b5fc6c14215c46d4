package dev.rdmasim.adapter.nic;

import static dev.rdmasim.adapter.config.Parameters.*;

import dev.rdmasim.adapter.format.AccessFlags;
import dev.rdmasim.adapter.format.Cqe;
import dev.rdmasim.adapter.format.CqeSyndrome;
import dev.rdmasim.adapter.transport.Position;
import dev.rdmasim.adapter.transport.RequestKind;
import dev.rdmasim.adapter.transport.ResponderState;
import dev.rdmasim.adapter.transport.Verdict;
import dev.rdmasim.adapter.wire.Aeth;
import dev.rdmasim.adapter.wire.Frame;
import dev.rdmasim.adapter.wire.Opcode;
import dev.rdmasim.adapter.wire.RoceReader;
import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.stats.Bound;
import dev.rdmasim.kernel.stats.Counter;

/**
 * The responder: executes the request packets the receiver hands it, after the transport checks in rxe order (PSN,
 * opcode sequence, opcode allowed, resources, length, remote key). RDMA WRITE payload goes to the payload writer for
 * the registered region; SEND payload is scattered into the receive WQE taken from the receive-WQE prefetcher, and
 * its completion is written once the payload writes have left; a READ request joins the QP's inbound READs (at most
 * the IRD) for the transmitter to answer. It decides the ACK or NAK the peer is owed (the transmitter sends it); a
 * request it cannot execute NAKs it and moves the QP to error, which flushes both its queues. Only a QP in RTR or RTS
 * takes requests; one for a QP in RESET, INIT or ERROR is dropped (counted in the receiver's {@code dropped}) and
 * answered with nothing.
 */
final class Responder extends Module implements RecvWqePrefetcher.Responder, ResponderReplies, ReceiverRequests {

    /** Where one QP's inbound message stands. */
    enum Message {
        /** No receive WQE taken. */
        IDLE,
        /** A receive WQE is taken and the message's packets are being scattered into it. */
        RECEIVING,
        /** The message has ended (or failed): its CQE waits for the payload writes or for CQE room. */
        COMPLETING
    }

    /** One QP's responder state: written by this block only. */
    static final class QpResponder {
        /** Expected PSN, open message and MSN: the transport checks' state. */
        private final ResponderState rsp;
        private Message message = Message.IDLE;
        /** The receive WQE a SEND is being scattered into. */
        private int recvWqeIndex;
        private final long[] recvAddr;
        private final int[] recvLen;
        private final int[] recvKey;
        private int recvSges;
        private long recvOffset;
        // Current inbound WRITE.
        private long writeVa;
        private long writeRemaining;
        private int writeRkey;
        private long writeLength;
        /** The ACK or NAK owed to the peer, for the transmitter. */
        private int ackSyndrome;
        private int packetsSinceAck;
        /** A NAK ends the responder's ability to take more (remote access / invalid request). */
        private boolean error;
        // Inbound READs being answered, oldest first; at most transport.maxInboundReads (the IRD).
        private final long[] readVa;
        private final int[] readRkey;
        private final long[] readLength;
        private final int[] readPsn;
        private final int[] readPackets;
        private int readHead;
        /** READs held, from their request until their last response packet has left. */
        private int readCount;
        /** Inbound READs answered at once (responder resources), at most the profile's; set at RTR. */
        private int maxReadsIn;
        /** Every IRD entry is held: counted in the responder's bound until one frees. */
        private boolean readsAtLimit;
        // The completion of the message that has ended.
        /** When the last byte of the message being received was handed to PCIe (for the receive's lifecycle). */
        private long recvPlacedPs = Stage.NOT_REACHED;
        private int recvByteCount;
        private int recvImmediate;
        private boolean recvSolicited;
        private boolean recvHasImm;
        private boolean recvWriteImm;
        private int recvSyndrome;
        private boolean cqeQueued;

        QpResponder(QpConfig cfg, int inboundReads) {
            readVa = new long[inboundReads];
            readRkey = new int[inboundReads];
            readLength = new long[inboundReads];
            readPsn = new int[inboundReads];
            readPackets = new int[inboundReads];
            maxReadsIn = inboundReads;
            rsp = new ResponderState(0, (cfg.accessFlags() & AccessFlags.REMOTE_WRITE) != 0,
                    (cfg.accessFlags() & AccessFlags.REMOTE_READ) != 0);
            recvAddr = new long[cfg.maxRecvSge()];
            recvLen = new int[cfg.maxRecvSge()];
            recvKey = new int[cfg.maxRecvSge()];
        }

        /** The transport checks' state: expected PSN and MSN, for ACKs and READ responses. */
        ResponderState transport() {
            return rsp;
        }

        Message message() {
            return message;
        }

        /** Inbound READs held (IRD entries in use). */
        int reads() {
            return readCount;
        }

        /** The array slot of inbound READ {@code i}, counted from the oldest. */
        private int slot(int i) {
            return (readHead + i) % readVa.length;
        }

        private boolean readsFull() {
            return readCount >= maxReadsIn;
        }

        private void move(Message from, Message to) {
            if (message != from) {
                throw new InvariantViolation("receive " + message + ", expected " + from + " before " + to);
            }
            message = to;
        }
    }

    /** What the block is built with, taken from the profile once. */
    record Params(int ackEvery, int mtu) {
        static Params of(dev.rdmasim.adapter.config.Profile p) {
            return new Params(Math.max(1, p.getInt(TRANSPORT_ACK_COALESCE)), p.getInt(LINK_MTU));
        }
    }

    /** The frame intake's side: woken when something a held frame waits for has come. */
    interface Intake {
        void resume();
    }

    /** The transmitter's side: it sends the ACK owed ({@link #takeAck}) and answers the inbound READs. */
    interface Sender {
        void queueAck(Qp qp);

        void queueReadResponse(Qp qp);
    }

    /** The requester transport's side: a QP the responder moved to error has its send queue flushed. */
    interface Requester {
        void queue(Qp qp);
    }

    /** The receive statistics the responder counts into (they belong with the receiver's frames). */
    record Counters(Counter dropped, Counter duplicates, Counter sequenceErrors, Counter accessErrors, Counter rnr) {
    }

    private final WorkClock work;
    private final QpTable qps;
    private final KeyUnit keys;
    private final PayloadWriter payload;
    private final RecvWqePrefetcher rq;
    private final CqeWriter cqe;
    private final Requester req;
    private final Sender tx;
    private final int mtu;
    private final int ackEvery;
    /** Time at least one QP's IRD entries are all held. */
    private final Bound irdFull;
    private final IntRing cqeWaiters = new IntRing(16);
    private Intake intake;
    private RoceReader reader;
    private Counter dropped;
    private Counter duplicates;
    private Counter sequenceErrors;
    private Counter accessErrors;
    private Counter rnr;

    Responder(Module parent, Params params, WorkClock work, QpTable qps, KeyUnit keys, PayloadWriter payload,
            RecvWqePrefetcher rq, CqeWriter cqe, Requester req, Sender tx) {
        super(parent, "rsp");
        this.work = work;
        this.qps = qps;
        this.keys = keys;
        this.payload = payload;
        this.rq = rq;
        this.cqe = cqe;
        this.req = req;
        this.tx = tx;
        this.mtu = params.mtu();
        this.ackEvery = params.ackEvery();
        irdFull = stats().bound("ird", "inbound READ limit (IRD)", "at least one QP answers as many READs as its IRD"
                + " allows", "transport.maxInboundReads");
        rq.connect(this);
    }

    /** The receiver hands requests over and is woken; the counts go to its statistics. */
    @Override
    public void connect(Intake receiver, Counters counters) {
        this.intake = receiver;
        this.dropped = counters.dropped();
        this.duplicates = counters.duplicates();
        this.sequenceErrors = counters.sequenceErrors();
        this.accessErrors = counters.accessErrors();
        this.rnr = counters.rnr();
    }

    /**
     * The QP is connected (INIT to RTR): the PSN it expects first, and its access rights. Everything else starts
     * afresh too, as after {@link #reset}: a QP created in INIT has never been reset.
     */
    void open(Qp qp, int expectedPsn) {
        clear(qp, expectedPsn);
    }

    /**
     * The QP is reset (2RST), which the firmware allows only once nothing of it is in flight: the fatal-NAK flag,
     * the transport checks' state (expected PSN, open message, outstanding sequence NAK, MSN), the inbound WRITE,
     * the ACK owed and the message being received are cleared, so a QP connected again after an error takes
     * requests as a new one. A receive WQE taken for a message that was never finished is used up without a
     * completion (a reset completes nothing); a flush that ended leaves the receive queue taking WQEs again. The
     * rings and their running counters stay, as the driver's do.
     */
    void reset(Qp qp) {
        clear(qp, 0);
        rq.reset(qp);
    }

    private void clear(Qp qp, int expectedPsn) {
        QpResponder r = qp.resp;
        if (busyWith(qp)) {
            throw new InvariantViolation(fullName() + ": QP " + qp.qpn + " is reset or opened with " + r.readCount
                    + " inbound READs held and its receive " + r.message + (r.cqeQueued ? ", waiting for CQE room" : ""));
        }
        r.rsp.reset(expectedPsn, (qp.cfg.accessFlags() & AccessFlags.REMOTE_WRITE) != 0,
                (qp.cfg.accessFlags() & AccessFlags.REMOTE_READ) != 0);
        r.error = false;
        if (r.message == Message.RECEIVING) {
            r.move(Message.RECEIVING, Message.IDLE);
            rq.consumed(qp);
        }
        r.recvSges = 0;
        r.recvOffset = 0;
        r.recvSyndrome = 0;
        r.recvWriteImm = false;
        r.recvPlacedPs = Stage.NOT_REACHED;
        r.writeVa = 0;
        r.writeRemaining = 0;
        r.writeRkey = 0;
        r.writeLength = 0;
        r.ackSyndrome = Aeth.ack(Aeth.CREDITS_INVALID);
        r.packetsSinceAck = 0;
        r.readHead = 0;
        r.maxReadsIn = r.readVa.length;
    }

    /** The connection agreed fewer inbound READs than the QP can hold. */
    void limitReads(Qp qp, int maxReadsIn) {
        qp.resp.maxReadsIn = Math.min(maxReadsIn, qp.resp.readVa.length);
    }

    /** Whether the QP holds an inbound READ, a completion still to write, or waits for CQE room. */
    boolean busyWith(Qp qp) {
        return qp.resp.readCount != 0 || qp.resp.message == Message.COMPLETING || qp.resp.cqeQueued;
    }

    /** The ACK or NAK owed to the QP's peer, taken by the transmitter (the next one is a plain ACK). */
    @Override
    public int takeAck(Qp qp) {
        int syn = qp.resp.ackSyndrome;
        qp.resp.ackSyndrome = Aeth.ack(Aeth.CREDITS_INVALID);
        return syn;
    }

    /** Writes of the QP's received message have left: its completion may be written now. */
    @Override
    public void messageWritten(Qp qp) {
        maybeRecvCqe(qp);
    }

    /** Returns -1 to wait, 1 if the frame is held by DMA writes, 0 if it can be released. */
    @Override
    public int request(Qp qp, Frame f, int op, RoceReader reader) {
        this.reader = reader;
        // A QP not yet connected (RESET, INIT) or in error answers nothing: the request is dropped and counted.
        if (!qp.state().receives() || qp.resp.error) {
            dropped.inc();
            return 0;
        }
        RequestKind kind = op == Opcode.RDMA_READ_REQUEST ? RequestKind.READ
                : op <= Opcode.SEND_ONLY_IMM ? RequestKind.SEND : RequestKind.WRITE;
        Position pos = Opcode.isOnly(op) ? Position.ONLY : Opcode.isFirst(op) ? Position.FIRST
                : Opcode.isLast(op) ? Position.LAST : Position.MIDDLE;
        int psn = reader.psn();
        int len = reader.payloadLength();
        Verdict v = qp.resp.rsp.check(psn, kind, pos, len, mtu);
        switch (v) {
            case DUPLICATE -> {
                if (kind == RequestKind.READ && !qp.resp.readsFull() && qp.resp.readVa.length > 0) {
                    int st = startRead(qp, psn, true);
                    if (st >= 0) {
                        // Counted once answered: one waiting for its key context is offered again.
                        duplicates.inc();
                    }
                    return st;
                }
                duplicates.inc();
                ack(qp, Aeth.ack(Aeth.CREDITS_INVALID));
                return 0;
            }
            case SEQUENCE_NAK -> {
                sequenceErrors.inc();
                qp.resp.rsp.nakSent();
                ack(qp, Aeth.nak(0));
                return 0;
            }
            case DROP -> {
                dropped.inc();
                return 0;
            }
            case INVALID_REQUEST -> {
                return fatal(qp, Aeth.nak(1));
            }
            case EXECUTE -> {
                // Checked further below.
            }
        }
        switch (kind) {
            case READ -> {
                if (qp.resp.readVa.length == 0) {
                    return fatal(qp, Aeth.nak(1)); // The QP accepts no inbound READs (IRD 0).
                }
                if (qp.resp.readsFull()) {
                    return -1; // As many READs as the IRD allows are being answered; wait for one.
                }
                return startRead(qp, psn, false);
            }
            case WRITE -> {
                if (pos.opensMessage()) {
                    int st = checkReth(qp, AccessFlags.REMOTE_WRITE);
                    if (st != KeyUnit.OK) {
                        return st == KeyUnit.WAIT ? -1 : 0;
                    }
                    qp.resp.writeVa = reader.rethVirtualAddress();
                    qp.resp.writeRkey = reader.rethRkey();
                    qp.resp.writeRemaining = reader.rethDmaLength() & 0xFFFF_FFFFL;
                    qp.resp.writeLength = qp.resp.writeRemaining;
                }
                if (len > qp.resp.writeRemaining) {
                    return fatal(qp, Aeth.nak(1));
                }
                boolean withImm = pos.closesMessage() && reader.hasImmediate();
                if (withImm && qp.resp.message != Message.RECEIVING) {
                    // WRITE with immediate consumes a receive WQE (its SGEs stay unused) for the CQE.
                    int r = takeReceiveWqe(qp);
                    if (r <= 0) {
                        return r;
                    }
                }
                int st = keys.check(qp.resp.writeRkey, qp.cfg.pd(), qp.resp.writeVa, len, AccessFlags.REMOTE_WRITE, true);
                if (st == KeyUnit.WAIT) {
                    return -1;
                }
                if (!payload.hasRoom(len)) {
                    return -1;
                }
                int held = payload.place(qp, f, qp.resp.writeRkey, qp.resp.writeVa, reader.payloadOffset(), len, null);
                qp.resp.writeVa += len;
                qp.resp.writeRemaining -= len;
                if (pos.closesMessage()) {
                    notePlaced(qp, f);
                }
                if (withImm) {
                    messageEnded(qp, qp.resp.writeLength, true);
                }
                executed(qp, kind, pos, 1);
                return held;
            }
            default -> {
                if (pos.opensMessage() && qp.resp.message != Message.RECEIVING) {
                    int r = takeReceiveWqe(qp);
                    if (r <= 0) {
                        return r; // -1 waiting for the RQ; 0 = RNR NAK sent.
                    }
                }
                if (qp.resp.recvOffset + len > recvCapacity(qp)) {
                    // The receive buffer is too small: local length error here, invalid request there.
                    completeRecv(qp, CqeSyndrome.LOCAL_LENGTH);
                    return fatal(qp, Aeth.nak(1));
                }
                // Every piece is checked before any is written, so a bad key changes nothing.
                int held = payload.scatter(qp, f, reader.payloadOffset(), qp.resp.recvAddr, qp.resp.recvLen, qp.resp.recvKey, qp.resp.recvSges, qp.resp.recvOffset, len, null);
                if (held == PayloadWriter.WAIT) {
                    return -1;
                }
                if (held == PayloadWriter.KEY_ERROR) {
                    completeRecv(qp, CqeSyndrome.LOCAL_PROT);
                    return fatal(qp, Aeth.nak(3));
                }
                qp.resp.recvOffset += len;
                if (pos.closesMessage()) {
                    notePlaced(qp, f);
                    messageEnded(qp, qp.resp.recvOffset, false);
                }
                executed(qp, kind, pos, 1);
                return held;
            }
        }
    }

    /**
     * The last packet of a message that consumed a receive WQE (a SEND, or a WRITE with immediate) is placed: its
     * completion is due once its writes have left, with the byte count, immediate and solicited flag it carried.
     */
    private void messageEnded(Qp qp, long bytes, boolean writeImm) {
        QpResponder r = qp.resp;
        r.recvByteCount = (int) bytes;
        r.recvHasImm = writeImm || reader.hasImmediate();
        r.recvWriteImm = writeImm;
        r.recvImmediate = r.recvHasImm ? reader.immediate() : 0;
        r.recvSolicited = reader.solicited();
        r.move(Message.RECEIVING, Message.COMPLETING);
        rq.consumed(qp);
        maybeRecvCqe(qp);
    }

    /**
     * Stamps the sender's record when the last byte of its message has been handed to PCIe here
     * (the ACK may overtake the write itself, as on real adapters, so this is the issue time).
     */
    private void notePlaced(Qp qp, Frame f) {
        f.placed(work.at());
        qp.resp.recvPlacedPs = work.at();
    }

    private long recvCapacity(Qp qp) {
        long total = 0;
        for (int i = 0; i < qp.resp.recvSges; i++) {
            total += qp.resp.recvLen[i];
        }
        return total;
    }

    /**
     * Checks the packet's RETH range against its remote key for {@code access}: returns
     * {@link KeyUnit#OK}, {@link KeyUnit#WAIT}, or a violation, after which the remote-access NAK
     * has been queued and the QP is in error.
     */
    private int checkReth(Qp qp, int access) {
        // The whole range is checked against the key once; its translations are looked up packet by packet.
        int st = keys.checkRange(reader.rethRkey(), qp.cfg.pd(), reader.rethVirtualAddress(),
                reader.rethDmaLength() & 0xFFFF_FFFFL, access, true);
        if (st != KeyUnit.OK && st != KeyUnit.WAIT) {
            fatal(qp, Aeth.nak(2));
        }
        return st;
    }

    private int startRead(Qp qp, int psn, boolean duplicate) {
        int st = checkReth(qp, AccessFlags.REMOTE_READ);
        if (st != KeyUnit.OK) {
            return st == KeyUnit.WAIT ? -1 : 0;
        }
        long va = reader.rethVirtualAddress();
        int rkey = reader.rethRkey();
        long len = reader.rethDmaLength() & 0xFFFF_FFFFL;
        int packets = len == 0 ? 1 : (int) ((len + mtu - 1) / mtu);
        int slot = qp.resp.slot(qp.resp.readCount);
        qp.resp.readVa[slot] = va;
        qp.resp.readRkey[slot] = rkey;
        qp.resp.readLength[slot] = len;
        qp.resp.readPsn[slot] = psn;
        qp.resp.readPackets[slot] = packets;
        qp.resp.readCount++;
        if (!qp.resp.readsAtLimit && qp.resp.readsFull()) {
            qp.resp.readsAtLimit = true;
            irdFull.enter();
        }
        if (!duplicate) {
            executed(qp, RequestKind.READ, Position.ONLY, packets);
        }
        tx.queueReadResponse(qp);
        return 0;
    }

    // The inbound READs the transmitter answers: the one read-only view of the QP's IRD entries.

    @Override
    public int reads(Qp qp) {
        return qp.resp.readCount;
    }

    @Override
    public long readVa(Qp qp, int i) {
        return qp.resp.readVa[qp.resp.slot(i)];
    }

    @Override
    public int readRkey(Qp qp, int i) {
        return qp.resp.readRkey[qp.resp.slot(i)];
    }

    @Override
    public long readLength(Qp qp, int i) {
        return qp.resp.readLength[qp.resp.slot(i)];
    }

    @Override
    public int readPsn(Qp qp, int i) {
        return qp.resp.readPsn[qp.resp.slot(i)];
    }

    @Override
    public int readPackets(Qp qp, int i) {
        return qp.resp.readPackets[qp.resp.slot(i)];
    }

    /** The last response of the QP's oldest inbound READ has left: it leaves the IRD, and a waiting READ may start. */
    @Override
    public void readAnswered(Qp qp) {
        QpResponder r = qp.resp;
        r.readHead = r.slot(1);
        r.readCount--;
        if (r.readsAtLimit && !r.readsFull()) {
            r.readsAtLimit = false;
            irdFull.leave();
        }
        intake.resume();
    }

    private void executed(Qp qp, RequestKind kind, Position pos, int span) {
        qp.resp.rsp.accept(kind, pos, span);
        qp.resp.packetsSinceAck++;
        if (reader.ackRequest() || qp.resp.packetsSinceAck >= ackEvery) {
            if (kind != RequestKind.READ) {
                ack(qp, Aeth.ack(Aeth.CREDITS_INVALID));
            }
        }
    }

    private void ack(Qp qp, int syndrome) {
        qp.resp.packetsSinceAck = 0;
        qp.resp.ackSyndrome = syndrome;
        tx.queueAck(qp);
    }

    /** A request the responder cannot execute: NAK it, and the responder QP goes to error. */
    private int fatal(Qp qp, int syndrome) {
        accessErrors.inc();
        qp.resp.error = true;
        ack(qp, syndrome);
        qp.moveTo(QpState.ERROR);
        startRecvFlush(qp);
        // Its own send queue is flushed too: the whole QP is in error.
        req.queue(qp);
        return 0;
    }

    /** The QP went to error: every posted receive WQE completes flushed, once the producer count is known. */
    void startRecvFlush(Qp qp) {
        if (!qp.rq.flushing()) {
            if (qp.resp.message == Message.RECEIVING) {
                qp.resp.move(Message.RECEIVING, Message.IDLE); // the message is flushed with its receive WQE
            }
            rq.startFlush(qp);
        }
    }

    /**
     * Makes a receive WQE current: 1 ready, 0 none (RNR NAK sent), -1 wait for a DMA read. WQEs come from the
     * receive-WQE prefetcher, which keeps them fetched ahead, so only an empty cache makes the frame wait.
     */
    private int takeReceiveWqe(Qp qp) {
        if (qp.resp.message == Message.COMPLETING) {
            // The previous receive's CQE still waits for its data writes or a CQE slot, and its fields (index,
            // length, immediate) are the QP's one set: the next message waits for it.
            return -1;
        }
        int r = rq.take(qp);
        if (r == RecvWqePrefetcher.WAIT) {
            return -1;
        }
        if (r == RecvWqePrefetcher.NONE_POSTED) {
            rnr.inc();
            ack(qp, Aeth.rnrNak(1));
            return 0;
        }
        int syn = rq.syndrome();
        QpResponder rs = qp.resp;
        rs.recvWqeIndex = qp.rq.consumedCount() & 0xFFFF;
        rs.recvSges = 0;
        rs.recvOffset = 0;
        if (syn != 0) {
            completeRecv(qp, syn);
            return fatal(qp, Aeth.nak(3));
        }
        var sg = rq.sges();
        for (int i = 0; i < sg.count(); i++) {
            qp.resp.recvAddr[i] = sg.address(i);
            qp.resp.recvLen[i] = sg.length(i);
            qp.resp.recvKey[i] = sg.lkey(i);
        }
        rs.recvSges = sg.count();
        rs.move(Message.IDLE, Message.RECEIVING);
        rq.topUp(qp);
        return 1;
    }

    @Override
    public void resume() {
        intake.resume();
    }

    @Override
    public void waitForCqeSpace(Qp qp) {
        if (!qp.resp.cqeQueued) {
            qp.resp.cqeQueued = true;
            cqeWaiters.add(qp.qpn);
        }
    }

    private void completeRecv(Qp qp, int syndrome) {
        QpResponder r = qp.resp;
        r.recvSyndrome = syndrome;
        if (r.message == Message.COMPLETING) {
            throw new InvariantViolation(fullName() + ": QP " + qp.qpn + " completes a receive while one is completing");
        }
        r.message = Message.COMPLETING;
        rq.consumed(qp);
        maybeRecvCqe(qp);
    }

    /** Writes the receive completion once the payload writes have left and the CQE writer has room. */
    private void maybeRecvCqe(Qp qp) {
        if (qp.resp.message != Message.COMPLETING || qp.writes.pending() > 0) {
            return;
        }
        if (cqe.full()) {
            waitForCqeSpace(qp);
            return;
        }
        qp.resp.move(Message.COMPLETING, Message.IDLE);
        CqeWriter.Job j = cqe.claim();
        j.cqn = qp.cfg.recvCqn();
        j.qpn = qp.qpn;
        j.wqeCounter = qp.resp.recvWqeIndex;
        if (qp.resp.recvSyndrome != 0) {
            j.opcode = Cqe.RESP_ERR;
            j.syndrome = qp.resp.recvSyndrome;
            qp.resp.recvSyndrome = 0;
        } else {
            j.opcode = qp.resp.recvWriteImm ? Cqe.RESP_WR_IMM : qp.resp.recvHasImm ? Cqe.RESP_SEND_IMM : Cqe.RESP_SEND;
            qp.resp.recvWriteImm = false;
            j.byteCount = qp.resp.recvByteCount;
            j.immediate = qp.resp.recvImmediate;
            j.solicited = qp.resp.recvSolicited;
            // Reported to the lifecycle listeners when the CQE has landed (the writer stamps CQE_WRITTEN).
            j.report = true;
            j.receive = true;
            j.bytes = qp.resp.recvByteCount;
            j.stamps[Stage.REMOTE_PLACED.ordinal()] = qp.resp.recvPlacedPs;
        }
        qp.resp.recvPlacedPs = Stage.NOT_REACHED;
        cqe.commit();
        intake.resume(); // a next message may wait for this CQE
    }

    /** The CQE writer has room again. */
    void cqeSpace() {
        while (!cqeWaiters.isEmpty() && !cqe.full()) {
            Qp qp = qps.qp(cqeWaiters.poll());
            qp.resp.cqeQueued = false;
            maybeRecvCqe(qp);
            if (qp.rq.flushing()) {
                rq.flushMore(qp);
            }
        }
    }
}
