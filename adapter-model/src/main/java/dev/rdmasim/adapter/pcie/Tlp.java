package dev.rdmasim.adapter.pcie;

/**
 * One transaction-layer packet in flight: a pooled, mutable object owned by whichever block holds it (a transmit
 * queue, the wire, the root complex) and returned to the pool by its final consumer. Payload bytes are real.
 */
public final class Tlp {
    TlpKind kind;
    /** Memory requests: target host address (or BAR offset for MMIO). Completions: address of the first byte. */
    long address;
    /** Payload bytes (MWr, CplD) or requested bytes (MRd). */
    int length;
    /** Read tag (MRd, CplD). */
    int tag;
    /** CplD: bytes of the request still to come, this completion included. */
    int byteCount;
    /** Bytes this TLP occupies on the wire, header, framing and digest included. */
    int wireBytes;
    final byte[] payload;
    /**
     * MRd: where the read's bytes go on the device side, the requester's buffer from {@link #readOffset} on. The root
     * complex reads host memory when the request arrives, as hardware does, and puts the bytes there at once instead
     * of into its completions: the requester reads its buffer only after the last completion, and the buffer is
     * reserved for the read until then, so no one can tell the bytes came early, and a copy per completion is saved.
     * Completions then carry no payload bytes of their own.
     */
    byte[] readInto;
    int readOffset;
    /**
     * MWr of a write whose bytes are lent ({@link DmaRequest#lentBy}): the bytes are {@code writeFrom} from
     * {@link #writeOffset} on, not {@link #payload}, until the root complex applies the TLP and returns them to
     * {@link #lender}.
     */
    byte[] writeFrom;
    int writeOffset;
    ByteLender lender;
    /** Device-side write request this MWr belongs to, or null. */
    DmaRequest owner;
    /** Last MWr of its request. */
    boolean last;
    /**
     * Last MWr of a request that asked to hear when it is applied. Captured when the TLP is built: once a write's
     * last TLP has left, its owner may reuse the request object for something else.
     */
    boolean notifyOnApply;
    /**
     * The sender acts on {@link LinkEnd#sent}: the link calls it at the end of this TLP's serialization. Only such
     * TLPs cost an event there.
     */
    boolean notifySent;
    /**
     * The receiver takes it late ({@link LinkEnd#takesLate}): the link hands it over when next brought up to date
     * after its arrival, with no delivery event of its own.
     */
    boolean late;

    // Link timing, set by the LinkTransmitter that carries the TLP (ps).
    /** Earliest time the TLP may start on the wire; it counts as queued from then on. */
    long readyPs;
    long startPs;
    long endPs;
    long arrivePs;
    /** When the serializer is free again after this TLP and the DLLP / SKIP bytes that follow it. */
    long freeAfterPs;
    // DLLP and SKIP bytes that follow this TLP on the wire.
    int ackBytes;
    int fcBytes;
    int skipBytes;

    Tlp(int maxPayload) {
        this.payload = new byte[maxPayload];
    }

    public TlpKind kind() {
        return kind;
    }

    public long address() {
        return address;
    }

    public int length() {
        return length;
    }

    public int tag() {
        return tag;
    }

    public int byteCount() {
        return byteCount;
    }

    public int wireBytes() {
        return wireBytes;
    }

    /** The payload buffer; bytes {@code [0, length())} are valid for MWr (CplD: see {@code readInto}). */
    public byte[] payload() {
        return payload;
    }

    void clear() {
        kind = null;
        owner = null;
        readInto = null;
        writeFrom = null;
        lender = null;
        last = false;
        notifyOnApply = false;
        notifySent = false;
        late = false;
        address = 0;
        length = 0;
        tag = 0;
        byteCount = 0;
        wireBytes = 0;
    }

    @Override
    public String toString() {
        return kind + "[addr=0x" + Long.toHexString(address) + " len=" + length + " tag=" + tag + "]";
    }
}
