package dev.rdmasim.adapter.format;

/** Error CQE syndromes (byte 55 of an error CQE), mlx5 values. */
public final class CqeSyndrome {
    public static final int LOCAL_LENGTH = 0x01;
    public static final int LOCAL_QP_OP = 0x02;
    public static final int LOCAL_PROT = 0x04;
    public static final int WR_FLUSH = 0x05;
    public static final int BAD_RESP = 0x10;
    public static final int LOCAL_ACCESS = 0x11;
    public static final int REMOTE_INVAL_REQ = 0x12;
    public static final int REMOTE_ACCESS = 0x13;
    public static final int REMOTE_OP = 0x14;
    public static final int TRANSPORT_RETRY_EXC = 0x15;
    public static final int RNR_RETRY_EXC = 0x16;

    private CqeSyndrome() {
    }

    public static String name(int syndrome) {
        switch (syndrome) {
            case LOCAL_LENGTH: return "LOCAL_LENGTH";
            case LOCAL_QP_OP: return "LOCAL_QP_OP";
            case LOCAL_PROT: return "LOCAL_PROT";
            case WR_FLUSH: return "WR_FLUSH";
            case BAD_RESP: return "BAD_RESP";
            case LOCAL_ACCESS: return "LOCAL_ACCESS";
            case REMOTE_INVAL_REQ: return "REMOTE_INVAL_REQ";
            case REMOTE_ACCESS: return "REMOTE_ACCESS";
            case REMOTE_OP: return "REMOTE_OP";
            case TRANSPORT_RETRY_EXC: return "TRANSPORT_RETRY_EXC";
            case RNR_RETRY_EXC: return "RNR_RETRY_EXC";
            default: return "UNKNOWN(0x" + Integer.toHexString(syndrome) + ")";
        }
    }
}
