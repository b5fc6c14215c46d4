package dev.rdmasim.adapter.format;

/**
 * Driver side: writes one send WQE at a time into a send-queue ring of {@code 2^logBbs} 64-byte
 * basic blocks held in {@code ring[base .. base + 64 * 2^logBbs)}. A WQE starts at the BB its index
 * selects and may run past the ring's end; it continues at the ring's start (segments never straddle
 * the end because the ring is a whole number of BBs).
 *
 * <p>Use: {@link #begin}, then optionally {@link #remoteAddress}, then either {@link #data} per SGE or
 * {@link #inlineData} per piece (pieces are gathered into one inline segment), or {@link #umr} for UMR
 * WQEs, then {@link #finish()} which writes ds and returns the WQE's BB count. The builder checks only
 * what the format can hold (ds, ring size, segment order); SGE-count and inline limits are the
 * caller's (NDK) checks. Reusable, allocation-free.
 */
public final class SendWqeBuilder {
    public static final int BB = 64;

    private final byte[] ring;
    private final int base;
    private final int ringBytes;
    private final int mask;

    private int start = -1;
    private int segs;
    private int inlineHeaderRel = -1;
    private int inlineLength;
    private int dataSegs;
    private int lastDs;
    private int lastBbs;
    private int lastCtrlOffset;

    public SendWqeBuilder(byte[] ring, int base, int logBbs) {
        if (logBbs < 0 || logBbs > 16) {
            throw new IllegalArgumentException("logBbs must be 0..16: " + logBbs);
        }
        if (base < 0 || (long) base + ((long) BB << logBbs) > ring.length) {
            throw new IllegalArgumentException("ring of " + (BB << logBbs) + " bytes at base " + base
                + " does not fit an array of " + ring.length);
        }
        this.ring = ring;
        this.base = base;
        this.ringBytes = BB << logBbs;
        this.mask = ringBytes - 1;
    }

    public int ringBbs() {
        return ringBytes / BB;
    }

    /** Starts a WQE; opmod 0. */
    public SendWqeBuilder begin(int wqeIndex, int opcode, int qpn, int flags, int immediate) {
        return begin(wqeIndex, 0, opcode, qpn, flags, immediate);
    }

    /**
     * Starts a WQE at BB {@code wqeIndex mod ringBbs}; {@code wqeIndex} is the 16-bit producer
     * counter in BBs and is stored in the control segment.
     */
    public SendWqeBuilder begin(int wqeIndex, int opmod, int opcode, int qpn, int flags, int immediate) {
        start = (wqeIndex * BB) & mask;
        segs = 1;
        inlineHeaderRel = -1;
        inlineLength = 0;
        dataSegs = 0;
        ControlSegment.write(ring, base + start, opmod, wqeIndex, opcode, qpn, 0, flags, immediate);
        return this;
    }

    public SendWqeBuilder remoteAddress(long address, int rkey) {
        requireStarted();
        if (segs != 1) {
            throw new IllegalStateException("the remote-address segment must directly follow the control segment");
        }
        DataSegments.writeRemoteAddress(ring, nextSegment(), address, rkey);
        return this;
    }

    /** Appends a pointer data segment (one SGE). */
    public SendWqeBuilder data(long address, int length, int lkey) {
        requireStarted();
        if (inlineHeaderRel >= 0) {
            throw new IllegalStateException("cannot mix data segments with inline data");
        }
        DataSegments.writeData(ring, nextSegment(), address, length, lkey);
        dataSegs++;
        return this;
    }

    /** Appends {@code len} payload bytes to the WQE's single inline segment. */
    public SendWqeBuilder inlineData(byte[] src, int srcOff, int len) {
        requireStarted();
        if (dataSegs > 0) {
            throw new IllegalStateException("cannot mix inline data with data segments");
        }
        if (len < 0 || srcOff < 0 || srcOff + len > src.length) {
            throw new IllegalArgumentException("inline source range " + srcOff + "+" + len + " outside " + src.length);
        }
        if (inlineHeaderRel < 0) {
            inlineHeaderRel = segs * DataSegments.SEGMENT;
        }
        int newLength = inlineLength + len;
        int end = inlineHeaderRel + DataSegments.inlineSegmentBytes(newLength);
        checkSize(end / DataSegments.SEGMENT);
        copyIn(src, srcOff, inlineHeaderRel + DataSegments.INLINE_HEADER + inlineLength, len);
        inlineLength = newLength;
        return this;
    }

    /** Appends the UMR key segment (and, for fast-register, the translation-list pointer). */
    public SendWqeBuilder umr(long startVa, long length, int access, int parentKey, int logPageSize, int pageCount,
                              long translationListAddress) {
        requireStarted();
        if (segs != 1) {
            throw new IllegalStateException("the UMR key segment must directly follow the control segment");
        }
        // The key segment sits at bytes 16-47 of the WQE's first BB, so it never straddles the ring end.
        int keySegment = nextSegment();
        nextSegment();
        UmrSegment.write(ring, keySegment, startVa, length, access, parentKey, logPageSize, pageCount);
        if (pageCount > 0) {
            DataSegments.writeData(ring, nextSegment(), translationListAddress, pageCount * 8, 0);
        }
        return this;
    }

    /** Closes the WQE: writes ds (and the inline header and padding); returns the number of BBs. */
    public int finish() {
        requireStarted();
        if (inlineHeaderRel >= 0) {
            DataSegments.writeInlineHeader(ring, pos(inlineHeaderRel), inlineLength);
            int dataEnd = inlineHeaderRel + DataSegments.INLINE_HEADER + inlineLength;
            int segEnd = inlineHeaderRel + DataSegments.inlineSegmentBytes(inlineLength);
            for (int r = dataEnd; r < segEnd; r++) {
                ring[pos(r)] = 0; // deterministic padding
            }
            segs = segEnd / DataSegments.SEGMENT;
        }
        ControlSegment.putDs(ring, base + start, segs);
        lastDs = segs;
        lastBbs = bbsForDs(segs);
        lastCtrlOffset = base + start;
        start = -1;
        return lastBbs;
    }

    /** ds of the last finished WQE. */
    public int lastDs() {
        return lastDs;
    }

    public int lastBbs() {
        return lastBbs;
    }

    /** Array offset of the last finished WQE's control segment (its first 8 bytes are the doorbell). */
    public int lastCtrlOffset() {
        return lastCtrlOffset;
    }

    /** BBs a WQE of {@code ds} 16-byte segments occupies. */
    public static int bbsForDs(int ds) {
        return (ds * DataSegments.SEGMENT + BB - 1) / BB;
    }

    /** Bytes of a pointer WQE: control + optional remote address + one segment per SGE. */
    public static int wqeBytes(int opcode, int sgeCount) {
        return ControlSegment.SIZE + (WqeOpcode.hasRemoteAddress(opcode) ? DataSegments.SEGMENT : 0)
            + sgeCount * DataSegments.SEGMENT;
    }

    /** Bytes of an inline WQE: for RDMA WRITE of x bytes, 32 + align16(4 + x). */
    public static int inlineWqeBytes(int opcode, int inlineLength) {
        return ControlSegment.SIZE + (WqeOpcode.hasRemoteAddress(opcode) ? DataSegments.SEGMENT : 0)
            + DataSegments.inlineSegmentBytes(inlineLength);
    }

    /** Largest inline payload that keeps an inline WQE of {@code opcode} within {@code maxBbs} BBs. */
    public static int maxInlineForBbs(int opcode, int maxBbs) {
        return maxBbs * BB - inlineWqeBytes(opcode, 0) + DataSegments.SEGMENT - DataSegments.INLINE_HEADER;
    }

    private int nextSegment() {
        checkSize(segs + 1);
        int p = pos(segs * DataSegments.SEGMENT);
        segs++;
        return p;
    }

    private void checkSize(int ds) {
        if (ds > ControlSegment.MAX_DS) {
            throw new IllegalStateException("WQE exceeds " + ControlSegment.MAX_DS + " segments of 16 B");
        }
        if (ds * DataSegments.SEGMENT > ringBytes) {
            throw new IllegalStateException("WQE of " + ds * DataSegments.SEGMENT + " B exceeds the ring of "
                + ringBytes + " B");
        }
    }

    private int pos(int rel) {
        return base + ((start + rel) & mask);
    }

    private void copyIn(byte[] src, int srcOff, int rel, int len) {
        int from = (start + rel) & mask;
        int firstPart = Math.min(len, ringBytes - from);
        System.arraycopy(src, srcOff, ring, base + from, firstPart);
        System.arraycopy(src, srcOff + firstPart, ring, base, len - firstPart);
    }

    private void requireStarted() {
        if (start < 0) {
            throw new IllegalStateException("begin() a WQE first");
        }
    }
}
