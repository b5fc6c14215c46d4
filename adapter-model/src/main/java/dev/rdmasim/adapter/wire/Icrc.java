package dev.rdmasim.adapter.wire;

import java.util.zip.CRC32;

/**
 * The RoCEv2 invariant CRC: the Ethernet CRC-32 over a pseudo-packet of 8 bytes of 0xFF (standing for
 * the InfiniBand LRH), then the IPv4 header with TOS (DSCP+ECN), TTL and header checksum set to all
 * ones, the UDP header with its checksum set to all ones, the BTH with its reserved byte 4 (resv8a,
 * which RoCEv2 uses for FECN/BECN) set to all ones, then everything after the BTH up to the ICRC.
 * These are the fields a router may rewrite. The result is stored least significant byte first, as an
 * Ethernet FCS is.
 *
 * <p>One instance holds a CRC engine and a small scratch buffer, so it is reused and not shared
 * between threads; computing allocates nothing.
 */
public final class Icrc {
    private static final int MASKED = 8 + RoceLayout.IP_HEADER + RoceLayout.UDP_HEADER + RoceLayout.BTH;

    private final CRC32 crc = new CRC32();
    private final byte[] scratch = new byte[MASKED];

    /**
     * The ICRC of the IPv4 packet at {@code ipOffset} of {@code ipTotalLength} bytes (as in its header),
     * whose last 4 bytes are the ICRC itself and are not covered.
     */
    public int compute(byte[] frame, int ipOffset, int ipTotalLength) {
        int covered = ipTotalLength - RoceLayout.ICRC;
        int headers = RoceLayout.IP_HEADER + RoceLayout.UDP_HEADER + RoceLayout.BTH;
        if (covered < headers || ipOffset < 0 || ipOffset + ipTotalLength > frame.length) {
            throw new IllegalArgumentException("IPv4 packet of " + ipTotalLength + " bytes at offset " + ipOffset
                    + " does not hold IP, UDP and BTH headers plus an ICRC within a " + frame.length + "-byte buffer");
        }
        byte[] s = scratch;
        for (int i = 0; i < 8; i++) {
            s[i] = (byte) 0xFF;
        }
        System.arraycopy(frame, ipOffset, s, 8, headers);
        int ip = 8;
        s[ip + 1] = (byte) 0xFF; // DSCP + ECN
        s[ip + 8] = (byte) 0xFF; // TTL
        s[ip + 10] = (byte) 0xFF; // header checksum
        s[ip + 11] = (byte) 0xFF;
        int udp = ip + RoceLayout.IP_HEADER;
        s[udp + 6] = (byte) 0xFF; // UDP checksum
        s[udp + 7] = (byte) 0xFF;
        s[udp + RoceLayout.UDP_HEADER + 4] = (byte) 0xFF; // BTH resv8a (FECN, BECN, reserved)
        crc.reset();
        crc.update(s, 0, MASKED);
        crc.update(frame, ipOffset + headers, covered - headers);
        return (int) crc.getValue();
    }

    /** Writes {@code icrc} least significant byte first at {@code off}. */
    public static void store(byte[] b, int off, int icrc) {
        b[off] = (byte) icrc;
        b[off + 1] = (byte) (icrc >>> 8);
        b[off + 2] = (byte) (icrc >>> 16);
        b[off + 3] = (byte) (icrc >>> 24);
    }

    /** Reads an ICRC stored least significant byte first at {@code off}. */
    public static int load(byte[] b, int off) {
        return (b[off] & 0xFF) | (b[off + 1] & 0xFF) << 8 | (b[off + 2] & 0xFF) << 16 | (b[off + 3] & 0xFF) << 24;
    }
}
