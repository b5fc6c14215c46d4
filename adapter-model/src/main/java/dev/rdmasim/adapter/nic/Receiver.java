package dev.rdmasim.adapter.nic;

import static dev.rdmasim.adapter.config.Parameters.*;

import dev.rdmasim.adapter.format.AccessFlags;
import dev.rdmasim.adapter.format.Cqe;
import dev.rdmasim.adapter.format.CqeSyndrome;
import dev.rdmasim.adapter.format.WqeOpcode;
import dev.rdmasim.adapter.transport.Position;
import dev.rdmasim.adapter.transport.Psn;
import dev.rdmasim.adapter.transport.RequestKind;
import dev.rdmasim.adapter.transport.Verdict;
import dev.rdmasim.adapter.wire.Aeth;
import dev.rdmasim.adapter.wire.Frame;
import dev.rdmasim.adapter.wire.FrameCheck;
import dev.rdmasim.adapter.wire.LinkEndpoint;
import dev.rdmasim.adapter.wire.Opcode;
import dev.rdmasim.adapter.wire.RoceReader;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.stats.Counter;

/**
 * The receive engine: takes frames from the wire one at a time (a frame costs the profile's
 * cycles), checks them (Ethernet/IP/UDP/ICRC, then the responder's transport checks in rxe order:
 * PSN, opcode sequence, opcode allowed, resources, length, remote key), and executes them:
 * RDMA WRITE payload goes to the payload writer for the registered region, SEND payload is scattered
 * into the next receive WQE (taken from the receive-WQE prefetcher), a READ request is handed to the
 * transmitter to answer. Responses (ACK, NAK, READ response) go to the requester transport. A frame
 * whose payload is being written stays held until its writes have left the device, which bounds the
 * data in flight by the link's buffers.
 * A frame the engine cannot take yet (busy, waiting for a key or a receive WQE) stays on the link,
 * so the peer sees backpressure rather than loss.
 */
final class Receiver extends Module implements PayloadWriter.Written, RecvWqePrefetcher.Responder {

    /** What the block is built with, taken from the profile once. */
    record Params(int packetCycles, int ackEvery, int mtu) {
        static Params of(dev.rdmasim.adapter.config.Profile p) {
            return new Params(p.getInt(NIC_RX_PACKET_CYCLES), Math.max(1, p.getInt(TRANSPORT_ACK_COALESCE)), p.getInt(LINK_MTU));
        }
    }

    private final WorkClock work;
    private final QpTable qps;
    private final KeyUnit keys;
    private final CqeWriter cqe;
    private final RequesterTransport req;
    private final Transmitter tx;
    private final int mtu;
    /** QP1, once it exists: datagrams go there. */
    private java.util.function.Consumer<RoceReader> datagrams;
    private final PayloadWriter payload;
    private final RecvWqePrefetcher rq;
    private final RoceReader reader;
    private final Busy busy;
    private final Event stepEvent;
    private final Event retryEvent;
    /** When the pipeline's cycles for the current frame end. */
    private long currentReadyPs;
    private final int packetCycles;
    private final int ackEvery;
    private LinkEndpoint port;
    private Frame current;
    private boolean waiting;
    private boolean refused;
    private final IntRing cqeWaiters = new IntRing(16);
    private final Counter frames;
    private final Counter dropped;
    private final Counter duplicates;
    private final Counter sequenceErrors;
    private final Counter accessErrors;
    private final Counter rnr;

    Receiver(Module parent, Params params, dev.rdmasim.kernel.hw.ClockDomain nicClock, WorkClock work, QpTable qps,
            KeyUnit keys, PayloadWriter payload, RecvWqePrefetcher rq, CqeWriter cqe, RequesterTransport req,
            Transmitter tx) {
        super(parent, "rx");
        this.work = work;
        this.qps = qps;
        this.keys = keys;
        this.cqe = cqe;
        this.req = req;
        this.tx = tx;
        this.mtu = params.mtu();
        this.payload = payload;
        this.rq = rq;
        reader = new RoceReader(stats());
        busy = new Busy(this, nicClock, signal("busy", 1));
        stepEvent = sim().event(fullName() + ".step", this::step);
        retryEvent = sim().event(fullName() + ".retry", this::onRetry);
        packetCycles = params.packetCycles();
        ackEvery = params.ackEvery();
        payload.connect(this, this::resume);
        rq.connect(this);
        frames = stats().counter("frames", "frames", "frames received");
        dropped = stats().counter("dropped", "frames", "frames dropped (bad checks, unknown QP, QP in error, silent PSN drops)");
        duplicates = stats().counter("duplicates", "packets", "duplicate request packets re-acknowledged");
        sequenceErrors = stats().counter("sequenceNaks", "packets", "requests ahead of the expected PSN (sequence NAK)");
        accessErrors = stats().counter("accessNaks", "packets", "requests failing the remote key check or invalid (NAK, QP to error)");
        rnr = stats().counter("rnrNaks", "packets", "SENDs that found no receive WQE (RNR NAK)");
    }

    /** QP1 exists: UD datagrams go to it from now on (before, they are dropped). */
    void onDatagram(java.util.function.Consumer<RoceReader> qp1) {
        this.datagrams = qp1;
    }

    void attach(LinkEndpoint p) {
        port = p;
        port.connectReceiver(this::accept);
    }

    /**
     * Takes a frame if the pipeline is free. The frame's checks and their effects are worked out at once, for the
     * instant the pipeline's cycles end ({@link WorkClock}): DMA writes, the ACK and the completions it
     * causes carry that instant as their ready time, so they leave when a pipeline event at that instant would have
     * sent them, without the event. The pipeline stays occupied until then: a frame arriving earlier is refused
     * and offered again when it frees, as before.
     */
    private boolean accept(Frame f) {
        if (current != null || busy.busyUntil() > now()) {
            refused = true;
            if (current == null) {
                retryWhenFree();
            }
            return false;
        }
        current = f;
        frames.inc();
        currentReadyPs = busy.book(packetCycles);
        work.ahead(currentReadyPs);
        try {
            step();
        } finally {
            work.present();
        }
        return true;
    }

    /** Something the current frame waited for has arrived (a key line, a receive WQE, a write slot). */
    @Override
    public void resume() {
        if (current != null && waiting && !stepEvent.scheduled()) {
            waiting = false;
            // Not before the pipeline's cycles for it are over; from then on it runs at its own instant.
            stepEvent.schedule(Math.max(now(), currentReadyPs));
        }
    }

    private void done() {
        current = null;
        busy.idleAfterBookings();
        retryWhenFree();
    }

    /** Has the link offer a refused frame again as soon as the pipeline is free: now, or when it frees. */
    private void retryWhenFree() {
        if (!refused) {
            return;
        }
        if (busy.busyUntil() <= now()) {
            onRetry();
        } else if (!retryEvent.scheduled()) {
            retryEvent.schedule(busy.busyUntil());
        }
    }

    /** The pipeline has freed after refusing a frame: ask the link to offer it again. */
    private void onRetry() {
        if (refused && current == null) {
            refused = false;
            port.retryDelivery();
        }
    }

    private void step() {
        Frame f = current;
        FrameCheck c = reader.wrap(f.data(), f.length());
        if (c != FrameCheck.VALID) {
            dropped.inc();
            f.release();
            done();
            return;
        }
        int op = reader.opcode();
        if (Opcode.isUd(op)) {
            // A datagram: QP1's business, not an RC QP's (data QPs may share its number).
            if (datagrams != null) {
                datagrams.accept(reader);
            } else {
                dropped.inc();
            }
            f.release();
            done();
            return;
        }
        Qp qp = qps.qpOrNull(reader.destQp());
        if (qp == null) {
            dropped.inc();
            f.release();
            done();
            return;
        }
        boolean keep;
        if (op == Opcode.ACKNOWLEDGE) {
            int syn = reader.aethSyndrome();
            if (Aeth.isAck(syn)) {
                req.acknowledge(qp, reader.psn());
            } else {
                req.nak(qp, reader.psn(), syn);
            }
            keep = false;
        } else if (op >= Opcode.RDMA_READ_RESPONSE_FIRST && op <= Opcode.RDMA_READ_RESPONSE_ONLY) {
            int r = req.readResponse(qp, f, reader);
            if (r == RequesterTransport.WAIT) {
                waiting = true;
                return;
            }
            if (r == RequesterTransport.DROPPED) {
                dropped.inc();
            }
            keep = r == RequesterTransport.HELD;
        } else {
            int r = request(qp, f, op);
            if (r < 0) {
                waiting = true;
                return;
            }
            keep = r > 0;
        }
        if (!keep) {
            f.release();
        }
        done();
    }

    // ------------------------------------------------------------ responder

    /** Returns -1 to wait, 1 if the frame is held by DMA writes, 0 if it can be released. */
    private int request(Qp qp, Frame f, int op) {
        if (qp.state() == QpState.ERROR || qp.responderError) {
            dropped.inc();
            return 0;
        }
        RequestKind kind = op == Opcode.RDMA_READ_REQUEST ? RequestKind.READ
                : op <= Opcode.SEND_ONLY_IMM ? RequestKind.SEND : RequestKind.WRITE;
        Position pos = Opcode.isOnly(op) ? Position.ONLY : Opcode.isFirst(op) ? Position.FIRST
                : Opcode.isLast(op) ? Position.LAST : Position.MIDDLE;
        int psn = reader.psn();
        int len = reader.payloadLength();
        Verdict v = qp.rsp.check(psn, kind, pos, len, mtu);
        switch (v) {
            case DUPLICATE -> {
                duplicates.inc();
                if (kind == RequestKind.READ && !qp.inboundReadsFull() && qp.readVa.length > 0) {
                    return startRead(qp, psn, true);
                }
                ack(qp, Aeth.ack(Aeth.CREDITS_INVALID));
                return 0;
            }
            case SEQUENCE_NAK -> {
                sequenceErrors.inc();
                qp.rsp.nakSent();
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
                if (qp.readVa.length == 0) {
                    return fatal(qp, Aeth.nak(1)); // The QP accepts no inbound READs (IRD 0).
                }
                if (qp.inboundReadsFull()) {
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
                    qp.writeVa = reader.rethVirtualAddress();
                    qp.writeRkey = reader.rethRkey();
                    qp.writeRemaining = reader.rethDmaLength() & 0xFFFF_FFFFL;
                    qp.writeLength = qp.writeRemaining;
                }
                if (len > qp.writeRemaining) {
                    return fatal(qp, Aeth.nak(1));
                }
                boolean withImm = pos.closesMessage() && reader.hasImmediate();
                if (withImm && !qp.recvActive) {
                    // WRITE with immediate consumes a receive WQE (its SGEs stay unused) for the CQE.
                    int r = takeReceiveWqe(qp);
                    if (r <= 0) {
                        return r;
                    }
                }
                int st = keys.check(qp.writeRkey, qp.cfg.pd(), qp.writeVa, len, AccessFlags.REMOTE_WRITE, true);
                if (st == KeyUnit.WAIT) {
                    return -1;
                }
                if (!payload.hasRoom(len)) {
                    return -1;
                }
                int held = payload.place(qp, f, qp.writeRkey, qp.writeVa, reader.payloadOffset(), len, null);
                qp.writeVa += len;
                qp.writeRemaining -= len;
                if (pos.closesMessage()) {
                    notePlaced(qp, f);
                }
                if (withImm) {
                    qp.recvByteCount = (int) qp.writeLength;
                    qp.recvHasImm = true;
                    qp.recvWriteImm = true;
                    qp.recvImmediate = reader.immediate();
                    qp.recvSolicited = reader.solicited();
                    qp.recvCqePending = true;
                    qp.recvActive = false;
                    qp.rqConsumed++;
                    maybeRecvCqe(qp);
                }
                executed(qp, kind, pos, 1);
                return held;
            }
            default -> {
                if (pos.opensMessage() && !qp.recvActive) {
                    int r = takeReceiveWqe(qp);
                    if (r <= 0) {
                        return r; // -1 waiting for the RQ; 0 = RNR NAK sent.
                    }
                }
                if (qp.recvOffset + len > recvCapacity(qp)) {
                    // The receive buffer is too small: local length error here, invalid request there.
                    qp.recvError = true;
                    completeRecv(qp, CqeSyndrome.LOCAL_LENGTH);
                    return fatal(qp, Aeth.nak(1));
                }
                // Every piece is checked before any is written, so a bad key changes nothing.
                int held = payload.scatter(qp, f, reader.payloadOffset(), qp.recvAddr, qp.recvLen, qp.recvKey, qp.recvSges, qp.recvOffset, len, null);
                if (held == PayloadWriter.WAIT) {
                    return -1;
                }
                if (held == PayloadWriter.KEY_ERROR) {
                    completeRecv(qp, CqeSyndrome.LOCAL_PROT);
                    return fatal(qp, Aeth.nak(3));
                }
                qp.recvOffset += len;
                if (pos.closesMessage()) {
                    notePlaced(qp, f);
                    qp.recvByteCount = (int) qp.recvOffset;
                    qp.recvHasImm = reader.hasImmediate();
                    qp.recvImmediate = qp.recvHasImm ? reader.immediate() : 0;
                    qp.recvSolicited = reader.solicited();
                    qp.recvCqePending = true;
                    qp.recvActive = false;
                    qp.rqConsumed++;
                    maybeRecvCqe(qp);
                }
                executed(qp, kind, pos, 1);
                return held;
            }
        }
    }

    /**
     * Stamps the sender's record when the last byte of its message has been handed to PCIe here
     * (the ACK may overtake the write itself, as on real adapters, so this is the issue time).
     */
    private void notePlaced(Qp qp, Frame f) {
        f.placed(work.at());
        qp.recvPlacedPs = work.at();
    }

    private long recvCapacity(Qp qp) {
        long total = 0;
        for (int i = 0; i < qp.recvSges; i++) {
            total += qp.recvLen[i];
        }
        return total;
    }

    /**
     * Checks the packet's RETH range against its remote key for {@code access}: returns
     * {@link KeyUnit#OK}, {@link KeyUnit#WAIT}, or a violation, after which the remote-access NAK
     * has been queued and the QP is in error.
     */
    private int checkReth(Qp qp, int access) {
        int st = keys.check(reader.rethRkey(), qp.cfg.pd(), reader.rethVirtualAddress(),
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
        int slot = (qp.readHead + qp.readCount) % qp.readVa.length;
        qp.readVa[slot] = va;
        qp.readRkey[slot] = rkey;
        qp.readLength[slot] = len;
        qp.readPsn[slot] = psn;
        qp.readPackets[slot] = packets;
        qp.readCount++;
        if (!duplicate) {
            executed(qp, RequestKind.READ, Position.ONLY, packets);
        }
        tx.queueReadResponse(qp);
        return 0;
    }

    /** The transmitter has queued every response packet of the QP's inbound READ. */
    void readResponseDone(Qp qp) {
        resume();
    }

    private void executed(Qp qp, RequestKind kind, Position pos, int span) {
        qp.rsp.accept(kind, pos, span);
        qp.packetsSinceAck++;
        if (reader.ackRequest() || qp.packetsSinceAck >= ackEvery) {
            if (kind != RequestKind.READ) {
                ack(qp, Aeth.ack(Aeth.CREDITS_INVALID));
            }
        }
    }

    private void ack(Qp qp, int syndrome) {
        qp.packetsSinceAck = 0;
        qp.ackSyndrome = syndrome;
        tx.queueAck(qp);
    }

    /** A request the responder cannot execute: NAK it, and the responder QP goes to error. */
    private int fatal(Qp qp, int syndrome) {
        accessErrors.inc();
        qp.responderError = true;
        ack(qp, syndrome);
        qp.moveTo(QpState.ERROR);
        startRecvFlush(qp);
        // Its own send queue is flushed too: the whole QP is in error.
        req.queue(qp);
        return 0;
    }

    /** The QP went to error: every posted receive WQE completes flushed, once the producer count is known. */
    void startRecvFlush(Qp qp) {
        if (!qp.rqFlushing) {
            qp.recvActive = false;
            rq.startFlush(qp);
        }
    }

    /** A receive flush is queued or its doorbell-record read is in flight (it names its QP later). */
    boolean recvFlushPending() {
        return rq.flushPending();
    }

    /**
     * Makes a receive WQE current: 1 ready, 0 none (RNR NAK sent), -1 wait for a DMA read. WQEs come from the
     * receive-WQE prefetcher, which keeps them fetched ahead, so only an empty cache makes the frame wait.
     */
    private int takeReceiveWqe(Qp qp) {
        if (qp.recvCqePending) {
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
        qp.recvWqeIndex = qp.rqConsumed & 0xFFFF;
        qp.recvSges = 0;
        qp.recvOffset = 0;
        qp.recvError = false;
        if (syn != 0) {
            completeRecv(qp, syn);
            return fatal(qp, Aeth.nak(3));
        }
        var sg = rq.sges();
        for (int i = 0; i < sg.count(); i++) {
            qp.recvAddr[i] = sg.address(i);
            qp.recvLen[i] = sg.length(i);
            qp.recvKey[i] = sg.lkey(i);
        }
        qp.recvSges = sg.count();
        qp.recvActive = true;
        rq.topUp(qp);
        return 1;
    }

    @Override
    public void waitForCqeSpace(Qp qp) {
        if (!qp.inRecvCqeQueue) {
            qp.inRecvCqeQueue = true;
            cqeWaiters.add(qp.qpn);
        }
    }

    private void completeRecv(Qp qp, int syndrome) {
        qp.recvSyndrome = syndrome;
        qp.recvCqePending = true;
        qp.recvActive = false;
        qp.rqConsumed++;
        maybeRecvCqe(qp);
    }

    /** Writes the receive completion once the payload writes have left and the CQE writer has room. */
    private void maybeRecvCqe(Qp qp) {
        if (!qp.recvCqePending || qp.recvWritesPending > 0) {
            return;
        }
        if (cqe.full()) {
            waitForCqeSpace(qp);
            return;
        }
        qp.recvCqePending = false;
        CqeWriter.Job j = cqe.claim();
        j.cqn = qp.cfg.recvCqn();
        j.qpn = qp.qpn;
        j.wqeCounter = qp.recvWqeIndex;
        if (qp.recvSyndrome != 0) {
            j.opcode = Cqe.RESP_ERR;
            j.syndrome = qp.recvSyndrome;
            qp.recvSyndrome = 0;
        } else {
            j.opcode = qp.recvWriteImm ? Cqe.RESP_WR_IMM : qp.recvHasImm ? Cqe.RESP_SEND_IMM : Cqe.RESP_SEND;
            qp.recvWriteImm = false;
            j.byteCount = qp.recvByteCount;
            j.immediate = qp.recvImmediate;
            j.solicited = qp.recvSolicited;
            // Reported to the lifecycle listeners when the CQE has landed (the writer stamps CQE_WRITTEN).
            j.report = true;
            j.receive = true;
            j.bytes = qp.recvByteCount;
            j.stamps[Stage.REMOTE_PLACED.ordinal()] = qp.recvPlacedPs;
        }
        qp.recvPlacedPs = Stage.NOT_REACHED;
        cqe.commit();
        resume(); // a next message may wait for this CQE
    }

    /** The CQE writer has room again. */
    void cqeSpace() {
        while (!cqeWaiters.isEmpty() && !cqe.full()) {
            Qp qp = qps.qp(cqeWaiters.poll());
            qp.inRecvCqeQueue = false;
            maybeRecvCqe(qp);
            if (qp.rqFlushing) {
                rq.flushMore(qp);
            }
        }
    }

    // ------------------------------------------------------------ writes of received payload that left

    @Override
    public void written(Qp qp, Wr w) {
        if (w != null) {
            req.responseWritten(qp, w);
        } else {
            maybeRecvCqe(qp);
        }
        resume();
    }
}
