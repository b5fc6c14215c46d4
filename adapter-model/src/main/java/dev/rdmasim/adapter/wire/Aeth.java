package dev.rdmasim.adapter.wire;

/**
 * The 8-bit AETH syndrome (IBA 9.3.5): bit 7 reserved, bits 6..5 the kind (00 ACK, 01 RNR NAK, 11 NAK),
 * bits 4..0 the credit count, RNR timer code or NAK code.
 */
public final class Aeth {
    private Aeth() {
    }

    public static final int KIND_ACK = 0;
    public static final int KIND_RNR_NAK = 1;
    public static final int KIND_NAK = 3;

    /** Credit count meaning "no end-to-end flow control credits advertised". */
    public static final int CREDITS_INVALID = 0x1F;

    public static final int NAK_PSN_SEQUENCE_ERROR = 0x60;
    public static final int NAK_INVALID_REQUEST = 0x61;
    public static final int NAK_REMOTE_ACCESS_ERROR = 0x62;
    public static final int NAK_REMOTE_OPERATIONAL_ERROR = 0x63;
    public static final int NAK_INVALID_RD_REQUEST = 0x64;

    public static int ack(int credits) {
        return KIND_ACK << 5 | field("credits", credits);
    }

    /** RNR NAK with the 5-bit RNR timer code (IBA table 45: 0 = 655.36 ms, 1 = 0.01 ms, ...). */
    public static int rnrNak(int timerCode) {
        return KIND_RNR_NAK << 5 | field("timerCode", timerCode);
    }

    /** NAK with a 5-bit code (0 PSN sequence error, 1 invalid request, 2 remote access, 3 remote operational). */
    public static int nak(int code) {
        return KIND_NAK << 5 | field("code", code);
    }

    public static int kind(int syndrome) {
        return (syndrome >>> 5) & 3;
    }

    /** The credit count, RNR timer or NAK code, depending on {@link #kind}. */
    public static int value(int syndrome) {
        return syndrome & 0x1F;
    }

    public static boolean isAck(int syndrome) {
        return kind(syndrome) == KIND_ACK;
    }

    private static int field(String name, int v) {
        if (v < 0 || v > 0x1F) {
            throw new IllegalArgumentException("AETH " + name + " must be 0..31, got " + v);
        }
        return v;
    }
}
