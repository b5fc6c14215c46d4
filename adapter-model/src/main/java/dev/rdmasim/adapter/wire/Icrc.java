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
 * between threads; computing allocates nothing. It feeds the whole pseudo-packet to the CRC engine in one
 * call: a {@code CRC32} call costs about as much for 60 bytes as for 136, so a small frame's ICRC is paid
 * per call rather than per byte.
 */
public final class Icrc {
    private static final int HEADERS = RoceLayout.IP_HEADER + RoceLayout.UDP_HEADER + RoceLayout.BTH;
    private static final int MASKED = 8 + HEADERS;
    // Offsets of the masked fields from the start of the IPv4 header.
    private static final int TOS = 1;
    private static final int TTL = 8;
    private static final int IP_CHECKSUM = 10;
    private static final int UDP_CHECKSUM = RoceLayout.IP_HEADER + 6;
    private static final int RESV8A = RoceLayout.IP_HEADER + RoceLayout.UDP_HEADER + 4;

    private final CRC32 crc = new CRC32();
    private final byte[] scratch = new byte[MASKED];

    /**
     * The ICRC of the IPv4 packet at {@code ipOffset} of {@code ipTotalLength} bytes (as in its header),
     * whose last 4 bytes are the ICRC itself and are not covered. When the packet has at least 8 bytes in
     * front of it (an Ethernet header does), the masked fields and those 8 bytes are set to all ones in
     * place for one contiguous CRC pass and restored before returning; otherwise the masked headers are
     * copied to a scratch buffer.
     */
    public int compute(byte[] frame, int ipOffset, int ipTotalLength) {
        int covered = ipTotalLength - RoceLayout.ICRC;
        if (covered < HEADERS || ipOffset < 0 || ipOffset + ipTotalLength > frame.length) {
            throw new IllegalArgumentException("IPv4 packet of " + ipTotalLength + " bytes at offset " + ipOffset
                    + " does not hold IP, UDP and BTH headers plus an ICRC within a " + frame.length + "-byte buffer");
        }
        if (ipOffset < 8) {
            return computeCopy(frame, ipOffset, covered);
        }
        int p = ipOffset - 8;
        long lrh = 0; // the 8 bytes the all-ones LRH borrows, packed big-endian
        for (int i = 0; i < 8; i++) {
            lrh = lrh << 8 | (frame[p + i] & 0xFF);
            frame[p + i] = (byte) 0xFF;
        }
        byte tos = frame[ipOffset + TOS];
        byte ttl = frame[ipOffset + TTL];
        byte check0 = frame[ipOffset + IP_CHECKSUM];
        byte check1 = frame[ipOffset + IP_CHECKSUM + 1];
        byte udp0 = frame[ipOffset + UDP_CHECKSUM];
        byte udp1 = frame[ipOffset + UDP_CHECKSUM + 1];
        byte resv = frame[ipOffset + RESV8A];
        mask(frame, ipOffset);
        int icrc = crcOver(frame, p, 8 + covered);
        frame[ipOffset + TOS] = tos;
        frame[ipOffset + TTL] = ttl;
        frame[ipOffset + IP_CHECKSUM] = check0;
        frame[ipOffset + IP_CHECKSUM + 1] = check1;
        frame[ipOffset + UDP_CHECKSUM] = udp0;
        frame[ipOffset + UDP_CHECKSUM + 1] = udp1;
        frame[ipOffset + RESV8A] = resv;
        for (int i = 7; i >= 0; i--) {
            frame[p + i] = (byte) lrh;
            lrh >>>= 8;
        }
        return icrc;
    }

    /**
     * The CRC of {@code length} bytes at {@code from} taken as they are: for a writer that has put the
     * all-ones LRH stand-in and the masked field values in place itself ({@code from} = IP offset - 8).
     */
    int crcOver(byte[] b, int from, int length) {
        crc.reset();
        crc.update(b, from, length);
        return (int) crc.getValue();
    }

    /** Sets the fields a router may rewrite to all ones in the IPv4 packet at {@code ip}. */
    static void mask(byte[] b, int ip) {
        b[ip + TOS] = (byte) 0xFF;
        b[ip + TTL] = (byte) 0xFF;
        b[ip + IP_CHECKSUM] = (byte) 0xFF;
        b[ip + IP_CHECKSUM + 1] = (byte) 0xFF;
        b[ip + UDP_CHECKSUM] = (byte) 0xFF;
        b[ip + UDP_CHECKSUM + 1] = (byte) 0xFF;
        b[ip + RESV8A] = (byte) 0xFF;
    }

    private int computeCopy(byte[] frame, int ipOffset, int covered) {
        byte[] s = scratch;
        for (int i = 0; i < 8; i++) {
            s[i] = (byte) 0xFF;
        }
        System.arraycopy(frame, ipOffset, s, 8, HEADERS);
        mask(s, 8);
        crc.reset();
        crc.update(s, 0, MASKED);
        crc.update(frame, ipOffset + HEADERS, covered - HEADERS);
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
