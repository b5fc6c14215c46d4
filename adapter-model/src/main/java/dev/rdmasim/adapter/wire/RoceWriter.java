package dev.rdmasim.adapter.wire;

import static dev.rdmasim.adapter.wire.RoceLayout.*;

/**
 * Builds RoCEv2 frames (Ethernet II + IPv4 + UDP + BTH [+ DETH] [+ RETH] [+ AETH] [+ ImmDt] + payload + pad +
 * ICRC, zero-padded to the Ethernet minimum) into a byte array at offset 0. The writer is a reusable
 * set of header fields: set what differs from the previous packet, then call {@link #write}. Fields an
 * opcode does not carry (e.g. the RETH of a SEND) are ignored. Writing allocates nothing.
 *
 * <p>The IPv4 identification is taken from {@link #identification(int)} and advances by one after each
 * frame, as a host stack does. The UDP checksum is written as 0 (allowed for RoCEv2, which relies on the ICRC).
 */
public final class RoceWriter {
    private final Icrc icrc = new Icrc();

    private long dstMac;
    private long srcMac;
    private int srcIp;
    private int dstIp;
    private int dscp;
    private int ecn;
    private int ttl = 64;
    private int identification;
    private int udpSourcePort = 0xC000;
    private int opcode = Opcode.SEND_ONLY;
    // What the opcode carries, looked up once when it is set rather than on every frame.
    private int ext = Opcode.extensionBytes(Opcode.SEND_ONLY);
    private boolean hasDeth;
    private boolean hasReth;
    private boolean hasAeth;
    private boolean hasImmediate;
    private boolean hasPayload = true;
    private boolean solicited;
    private boolean migReq = true;
    private int pkey = 0xFFFF;
    private int destQp;
    private boolean ackRequest;
    private int psn;
    private long va;
    private int rkey;
    private int dmaLength;
    private int syndrome;
    private int msn;
    private int immediate;
    private int qkey;
    private int sourceQp;

    /** Destination and source MAC addresses, 48 bits each. */
    public RoceWriter macs(long dst, long src) {
        this.dstMac = bits("dstMac", dst, 48);
        this.srcMac = bits("srcMac", src, 48);
        return this;
    }

    /** Source and destination IPv4 addresses, e.g. {@code 0x0A000001} for 10.0.0.1. */
    public RoceWriter ipv4(int src, int dst) {
        this.srcIp = src;
        this.dstIp = dst;
        return this;
    }

    /** DSCP (6 bits) and ECN (2 bits) of the IPv4 TOS byte. */
    public RoceWriter trafficClass(int dscp, int ecn) {
        this.dscp = (int) bits("dscp", dscp, 6);
        this.ecn = (int) bits("ecn", ecn, 2);
        return this;
    }

    public RoceWriter ttl(int ttl) {
        this.ttl = (int) bits("ttl", ttl, 8);
        return this;
    }

    /** IPv4 identification of the next frame; it then advances by one per frame. */
    public RoceWriter identification(int id) {
        this.identification = (int) bits("identification", id, 16);
        return this;
    }

    /** UDP source port; see {@link #entropyPort} for a per-connection choice. */
    public RoceWriter udpSourcePort(int port) {
        this.udpSourcePort = (int) bits("udpSourcePort", port, 16);
        return this;
    }

    /** Opcode, 24-bit destination QP and 24-bit PSN. */
    public RoceWriter bth(int opcode, int destQp, int psn) {
        if (!Opcode.isSupported(opcode)) {
            throw new IllegalArgumentException("opcode 0x" + Integer.toHexString(opcode) + " is not a supported opcode");
        }
        this.destQp = (int) bits("destQp", destQp, 24);
        this.psn = (int) bits("psn", psn, 24);
        if (opcode != this.opcode) {
            this.opcode = opcode;
            this.ext = Opcode.extensionBytes(opcode);
            this.hasDeth = Opcode.hasDeth(opcode);
            this.hasReth = Opcode.hasReth(opcode);
            this.hasAeth = Opcode.hasAeth(opcode);
            this.hasImmediate = Opcode.hasImmediate(opcode);
            this.hasPayload = Opcode.hasPayload(opcode);
        }
        return this;
    }

    public RoceWriter ackRequest(boolean a) {
        this.ackRequest = a;
        return this;
    }

    public RoceWriter solicited(boolean se) {
        this.solicited = se;
        return this;
    }

    /** MigReq bit; set by default (no path migration armed), as Linux rxe does. */
    public RoceWriter migReq(boolean m) {
        this.migReq = m;
        return this;
    }

    /** Partition key, 0xFFFF (default full-member partition) unless set. */
    public RoceWriter pkey(int pkey) {
        this.pkey = (int) bits("pkey", pkey, 16);
        return this;
    }

    /** DETH of a UD packet: the Q_Key the receiving QP checks and the 24-bit source QP. */
    public RoceWriter deth(int qkey, int sourceQp) {
        this.qkey = qkey;
        this.sourceQp = (int) bits("sourceQp", sourceQp, 24);
        return this;
    }

    /** RETH: remote virtual address, remote key, DMA length (bytes of the whole message). */
    public RoceWriter reth(long va, int rkey, int dmaLength) {
        this.va = va;
        this.rkey = rkey;
        this.dmaLength = dmaLength;
        return this;
    }

    /** AETH: an 8-bit syndrome (see {@link Aeth}) and the 24-bit message sequence number. */
    public RoceWriter aeth(int syndrome, int msn) {
        this.syndrome = (int) bits("syndrome", syndrome, 8);
        this.msn = (int) bits("msn", msn, 24);
        return this;
    }

    public RoceWriter immediate(int imm) {
        this.immediate = imm;
        return this;
    }

    public int opcode() {
        return opcode;
    }

    /** Where the payload starts in the frame for the current opcode. */
    public int payloadOffset() {
        return EXT_OFFSET + ext;
    }

    /**
     * A UDP source port in the dynamic range 0xC000..0xFFFF derived from both QP numbers, so different
     * connections spread over ECMP paths while one connection keeps its packet order.
     */
    public static int entropyPort(int srcQp, int dstQp) {
        int h = (srcQp * 0x9E3779B1) ^ (dstQp * 0x85EBCA77);
        h ^= h >>> 15;
        return 0xC000 | (h & 0x3FFF);
    }

    /**
     * Builds the frame in {@code f} as {@link #write(byte[], byte[], int, int)} does, sets its length and seals it:
     * until its bytes or length change, a {@link RoceReader#wrap(Frame)} takes its ICRC as computed here instead of
     * computing it again (the ICRC bytes in the frame, and so on the wire and in a capture, are the real ones).
     * Only while the sender holds the frame.
     */
    public Frame write(Frame f, byte[] payload, int payloadOff, int payloadLength) {
        f.length(write(f.data(), payload, payloadOff, payloadLength));
        f.icrcSealed = true;
        return f;
    }

    /** Copies {@code payloadLength} bytes of payload into place, then writes the frame; returns its length. */
    public int write(byte[] frame, byte[] payload, int payloadOff, int payloadLength) {
        checkPayload(frame, payloadLength);
        System.arraycopy(payload, payloadOff, frame, EXT_OFFSET + ext, payloadLength);
        return build(frame, payloadLength);
    }

    /**
     * Writes headers, pad, ICRC and Ethernet padding around a payload that is already at
     * {@link #payloadOffset()} (e.g. placed there by DMA); returns the frame length without FCS.
     */
    public int write(byte[] f, int payloadLength) {
        checkPayload(f, payloadLength);
        return build(f, payloadLength);
    }

    private int build(byte[] f, int payloadLength) {
        int pad = -payloadLength & 3;
        int udpLength = UDP_HEADER + BTH + ext + payloadLength + pad + ICRC;
        int ipLength = IP_HEADER + udpLength;

        // Icrc.compute masks the fields a router may rewrite in its own copy, so those fields and the Ethernet
        // source and type (which it does not cover) are written after it; every other byte it covers is in
        // place before.
        put48(f, ETH_DST, dstMac);
        int ip = IP_OFFSET;
        f[ip] = 0x45;
        put16(f, ip + 2, ipLength);
        put16(f, ip + 4, identification);
        put16(f, ip + 6, IP_FLAG_DF);
        f[ip + 9] = IP_PROTOCOL_UDP;
        put32(f, ip + 12, srcIp);
        put32(f, ip + 16, dstIp);

        put16(f, UDP_OFFSET, udpSourcePort);
        put16(f, UDP_OFFSET + 2, ROCEV2_PORT);
        put16(f, UDP_OFFSET + 4, udpLength);

        int b = BTH_OFFSET;
        f[b] = (byte) opcode;
        f[b + 1] = (byte) ((solicited ? 0x80 : 0) | (migReq ? 0x40 : 0) | pad << 4); // TVer 0
        put16(f, b + 2, pkey);
        put24(f, b + 5, destQp);
        f[b + 8] = (byte) (ackRequest ? 0x80 : 0);
        put24(f, b + 9, psn);

        int p = EXT_OFFSET;
        if (hasDeth) {
            put32(f, p, qkey);
            f[p + 4] = 0;
            put24(f, p + 5, sourceQp);
            p += DETH;
        }
        if (hasReth) {
            put64(f, p, va);
            put32(f, p + 8, rkey);
            put32(f, p + 12, dmaLength);
            p += RETH;
        }
        if (hasAeth) {
            f[p] = (byte) syndrome;
            put24(f, p + 1, msn);
            p += AETH;
        }
        if (hasImmediate) {
            put32(f, p, immediate);
            p += IMMDT;
        }
        p += payloadLength;
        for (int i = 0; i < pad; i++) {
            f[p++] = 0;
        }
        Icrc.store(f, p, icrc.compute(f, ip, ipLength));
        p += ICRC;

        put48(f, ETH_SRC, srcMac);
        put16(f, ETH_TYPE, ETHERTYPE_IPV4);
        f[ip + 1] = (byte) (dscp << 2 | ecn);
        f[ip + 8] = (byte) ttl;
        put16(f, ip + 10, ipv4Checksum(f, ip));
        put16(f, UDP_OFFSET + 6, 0);
        f[b + 4] = 0;
        identification = (identification + 1) & 0xFFFF;

        while (p < ETH_MIN_FRAME) {
            f[p++] = 0;
        }
        return p;
    }

    private void checkPayload(byte[] frame, int payloadLength) {
        if (payloadLength < 0 || payloadLength > MAX_PAYLOAD) {
            throw new IllegalArgumentException("payload length " + payloadLength + " outside 0.." + MAX_PAYLOAD);
        }
        if (payloadLength > 0 && !hasPayload) {
            throw new IllegalArgumentException(Opcode.name(opcode) + " carries no payload, got " + payloadLength + " bytes");
        }
        int needed = Math.max(ETH_MIN_FRAME, EXT_OFFSET + ext + payloadLength + (-payloadLength & 3) + ICRC);
        if (frame.length < needed) {
            throw new IllegalArgumentException("frame buffer of " + frame.length + " bytes is too small; need " + needed);
        }
    }

    private static long bits(String name, long v, int width) {
        if (v < 0 || v >>> width != 0) {
            throw new IllegalArgumentException(name + " must fit in " + width + " unsigned bits, got " + v);
        }
        return v;
    }
}
