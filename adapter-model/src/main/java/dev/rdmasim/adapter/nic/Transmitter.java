package dev.rdmasim.adapter.nic;

import static dev.rdmasim.adapter.config.Parameters.*;

import dev.rdmasim.adapter.format.AccessFlags;
import dev.rdmasim.adapter.format.WqeOpcode;
import dev.rdmasim.adapter.pcie.DmaCallback;
import dev.rdmasim.adapter.pcie.DmaChannel;
import dev.rdmasim.adapter.pcie.DmaPort;
import dev.rdmasim.adapter.pcie.DmaRequest;
import dev.rdmasim.adapter.transport.Psn;
import dev.rdmasim.adapter.wire.Aeth;
import dev.rdmasim.adapter.wire.Frame;
import dev.rdmasim.adapter.wire.LinkEndpoint;
import dev.rdmasim.adapter.wire.Opcode;
import dev.rdmasim.adapter.wire.RoceWriter;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.hw.ClockDomain;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.stats.Bound;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.TimeAverage;

/**
 * The transmit engine and packetizer, with the requester side of the RC transport. Work comes from
 * three queues in priority order: acknowledgements the responder owes, READ responses, and QPs with
 * request packets to send (round-robin, one packet per turn, within each QP's window of
 * unacknowledged PSNs). Each packet takes a slot of the transmit buffer; its payload is DMA-read
 * from host memory into the slot (after a key check and translation), or copied from the inline
 * buffer. Slots leave in allocation order, so packets of a QP go out in PSN order; building a
 * frame costs the profile's cycles per packet.
 *
 * <p>Acknowledgements retire requests in order and hand their completions to the CQE writer;
 * a sequence NAK, an RNR NAK or a timeout rewinds the QP to the PSN to resend (go-back-N) and the
 * payload is read again from host memory; a remote-access or invalid-request NAK, or running out
 * of retries, completes the failing request with an error and flushes the rest.
 */
final class Transmitter extends Module implements RequesterTransport.Packetizer, Responder.Sender {
    /** What a transmit slot carries. */
    private enum Kind { REQUEST, ACK, READ_RESPONSE }

    /** One transmit slot: a packet being built, its payload reads in flight, and the frame's fields. */
    private final class Slot implements DmaCallback {
        Kind kind;
        Qp qp;
        Wr wr;
        int psn;
        int opcode;
        int length;
        int outstanding;
        boolean ackRequest;
        boolean solicited;
        int immediate;
        long va;
        int rkey;
        int dmaLength;
        int syndrome;
        int msn;
        /** Nothing of this packet (payload read, frame) may go out before: its request's parse end. */
        long readyPs;
        final byte[] buf;
        final DmaRequest[] reads;
        final int index;

        Slot(int index, int mtu, int pieces) {
            this.index = index;
            buf = new byte[mtu];
            reads = new DmaRequest[pieces];
            for (int i = 0; i < pieces; i++) {
                reads[i] = new DmaRequest();
            }
        }

        /** A payload read of this slot landed. */
        @Override
        public void readDone(DmaRequest r) {
            payloadRead(this);
        }
    }

    /** What the block is built with, taken from the profile once. */
    record Params(int slots, int pieces, int packetCycles, int mtu, int pipelineCycles) {
        /** Without pipeline depth: a frame goes to the MAC when its packet cycles end. */
        Params(int slots, int pieces, int packetCycles, int mtu) {
            this(slots, pieces, packetCycles, mtu, 0);
        }

        /**
         * DMA reads one packet may need: each of its SGEs' parts can start anywhere in a page and is split at page
         * boundaries, so a part of n bytes takes at most floor((n - 1) / page) + 2 reads; summed over the packet that
         * is at most 2 per SGE plus one per page the MTU spans (pages are at least 4 KiB). A READ response, one part,
         * needs fewer.
         */
        static int pieces(int maxSge, int mtu) {
            return 2 * Math.max(1, maxSge) + mtu / 4096;
        }

        static Params of(dev.rdmasim.adapter.config.Profile p) {
            return new Params(p.getInt(NIC_TX_SLOTS), pieces(p.getInt(NDK_MAX_INITIATOR_REQUEST_SGE), p.getInt(LINK_MTU)),
                    p.getInt(NIC_TX_PACKET_CYCLES), p.getInt(LINK_MTU), p.getInt(NIC_TX_PIPELINE_CYCLES));
        }
    }

    private final WorkClock work;
    private final QpTable qps;
    private final KeyUnit keys;
    private final long mac;
    private final int ip;
    private final int mtu;
    /** One QP's place in the transmitter's ACK and READ-response queues: written by this block only. */
    static final class QpTx {
        private boolean ackQueued;
        private boolean readQueued;
        /** Position (from the oldest) of the inbound READ whose responses are being queued. */
        private int readNext;
        /** Response packets of that READ already queued for the wire. */
        private int readSent;

        boolean ackQueued() {
            return ackQueued;
        }

        boolean readQueued() {
            return readQueued;
        }

        int readSent() {
            return readSent;
        }
    }

    /** The requester transport's side: told when one of a QP's request packets is handed to the MAC. */
    @FunctionalInterface
    interface Requests {
        void packetSent(Qp qp, long t);
    }

    /** The responder: the ACKs it owes, the inbound READs to answer; told when a READ's last response has left. */
    private ResponderReplies responder;
    /** Told first when a link buffer frees: QP1 shares the port's buffers and its management frames go first. */
    private Runnable bufferFreeFirst = () -> { };
    private final Slot[] slots;
    /**
     * Ring of slots: from {@code head}, first {@code held} slots whose frame has been handed to the MAC and that stay
     * occupied until the frame's start time ({@link #freeAt}), then slots waiting to be emitted, {@code count} in all.
     */
    private int head;
    private int held;
    private int count;
    private final long[] freeAt;
    private final Requests req;
    private final SendScheduler scheduler;
    /** The request packet built and not yet handed on. */
    private Slot built;
    private final IntRing ackQueue;
    private final IntRing readQueue;
    private final DmaPort payloadPort;
    private final RoceWriter writer = new RoceWriter();
    private final Busy busy;
    /** Frees handed-over slots at their time, armed only when something waits for a slot or the waveform shows them. */
    private final Event releaseEvent;
    private final Event emitResume;
    private final dev.rdmasim.kernel.wave.Signal busySignal;
    private final int packetCycles;
    /** Latency through the packet-build pipeline beyond the packet's booking. */
    private final long pipelinePs;
    /** RDMA READs a QP may have outstanding as requester (ORD); 0 = the QP may not issue READs. */
    /** Retries a QP gets back after every acknowledgement that makes progress. */
    private LinkEndpoint port;
    /** The latest ready time given to a payload read on the payload channel. */
    private long readyFloor;
    private boolean waitingForBuffer;
    private final Counter packets;
    private final Counter bytes;
    private final Counter acks;
    private final Counter naks;
    private final TimeAverage slotsInUse;
    private final Bound slotsFull;
    private final dev.rdmasim.kernel.wave.Signal slotsSignal;

    Transmitter(Module parent, Params params, ClockDomain nicClock, WorkClock work, QpTable qps, KeyUnit keys,
            DmaChannel channel, Requests req, SendScheduler scheduler, long mac, int ip) {
        super(parent, "tx");
        this.work = work;
        this.qps = qps;
        this.keys = keys;
        this.mac = mac;
        this.ip = ip;
        this.mtu = params.mtu();
        this.req = req;
        this.scheduler = scheduler;
        int slotCount = params.slots();

        int pieces = params.pieces();
        slots = new Slot[slotCount];
        freeAt = new long[slotCount];
        for (int i = 0; i < slotCount; i++) {
            slots[i] = new Slot(i, mtu, pieces);
        }
        ackQueue = new IntRing(16);
        readQueue = new IntRing(16);
        payloadPort = new DmaPort(channel, slotCount * pieces);
        busySignal = signal("busy", 1);
        busy = new Busy(this, nicClock, busySignal);
        releaseEvent = sim().event(fullName() + ".release", this::onRelease);
        emitResume = sim().event(fullName() + ".emit", this::emitReady);
        packetCycles = params.packetCycles();
        pipelinePs = nicClock.cyclesToPs(params.pipelineCycles());
        payloadPort.onReady(this::pump);
        writer.macs(0, mac);
        packets = stats().counter("packets", "packets", "frames put on the wire");
        bytes = stats().counter("payloadBytes", "bytes", "payload bytes sent");
        acks = stats().counter("acks", "packets", "ACKs sent");
        naks = stats().counter("naks", "packets", "NAKs sent");
        slotsInUse = stats().timeAverage("slotsInUse", "slots", "transmit buffer slots in use");
        slotsSignal = signal("slotsInUse", 16);
        slotsFull = stats().bound("", "transmit slots", "every slot holds a packet", "nic.txSlots");
        // Slots free lazily: bring the occupancy up to date before statistics are read or reset.
        stats().setRefresh(this::release);
    }

    /** The responder whose ACKs and READ responses this sends, and who gets a freed link buffer first (QP1). */
    void connect(ResponderReplies owner, Runnable firstOnBufferFree) {
        this.responder = owner;
        this.bufferFreeFirst = firstOnBufferFree;
    }

    /** Whether the QP has an ACK or READ responses queued here. */
    boolean busyWith(Qp qp) {
        return qp.tx.ackQueued || qp.tx.readQueued;
    }

    void attach(LinkEndpoint p) {
        port = p;
        port.onBufferFree(() -> {
            waitingForBuffer = false;
            bufferFreeFirst.run();
            emitReady();
        });
    }

    // ------------------------------------------------------------ queues

    /** The responder owes {@code qp}'s peer an ACK or NAK (it hands the syndrome over when it is sent). */
    @Override
    public void queueAck(Qp qp) {
        if (!qp.tx.ackQueued) {
            qp.tx.ackQueued = true;
            ackQueue.add(qp.qpn);
        }
        pump();
    }

    /** The responder accepted a READ request: its response packets are to be sent. */
    @Override
    public void queueReadResponse(Qp qp) {
        if (!qp.tx.readQueued) {
            qp.tx.readQueued = true;
            readQueue.add(qp.qpn);
        }
        pump();
    }

    boolean readQueueFull() {
        return readQueue.isFull();
    }

    // ------------------------------------------------------------ slot allocation

    @Override
    public void pump() {
        release();
        while (count < slots.length && !payloadPort.blocked()) {
            if (!ackQueue.isEmpty()) {
                Qp qp = qps.qp(ackQueue.poll());
                qp.tx.ackQueued = false;
                Slot s = alloc(Kind.ACK, qp);
                s.opcode = Opcode.ACKNOWLEDGE;
                int syndrome = responder.takeAck(qp);
                var rsp = qp.resp.transport();
                s.syndrome = syndrome;
                s.msn = rsp.msn();
                s.psn = syndrome == Aeth.ack(Aeth.CREDITS_INVALID) ? Psn.add(rsp.expectedPsn(), -1) : rsp.expectedPsn();
                commitSlot(s);
                continue;
            }
            if (!readQueue.isEmpty()) {
                if (!nextReadResponse(qps.qp(readQueue.peek()))) {
                    return;
                }
                continue;
            }
            if (!scheduler.step()) {
                return;
            }
        }
    }

    @Override
    public int buildRequest(Qp qp, Wr w, int k, int psn, boolean ackRequest) {
        boolean read = w.opcode == WqeOpcode.RDMA_READ;
        int off = k * mtu;
        int len = read ? 0 : (int) Math.min(mtu, w.length - off);
        Slot s = alloc(Kind.REQUEST, qp);
        s.wr = w;
        s.readyPs = Math.max(w.readyPs, s.readyPs);
        s.psn = psn;
        s.length = len;
        s.opcode = requestOpcode(w, k);
        s.solicited = w.solicited && (k == w.packets - 1);
        s.immediate = w.immediate;
        // A READ asked again from response k names the rest of its range.
        s.va = w.remoteAddress + (read ? (long) k * mtu : 0);
        s.rkey = w.rkey;
        s.dmaLength = (int) (w.length - (read ? (long) k * mtu : 0));
        s.ackRequest = ackRequest;
        if (len > 0) {
            if (w.inline) {
                System.arraycopy(w.inlineData, off, s.buf, 0, len);
            } else {
                int st = gather(s, w, qp.cfg.pd(), off, len);
                if (st != KeyUnit.OK) {
                    return st;
                }
            }
        }
        built = s;
        return KeyUnit.OK;
    }

    @Override
    public void commitRequest() {
        Slot s = built;
        built = null;
        commitSlot(s);
    }

    private Slot alloc(Kind kind, Qp qp) {
        Slot s = slots[wrap(head + count)];
        s.kind = kind;
        s.qp = qp;
        s.wr = null;
        s.length = 0;
        s.outstanding = 0;
        s.ackRequest = false;
        s.solicited = false;
        s.immediate = 0;
        s.readyPs = work.at();
        return s;
    }

    private void commitSlot(Slot s) {
        count++;
        slotsInUse.set(count);
        slotsSignal.set(count);
        if (count == slots.length) {
            slotsFull.set(true);
        }
        emitReady();
    }

    private static int requestOpcode(Wr w, int k) {
        boolean first = k == 0;
        boolean last = k == w.packets - 1;
        switch (w.opcode) {
            case WqeOpcode.RDMA_READ:
                return Opcode.RDMA_READ_REQUEST;
            case WqeOpcode.RDMA_WRITE:
            case WqeOpcode.RDMA_WRITE_IMM: {
                boolean imm = w.opcode == WqeOpcode.RDMA_WRITE_IMM;
                if (first && last) {
                    return imm ? Opcode.RDMA_WRITE_ONLY_IMM : Opcode.RDMA_WRITE_ONLY;
                }
                return first ? Opcode.RDMA_WRITE_FIRST : last ? (imm ? Opcode.RDMA_WRITE_LAST_IMM : Opcode.RDMA_WRITE_LAST)
                        : Opcode.RDMA_WRITE_MIDDLE;
            }
            default: {
                boolean imm = w.opcode == WqeOpcode.SEND_IMM;
                if (first && last) {
                    return imm ? Opcode.SEND_ONLY_IMM : Opcode.SEND_ONLY;
                }
                return first ? Opcode.SEND_FIRST : last ? (imm ? Opcode.SEND_LAST_IMM : Opcode.SEND_LAST) : Opcode.SEND_MIDDLE;
            }
        }
    }

    /** Checks keys and issues the DMA reads for message bytes [off, off+len) into the slot. */
    private int gather(Slot s, Wr w, int pd, long off, int len) {
        // First pass: every piece must pass its key check with its translation on chip.
        long pos = 0;
        for (int i = 0; i < w.sgeCount; i++) {
            long a = Math.max(off, pos);
            long b = Math.min(off + len, pos + w.sgeLen[i]);
            if (a < b) {
                int st = keys.check(w.sgeKey[i], pd, w.sgeAddr[i] + (a - pos), b - a, 0, false);
                if (st != KeyUnit.OK) {
                    return st;
                }
            }
            pos += w.sgeLen[i];
        }
        pos = 0;
        int n = 0;
        for (int i = 0; i < w.sgeCount; i++) {
            long a = Math.max(off, pos);
            long b = Math.min(off + len, pos + w.sgeLen[i]);
            while (a < b) {
                long va = w.sgeAddr[i] + (a - pos);
                int piece = (int) Math.min(b - a, keys.pageRemaining(w.sgeKey[i], va));
                n = issueRead(s, n, keys.translate(w.sgeKey[i], va), (int) (a - off), piece);
                a += piece;
            }
            pos += w.sgeLen[i];
        }
        return KeyUnit.OK;
    }

    private int issueRead(Slot s, int n, long pa, int bufOff, int len) {
        if (n >= s.reads.length) {
            throw new InvariantViolation(fullName() + ": a packet needs more than " + s.reads.length + " DMA pieces");
        }
        s.reads[n].read(pa, s.buf, bufOff, len, s, n);
        if (s.readyPs > now()) {
            // Ready times given to one channel may not decrease; the parser's are booked in order, so keeping the
            // highest given so far only matters when round robin takes an older request after a newer one.
            readyFloor = Math.max(readyFloor, s.readyPs);
            s.reads[n].notBefore(readyFloor);
        }
        s.outstanding++;
        payloadPort.send(s.reads[n]);
        return n + 1;
    }

    private void payloadRead(Slot s) {
        s.outstanding--;
        if (s.outstanding == 0 && s.wr != null) {
            s.wr.stamp(Stage.PAYLOAD_READ, now());
        }
        emitReady();
    }

    /** Next READ response packet of the head QP of the read queue; false to wait. */
    private boolean nextReadResponse(Qp qp) {
        QpTx t = qp.tx;
        if (t.readNext == responder.reads(qp)) {
            readQueue.poll(); // Every held READ has its responses queued.
            t.readQueued = false;
            return true;
        }
        int h = t.readNext;
        int rkey = responder.readRkey(qp, h);
        int k = t.readSent;
        int len = (int) Math.min(mtu, responder.readLength(qp, h) - (long) k * mtu);
        long va = responder.readVa(qp, h) + (long) k * mtu;
        int total = responder.readPackets(qp, h);
        if (len > 0) {
            int st = keys.check(rkey, qp.cfg.pd(), va, len, AccessFlags.REMOTE_READ, true);
            if (st == KeyUnit.WAIT) {
                return false;
            }
            if (st != KeyUnit.OK) {
                throw new InvariantViolation(fullName() + ": READ range lost its key after the responder checked it");
            }
        }
        Slot s = alloc(Kind.READ_RESPONSE, qp);
        s.psn = Psn.add(responder.readPsn(qp, h), k);
        s.length = Math.max(len, 0);
        s.opcode = total == 1 ? Opcode.RDMA_READ_RESPONSE_ONLY : k == 0 ? Opcode.RDMA_READ_RESPONSE_FIRST
                : k == total - 1 ? Opcode.RDMA_READ_RESPONSE_LAST : Opcode.RDMA_READ_RESPONSE_MIDDLE;
        s.syndrome = Aeth.ack(Aeth.CREDITS_INVALID);
        s.msn = qp.resp.transport().msn();
        int n = 0;
        long a = 0;
        while (a < len) {
            int piece = (int) Math.min(len - a, keys.pageRemaining(rkey, va + a));
            n = issueRead(s, n, keys.translate(rkey, va + a), (int) a, piece);
            a += piece;
        }
        t.readSent++;
        if (t.readSent == total) {
            // All its responses are queued; the READ stays held (IRD) until the last one leaves.
            t.readNext++;
            t.readSent = 0;
            if (t.readNext == responder.reads(qp)) {
                readQueue.poll();
                t.readQueued = false;
            }
        }
        commitSlot(s);
        return true;
    }

    // ------------------------------------------------------------ emission

    private int wrap(int i) {
        return i < slots.length ? i : i - slots.length;
    }

    /**
     * Hands every slot at the front of the emission order whose payload is on chip to the MAC. The packetizer is
     * booked for the frame's cycles, and the frame is built now and sent with its ready time at the end of that
     * booking, so the wire starts it exactly when a packetizer event at that instant would have; the slot stays
     * occupied until then. Only an idle packetizer takes a slot this way; slots ready behind a busy one are taken
     * one by one as it frees (an event each), so no frame holds a link buffer for longer than one packet ahead.
     */
    private void emitReady() {
        while (count > held && !waitingForBuffer) {
            int i = wrap(head + held);
            Slot s = slots[i];
            if (s.outstanding > 0) {
                break;
            }
            if (busy.deferWhileBusy(Math.max(now(), s.readyPs), emitResume)) {
                break;
            }
            Frame f = port.acquire();
            if (f == null) {
                waitingForBuffer = true;
                break;
            }
            long t = busy.book(packetCycles, s.readyPs);
            // The slot is free once its frame is built; the frame reaches the MAC after the rest of the pipeline.
            emit(s, f, t + pipelinePs);
            freeAt[i] = t;
            held++;
        }
        armRelease();
    }

    private void emit(Slot s, Frame f, long t) {
        Qp qp = s.qp;
        writer.macs(qp.peerMac, mac).ipv4(ip, qp.peerIp)
                .udpSourcePort(RoceWriter.entropyPort(qp.qpn, qp.remoteQpn))
                .bth(s.opcode, qp.remoteQpn, s.psn).ackRequest(s.ackRequest).solicited(s.solicited);
        if (Opcode.hasReth(s.opcode)) {
            writer.reth(s.va, s.rkey, s.dmaLength);
        }
        if (Opcode.hasAeth(s.opcode)) {
            writer.aeth(s.syndrome, s.msn);
        }
        if (Opcode.hasImmediate(s.opcode)) {
            writer.immediate(s.immediate);
        }
        writer.write(f, s.buf, 0, s.length);
        if (s.kind == Kind.REQUEST && (Opcode.isLast(s.opcode) || Opcode.isOnly(s.opcode))) {
            f.origin(s.wr);
        }
        port.send(f, t);
        packets.inc();
        bytes.add(s.length);
        if (s.kind == Kind.ACK) {
            if (Aeth.isAck(s.syndrome)) {
                acks.inc();
            } else {
                naks.inc();
            }
        }
        if (s.kind == Kind.READ_RESPONSE
                && (s.opcode == Opcode.RDMA_READ_RESPONSE_LAST || s.opcode == Opcode.RDMA_READ_RESPONSE_ONLY)) {
            // The READ leaves the responder's IRD when its last response is handed to the MAC.
            qp.tx.readNext--;
            responder.readAnswered(qp);
        }
        if (s.kind == Kind.REQUEST) {
            Wr w = s.wr;
            w.stamp(Stage.FIRST_PACKET, t);
            if (Psn.diff(s.psn, w.lastPsn()) >= 0 || s.opcode == Opcode.RDMA_READ_REQUEST) {
                w.stamp(Stage.LAST_PACKET, t);
            }
            req.packetSent(qp, t);
        }
    }

    /** Frees the handed-over slots whose frames have started, with the occupancy statistic at their instants. */
    private void release() {
        long now = now();
        while (held > 0 && freeAt[head] <= now) {
            long t = freeAt[head];
            head = wrap(head + 1);
            held--;
            if (count-- == slots.length) {
                slotsFull.setAt(t, false);
            }
            slotsInUse.setAt(t, count);
            if (count == 0) {
                busy.idle();
            }
        }
    }

    /**
     * Lazily freed slots need an event only when the pump waits for one (every slot occupied) or when the
     * occupancy or busy flag is traced, so the waveform changes at the right instant.
     */
    private void armRelease() {
        if (held > 0 && !releaseEvent.scheduled()
                && (count == slots.length || slotsSignal.enabled() || busySignal.enabled())) {
            releaseEvent.schedule(Math.max(now(), freeAt[head]));
        }
    }

    private void onRelease() {
        release();
        slotsSignal.set(count);
        pump();
        emitReady();
    }
}
