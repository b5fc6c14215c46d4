package dev.rdmasim.adapter.wire;

/**
 * Byte offsets and sizes of a RoCEv2 frame over IPv4 without VLAN tag, as laid out by {@link RoceWriter}
 * and expected by {@link RoceReader}. All multi-byte fields are big-endian except the ICRC.
 */
public final class RoceLayout {
    private RoceLayout() {
    }

    public static final int ETH_HEADER = 14;
    public static final int ETH_DST = 0;
    public static final int ETH_SRC = 6;
    public static final int ETH_TYPE = 12;
    public static final int ETHERTYPE_IPV4 = 0x0800;

    public static final int IP_OFFSET = ETH_HEADER;
    public static final int IP_HEADER = 20;
    public static final int IP_PROTOCOL_UDP = 17;
    /** Flags/fragment-offset word with only don't-fragment set. */
    public static final int IP_FLAG_DF = 0x4000;

    public static final int UDP_OFFSET = IP_OFFSET + IP_HEADER;
    public static final int UDP_HEADER = 8;
    /** IANA port of RoCEv2. */
    public static final int ROCEV2_PORT = 4791;

    public static final int BTH_OFFSET = UDP_OFFSET + UDP_HEADER;
    public static final int BTH = 12;
    /** First byte after the BTH, where RETH / AETH / ImmDt start. */
    public static final int EXT_OFFSET = BTH_OFFSET + BTH;
    public static final int RETH = 16;
    /** Datagram extended transport header of UD packets: Q_Key (4), reserved (1), source QP (3). */
    public static final int DETH = 8;
    /** The well-known Q_Key of QP1, the general services QP that carries management datagrams (IBA 13.5.3). */
    public static final int GSI_QKEY = 0x8001_0000;
    public static final int AETH = 4;
    public static final int IMMDT = 4;
    public static final int ICRC = 4;

    /** Ethernet minimum frame without FCS; shorter frames are padded with zeros after the ICRC. */
    public static final int ETH_MIN_FRAME = 60;
    public static final int FCS = 4;
    public static final int PREAMBLE_SFD = 8;
    public static final int INTER_FRAME_GAP = 12;

    /** Largest payload a packet may carry: a 4096-byte path MTU. */
    public static final int MAX_PAYLOAD = 4096;
    /** Largest frame the codec builds (without FCS): all headers, RETH + ImmDt, a full MTU and the ICRC. */
    public static final int MAX_FRAME = EXT_OFFSET + RETH + IMMDT + MAX_PAYLOAD + ICRC;
    /** Smallest RoCEv2 frame before Ethernet padding: headers, a bare BTH and the ICRC. */
    public static final int MIN_ROCE_FRAME = EXT_OFFSET + ICRC;

    /** Bytes one frame of {@code length} (without FCS) occupies on the line: padding, FCS, preamble/SFD and IFG. */
    public static int wireBytes(int length) {
        return PREAMBLE_SFD + Math.max(length, ETH_MIN_FRAME) + FCS + INTER_FRAME_GAP;
    }

    static int u16(byte[] b, int off) {
        return ((b[off] & 0xFF) << 8) | (b[off + 1] & 0xFF);
    }

    static int u24(byte[] b, int off) {
        return ((b[off] & 0xFF) << 16) | ((b[off + 1] & 0xFF) << 8) | (b[off + 2] & 0xFF);
    }

    static int u32(byte[] b, int off) {
        return ((b[off] & 0xFF) << 24) | ((b[off + 1] & 0xFF) << 16) | ((b[off + 2] & 0xFF) << 8) | (b[off + 3] & 0xFF);
    }

    static long u48(byte[] b, int off) {
        return ((long) u16(b, off) << 32) | (u32(b, off + 2) & 0xFFFF_FFFFL);
    }

    static long u64(byte[] b, int off) {
        return ((long) u32(b, off) << 32) | (u32(b, off + 4) & 0xFFFF_FFFFL);
    }

    static void put16(byte[] b, int off, int v) {
        b[off] = (byte) (v >>> 8);
        b[off + 1] = (byte) v;
    }

    static void put24(byte[] b, int off, int v) {
        b[off] = (byte) (v >>> 16);
        b[off + 1] = (byte) (v >>> 8);
        b[off + 2] = (byte) v;
    }

    static void put32(byte[] b, int off, int v) {
        b[off] = (byte) (v >>> 24);
        b[off + 1] = (byte) (v >>> 16);
        b[off + 2] = (byte) (v >>> 8);
        b[off + 3] = (byte) v;
    }

    static void put48(byte[] b, int off, long v) {
        put16(b, off, (int) (v >>> 32));
        put32(b, off + 2, (int) v);
    }

    static void put64(byte[] b, int off, long v) {
        put32(b, off, (int) (v >>> 32));
        put32(b, off + 4, (int) v);
    }

    /**
     * The IPv4 header checksum of the 20-byte header at {@code off}, computed with the checksum field
     * itself taken as zero (RFC 791 ones'-complement sum).
     */
    public static int ipv4Checksum(byte[] b, int off) {
        // Unrolled: the per-frame hot path of both writer and reader. Word 5 (offset 10) is the checksum itself.
        int sum = u16(b, off) + u16(b, off + 2) + u16(b, off + 4) + u16(b, off + 6) + u16(b, off + 8)
                + u16(b, off + 12) + u16(b, off + 14) + u16(b, off + 16) + u16(b, off + 18);
        // Nine 16-bit words sum below 2^20: two folds always suffice.
        sum = (sum & 0xFFFF) + (sum >>> 16);
        sum = (sum & 0xFFFF) + (sum >>> 16);
        return ~sum & 0xFFFF;
    }
}
