package dev.rdmasim.adapter.format;

/**
 * Adapter side: parses and validates one fetched send WQE in place (a flyweight: fields are kept in
 * primitives and a reusable {@link ScatterList}, inline payload is left in the buffer). A malformed
 * WQE is a guest bug, so {@link #parse} reports a syndrome ({@link CqeSyndrome}) and a detail code
 * ({@link WqeError}) instead of throwing; the control-segment fields stay readable so the adapter can
 * write the error CQE with the WQE's counter.
 *
 * <p>Checks, in order: opcode known; fence mode defined; QPN and WQE index as expected; 1 <= ds <= the
 * QP's max ds and within the buffer (linear) or ring; per opcode: ds at least control (+ remote
 * address); inline not on READ; inline length <= max inline and align16(4 + length) filling ds
 * exactly; no mixing of inline and pointers; SGE count <= max SGE; no zero-length SGE; total below
 * 2^31; UMR ds matching its page count.
 */
public final class SendWqeParser {
    private final ScatterList sges;
    private int maxSge;
    private int maxInline;
    private int maxDs;

    private byte[] buf;
    private int base;
    private int mask;
    private int start;

    private int opmod;
    private int wqeIndex;
    private int opcode;
    private int qpn;
    private int ds;
    private int signature;
    private int flags;
    private int immediate;
    private boolean hasRemoteAddress;
    private long remoteAddress;
    private int rkey;
    private boolean inline;
    private int inlineLength;
    private long umrStart;
    private long umrLength;
    private int umrAccess;
    private int umrParentKey;
    private int umrLogPageSize;
    private int umrPageCount;
    private long umrListAddress;
    private int error;

    /** @param sgeCapacity largest SGE limit this parser will be given (1..63) */
    public SendWqeParser(int sgeCapacity) {
        sges = new ScatterList(sgeCapacity);
        setLimits(sgeCapacity, ControlSegment.MAX_DS * DataSegments.SEGMENT, ControlSegment.MAX_DS);
    }

    /** Per-QP limits (from its context): SGEs per WQE, inline bytes, WQE size in 16-byte units. */
    public void setLimits(int maxSge, int maxInline, int maxDs) {
        if (maxSge < 1 || maxSge > sges.capacity()) {
            throw new IllegalArgumentException("maxSge must be 1.." + sges.capacity() + ": " + maxSge);
        }
        if (maxInline < 0) {
            throw new IllegalArgumentException("maxInline must be >= 0: " + maxInline);
        }
        if (maxDs < 1 || maxDs > ControlSegment.MAX_DS) {
            throw new IllegalArgumentException("maxDs must be 1.." + ControlSegment.MAX_DS + ": " + maxDs);
        }
        this.maxSge = maxSge;
        this.maxInline = maxInline;
        this.maxDs = maxDs;
    }

    /** Parses a WQE laid out contiguously at {@code buf[off..]} (e.g. a BlueFlame copy); no expectations. */
    public int parse(byte[] buf, int off) {
        return parse(buf, off, 0, 0, -1, -1);
    }

    /**
     * Parses the WQE at byte {@code wqeOff} of a ring of {@code ringBytes} (a power of two, or 0 for a
     * linear buffer) stored at {@code buf[base..]}.
     *
     * @param expectedQpn   the QP the doorbell was for, or -1 not to check
     * @param expectedIndex the 16-bit WQE counter the adapter expects next, or -1 not to check
     * @return 0 when valid, else the syndrome; {@link #error()} gives the detail
     */
    public int parse(byte[] buf, int base, int ringBytes, int wqeOff, int expectedQpn, int expectedIndex) {
        if (ringBytes != 0 && (Integer.bitCount(ringBytes) != 1 || wqeOff < 0 || wqeOff >= ringBytes)) {
            throw new IllegalArgumentException("ringBytes must be a power of two holding wqeOff: " + ringBytes
                + ", " + wqeOff);
        }
        this.buf = buf;
        this.base = base;
        this.mask = ringBytes == 0 ? Integer.MAX_VALUE : ringBytes - 1;
        this.start = wqeOff;
        sges.clear();
        hasRemoteAddress = false;
        remoteAddress = 0;
        rkey = 0;
        inline = false;
        inlineLength = 0;
        umrStart = 0;
        umrLength = 0;
        umrAccess = 0;
        umrParentKey = 0;
        umrLogPageSize = 0;
        umrPageCount = 0;
        umrListAddress = 0;

        int c = pos(0);
        opmod = ControlSegment.opmod(buf, c);
        wqeIndex = ControlSegment.wqeIndex(buf, c);
        opcode = ControlSegment.opcode(buf, c);
        qpn = ControlSegment.qpn(buf, c);
        ds = ControlSegment.ds(buf, c);
        signature = ControlSegment.signature(buf, c);
        flags = ControlSegment.flags(buf, c);
        immediate = ControlSegment.immediate(buf, c);
        error = validate(expectedQpn, expectedIndex);
        return WqeError.syndrome(error);
    }

    private int validate(int expectedQpn, int expectedIndex) {
        if (!WqeOpcode.isKnown(opcode)) {
            return WqeError.UNKNOWN_OPCODE;
        }
        if (!ControlSegment.isDefinedFence(flags & ControlSegment.FENCE_MASK)) {
            return WqeError.BAD_FENCE;
        }
        if (expectedQpn >= 0 && qpn != expectedQpn) {
            return WqeError.QPN_MISMATCH;
        }
        if (expectedIndex >= 0 && wqeIndex != (expectedIndex & 0xffff)) {
            return WqeError.INDEX_MISMATCH;
        }
        if (ds == 0) {
            return WqeError.DS_TOO_SMALL;
        }
        // Guest bytes must never make the parser read outside the fetched WQE or the ring.
        long span = (long) ds * DataSegments.SEGMENT;
        if (ds > maxDs || (mask == Integer.MAX_VALUE ? base + start + span > buf.length : span > mask + 1L)) {
            return WqeError.DS_OVER_LIMIT;
        }
        switch (opcode) {
            case WqeOpcode.NOP:
                return WqeError.OK;
            case WqeOpcode.LOCAL_INVAL:
                return ds == 1 ? WqeError.OK : WqeError.DS_MISMATCH;
            case WqeOpcode.UMR:
                return parseUmr();
            default:
                return parseData();
        }
    }

    private int parseUmr() {
        if (opmod != WqeOpcode.UMR_OPMOD_FAST_REGISTER && opmod != WqeOpcode.UMR_OPMOD_BIND_MW) {
            return WqeError.UNKNOWN_OPCODE;
        }
        if (ds < UmrSegment.DS_BIND) {
            return WqeError.DS_TOO_SMALL;
        }
        int k1 = pos(DataSegments.SEGMENT);
        int k2 = pos(2 * DataSegments.SEGMENT);
        umrStart = BigEndian.i64(buf, k1);
        umrLength = BigEndian.i64(buf, k1 + 8);
        umrAccess = BigEndian.i32(buf, k2);
        umrParentKey = BigEndian.i32(buf, k2 + 4);
        umrLogPageSize = buf[k2 + 8] & 0xff;
        umrPageCount = BigEndian.i32(buf, k2 + 12);
        boolean fastRegister = opmod == WqeOpcode.UMR_OPMOD_FAST_REGISTER;
        if (umrPageCount < 0 || (!fastRegister && umrPageCount != 0)) {
            return WqeError.DS_MISMATCH;
        }
        int expectedDs = umrPageCount > 0 ? UmrSegment.DS_FAST_REGISTER : UmrSegment.DS_BIND;
        if (ds != expectedDs) {
            return WqeError.DS_MISMATCH;
        }
        if (umrPageCount > 0) {
            int d = pos(3 * DataSegments.SEGMENT);
            int word = DataSegments.byteCountWord(buf, d);
            if (DataSegments.isInline(word) || (long) word != 8L * umrPageCount) {
                return WqeError.DS_MISMATCH;
            }
            umrListAddress = DataSegments.address(buf, d);
        }
        return WqeError.OK;
    }

    private int parseData() {
        int seg = 1;
        if (WqeOpcode.hasRemoteAddress(opcode)) {
            if (ds < 2) {
                return WqeError.DS_TOO_SMALL;
            }
            int r = pos(DataSegments.SEGMENT);
            hasRemoteAddress = true;
            remoteAddress = DataSegments.remoteAddress(buf, r);
            rkey = DataSegments.rkey(buf, r);
            seg = 2;
        }
        int remaining = ds - seg;
        if (remaining == 0) {
            return WqeError.OK; // zero-length message
        }
        int first = DataSegments.byteCountWord(buf, pos(seg * DataSegments.SEGMENT));
        if (DataSegments.isInline(first)) {
            if (opcode == WqeOpcode.RDMA_READ) {
                return WqeError.INLINE_NOT_ALLOWED;
            }
            int len = first & ~DataSegments.INLINE_FLAG;
            if (len > maxInline) {
                return WqeError.INLINE_TOO_LONG;
            }
            if (DataSegments.inlineSegmentBytes(len) != remaining * DataSegments.SEGMENT) {
                return WqeError.DS_MISMATCH;
            }
            inline = true;
            inlineLength = len;
            return WqeError.OK;
        }
        if (remaining > maxSge) {
            return WqeError.TOO_MANY_SGE;
        }
        for (int i = seg; i < ds; i++) {
            int d = pos(i * DataSegments.SEGMENT);
            int word = DataSegments.byteCountWord(buf, d);
            if (DataSegments.isInline(word)) {
                return WqeError.MIXED_SEGMENTS;
            }
            if (word == 0) {
                return WqeError.ZERO_LENGTH_SGE;
            }
            sges.add(DataSegments.address(buf, d), word, DataSegments.lkey(buf, d));
        }
        return sges.totalLength() >= DataSegments.MAX_MESSAGE ? WqeError.MESSAGE_TOO_LONG : WqeError.OK;
    }

    private int inlinePayloadRel() {
        return (hasRemoteAddress ? 2 : 1) * DataSegments.SEGMENT + DataSegments.INLINE_HEADER;
    }

    private int pos(int rel) {
        return base + ((start + rel) & mask);
    }

    /** Detail code of the last parse ({@link WqeError}); 0 when valid. */
    public int error() {
        return error;
    }

    public int syndrome() {
        return WqeError.syndrome(error);
    }

    public int opmod() {
        return opmod;
    }

    public int wqeIndex() {
        return wqeIndex;
    }

    public int opcode() {
        return opcode;
    }

    public int qpn() {
        return qpn;
    }

    public int ds() {
        return ds;
    }

    /** BBs the WQE occupies (from ds; 1 when ds is 0, so a bad WQE still advances the consumer). */
    public int bbs() {
        return Math.max(1, SendWqeBuilder.bbsForDs(ds));
    }

    public int signature() {
        return signature;
    }

    public int flags() {
        return flags;
    }

    public boolean signaled() {
        return (flags & ControlSegment.FLAG_CQ_UPDATE) != 0;
    }

    public boolean solicited() {
        return (flags & ControlSegment.FLAG_SOLICITED) != 0;
    }

    public int fenceMode() {
        return flags & ControlSegment.FENCE_MASK;
    }

    /** Immediate data, or the key to invalidate (SEND_INVAL, LOCAL_INVAL) or program (UMR). */
    public int immediate() {
        return immediate;
    }

    public boolean hasRemoteAddress() {
        return hasRemoteAddress;
    }

    public long remoteAddress() {
        return remoteAddress;
    }

    public int rkey() {
        return rkey;
    }

    /** The pointer SGEs (empty for inline, zero-length and non-data WQEs). */
    public ScatterList sges() {
        return sges;
    }

    public boolean isInline() {
        return inline;
    }

    public int inlineLength() {
        return inlineLength;
    }

    /** Array offset of the first inline payload byte. */
    public int inlineOffset() {
        return pos(inlinePayloadRel());
    }

    /** Inline bytes that lie contiguously from {@link #inlineOffset()} before the ring wraps. */
    public int inlineContiguousLength() {
        int from = (start + inlinePayloadRel()) & mask;
        return Math.min(inlineLength, mask - from + 1);
    }

    /** Copies the inline payload (joining the two parts when it wraps) to {@code dst[dstOff..]}. */
    public void copyInline(byte[] dst, int dstOff) {
        int first = inlineContiguousLength();
        System.arraycopy(buf, inlineOffset(), dst, dstOff, first);
        System.arraycopy(buf, base, dst, dstOff + first, inlineLength - first);
    }

    /** Message length: inline length or the sum of the SGE lengths. */
    public long totalLength() {
        return inline ? inlineLength : sges.totalLength();
    }

    public long umrStart() {
        return umrStart;
    }

    public long umrLength() {
        return umrLength;
    }

    public int umrAccess() {
        return umrAccess;
    }

    public int umrParentKey() {
        return umrParentKey;
    }

    public int umrLogPageSize() {
        return umrLogPageSize;
    }

    public int umrPageCount() {
        return umrPageCount;
    }

    public long umrListAddress() {
        return umrListAddress;
    }
}
