package dev.rdmasim.adapter.wire;

/**
 * The bytes of a priority flow control frame (IEEE 802.1Qbb, a MAC control frame): destination 01-80-C2-00-00-01,
 * the sending port's address, EtherType 0x8808, opcode 0x0101, a class-enable vector with one bit per priority, eight
 * pause times in quanta of 512 bit times, zero padding to the 60-byte minimum. The link pauses one priority, the one
 * RoCE traffic is carried in ({@link #PRIORITY}); an XON is the same frame with a pause time of zero.
 */
public final class PauseFrame {
    /** Frame length without FCS: the Ethernet minimum. */
    public static final int LENGTH = RoceLayout.ETH_MIN_FRAME;
    public static final int ETHERTYPE_MAC_CONTROL = 0x8808;
    public static final int OPCODE_PFC = 0x0101;
    /** Priority 3, where RoCE traffic is carried on lossless fabrics by convention. */
    public static final int PRIORITY = 3;
    public static final long DESTINATION = 0x0180_C200_0001L;
    static final int OPCODE = RoceLayout.ETH_HEADER;
    static final int CLASS_VECTOR = OPCODE + 2;
    static final int TIMES = CLASS_VECTOR + 2;

    private PauseFrame() {
    }

    /** Writes a pause frame from {@code srcMac} asking for {@code quanta} on {@link #PRIORITY} into {@code b}. */
    public static void write(byte[] b, long srcMac, int quanta) {
        java.util.Arrays.fill(b, 0, LENGTH, (byte) 0);
        RoceLayout.put48(b, 0, DESTINATION);
        RoceLayout.put48(b, 6, srcMac);
        RoceLayout.put16(b, RoceLayout.ETH_TYPE, ETHERTYPE_MAC_CONTROL);
        RoceLayout.put16(b, OPCODE, OPCODE_PFC);
        RoceLayout.put16(b, CLASS_VECTOR, 1 << PRIORITY);
        RoceLayout.put16(b, TIMES + 2 * PRIORITY, quanta);
    }

    /** Whether the frame's first bytes are a priority flow control frame. */
    public static boolean isPause(byte[] b, int length) {
        return length >= LENGTH && RoceLayout.u16(b, RoceLayout.ETH_TYPE) == ETHERTYPE_MAC_CONTROL
                && RoceLayout.u16(b, OPCODE) == OPCODE_PFC;
    }

    /** The pause time a pause frame asks for on {@link #PRIORITY}, in quanta (0: XON). */
    public static int quanta(byte[] b) {
        return RoceLayout.u16(b, TIMES + 2 * PRIORITY);
    }

    /** Picoseconds {@code quanta} pause quanta last at {@code rateGbps}: 512 bit times each (rounded down). */
    public static long quantaPs(int quanta, int rateGbps) {
        return quanta * 512_000L / rateGbps;
    }
}
