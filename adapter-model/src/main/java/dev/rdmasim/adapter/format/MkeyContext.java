package dev.rdmasim.adapter.format;

import java.util.Arrays;

/**
 * The 64-byte memory key context (MR or MW) in adapter context memory, plus its translation table:
 * {@code translationCount} 8-byte big-endian physical page addresses at {@code translationTable}
 * (see {@link TranslationEntry}). A virtual address {@code va} in {@code [start, start + length)} maps to
 * {@code entry[(va - (start & ~(page - 1))) >> logPageSize] + (va & (page - 1))}.
 *
 * <pre>
 * 0 state (0 free/invalidated, 1 valid) | 1 access flags | 2 log2 page size | 3 type (0 MR, 1 MW)
 * 4-7 key | 8-11 PD (24) | 12-15 parent key (MW: the MR it is bound in)
 * 16-23 start VA | 24-31 length | 32-39 translation table address | 40-43 translation entry count
 * </pre>
 */
public record MkeyContext(int state, int access, int logPageSize, int type, int key, int pd, int parentKey,
                          long start, long length, long translationTable, int translationCount) {
    public static final int SIZE = 64;

    public static final int STATE_FREE = 0;
    public static final int STATE_VALID = 1;
    public static final int TYPE_MR = 0;
    public static final int TYPE_MW = 1;

    public static final int OFF_STATE = 0;
    public static final int OFF_ACCESS = 1;
    public static final int OFF_LOG_PAGE_SIZE = 2;
    public static final int OFF_TYPE = 3;
    public static final int OFF_KEY = 4;
    public static final int OFF_PD = 8;
    public static final int OFF_PARENT_KEY = 12;
    public static final int OFF_START = 16;
    public static final int OFF_LENGTH = 24;
    public static final int OFF_TRANSLATION_TABLE = 32;
    public static final int OFF_TRANSLATION_COUNT = 40;

    public MkeyContext {
        Fields.checkRange("state", state, STATE_FREE, STATE_VALID);
        Fields.checkRange("access", access, 0, AccessFlags.ALL);
        Fields.checkRange("logPageSize", logPageSize, 0, 63);
        Fields.checkRange("type", type, TYPE_MR, TYPE_MW);
        Fields.check24("pd", pd);
        Fields.checkRange("length", length, 0, Long.MAX_VALUE);
        Fields.checkRange("translationCount", translationCount, 0, Integer.MAX_VALUE);
    }

    public void encode(byte[] b, int off) {
        Arrays.fill(b, off, off + SIZE, (byte) 0);
        b[off + OFF_STATE] = (byte) state;
        b[off + OFF_ACCESS] = (byte) access;
        b[off + OFF_LOG_PAGE_SIZE] = (byte) logPageSize;
        b[off + OFF_TYPE] = (byte) type;
        BigEndian.putI32(b, off + OFF_KEY, key);
        BigEndian.putI32(b, off + OFF_PD, pd);
        BigEndian.putI32(b, off + OFF_PARENT_KEY, parentKey);
        BigEndian.putI64(b, off + OFF_START, start);
        BigEndian.putI64(b, off + OFF_LENGTH, length);
        BigEndian.putI64(b, off + OFF_TRANSLATION_TABLE, translationTable);
        BigEndian.putI32(b, off + OFF_TRANSLATION_COUNT, translationCount);
    }

    public static MkeyContext decode(byte[] b, int off) {
        return new MkeyContext(state(b, off) & 1, access(b, off), logPageSize(b, off), BigEndian.u8(b, off + OFF_TYPE) & 1,
            key(b, off), pd(b, off), BigEndian.i32(b, off + OFF_PARENT_KEY), start(b, off),
            length(b, off) & Long.MAX_VALUE, translationTable(b, off),
            BigEndian.i32(b, off + OFF_TRANSLATION_COUNT) & Integer.MAX_VALUE);
    }

    /** Whether {@code [va, va + len)} lies inside the key's span (no overflow for any inputs). */
    public static boolean covers(byte[] b, int off, long va, long len) {
        long s = start(b, off);
        long l = length(b, off);
        return len >= 0 && va - s >= 0 && len <= l && va - s <= l - len;
    }

    // ---- in-place accessors used per access check

    public static int state(byte[] b, int off) {
        return BigEndian.u8(b, off + OFF_STATE);
    }

    public static void putState(byte[] b, int off, int state) {
        b[off + OFF_STATE] = (byte) state;
    }

    public static int access(byte[] b, int off) {
        return BigEndian.u8(b, off + OFF_ACCESS) & AccessFlags.ALL;
    }

    public static int logPageSize(byte[] b, int off) {
        return BigEndian.u8(b, off + OFF_LOG_PAGE_SIZE) & 63;
    }

    public static int key(byte[] b, int off) {
        return BigEndian.i32(b, off + OFF_KEY);
    }

    public static int pd(byte[] b, int off) {
        return Fields.u24At32(b, off + OFF_PD);
    }

    public static long start(byte[] b, int off) {
        return BigEndian.i64(b, off + OFF_START);
    }

    public static long length(byte[] b, int off) {
        return BigEndian.i64(b, off + OFF_LENGTH);
    }

    public static long translationTable(byte[] b, int off) {
        return BigEndian.i64(b, off + OFF_TRANSLATION_TABLE);
    }
}
