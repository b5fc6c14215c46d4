package dev.rdmasim.adapter.format;

/**
 * Why a WQE is malformed. A bad WQE is a guest (driver) bug that the hardware must complete with an
 * error CQE, so parsers return these codes instead of throwing. The detail code travels in the error
 * CQE's vendor-syndrome byte; {@link #syndrome(int)} gives the architected syndrome:
 * structural faults are {@link CqeSyndrome#LOCAL_QP_OP}, size faults {@link CqeSyndrome#LOCAL_LENGTH}.
 */
public final class WqeError {
    public static final int OK = 0;
    public static final int UNKNOWN_OPCODE = 1;
    /** ds below the minimum the opcode needs (or 0). */
    public static final int DS_TOO_SMALL = 2;
    /** ds above the QP's maximum WQE size. */
    public static final int DS_OVER_LIMIT = 3;
    /** Segments do not fill ds exactly (inline length disagrees with ds, UMR list size wrong). */
    public static final int DS_MISMATCH = 4;
    public static final int QPN_MISMATCH = 5;
    public static final int INDEX_MISMATCH = 6;
    public static final int BAD_FENCE = 7;
    /** Inline data on an opcode that cannot carry it (READ, receive WQE). */
    public static final int INLINE_NOT_ALLOWED = 8;
    /** Inline and pointer segments mixed. */
    public static final int MIXED_SEGMENTS = 9;
    public static final int TOO_MANY_SGE = 10;
    public static final int INLINE_TOO_LONG = 11;
    /** A data segment with byte count 0: drivers omit empty SGEs. */
    public static final int ZERO_LENGTH_SGE = 12;
    /** Sum of lengths reaches 2^31. */
    public static final int MESSAGE_TOO_LONG = 13;

    private WqeError() {
    }

    public static int syndrome(int detail) {
        switch (detail) {
            case OK:
                return 0;
            case TOO_MANY_SGE, INLINE_TOO_LONG, ZERO_LENGTH_SGE, MESSAGE_TOO_LONG:
                return CqeSyndrome.LOCAL_LENGTH;
            default:
                return CqeSyndrome.LOCAL_QP_OP;
        }
    }

    public static String name(int detail) {
        switch (detail) {
            case OK: return "OK";
            case UNKNOWN_OPCODE: return "UNKNOWN_OPCODE";
            case DS_TOO_SMALL: return "DS_TOO_SMALL";
            case DS_OVER_LIMIT: return "DS_OVER_LIMIT";
            case DS_MISMATCH: return "DS_MISMATCH";
            case QPN_MISMATCH: return "QPN_MISMATCH";
            case INDEX_MISMATCH: return "INDEX_MISMATCH";
            case BAD_FENCE: return "BAD_FENCE";
            case INLINE_NOT_ALLOWED: return "INLINE_NOT_ALLOWED";
            case MIXED_SEGMENTS: return "MIXED_SEGMENTS";
            case TOO_MANY_SGE: return "TOO_MANY_SGE";
            case INLINE_TOO_LONG: return "INLINE_TOO_LONG";
            case ZERO_LENGTH_SGE: return "ZERO_LENGTH_SGE";
            case MESSAGE_TOO_LONG: return "MESSAGE_TOO_LONG";
            default: return "UNKNOWN(" + detail + ")";
        }
    }
}
