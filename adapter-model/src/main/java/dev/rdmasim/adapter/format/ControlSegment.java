package dev.rdmasim.adapter.format;

/**
 * The 16-byte control segment that starts every send WQE (mlx5 {@code mlx5_wqe_ctrl_seg} shape).
 *
 * <pre>
 * byte 0      opmod
 * bytes 1-2   WQE index (16-bit BB counter of the WQE's first BB)
 * byte 3      opcode ({@link WqeOpcode})
 * bytes 4-6   QP number (24 bit)
 * byte 7      ds: WQE size in 16-byte units, low 6 bits (1..63)
 * byte 8      signature (carried, not checked by the model)
 * bytes 9-10  reserved
 * byte 11     flags: fence mode (bits 7-5), CQ_UPDATE (bit 3), SOLICITED (bit 1)
 * bytes 12-15 immediate data, or the key to invalidate (SEND_INVAL, LOCAL_INVAL, UMR target key)
 * </pre>
 *
 * The first 8 bytes, read as one big-endian long, are what the driver writes to the MMIO doorbell.
 */
public final class ControlSegment {
    public static final int SIZE = 16;
    public static final int OFF_OPMOD = 0;
    public static final int OFF_WQE_INDEX = 1;
    public static final int OFF_OPCODE = 3;
    public static final int OFF_QPN = 4;
    public static final int OFF_DS = 7;
    public static final int OFF_SIGNATURE = 8;
    public static final int OFF_FLAGS = 11;
    public static final int OFF_IMMEDIATE = 12;

    public static final int DS_MASK = 0x3f;
    /** Largest WQE the format can describe: 63 segments of 16 B. */
    public static final int MAX_DS = 63;

    /** Flags: request a CQE on success (mlx5 CE = 2, "always"). Without it only errors complete. */
    public static final int FLAG_CQ_UPDATE = 0x08;
    /** Flags: the responder's receive completion raises a solicited event. */
    public static final int FLAG_SOLICITED = 0x02;
    public static final int FENCE_MASK = 0xe0;
    public static final int FENCE_NONE = 0x00;
    /** Start only after earlier local operations (UMR, LOCAL_INVAL) of this QP finished. */
    public static final int FENCE_INITIATOR_SMALL = 0x20;
    /** Start only after every earlier WQE of this QP completed. */
    public static final int FENCE_STRONG_ORDERING = 0x60;
    /**
     * Start only after every earlier RDMA READ of this QP completed (its data landed): the IB fence
     * and NDK's {@code NDK_OP_FLAG_READ_FENCE}. mlx5 encodes it as fence mode 4.
     */
    public static final int FENCE_READ = 0x80;

    private ControlSegment() {
    }

    /** Writes the whole segment; reserved bytes and the signature become zero. */
    public static void write(byte[] b, int off, int opmod, int wqeIndex, int opcode, int qpn, int ds, int flags,
                             int immediate) {
        BigEndian.putI32(b, off, (opmod & 0xff) << 24 | (wqeIndex & 0xffff) << 8 | (opcode & 0xff));
        BigEndian.putI32(b, off + OFF_QPN, (qpn & 0xff_ffff) << 8 | (ds & DS_MASK));
        BigEndian.putI32(b, off + OFF_SIGNATURE, flags & 0xff);
        BigEndian.putI32(b, off + OFF_IMMEDIATE, immediate);
    }

    public static int opmod(byte[] b, int off) {
        return b[off + OFF_OPMOD] & 0xff;
    }

    public static int wqeIndex(byte[] b, int off) {
        return BigEndian.u16(b, off + OFF_WQE_INDEX);
    }

    public static int opcode(byte[] b, int off) {
        return b[off + OFF_OPCODE] & 0xff;
    }

    public static int qpn(byte[] b, int off) {
        return BigEndian.u24(b, off + OFF_QPN);
    }

    public static int ds(byte[] b, int off) {
        return b[off + OFF_DS] & DS_MASK;
    }

    public static void putDs(byte[] b, int off, int ds) {
        b[off + OFF_DS] = (byte) (ds & DS_MASK);
    }

    public static int signature(byte[] b, int off) {
        return b[off + OFF_SIGNATURE] & 0xff;
    }

    public static int flags(byte[] b, int off) {
        return b[off + OFF_FLAGS] & 0xff;
    }

    public static int immediate(byte[] b, int off) {
        return BigEndian.i32(b, off + OFF_IMMEDIATE);
    }

    /** Whether a fence-mode field value is one the adapter implements. */
    public static boolean isDefinedFence(int fenceBits) {
        return fenceBits == FENCE_NONE || fenceBits == FENCE_INITIATOR_SMALL || fenceBits == FENCE_STRONG_ORDERING
            || fenceBits == FENCE_READ;
    }

    /** Control flags for an NDK request: SILENT_SUCCESS clears CQ_UPDATE, READ_FENCE sets {@link #FENCE_READ}. */
    public static int flagsForNdk(boolean silentSuccess, boolean readFence, boolean solicitEvent) {
        return (silentSuccess ? 0 : FLAG_CQ_UPDATE) | (readFence ? FENCE_READ : 0) | (solicitEvent ? FLAG_SOLICITED : 0);
    }
}
