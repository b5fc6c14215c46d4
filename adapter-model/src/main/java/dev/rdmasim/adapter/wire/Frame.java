package dev.rdmasim.adapter.wire;

import dev.rdmasim.kernel.InvariantViolation;

/**
 * One pooled Ethernet frame buffer (without preamble and FCS), owned by the {@link LinkEndpoint} that
 * sends it. Life cycle: {@link LinkEndpoint#acquire()} hands it to the sender, which fills
 * {@link #data()} (e.g. with {@link RoceWriter}), sets {@link #length(int)} and calls
 * {@link LinkEndpoint#send}; the link serializes it and offers it to the far end's receiver, which
 * calls {@link #release()} when done with the bytes. The buffer then returns to its sender's pool.
 */
public final class Frame {
    /** Bytes a frame buffer holds: the largest frame {@link RoceWriter} builds (4096-byte MTU). */
    public static final int CAPACITY = RoceLayout.MAX_FRAME;

    static final int FREE = 0;
    static final int HELD_BY_SENDER = 1;
    static final int QUEUED = 2;
    static final int ON_WIRE = 3;
    static final int HELD_BY_RECEIVER = 4;

    static final int FAULT_NONE = 0;
    static final int FAULT_DROP = 1;
    static final int FAULT_CORRUPT = 2;

    /**
     * The buffer's bytes. Usually the same array for the frame's whole life; but bytes lent to DMA writes
     * ({@link #lender}) stay with those writes until they are applied in host memory, so a buffer recycled before
     * then gets another array (see {@link LinkEndpoint#recycle}).
     */
    private Bytes bytes;
    final LinkEndpoint pool;
    final int id;
    int state = FREE;
    private int length;
    long readyPs;
    long txStartPs;
    long arrivalPs;
    long sequence;
    int fault;
    int corruptBit;
    /** Its drop was the receiving FIFO's overflow, not the line's fault injection. */
    boolean overflowed;
    /** It holds a receive buffer of the far end (real port buffers: {@link EthernetLink.Pfc}). */
    boolean holdsReceiveBuffer;
    /**
     * True from {@link RoceWriter#write(Frame, byte[], int, int)} until anything that changes the frame's bytes or
     * length (a resize by its sender, the link's corruption, recycling): its bytes are then exactly those its ICRC was
     * computed over, so a {@link RoceReader} may take the ICRC as correct instead of computing it again.
     */
    boolean icrcSealed;
    /** Holds the receiver placed on the frame's bytes ({@link #hold}); the frame cannot be released while any is left. */
    private int holds;

    Frame(LinkEndpoint pool, int id) {
        this.pool = pool;
        this.id = id;
        this.bytes = new Bytes(pool);
    }

    /**
     * One frame buffer's worth of bytes, lendable to the TLPs of DMA writes (the payload writer's): while any of them
     * has not been applied in host memory the array is theirs, and a buffer recycled meanwhile takes another one.
     */
    static final class Bytes implements dev.rdmasim.adapter.pcie.ByteLender {
        final byte[] data = new byte[CAPACITY];
        final LinkEndpoint home;
        /** Slices taken by TLPs and not yet returned. */
        int loans;
        /** Its frame buffer was recycled with loans out: the array goes back to the spares once they are returned. */
        boolean orphaned;
        /** Whose spares it joins then: its home's, or of a split link the far end's, where it was lent. */
        LinkEndpoint returnTo;

        Bytes(LinkEndpoint home) {
            this.home = home;
            this.returnTo = home;
        }

        @Override
        public void lent() {
            loans++;
        }

        @Override
        public void returned() {
            if (loans == 0) {
                throw new InvariantViolation("frame bytes of " + home.fullName() + " returned more often than lent");
            }
            if (--loans == 0 && orphaned) {
                orphaned = false;
                returnTo.spareBytes(this);
            }
        }
    }

    /**
     * The frame's bytes as a lender, for a DMA write that reads its payload from them ({@code DmaRequest#lentBy}):
     * they stay unchanged until every TLP that took a slice has been applied, even once the frame is released.
     */
    public dev.rdmasim.adapter.pcie.ByteLender lender() {
        return bytes;
    }

    /** Gives the buffer fresh bytes if TLPs still read its current ones; on recycling. */
    void keepLentBytes() {
        keepLentBytes(pool);
    }

    /**
     * As {@link #keepLentBytes()}, with the spares of {@code keeper}: of a split link, the far end that released the
     * frame and lent its bytes, so that only its own partition's thread ever touches them.
     */
    void keepLentBytes(LinkEndpoint keeper) {
        if (bytes.loans > 0) {
            bytes.orphaned = true;
            bytes.returnTo = keeper;
            bytes = keeper.takeSpareBytes();
        }
    }

    /** The request this frame belongs to, and its record's generation when the frame was built. */
    private FrameOrigin origin;
    private long originGeneration;

    /**
     * The frame's bytes. Whoever changes them after {@link RoceWriter#write(Frame, byte[], int, int)} built the frame
     * must do it through {@link #length(int)} (which ends the frame's ICRC seal) or build it again.
     */
    public byte[] data() {
        return bytes.data;
    }

    /** True while the frame holds exactly what its writer built (see {@link RoceWriter#write(Frame, byte[], int, int)}). */
    public boolean icrcSealed() {
        return icrcSealed;
    }

    public int length() {
        return length;
    }

    /** Sets the frame length (Ethernet header through ICRC and any padding, no FCS); only while the sender holds it. */
    public Frame length(int n) {
        if (state != HELD_BY_SENDER) {
            throw new IllegalStateException("frame " + this + " can only be resized by its sender before send()");
        }
        if (n < RoceLayout.ETH_HEADER || n > CAPACITY) {
            throw new IllegalArgumentException("frame length " + n + " outside " + RoceLayout.ETH_HEADER + ".." + CAPACITY);
        }
        length = n;
        icrcSealed = false;
        return this;
    }

    /** Simulated time the first preamble bit went on the line. */
    public long txStartPs() {
        return txStartPs;
    }

    /** Simulated time the frame reached the far end's MAC (end of its line slot, FEC codeword wait, PHY and cable). */
    public long arrivalPs() {
        return arrivalPs;
    }

    /** Position of this frame in its direction's transmit order, from 0. */
    public long sequence() {
        return sequence;
    }

    /**
     * Attaches the sender's request record, which travels beside the frame but never on the wire, so the
     * receiver can tell it when the request's data was placed.
     */
    public void origin(FrameOrigin record) {
        this.origin = record;
        this.originGeneration = record.generation();
    }

    /** Tells the frame's request (if it still is the one the frame was built for) that its data was placed. */
    public void placed(long ps) {
        if (origin != null && origin.generation() == originGeneration) {
            origin.placed(ps);
        }
    }

    /**
     * Marks the frame's bytes as still needed by one more user on the receiving side (say, a DMA write that reads its
     * payload); each hold ends with {@link #unhold}, and the frame cannot be released while a hold is left.
     */
    public void hold() {
        holds++;
    }

    /** Ends one {@link #hold}; true when it was the last one. */
    public boolean unhold() {
        if (holds == 0) {
            throw new InvariantViolation("frame " + this + " unheld more often than held");
        }
        return --holds == 0;
    }

    /** Returns the buffer to its sender's pool; by the receiver after delivery, or by a sender that will not send it. */
    public void release() {
        if (state != HELD_BY_RECEIVER && state != HELD_BY_SENDER) {
            throw new IllegalStateException("frame " + this + " released while " + stateName()
                    + " (double release, or release before delivery)");
        }
        if (holds != 0) {
            throw new InvariantViolation("frame " + this + " released while " + holds + " hold(s) on its bytes remain");
        }
        pool.recycle(this);
    }

    void moveTo(int expected, int next) {
        if (state != expected) { // not InvariantViolation.check: its message would be built on every call
            throw new InvariantViolation("frame " + this + " is " + stateName() + ", expected state " + expected);
        }
        state = next;
    }

    String stateName() {
        return switch (state) {
            case FREE -> "free";
            case HELD_BY_SENDER -> "held by its sender";
            case QUEUED -> "queued for transmission";
            case ON_WIRE -> "on the wire";
            default -> "held by the receiver";
        };
    }

    void clearForSender() {
        length = 0;
        origin = null;
        originGeneration = 0;
        fault = FAULT_NONE;
        corruptBit = -1;
        icrcSealed = false;
    }

    @Override
    public String toString() {
        return pool.fullName() + ".frame[" + id + "]";
    }
}
