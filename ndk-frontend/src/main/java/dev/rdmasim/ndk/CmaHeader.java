package dev.rdmasim.ndk;

import dev.rdmasim.adapter.format.BigEndian;

/**
 * The RDMA CM header an IP-addressed connection request carries in front of the consumer's private data
 * (36 bytes of the 92-byte REQ private data, leaving the 56 bytes {@code MaxCallerData} advertises): the CM
 * header version, the IP version, the source port, and the source and destination addresses, IPv4 in the
 * last 4 bytes of each 16-byte field.
 */
final class CmaHeader {
    static final int SIZE = 36;
    private static final int VERSION = 0x00;
    private static final int IP_VERSION_4 = 0x40;
    private static final int OFF_PORT = 2;
    private static final int OFF_SRC_IPV4 = 4 + 12;
    private static final int OFF_DST_IPV4 = 20 + 12;

    private CmaHeader() {
    }

    /** The REQ private data: the header for {@code src} to {@code dst}, then {@code data[0, length)}. */
    static byte[] request(NdkAddress src, NdkAddress dst, byte[] data, int length) {
        byte[] b = new byte[SIZE + length];
        b[0] = VERSION;
        b[1] = (byte) IP_VERSION_4;
        BigEndian.putU16(b, OFF_PORT, src.port());
        BigEndian.putI32(b, OFF_SRC_IPV4, src.ipv4());
        BigEndian.putI32(b, OFF_DST_IPV4, dst.ipv4());
        if (length > 0) {
            System.arraycopy(data, 0, b, SIZE, length);
        }
        return b;
    }

    /** True if {@code req} (REQ private data) starts with a header this provider understands. */
    static boolean valid(byte[] req) {
        return req.length >= SIZE && req[0] == VERSION && (req[1] & 0xF0) == IP_VERSION_4;
    }

    static NdkAddress source(byte[] req) {
        return new NdkAddress(BigEndian.i32(req, OFF_SRC_IPV4), BigEndian.u16(req, OFF_PORT));
    }
}
