package dev.rdmasim.adapter.nic;

import static dev.rdmasim.adapter.config.Parameters.*;

import dev.rdmasim.adapter.format.AccessFlags;
import dev.rdmasim.adapter.format.Cqe;
import dev.rdmasim.adapter.format.CqeSyndrome;
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
import dev.rdmasim.kernel.hw.Module;
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
final class Transmitter extends Module implements DmaCallback {
    static final int INFINITE_RNR_RETRY = 7;
    private static final int KIND_REQUEST = 0;
    private static final int KIND_ACK = 1;
    private static final int KIND_READ_RESPONSE = 2;

    private static final class Slot {
        int kind;
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
    }

    private final Adapter nic;
    private final Slot[] slots;
    /**
     * Ring of slots: from {@code head}, first {@code held} slots whose frame has been handed to the MAC and that stay
     * occupied until the frame's start time ({@link #freeAt}), then slots waiting to be emitted, {@code count} in all.
     */
    private int head;
    private int held;
    private int count;
    private final long[] freeAt;
    private final IntRing sendQueue;
    private final IntRing ackQueue;
    private final IntRing readQueue;
    private final IntRing retireQueue;
    private final DmaPort payloadPort;
    private final RoceWriter writer = new RoceWriter();
    private final Busy busy;
    /** Frees handed-over slots at their time, armed only when something waits for a slot or the waveform shows them. */
    private final Event releaseEvent;
    private final Event emitResume;
    private final dev.rdmasim.kernel.wave.Signal busySignal;
    private final int packetCycles;
    private final int maxUnacked;
    private final long ackTimeoutPs;
    private final long rnrTimerPs;
    private final int ackEvery;
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
    private final Counter retransmits;
    private final Counter fenceWaits;
    private final Counter timeouts;
    private final TimeAverage slotsInUse;
    private final dev.rdmasim.kernel.wave.Signal slotsSignal;

    Transmitter(Adapter nic, int slotCount, DmaChannel channel) {
        super(nic, "tx");
        this.nic = nic;

        int pieces = Math.max(4, nic.profile.getInt(NDK_MAX_INITIATOR_REQUEST_SGE) + 2);
        slots = new Slot[slotCount];
        freeAt = new long[slotCount];
        for (int i = 0; i < slotCount; i++) {
            slots[i] = new Slot(i, nic.mtu, pieces);
        }
        int maxQps = nic.profile.getInt(NIC_MAX_QPS);
        sendQueue = new IntRing(16);
        ackQueue = new IntRing(16);
        readQueue = new IntRing(16);
        retireQueue = new IntRing(16);
        payloadPort = new DmaPort(channel, slotCount * pieces);
        // The requester transport's figures, named by the block about to own them.
        Module req = new Module(nic, "req") {
        };
        retransmits = req.stats().counter("rewinds", "events", "go-back-N rewinds (sequence NAK, RNR NAK or timeout)");
        fenceWaits = req.stats().counter("fenceWaits", "events",
                "times a READ_FENCE request was held back for an earlier READ still completing");
        timeouts = req.stats().counter("timeouts", "events", "retransmission timer expiries");
        busySignal = signal("busy", 1);
        busy = new Busy(this, nic.clock, busySignal);
        releaseEvent = sim().event(fullName() + ".release", this::onRelease);
        emitResume = sim().event(fullName() + ".emit", this::emitReady);
        packetCycles = nic.profile.getInt(NIC_TX_PACKET_CYCLES);
        maxUnacked = nic.profile.getInt(TRANSPORT_MAX_UNACKED_PSNS);
        ackTimeoutPs = nic.profile.getLong(TRANSPORT_ACK_TIMEOUT);
        rnrTimerPs = nic.profile.getLong(TRANSPORT_RNR_TIMER);
        ackEvery = Math.max(1, nic.profile.getInt(TRANSPORT_ACK_COALESCE));
        payloadPort.onReady(this::pump);
        writer.macs(0, nic.mac);
        packets = stats().counter("packets", "packets", "frames put on the wire");
        bytes = stats().counter("payloadBytes", "bytes", "payload bytes sent");
        acks = stats().counter("acks", "packets", "ACKs sent");
        naks = stats().counter("naks", "packets", "NAKs sent");
        slotsInUse = stats().timeAverage("slotsInUse", "slots", "transmit buffer slots in use");
        slotsSignal = signal("slotsInUse", 16);
        // Slots free lazily: bring the occupancy up to date before statistics are read or reset.
        stats().setRefresh(this::release);
    }

    void attach(LinkEndpoint p) {
        port = p;
        port.onBufferFree(() -> {
            waitingForBuffer = false;
            if (nic.gsi != null) {
                nic.gsi.bufferFree(); // QP1 shares the port's buffers; management frames go first
            }
            emitReady();
        });
    }

    // ------------------------------------------------------------ queues

    /** A QP has parsed requests to send. */
    void queue(Qp qp) {
        if (qp.state == QpState.ERROR) {
            flushAll(qp);
            return;
        }
        if (!qp.inTxQueue && qp.state == QpState.READY_TO_SEND) {
            qp.inTxQueue = true;
            sendQueue.add(qp.qpn);
        }
        pump();
    }

    /** The responder owes {@code qp}'s peer an ACK or NAK (already recorded in the QP). */
    void queueAck(Qp qp) {
        if (!qp.ackQueued) {
            qp.ackQueued = true;
            ackQueue.add(qp.qpn);
        }
        pump();
    }

    /** The responder accepted a READ request: its response packets are recorded in the QP. */
    void queueReadResponse(Qp qp) {
        if (!qp.inReadQueue) {
            qp.inReadQueue = true;
            readQueue.add(qp.qpn);
        }
        pump();
    }

    boolean readQueueFull() {
        return readQueue.isFull();
    }

    // ------------------------------------------------------------ slot allocation

    void pump() {
        release();
        while (count < slots.length && !payloadPort.blocked()) {
            if (!ackQueue.isEmpty()) {
                Qp qp = nic.qp(ackQueue.poll());
                qp.ackQueued = false;
                Slot s = alloc(KIND_ACK, qp);
                s.opcode = Opcode.ACKNOWLEDGE;
                s.syndrome = qp.ackSyndrome;
                s.msn = qp.rsp.msn();
                s.psn = qp.ackSyndrome == Aeth.ack(Aeth.CREDITS_INVALID) ? Psn.add(qp.rsp.expectedPsn(), -1) : qp.rsp.expectedPsn();
                qp.ackSyndrome = Aeth.ack(Aeth.CREDITS_INVALID);
                commitSlot(s);
                continue;
            }
            if (!readQueue.isEmpty()) {
                if (!nextReadResponse(nic.qp(readQueue.peek()))) {
                    return;
                }
                continue;
            }
            if (sendQueue.isEmpty()) {
                return;
            }
            Qp qp = nic.qp(sendQueue.poll());
            int r = nextRequestPacket(qp);
            if (r < 0) {
                sendQueue.add(qp.qpn);
                return; // Waiting for a key or translation line; the key unit pumps us again.
            }
            if (r > 0) {
                sendQueue.add(qp.qpn); // Round robin: one packet per turn.
            } else {
                qp.inTxQueue = false;
            }
        }
    }

    private Slot alloc(int kind, Qp qp) {
        Slot s = slots[wrap(head + count)];
        s.kind = kind;
        s.qp = qp;
        s.wr = null;
        s.length = 0;
        s.outstanding = 0;
        s.ackRequest = false;
        s.solicited = false;
        s.immediate = 0;
        s.readyPs = nic.at();
        return s;
    }

    private void commitSlot(Slot s) {
        count++;
        slotsInUse.set(count);
        slotsSignal.set(count);
        emitReady();
    }

    /** Queues the next request packet of {@code qp}: 1 = more to send, 0 = nothing more now, -1 = wait. */
    private int nextRequestPacket(Qp qp) {
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
        int k = w.packetsQueued;
        int psn = Psn.add(w.firstPsn, k);
        if (Psn.diff(psn, qp.unackedPsn) >= maxUnacked) {
            return 0; // Window full; an ACK requeues the QP.
        }
        if (k == 0 && w.fence && readsUnfinished(qp)) {
            fenceWaits.inc();
            return 0; // Fenced: it starts once the earlier READs are complete, whose completion requeues the QP.
        }
        boolean read = w.opcode == WqeOpcode.RDMA_READ;
        if (read && k == 0) {
            if (qp.maxReadsOut == 0) {
                qp.wrSent++;
                failFrom(qp, qp.wrSent - 1, CqeSyndrome.LOCAL_QP_OP);
                return 0;
            }
            if (readsInFlight(qp) >= qp.maxReadsOut) {
                return 0; // Its READ slots are full (ORD); a completing READ requeues the QP.
            }
        }
        int off = k * nic.mtu;
        int len = read ? 0 : (int) Math.min(nic.mtu, w.length - off);
        Slot s = alloc(KIND_REQUEST, qp);
        s.wr = w;
        s.readyPs = Math.max(w.readyPs, s.readyPs);
        s.psn = psn;
        s.length = len;
        s.opcode = requestOpcode(w, k);
        s.solicited = w.solicited && (k == w.packets - 1);
        s.immediate = w.immediate;
        s.va = w.remoteAddress;
        s.rkey = w.rkey;
        s.dmaLength = (int) w.length;
        boolean last = read || k == w.packets - 1;
        s.ackRequest = last || ((Psn.diff(psn, qp.unackedPsn) + 1) % ackEvery == 0);
        if (len > 0) {
            if (w.inline) {
                System.arraycopy(w.inlineData, off, s.buf, 0, len);
            } else {
                int st = gather(s, w, qp.cfg.pd(), off, len);
                if (st == KeyUnit.WAIT) {
                    return -1;
                }
                if (st != KeyUnit.OK) {
                    qp.wrSent++;
                    failFrom(qp, qp.wrSent - 1, st);
                    return 0;
                }
            }
        }
        w.packetsQueued = read ? w.packets : k + 1;
        if (w.packetsQueued == w.packets) {
            qp.wrSent++;
            nic.fetch.sentOne(qp);
        }
        commitSlot(s);
        return qp.wrSent < qp.wrCount ? 1 : 0;
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
                int st = nic.keys.check(w.sgeKey[i], pd, w.sgeAddr[i] + (a - pos), b - a, 0, false);
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
                int piece = (int) Math.min(b - a, nic.keys.pageRemaining(w.sgeKey[i], va));
                n = issueRead(s, n, nic.keys.translate(w.sgeKey[i], va), (int) (a - off), piece);
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
        int slotIndex = s.index;
        s.reads[n].read(pa, s.buf, bufOff, len, this, (long) slotIndex << 8 | n);
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

    @Override
    public void readDone(DmaRequest r) {
        Slot s = slots[(int) (r.cookie() >>> 8)];
        s.outstanding--;
        if (s.outstanding == 0 && s.wr != null) {
            s.wr.stamp(Stage.PAYLOAD_READ, now());
        }
        emitReady();
    }

    /** Next READ response packet of the head QP of the read queue; false to wait. */
    private boolean nextReadResponse(Qp qp) {
        if (qp.readNext == qp.readCount) {
            readQueue.poll(); // Every held READ has its responses queued.
            qp.inReadQueue = false;
            return true;
        }
        int h = (qp.readHead + qp.readNext) % qp.readVa.length;
        int rkey = qp.readRkey[h];
        int k = qp.readSent;
        int len = (int) Math.min(nic.mtu, qp.readLength[h] - (long) k * nic.mtu);
        long va = qp.readVa[h] + (long) k * nic.mtu;
        int total = qp.readPackets[h];
        if (len > 0) {
            int st = nic.keys.check(rkey, qp.cfg.pd(), va, len, AccessFlags.REMOTE_READ, true);
            if (st == KeyUnit.WAIT) {
                return false;
            }
            if (st != KeyUnit.OK) {
                throw new InvariantViolation(fullName() + ": READ range lost its key after the responder checked it");
            }
        }
        Slot s = alloc(KIND_READ_RESPONSE, qp);
        s.psn = Psn.add(qp.readPsn[h], k);
        s.length = Math.max(len, 0);
        s.opcode = total == 1 ? Opcode.RDMA_READ_RESPONSE_ONLY : k == 0 ? Opcode.RDMA_READ_RESPONSE_FIRST
                : k == total - 1 ? Opcode.RDMA_READ_RESPONSE_LAST : Opcode.RDMA_READ_RESPONSE_MIDDLE;
        s.syndrome = Aeth.ack(Aeth.CREDITS_INVALID);
        s.msn = qp.rsp.msn();
        int n = 0;
        long a = 0;
        while (a < len) {
            int piece = (int) Math.min(len - a, nic.keys.pageRemaining(rkey, va + a));
            n = issueRead(s, n, nic.keys.translate(rkey, va + a), (int) a, piece);
            a += piece;
        }
        qp.readSent++;
        if (qp.readSent == total) {
            // All its responses are queued; the READ stays held (IRD) until the last one leaves.
            qp.readNext++;
            qp.readSent = 0;
            if (qp.readNext == qp.readCount) {
                readQueue.poll();
                qp.inReadQueue = false;
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
            emit(s, f, t);
            freeAt[i] = t;
            held++;
        }
        armRelease();
    }

    private void emit(Slot s, Frame f, long t) {
        Qp qp = s.qp;
        writer.macs(qp.peerMac, nic.mac).ipv4(nic.ip, qp.peerIp)
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
        f.length(writer.write(f.data(), s.buf, 0, s.length));
        if (s.kind == KIND_REQUEST && (Opcode.isLast(s.opcode) || Opcode.isOnly(s.opcode))) {
            f.trace(s.wr, s.wr.generation);
        }
        port.send(f, t);
        packets.inc();
        bytes.add(s.length);
        if (s.kind == KIND_ACK) {
            if (Aeth.isAck(s.syndrome)) {
                acks.inc();
            } else {
                naks.inc();
            }
        }
        if (s.kind == KIND_READ_RESPONSE
                && (s.opcode == Opcode.RDMA_READ_RESPONSE_LAST || s.opcode == Opcode.RDMA_READ_RESPONSE_ONLY)) {
            // The READ leaves the responder's IRD when its last response is handed to the MAC.
            qp.readHead = (qp.readHead + 1) % qp.readVa.length;
            qp.readCount--;
            qp.readNext--;
            nic.rx.readResponseDone(qp);
        }
        if (s.kind == KIND_REQUEST) {
            Wr w = s.wr;
            w.stamp(Stage.FIRST_PACKET, t);
            if (Psn.diff(s.psn, w.lastPsn()) >= 0 || s.opcode == Opcode.RDMA_READ_REQUEST) {
                w.stamp(Stage.LAST_PACKET, t);
            }
            if (qp.timerDeadline == Long.MAX_VALUE) {
                restartTimerAt(qp, t + ackTimeoutPs);
            }
        }
    }

    /** Frees the handed-over slots whose frames have started, with the occupancy statistic at their instants. */
    private void release() {
        long now = now();
        while (held > 0 && freeAt[head] <= now) {
            long t = freeAt[head];
            head = wrap(head + 1);
            held--;
            count--;
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

    // ------------------------------------------------------------ requester transport

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
                restartTimer(qp, ackTimeoutPs);
            } else {
                stopTimer(qp);
            }
            nic.fetch.requeue(qp);
            queue(qp);
        }
    }

    /** Retires the oldest request with {@code syndrome} (0 = success); false if the CQE writer is full. */
    private boolean retireHead(Qp qp, int syndrome) {
        Wr w = qp.wr(0);
        if (nic.cqe.full()) {
            if (!qp.inRetireQueue) {
                qp.inRetireQueue = true;
                retireQueue.add(qp.qpn);
            }
            return false;
        }
        w.stamp(Stage.ACKED, nic.at());
        if (w.inline) {
            nic.credits.releaseInline(w.length);
        }
        int err = syndrome != 0 ? syndrome : w.syndrome;
        if (w.signaled || err != 0) {
            CqeWriter.Job j = nic.cqe.claim();
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
            nic.cqe.commit();
        } else {
            nic.reportRetired(qp.qpn, w.wqeIndex, w.opcode, w.length, 0, w.stamps);
        }
        qp.wrHead = qp.wrHead + 1 == qp.wrs.length ? 0 : qp.wrHead + 1;
        qp.wrCount--;
        qp.wrSent--;
        return true;
    }

    /** The CQE writer has room again: finish retirements that waited for it. */
    void cqeSpace() {
        while (!retireQueue.isEmpty() && !nic.cqe.full()) {
            Qp qp = nic.qp(retireQueue.poll());
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
            restartTimer(qp, rnrTimerPs);
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

    /** A READ response arrived ahead of the one expected: re-request the READ once per gap. */
    void readGap(Qp qp, Wr w) {
        int missing = Psn.add(w.firstPsn, w.responses);
        if (qp.readRetryArmed && qp.readRetryPsn == missing) {
            return;
        }
        qp.readRetryArmed = true;
        qp.readRetryPsn = missing;
        rewind(qp, missing);
    }

    /**
     * (Re)arms the QP's retransmission deadline. The timer event is moved only when the deadline
     * comes earlier; a later deadline is picked up when the event fires, so the ACK of every
     * request does not reschedule a far-future event.
     */
    private void restartTimer(Qp qp, long delayPs) {
        restartTimerAt(qp, nic.at() + delayPs);
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
            restartTimer(qp, ackTimeoutPs);
            queue(qp);
            return;
        }
        timeouts.inc();
        if (--qp.retriesLeft < 0) {
            failAt(qp, qp.unackedPsn, CqeSyndrome.TRANSPORT_RETRY_EXC);
            return;
        }
        rewind(qp, qp.unackedPsn);
        restartTimer(qp, ackTimeoutPs);
    }

    /** Go-back-N: make every packet from {@code psn} on be sent again. */
    private void rewind(Qp qp, int psn) {
        retransmits.inc();
        for (int i = 0; i < qp.wrCount; i++) {
            Wr w = qp.wr(i);
            int d = Psn.diff(psn, w.firstPsn);
            if (d < w.packets) {
                int from = Math.max(0, d);
                if (w.opcode == WqeOpcode.RDMA_READ) {
                    from = 0;
                    w.responses = Math.min(w.responses, Math.max(0, d));
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
        nic.rx.startRecvFlush(qp);
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
