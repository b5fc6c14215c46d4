package dev.rdmasim.adapter.format;

import java.util.Arrays;

/**
 * The 64-byte event queue entry (mlx5 {@code mlx5_eqe} shape).
 *
 * <pre>
 * byte  1     event type
 * byte  3     sub-type
 * bytes 32-59 event data:
 *             completion:      bytes 57-59 CQ number
 *             CQ error:        bytes 33-35 CQ number, byte 43 syndrome (1 overrun, 2 access violation)
 *             QP / WQ events:  byte 52 resource type (0 QP), bytes 57-59 QP number
 *             command:         bytes 32-35 command queue index of the finished entry, byte 36 its token
 * byte  62    signature
 * byte  63    owner (bit 0)
 * </pre>
 * Ownership follows the CQ rule without an opcode check: entry {@code i} is software's when its
 * owner bit equals {@code (i >> log) & 1}; EQ rings start with owner 1 everywhere.
 */
public final class Eqe {
    public static final int SIZE = 64;
    public static final int OFF_TYPE = 1;
    public static final int OFF_SUB_TYPE = 3;
    public static final int OFF_CQ_ERROR_CQN = 33;
    public static final int OFF_CQ_ERROR_SYNDROME = 43;
    public static final int OFF_RESOURCE_TYPE = 52;
    public static final int OFF_COMMAND_INDEX = 32;
    public static final int OFF_COMMAND_TOKEN = 36;
    /** CQ number of a completion event, QP number of a QP event. */
    public static final int OFF_RESOURCE = 57;
    public static final int OFF_SIGNATURE = 62;
    public static final int OFF_OWNER = 63;

    public static final int TYPE_COMPLETION = 0x00;
    public static final int TYPE_COMM_EST = 0x02;
    public static final int TYPE_SQ_DRAINED = 0x03;
    public static final int TYPE_CQ_ERROR = 0x04;
    public static final int TYPE_WQ_CATAS_ERROR = 0x05;
    public static final int TYPE_INTERNAL_ERROR = 0x08;
    /** A firmware command finished (mlx5 CMD event). */
    public static final int TYPE_COMMAND = 0x0A;
    public static final int TYPE_WQ_INVAL_REQ_ERROR = 0x10;
    public static final int TYPE_WQ_ACCESS_ERROR = 0x11;

    public static final int CQ_ERROR_OVERRUN = 0x01;
    public static final int CQ_ERROR_ACCESS_VIOLATION = 0x02;

    private Eqe() {
    }

    public static void initRing(byte[] b, int off, int entries) {
        Arrays.fill(b, off, off + entries * SIZE, (byte) 0);
        for (int i = 0; i < entries; i++) {
            b[off + i * SIZE + OFF_OWNER] = 1;
        }
    }

    public static void writeCompletion(byte[] b, int off, int cqn, int owner) {
        begin(b, off, TYPE_COMPLETION);
        BigEndian.putU24(b, off + OFF_RESOURCE, cqn);
        b[off + OFF_OWNER] = (byte) (owner & 1);
    }

    public static void writeCqError(byte[] b, int off, int cqn, int syndrome, int owner) {
        begin(b, off, TYPE_CQ_ERROR);
        BigEndian.putU24(b, off + OFF_CQ_ERROR_CQN, cqn);
        b[off + OFF_CQ_ERROR_SYNDROME] = (byte) syndrome;
        b[off + OFF_OWNER] = (byte) (owner & 1);
    }

    /** A QP-affiliated event (communication established, SQ drained, WQ errors). */
    public static void writeQpEvent(byte[] b, int off, int type, int qpn, int owner) {
        begin(b, off, type);
        BigEndian.putU24(b, off + OFF_RESOURCE, qpn);
        b[off + OFF_OWNER] = (byte) (owner & 1);
    }

    /** A command completion: entry {@code index} (running counter) of the command queue has its outputs. */
    public static void writeCommand(byte[] b, int off, int index, int token, int owner) {
        begin(b, off, TYPE_COMMAND);
        BigEndian.putI32(b, off + OFF_COMMAND_INDEX, index);
        b[off + OFF_COMMAND_TOKEN] = (byte) token;
        b[off + OFF_OWNER] = (byte) (owner & 1);
    }

    public static int commandIndex(byte[] b, int off) {
        return BigEndian.i32(b, off + OFF_COMMAND_INDEX);
    }

    public static int commandToken(byte[] b, int off) {
        return b[off + OFF_COMMAND_TOKEN] & 0xff;
    }

    private static void begin(byte[] b, int off, int type) {
        Arrays.fill(b, off, off + SIZE, (byte) 0);
        b[off + OFF_TYPE] = (byte) type;
    }

    public static boolean isSoftwareOwned(byte[] b, int off, long consumerIndex, int logSize) {
        return (b[off + OFF_OWNER] & 1) == Cqe.ownerBit(consumerIndex, logSize);
    }

    public static int type(byte[] b, int off) {
        return b[off + OFF_TYPE] & 0xff;
    }

    public static int subType(byte[] b, int off) {
        return b[off + OFF_SUB_TYPE] & 0xff;
    }

    /** CQ number (completion) or QP number (QP events). */
    public static int resource(byte[] b, int off) {
        return BigEndian.u24(b, off + OFF_RESOURCE);
    }

    public static int cqErrorCqn(byte[] b, int off) {
        return BigEndian.u24(b, off + OFF_CQ_ERROR_CQN);
    }

    public static int cqErrorSyndrome(byte[] b, int off) {
        return b[off + OFF_CQ_ERROR_SYNDROME] & 0xff;
    }

    public static int owner(byte[] b, int off) {
        return b[off + OFF_OWNER] & 1;
    }
}
