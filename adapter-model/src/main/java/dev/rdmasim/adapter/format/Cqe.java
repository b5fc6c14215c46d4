package dev.rdmasim.adapter.format;

import java.util.Arrays;

/**
 * The 64-byte completion queue entry (mlx5 {@code mlx5_cqe64} / {@code mlx5_err_cqe} shape).
 *
 * <pre>
 * success CQE                              error CQE (opcode REQ_ERR / RESP_ERR)
 * bytes 36-39 immediate / invalidated key  byte 54    vendor syndrome ({@link WqeError} detail)
 * bytes 44-47 byte count                   byte 55    syndrome ({@link CqeSyndrome})
 * byte  56    send WQE opcode (requester)  byte 56    opcode of the failed WQE
 * bytes 57-59 QP number                    bytes 57-59 QP number
 * bytes 60-61 WQE counter                  bytes 60-61 WQE counter
 * byte  62    signature                    byte 62    signature
 * byte  63    opcode (bits 7-4) | solicited (bit 1) | owner (bit 0), both kinds
 * </pre>
 * Other bytes are zero.
 *
 * <p>Ownership on a ring of {@code 2^log} entries: entry {@code i mod 2^log} belongs to software when
 * its opcode is not {@link #INVALID} and its owner bit equals {@code (i >> log) & 1}. The adapter writes
 * CQE number {@code p} (its producer index) with owner bit {@code (p >> log) & 1}; rings start filled
 * with {@link #INIT_OP_OWN} (INVALID, owner 1), which software never owns.
 *
 * <p>Requester CQEs carry the WQE counter of the completed WQE: completing it also retires every
 * earlier unsignaled WQE of that send queue (the driver walks its WQE-to-request table up to it).
 * Responder CQEs carry the receive WQE counter.
 */
public final class Cqe {
    public static final int SIZE = 64;

    public static final int OFF_IMMEDIATE = 36;
    public static final int OFF_BYTE_COUNT = 44;
    public static final int OFF_VENDOR_SYNDROME = 54;
    public static final int OFF_SYNDROME = 55;
    public static final int OFF_WQE_OPCODE = 56;
    public static final int OFF_QPN = 57;
    public static final int OFF_WQE_COUNTER = 60;
    public static final int OFF_SIGNATURE = 62;
    public static final int OFF_OP_OWN = 63;

    public static final int REQ = 0;
    public static final int RESP_WR_IMM = 1;
    public static final int RESP_SEND = 2;
    public static final int RESP_SEND_IMM = 3;
    public static final int RESP_SEND_INV = 4;
    public static final int REQ_ERR = 13;
    public static final int RESP_ERR = 14;
    public static final int INVALID = 15;

    public static final int OWNER_BIT = 0x01;
    public static final int SOLICITED_BIT = 0x02;
    /** op_own of a never-written entry: INVALID opcode, owner 1. */
    public static final int INIT_OP_OWN = INVALID << 4 | OWNER_BIT;

    private Cqe() {
    }

    /** Owner bit the producer writes (and the consumer expects) for running index {@code index}. */
    public static int ownerBit(long index, int logSize) {
        return (int) (index >>> logSize) & 1;
    }

    /** Byte offset of running index {@code index}'s entry within a ring of {@code 2^logSize} entries. */
    public static int entryOffset(long index, int logSize) {
        return (int) (index & ((1L << logSize) - 1)) * SIZE;
    }

    /** Fills {@code entries} CQEs at {@code b[off..]} with the initial INVALID/owner-1 pattern. */
    public static void initRing(byte[] b, int off, int entries) {
        Arrays.fill(b, off, off + entries * SIZE, (byte) 0);
        for (int i = 0; i < entries; i++) {
            b[off + i * SIZE + OFF_OP_OWN] = (byte) INIT_OP_OWN;
        }
    }

    /**
     * Encodes a success CQE.
     *
     * @param wqeOpcode the send WQE's opcode for requester CQEs ({@link WqeOpcode}), 0 for responder CQEs
     */
    public static void writeSuccess(byte[] b, int off, int opcode, int qpn, int wqeOpcode, int wqeCounter,
                                    int byteCount, int immediate, boolean solicited, int owner) {
        Arrays.fill(b, off, off + OFF_OP_OWN, (byte) 0);
        BigEndian.putI32(b, off + OFF_IMMEDIATE, immediate);
        BigEndian.putI32(b, off + OFF_BYTE_COUNT, byteCount);
        writeTail(b, off, wqeOpcode, qpn, wqeCounter);
        b[off + OFF_OP_OWN] = (byte) ((opcode & 0xf) << 4 | (solicited ? SOLICITED_BIT : 0) | (owner & 1));
    }

    /** Encodes an error CQE ({@link #REQ_ERR} or {@link #RESP_ERR}). */
    public static void writeError(byte[] b, int off, int opcode, int qpn, int wqeOpcode, int wqeCounter,
                                  int syndrome, int vendorSyndrome, int owner) {
        Arrays.fill(b, off, off + OFF_OP_OWN, (byte) 0);
        b[off + OFF_VENDOR_SYNDROME] = (byte) vendorSyndrome;
        b[off + OFF_SYNDROME] = (byte) syndrome;
        writeTail(b, off, wqeOpcode, qpn, wqeCounter);
        b[off + OFF_OP_OWN] = (byte) ((opcode & 0xf) << 4 | (owner & 1));
    }

    private static void writeTail(byte[] b, int off, int wqeOpcode, int qpn, int wqeCounter) {
        BigEndian.putI32(b, off + OFF_WQE_OPCODE, (wqeOpcode & 0xff) << 24 | (qpn & 0xff_ffff));
        BigEndian.putU16(b, off + OFF_WQE_COUNTER, wqeCounter);
    }

    /** Whether software owns the entry at {@code off} for consumer running index {@code consumerIndex}. */
    public static boolean isSoftwareOwned(byte[] b, int off, long consumerIndex, int logSize) {
        int opOwn = b[off + OFF_OP_OWN] & 0xff;
        return (opOwn >>> 4) != INVALID && (opOwn & OWNER_BIT) == ownerBit(consumerIndex, logSize);
    }

    public static int opcode(byte[] b, int off) {
        return (b[off + OFF_OP_OWN] & 0xff) >>> 4;
    }

    public static int owner(byte[] b, int off) {
        return b[off + OFF_OP_OWN] & OWNER_BIT;
    }

    public static boolean solicited(byte[] b, int off) {
        return (b[off + OFF_OP_OWN] & SOLICITED_BIT) != 0;
    }

    public static boolean isError(int cqeOpcode) {
        return cqeOpcode == REQ_ERR || cqeOpcode == RESP_ERR;
    }

    public static int qpn(byte[] b, int off) {
        return BigEndian.u24(b, off + OFF_QPN);
    }

    public static int wqeOpcode(byte[] b, int off) {
        return b[off + OFF_WQE_OPCODE] & 0xff;
    }

    public static int wqeCounter(byte[] b, int off) {
        return BigEndian.u16(b, off + OFF_WQE_COUNTER);
    }

    public static int byteCount(byte[] b, int off) {
        return BigEndian.i32(b, off + OFF_BYTE_COUNT);
    }

    public static int immediate(byte[] b, int off) {
        return BigEndian.i32(b, off + OFF_IMMEDIATE);
    }

    public static int syndrome(byte[] b, int off) {
        return b[off + OFF_SYNDROME] & 0xff;
    }

    public static int vendorSyndrome(byte[] b, int off) {
        return b[off + OFF_VENDOR_SYNDROME] & 0xff;
    }

    public static int signature(byte[] b, int off) {
        return b[off + OFF_SIGNATURE] & 0xff;
    }

    public static String opcodeName(int cqeOpcode) {
        switch (cqeOpcode) {
            case REQ: return "REQ";
            case RESP_WR_IMM: return "RESP_WR_IMM";
            case RESP_SEND: return "RESP_SEND";
            case RESP_SEND_IMM: return "RESP_SEND_IMM";
            case RESP_SEND_INV: return "RESP_SEND_INV";
            case REQ_ERR: return "REQ_ERR";
            case RESP_ERR: return "RESP_ERR";
            case INVALID: return "INVALID";
            default: return "UNKNOWN(" + cqeOpcode + ")";
        }
    }
}
