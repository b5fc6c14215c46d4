package dev.rdmasim.adapter.wire;

import java.nio.ByteBuffer;
import java.util.zip.CRC32;

/**
 * The RoCEv2 invariant CRC: the Ethernet CRC-32 over a pseudo-packet of 8 bytes of 0xFF (standing for
 * the InfiniBand LRH), then the IPv4 header with TOS (DSCP+ECN), TTL and header checksum set to all
 * ones, the UDP header with its checksum set to all ones, the BTH with its reserved byte 4 (resv8a,
 * which RoCEv2 uses for FECN/BECN) set to all ones, then everything after the BTH up to the ICRC.
 * These are the fields a router may rewrite. The result is stored least significant byte first, as an
 * Ethernet FCS is.
 *
 * <p>One instance holds a CRC engine and a scratch buffer, so it is reused and not shared between threads;
 * computing allocates nothing once the buffer has grown to the largest frame. The pseudo-packet is assembled in
 * that buffer, which starts on a 16-byte boundary, and fed to the CRC engine in one call: the JDK's CRC32 code
 * takes the bytes before the first 16-byte-aligned address and a short tail one at a time, so a frame's ICRC
 * taken in place from its sixth byte costs about 1.6 times as much for a small frame as the copy and the
 * aligned pass together (and a byte array's own alignment depends on where the collector put it). Assembling
 * the masked headers in the buffer also leaves the frame's bytes untouched.
 */
public final class Icrc {
    private static final int HEADERS = RoceLayout.IP_HEADER + RoceLayout.UDP_HEADER + RoceLayout.BTH;
    // Offsets of the masked fields from the start of the IPv4 header.
    private static final int TOS = 1;
    private static final int TTL = 8;
    private static final int IP_CHECKSUM = 10;
    private static final int UDP_CHECKSUM = RoceLayout.IP_HEADER + 6;
    private static final int RESV8A = RoceLayout.IP_HEADER + RoceLayout.UDP_HEADER + 4;

    private final CRC32 crc = new CRC32();
    private ByteBuffer aligned = alignedBuffer(256);

    /**
     * The ICRC of the IPv4 packet at {@code ipOffset} of {@code ipTotalLength} bytes (as in its header),
     * whose last 4 bytes are the ICRC itself and are not covered. The frame is only read: the pseudo-packet,
     * masked fields included, is assembled in the scratch buffer.
     */
    public int compute(byte[] frame, int ipOffset, int ipTotalLength) {
        int covered = ipTotalLength - RoceLayout.ICRC;
        if (covered < HEADERS || ipOffset < 0 || ipOffset + ipTotalLength > frame.length) {
            throw new IllegalArgumentException("IPv4 packet of " + ipTotalLength + " bytes at offset " + ipOffset
                    + " does not hold IP, UDP and BTH headers plus an ICRC within a " + frame.length + "-byte buffer");
        }
        ByteBuffer buf = room(8 + covered);
        buf.putLong(0, -1L); // the all-ones LRH stand-in
        buf.put(8, frame, ipOffset, covered);
        buf.put(8 + TOS, (byte) 0xFF);
        buf.put(8 + TTL, (byte) 0xFF);
        buf.putShort(8 + IP_CHECKSUM, (short) -1);
        buf.putShort(8 + UDP_CHECKSUM, (short) -1);
        buf.put(8 + RESV8A, (byte) 0xFF);
        buf.limit(8 + covered);
        crc.reset();
        crc.update(buf);
        return (int) crc.getValue();
    }

    /** The scratch buffer, grown (to a power of two) when a frame needs more; its limit is its capacity. */
    private ByteBuffer room(int length) {
        if (aligned.capacity() < length) {
            aligned = alignedBuffer(Integer.highestOneBit(length - 1) << 1);
        }
        return aligned.clear();
    }

    private static ByteBuffer alignedBuffer(int bytes) {
        return ByteBuffer.allocateDirect(bytes + 15).alignedSlice(16).limit(bytes).slice();
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
