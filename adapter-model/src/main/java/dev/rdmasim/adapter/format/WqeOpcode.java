package dev.rdmasim.adapter.format;

/**
 * Send WQE opcodes (low byte of the control segment's first word), mlx5 values.
 *
 * <p>NDK mapping: Send -> {@link #SEND} (or {@link #SEND_IMM}), SendAndInvalidate -> {@link #SEND_INVAL}
 * (immediate word = remote token to invalidate), Write -> {@link #RDMA_WRITE}, Read -> {@link #RDMA_READ},
 * Invalidate -> {@link #LOCAL_INVAL} (immediate word = token), FastRegister and Bind -> {@link #UMR}
 * with opmod {@link #UMR_OPMOD_FAST_REGISTER} / {@link #UMR_OPMOD_BIND_MW} (see {@link UmrSegment}).
 */
public final class WqeOpcode {
    public static final int NOP = 0x00;
    public static final int SEND_INVAL = 0x01;
    public static final int RDMA_WRITE = 0x08;
    public static final int RDMA_WRITE_IMM = 0x09;
    public static final int SEND = 0x0a;
    public static final int SEND_IMM = 0x0b;
    public static final int RDMA_READ = 0x10;
    public static final int LOCAL_INVAL = 0x1b;
    public static final int UMR = 0x25;

    /** UMR opmod: load an MR's translation, bounds and rights (NDK FastRegister). */
    public static final int UMR_OPMOD_FAST_REGISTER = 0;
    /** UMR opmod: bind a memory window inside a registered MR (NDK Bind). */
    public static final int UMR_OPMOD_BIND_MW = 1;

    private WqeOpcode() {
    }

    public static boolean isKnown(int opcode) {
        switch (opcode) {
            case NOP, SEND_INVAL, RDMA_WRITE, RDMA_WRITE_IMM, SEND, SEND_IMM, RDMA_READ, LOCAL_INVAL, UMR:
                return true;
            default:
                return false;
        }
    }

    /** Whether the WQE carries a remote-address segment right after the control segment. */
    public static boolean hasRemoteAddress(int opcode) {
        return opcode == RDMA_WRITE || opcode == RDMA_WRITE_IMM || opcode == RDMA_READ;
    }

    /** Whether the WQE moves payload described by data or inline segments. */
    public static boolean carriesData(int opcode) {
        switch (opcode) {
            case SEND_INVAL, RDMA_WRITE, RDMA_WRITE_IMM, SEND, SEND_IMM, RDMA_READ:
                return true;
            default:
                return false;
        }
    }

    public static String name(int opcode) {
        switch (opcode) {
            case NOP: return "NOP";
            case SEND_INVAL: return "SEND_INVAL";
            case RDMA_WRITE: return "RDMA_WRITE";
            case RDMA_WRITE_IMM: return "RDMA_WRITE_IMM";
            case SEND: return "SEND";
            case SEND_IMM: return "SEND_IMM";
            case RDMA_READ: return "RDMA_READ";
            case LOCAL_INVAL: return "LOCAL_INVAL";
            case UMR: return "UMR";
            default: return "UNKNOWN(0x" + Integer.toHexString(opcode) + ")";
        }
    }
}
