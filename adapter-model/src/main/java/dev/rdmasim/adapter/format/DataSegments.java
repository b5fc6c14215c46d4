package dev.rdmasim.adapter.format;

/**
 * The 16-byte segments that follow a control segment, and the receive WQE entries.
 *
 * <pre>
 * Remote address: bytes 0-7 remote virtual address, 8-11 rkey, 12-15 reserved
 * Data (pointer): bytes 0-3 byte count, 4-7 lkey, 8-15 local address
 * Inline:         bytes 0-3 0x80000000 | length, then length bytes, zero-padded to a multiple of 16
 * </pre>
 */
public final class DataSegments {
    public static final int SEGMENT = 16;

    public static final int RADDR_OFF_ADDRESS = 0;
    public static final int RADDR_OFF_RKEY = 8;

    public static final int DATA_OFF_BYTE_COUNT = 0;
    public static final int DATA_OFF_LKEY = 4;
    public static final int DATA_OFF_ADDRESS = 8;

    /** High bit of the first word: the segment is an inline header, not a pointer. */
    public static final int INLINE_FLAG = 0x8000_0000;
    public static final int INLINE_HEADER = 4;
    /** Inline length field: 10 bits are plenty for a WQE of at most 1008 bytes. */
    public static final int INLINE_LENGTH_MASK = 0x3ff;

    /** mlx5's invalid lkey: terminates a receive WQE's scatter list before the stride ends. */
    public static final int INVALID_LKEY = 0x100;

    /** Largest message: the sum of a request's lengths must stay below 2^31 (byte counts are 31-bit). */
    public static final long MAX_MESSAGE = 1L << 31;

    private DataSegments() {
    }

    public static void writeRemoteAddress(byte[] b, int off, long address, int rkey) {
        BigEndian.putI64(b, off, address);
        BigEndian.putI32(b, off + RADDR_OFF_RKEY, rkey);
        BigEndian.putI32(b, off + 12, 0);
    }

    public static long remoteAddress(byte[] b, int off) {
        return BigEndian.i64(b, off);
    }

    public static int rkey(byte[] b, int off) {
        return BigEndian.i32(b, off + RADDR_OFF_RKEY);
    }

    public static void writeData(byte[] b, int off, long address, int length, int lkey) {
        BigEndian.putI32(b, off, length);
        BigEndian.putI32(b, off + DATA_OFF_LKEY, lkey);
        BigEndian.putI64(b, off + DATA_OFF_ADDRESS, address);
    }

    /** Raw first word: byte count of a pointer segment, or the inline header. */
    public static int byteCountWord(byte[] b, int off) {
        return BigEndian.i32(b, off);
    }

    public static int lkey(byte[] b, int off) {
        return BigEndian.i32(b, off + DATA_OFF_LKEY);
    }

    public static long address(byte[] b, int off) {
        return BigEndian.i64(b, off + DATA_OFF_ADDRESS);
    }

    public static void writeInlineHeader(byte[] b, int off, int length) {
        BigEndian.putI32(b, off, INLINE_FLAG | length);
    }

    public static boolean isInline(int byteCountWord) {
        return (byteCountWord & INLINE_FLAG) != 0;
    }

    /** Bytes an inline segment of {@code length} payload bytes occupies: align16(4 + length). */
    public static int inlineSegmentBytes(int length) {
        return align16(INLINE_HEADER + length);
    }

    public static int align16(int n) {
        return (n + 15) & ~15;
    }
}
