package dev.rdmasim.adapter.wire;

/**
 * BTH opcodes of the Reliable Connected service (IBA vol. 1, table 38; connection type bits 7..5 = 000),
 * plus the one Unreliable Datagram opcode the model uses, SEND_ONLY (0x64), which carries the MADs of
 * connection management to QP1. The helpers give the extension headers each opcode carries and its place
 * in a message; for the RC opcodes they read a table indexed by opcode, so they cost an array load on the
 * hot path.
 */
public final class Opcode {
    private Opcode() {
    }

    public static final int SEND_FIRST = 0x00;
    public static final int SEND_MIDDLE = 0x01;
    public static final int SEND_LAST = 0x02;
    public static final int SEND_LAST_IMM = 0x03;
    public static final int SEND_ONLY = 0x04;
    public static final int SEND_ONLY_IMM = 0x05;
    public static final int RDMA_WRITE_FIRST = 0x06;
    public static final int RDMA_WRITE_MIDDLE = 0x07;
    public static final int RDMA_WRITE_LAST = 0x08;
    public static final int RDMA_WRITE_LAST_IMM = 0x09;
    public static final int RDMA_WRITE_ONLY = 0x0A;
    public static final int RDMA_WRITE_ONLY_IMM = 0x0B;
    public static final int RDMA_READ_REQUEST = 0x0C;
    public static final int RDMA_READ_RESPONSE_FIRST = 0x0D;
    public static final int RDMA_READ_RESPONSE_MIDDLE = 0x0E;
    public static final int RDMA_READ_RESPONSE_LAST = 0x0F;
    public static final int RDMA_READ_RESPONSE_ONLY = 0x10;
    public static final int ACKNOWLEDGE = 0x11;

    /** Number of RC opcodes this model knows: 0x00 .. 0x11. */
    public static final int COUNT = 0x12;

    /** UD SEND_ONLY (connection type 011): BTH + DETH + payload, a whole message in one packet. */
    public static final int UD_SEND_ONLY = 0x64;

    private static final int RETH_BIT = 1;
    private static final int AETH_BIT = 2;
    private static final int IMM_BIT = 4;
    private static final int PAYLOAD_BIT = 8;
    private static final int FIRST_BIT = 16;
    private static final int MIDDLE_BIT = 32;
    private static final int LAST_BIT = 64;
    private static final int ONLY_BIT = 128;
    private static final int REQUEST_BIT = 256;
    private static final int DETH_BIT = 512;
    private static final int UD_FLAGS = REQUEST_BIT | PAYLOAD_BIT | ONLY_BIT | DETH_BIT;

    private static final int[] FLAGS = new int[COUNT];
    private static final String[] NAMES = new String[COUNT];

    private static void def(int op, String name, int flags) {
        FLAGS[op] = flags;
        NAMES[op] = name;
    }

    static {
        int req = REQUEST_BIT | PAYLOAD_BIT;
        def(SEND_FIRST, "SEND_FIRST", req | FIRST_BIT);
        def(SEND_MIDDLE, "SEND_MIDDLE", req | MIDDLE_BIT);
        def(SEND_LAST, "SEND_LAST", req | LAST_BIT);
        def(SEND_LAST_IMM, "SEND_LAST_IMM", req | LAST_BIT | IMM_BIT);
        def(SEND_ONLY, "SEND_ONLY", req | ONLY_BIT);
        def(SEND_ONLY_IMM, "SEND_ONLY_IMM", req | ONLY_BIT | IMM_BIT);
        def(RDMA_WRITE_FIRST, "RDMA_WRITE_FIRST", req | FIRST_BIT | RETH_BIT);
        def(RDMA_WRITE_MIDDLE, "RDMA_WRITE_MIDDLE", req | MIDDLE_BIT);
        def(RDMA_WRITE_LAST, "RDMA_WRITE_LAST", req | LAST_BIT);
        def(RDMA_WRITE_LAST_IMM, "RDMA_WRITE_LAST_IMM", req | LAST_BIT | IMM_BIT);
        def(RDMA_WRITE_ONLY, "RDMA_WRITE_ONLY", req | ONLY_BIT | RETH_BIT);
        def(RDMA_WRITE_ONLY_IMM, "RDMA_WRITE_ONLY_IMM", req | ONLY_BIT | RETH_BIT | IMM_BIT);
        // A read request names the remote buffer but carries no data.
        def(RDMA_READ_REQUEST, "RDMA_READ_REQUEST", REQUEST_BIT | ONLY_BIT | RETH_BIT);
        def(RDMA_READ_RESPONSE_FIRST, "RDMA_READ_RESPONSE_FIRST", PAYLOAD_BIT | FIRST_BIT | AETH_BIT);
        def(RDMA_READ_RESPONSE_MIDDLE, "RDMA_READ_RESPONSE_MIDDLE", PAYLOAD_BIT | MIDDLE_BIT);
        def(RDMA_READ_RESPONSE_LAST, "RDMA_READ_RESPONSE_LAST", PAYLOAD_BIT | LAST_BIT | AETH_BIT);
        def(RDMA_READ_RESPONSE_ONLY, "RDMA_READ_RESPONSE_ONLY", PAYLOAD_BIT | ONLY_BIT | AETH_BIT);
        def(ACKNOWLEDGE, "ACKNOWLEDGE", ONLY_BIT | AETH_BIT);
    }

    /** True for the RC opcodes this model encodes and decodes. */
    public static boolean isValid(int opcode) {
        return opcode >= 0 && opcode < COUNT;
    }

    /** True for every opcode the codec handles: the RC ones and UD SEND_ONLY. */
    public static boolean isSupported(int opcode) {
        return isValid(opcode) || opcode == UD_SEND_ONLY;
    }

    /** True for the datagram opcode, whose packets go to the adapter's QP1 block instead of an RC QP. */
    public static boolean isUd(int opcode) {
        return opcode == UD_SEND_ONLY;
    }

    private static int flags(int opcode) {
        if (opcode >= 0 && opcode < COUNT) {
            return FLAGS[opcode];
        }
        if (opcode == UD_SEND_ONLY) {
            return UD_FLAGS;
        }
        throw new IllegalArgumentException("opcode 0x" + Integer.toHexString(opcode) + " is not an opcode this model supports");
    }

    public static boolean hasReth(int opcode) {
        return (flags(opcode) & RETH_BIT) != 0;
    }

    public static boolean hasAeth(int opcode) {
        return (flags(opcode) & AETH_BIT) != 0;
    }

    /** Whether the opcode carries a DETH (Q_Key and source QP): only UD SEND_ONLY here. */
    public static boolean hasDeth(int opcode) {
        return (flags(opcode) & DETH_BIT) != 0;
    }

    public static boolean hasImmediate(int opcode) {
        return (flags(opcode) & IMM_BIT) != 0;
    }

    /** Whether packets with this opcode may carry payload (an ACK or read request never does). */
    public static boolean hasPayload(int opcode) {
        return (flags(opcode) & PAYLOAD_BIT) != 0;
    }

    public static boolean isFirst(int opcode) {
        return (flags(opcode) & FIRST_BIT) != 0;
    }

    public static boolean isMiddle(int opcode) {
        return (flags(opcode) & MIDDLE_BIT) != 0;
    }

    public static boolean isLast(int opcode) {
        return (flags(opcode) & LAST_BIT) != 0;
    }

    public static boolean isOnly(int opcode) {
        return (flags(opcode) & ONLY_BIT) != 0;
    }

    /** Sent by the requester (SEND, WRITE, READ REQUEST) rather than the responder (READ RESPONSE, ACK). */
    public static boolean isRequest(int opcode) {
        return (flags(opcode) & REQUEST_BIT) != 0;
    }

    /** Bytes of extension headers (DETH, RETH, AETH, ImmDt) between the BTH and the payload. */
    public static int extensionBytes(int opcode) {
        int f = flags(opcode);
        return ((f & DETH_BIT) != 0 ? RoceLayout.DETH : 0)
                + ((f & RETH_BIT) != 0 ? RoceLayout.RETH : 0)
                + ((f & AETH_BIT) != 0 ? RoceLayout.AETH : 0)
                + ((f & IMM_BIT) != 0 ? RoceLayout.IMMDT : 0);
    }

    /** Offset of the payload within a frame built by {@link RoceWriter}. */
    public static int payloadOffset(int opcode) {
        return RoceLayout.EXT_OFFSET + extensionBytes(opcode);
    }

    public static String name(int opcode) {
        if (opcode == UD_SEND_ONLY) {
            return "UD_SEND_ONLY";
        }
        return isValid(opcode) ? NAMES[opcode] : "UNKNOWN_0x" + Integer.toHexString(opcode);
    }
}
