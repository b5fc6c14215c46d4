package dev.rdmasim.adapter.nic;

import dev.rdmasim.adapter.format.AccessFlags;
import dev.rdmasim.adapter.pcie.DmaCallback;
import dev.rdmasim.adapter.pcie.DmaChannel;
import dev.rdmasim.adapter.pcie.DmaPort;
import dev.rdmasim.adapter.pcie.DmaRequest;
import dev.rdmasim.adapter.wire.Frame;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.TimeAverage;
import dev.rdmasim.kernel.wave.Signal;

/**
 * The payload writer: DMA writes of received payload into host memory, straight from the frame buffer (an RDMA
 * WRITE's bytes to the registered region, a SEND's scattered over its receive WQE, a READ response's over the
 * requester's SGEs). Every piece is checked against its local key before any is written, and split at page
 * boundaries as translated. A frame stays held until the last write carrying its bytes has left the device, so
 * inbound data in flight is bounded by the link's buffers and by the writer's {@value #WRITES} write requests;
 * when they run short the receiver waits and is woken as writes leave.
 */
final class PayloadWriter extends Module {
    /** Write requests; each carries one page-bounded piece of one frame. */
    static final int WRITES = 64; // one bit each in a long: see freeWrites
    /** {@link #scatter} results besides "held" (1) and "nothing written" (0). */
    static final int WAIT = -1;
    static final int KEY_ERROR = -2;

    /** Told when a write has left the device (after the frame it came from is released if it was the last). */
    interface Written {
        /** A write of {@code qp}'s payload left: {@code readWr} is the READ it answers, or null for a received message. */
        void written(Qp qp, Wr readWr);
    }

    /** One QP's received-message writes in flight: written by this block only. */
    static final class QpWrites {
        private int pending;

        /** Writes of the QP's current received message not yet left the device. */
        int pending() {
            return pending;
        }
    }

    /** One write in flight and what it belongs to. */
    private final class Write implements DmaCallback {
        final DmaRequest request = new DmaRequest();
        final int index;
        Frame frame;
        Qp qp;
        Wr readWr;

        Write(int index) {
            this.index = index;
        }

        @Override
        public void writeSent(DmaRequest r) {
            Frame f = frame;
            Qp q = qp;
            Wr w = readWr;
            frame = null;
            qp = null;
            readWr = null;
            freeWrites |= 1L << index;
            sent(f, q, w);
        }
    }

    private final WorkClock work;
    private final KeyUnit keys;
    private final DmaPort port;
    private final Write[] writes = new Write[WRITES];
    /** One bit per write not carrying a piece ({@value #WRITES} of them: one long). */
    private long freeWrites = -1L;
    private int outstanding;
    private Written written;
    private final Counter placedBytes;
    private final TimeAverage writesInFlight;
    private final Signal writesSignal;

    PayloadWriter(Module parent, WorkClock work, KeyUnit keys, DmaChannel channel) {
        super(parent, "payload");
        this.work = work;
        this.keys = keys;
        placedBytes = stats().counter("placedBytes", "bytes", "payload bytes written to host memory");
        writesInFlight = stats().timeAverage("writesInFlight", "writes", "DMA writes of received payload not yet sent to PCIe");
        writesSignal = signal("writesInFlight", 8);
        port = new DmaPort(channel, WRITES);
        for (int i = 0; i < WRITES; i++) {
            writes[i] = new Write(i);
        }
    }

    /** Writes that leave go back to the receiver; {@code ready} wakes it when the channel takes held writes. */
    void connect(Written receiver, Runnable ready) {
        this.written = receiver;
        port.onReady(ready);
    }

    /**
     * Writes payload bytes [off, off + len) of a message, found at {@code payloadOffset} in frame {@code f}, into
     * the scatter list (addresses, lengths, local keys): first checks every piece (LOCAL_WRITE) and that enough
     * write requests are free, then issues the writes. Returns {@link #WAIT}, {@link #KEY_ERROR}, or 1 if the
     * frame is now held by writes (0 if nothing was written).
     */
    int scatter(Qp qp, Frame f, int payloadOffset, long[] addr, int[] lens, int[] sgeKeys, int count, long off, int len,
            Wr readWr) {
        long pos = 0;
        int pieces = 0;
        for (int i = 0; i < count; i++) {
            long a = Math.max(off, pos);
            long b = Math.min(off + len, pos + lens[i]);
            if (a < b) {
                int st = keys.check(sgeKeys[i], qp.cfg.pd(), addr[i] + (a - pos), b - a, AccessFlags.LOCAL_WRITE, false);
                if (st == KeyUnit.WAIT) {
                    return WAIT;
                }
                if (st != KeyUnit.OK) {
                    return KEY_ERROR;
                }
                pieces += pieces(b - a);
            }
            pos += lens[i];
        }
        if (pieces > free()) {
            return WAIT;
        }
        int held = 0;
        pos = 0;
        for (int i = 0; i < count; i++) {
            long a = Math.max(off, pos);
            long b = Math.min(off + len, pos + lens[i]);
            if (a < b) {
                held |= place(qp, f, sgeKeys[i], addr[i] + (a - pos), payloadOffset + (int) (a - off), (int) (b - a), readWr);
            }
            pos += lens[i];
        }
        return held;
    }

    /** Whether writes of the QP's received payload are in flight. */
    boolean busyWith(Qp qp) {
        return qp.writes.pending != 0;
    }

    /** Room for a contiguous write of {@code len} bytes, keeping one request spare. */
    boolean hasRoom(int len) {
        return free() > pieces(len);
    }

    /**
     * DMA-writes {@code len} bytes at frame offset {@code off} to {@code va} of a region already checked under
     * {@code key}; 1 if the frame is now held.
     */
    int place(Qp qp, Frame f, int key, long va, int off, int len, Wr readWr) {
        int held = 0;
        long a = 0;
        while (a < len) {
            int piece = (int) Math.min(len - a, keys.pageRemaining(key, va + a));
            // The lowest-numbered free write, as a scan from 0 would find.
            int i = Long.numberOfTrailingZeros(freeWrites);
            freeWrites &= ~(1L << i);
            Write w = writes[i];
            w.frame = f;
            f.hold();
            w.qp = qp;
            w.readWr = readWr;
            if (readWr != null) {
                readWr.pendingWrites++;
            } else {
                qp.writes.pending++;
            }
            // The frame lends its bytes: each TLP reads its slice when host memory takes it, not when it is built.
            w.request.write(keys.translate(key, va + a), f.data(), off + (int) a, piece, w, i, false)
                    .lentBy(f.lender());
            work.ready(w.request);
            port.send(w.request);
            placedBytes.add(piece);
            outstanding++;
            writesInFlight.set(outstanding);
            writesSignal.set(outstanding);
            a += piece;
            held = 1;
        }
        return held;
    }

    /** Write requests not carrying a piece. */
    private int free() {
        return WRITES - outstanding;
    }

    /** Most DMA writes {@code len} bytes can take: one per 4 KiB page touched. */
    private static int pieces(long len) {
        return 2 + (int) (len / 4096);
    }

    private void sent(Frame f, Qp qp, Wr readWr) {
        outstanding--;
        writesInFlight.set(outstanding);
        writesSignal.set(outstanding);
        if (f.unhold()) {
            f.release();
        }
        if (readWr != null) {
            readWr.pendingWrites--;
        } else {
            qp.writes.pending--;
        }
        written.written(qp, readWr);
    }
}
