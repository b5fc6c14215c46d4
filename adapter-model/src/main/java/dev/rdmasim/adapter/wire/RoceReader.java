package dev.rdmasim.adapter.wire;

import static dev.rdmasim.adapter.wire.RoceLayout.*;

import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.StatsGroup;

/**
 * A flyweight view of a received RoCEv2 frame. {@link #wrap} checks the frame (ethertype, IPv4 header and
 * checksum, UDP port and lengths, ICRC, BTH version, opcode, pad) and returns the verdict; the field
 * accessors read straight from the wrapped bytes and are meaningful only after a {@link FrameCheck#VALID}
 * verdict. Accessors for a header the opcode does not carry throw. One reader is reused for every frame;
 * nothing is allocated.
 */
public final class RoceReader {
    /**
     * With assertions on (as in every test run), a sealed frame's ICRC is computed anyway and must match: a change
     * to a frame's bytes that did not end its seal fails loudly instead of passing a frame the receiver should drop.
     */
    private static final boolean VERIFY_SEALS = RoceReader.class.desiredAssertionStatus();

    private final Icrc icrc = new Icrc();
    /** The frame being checked is sealed by its writer: its ICRC is known to be right. */
    private boolean sealed;
    private final Counter[] counters;
    private byte[] b;
    private int ipLength;
    private int ext;
    private int payloadLength;
    // What the wrapped frame's opcode carries, looked up once per frame for the accessors.
    private boolean hasDeth;
    private boolean hasReth;
    private boolean hasAeth;
    private boolean hasImmediate;
    private FrameCheck last = FrameCheck.TRUNCATED;

    /** A reader that keeps no statistics. */
    public RoceReader() {
        this.counters = null;
    }

    /** A reader that counts each verdict in {@code stats} (counters named by {@link FrameCheck#statName()}). */
    public RoceReader(StatsGroup stats) {
        FrameCheck[] all = FrameCheck.values();
        counters = new Counter[all.length];
        for (FrameCheck c : all) {
            counters[c.ordinal()] = stats.counter(c.statName(), "frames", c.description());
        }
    }

    /**
     * Checks a received frame and makes it the one the accessors read; the ICRC of a frame still sealed by its
     * writer ({@link Frame#icrcSealed}) is taken as correct rather than computed again.
     */
    public FrameCheck wrap(Frame frame) {
        sealed = frame.icrcSealed;
        try {
            return wrap(frame.data(), frame.length());
        } finally {
            sealed = false;
        }
    }

    /** Checks the frame {@code frame[0 .. length)} and makes it the one the accessors read. */
    public FrameCheck wrap(byte[] frame, int length) {
        this.b = frame;
        FrameCheck v = check(frame, length);
        last = v;
        if (counters != null) {
            counters[v.ordinal()].inc();
        }
        return v;
    }

    /** The verdict of the last {@link #wrap}. */
    public FrameCheck verdict() {
        return last;
    }

    private FrameCheck check(byte[] f, int length) {
        if (length < MIN_ROCE_FRAME || length > f.length) {
            return FrameCheck.TRUNCATED;
        }
        if (u16(f, ETH_TYPE) != ETHERTYPE_IPV4) {
            return FrameCheck.NOT_IPV4;
        }
        if ((f[IP_OFFSET] & 0xFF) != 0x45) {
            return FrameCheck.BAD_IP_HEADER;
        }
        if (ipv4Checksum(f, IP_OFFSET) != u16(f, IP_OFFSET + 10)) {
            return FrameCheck.BAD_IP_CHECKSUM;
        }
        if ((u16(f, IP_OFFSET + 6) & 0x3FFF) != 0) {
            return FrameCheck.FRAGMENTED;
        }
        if ((f[IP_OFFSET + 9] & 0xFF) != IP_PROTOCOL_UDP) {
            return FrameCheck.NOT_UDP;
        }
        if (u16(f, UDP_OFFSET + 2) != ROCEV2_PORT) {
            return FrameCheck.NOT_ROCEV2;
        }
        ipLength = u16(f, IP_OFFSET + 2);
        int end = IP_OFFSET + ipLength;
        // Trailing bytes are allowed only as Ethernet padding up to the minimum frame.
        if (end < MIN_ROCE_FRAME || end > length || (length > end && length > ETH_MIN_FRAME)
                || u16(f, UDP_OFFSET + 4) != ipLength - IP_HEADER) {
            return FrameCheck.BAD_LENGTH;
        }
        if ((!sealed || VERIFY_SEALS) && icrc.compute(f, IP_OFFSET, ipLength) != Icrc.load(f, end - ICRC)) {
            if (sealed) {
                throw new InvariantViolation("a frame sealed by its writer has a wrong ICRC: its bytes changed after it"
                        + " was built without ending the seal");
            }
            return FrameCheck.BAD_ICRC;
        }
        if ((f[BTH_OFFSET + 1] & 0x0F) != 0) {
            return FrameCheck.BAD_TRANSPORT_VERSION;
        }
        int op = f[BTH_OFFSET] & 0xFF;
        if (!Opcode.isSupported(op)) {
            return FrameCheck.UNSUPPORTED_OPCODE;
        }
        ext = Opcode.extensionBytes(op);
        hasDeth = Opcode.hasDeth(op);
        hasReth = Opcode.hasReth(op);
        hasAeth = Opcode.hasAeth(op);
        hasImmediate = Opcode.hasImmediate(op);
        int afterHeaders = end - ICRC - EXT_OFFSET - ext;
        int pad = padCount();
        if (afterHeaders < pad || (!Opcode.hasPayload(op) && afterHeaders != 0)) {
            return FrameCheck.BAD_LENGTH;
        }
        if ((afterHeaders & 3) != 0) {
            return FrameCheck.BAD_PAD;
        }
        payloadLength = afterHeaders - pad;
        return FrameCheck.VALID;
    }

    private void requireValid() {
        if (last != FrameCheck.VALID) {
            throw new IllegalStateException("no valid frame wrapped (last verdict " + last + ")");
        }
    }

    public long dstMac() {
        return u48(b, ETH_DST);
    }

    public long srcMac() {
        return u48(b, ETH_SRC);
    }

    public int dscp() {
        return (b[IP_OFFSET + 1] & 0xFF) >>> 2;
    }

    public int ecn() {
        return b[IP_OFFSET + 1] & 3;
    }

    public int ipTotalLength() {
        return u16(b, IP_OFFSET + 2);
    }

    public int identification() {
        return u16(b, IP_OFFSET + 4);
    }

    public boolean dontFragment() {
        return (u16(b, IP_OFFSET + 6) & IP_FLAG_DF) != 0;
    }

    public int ttl() {
        return b[IP_OFFSET + 8] & 0xFF;
    }

    public int ipChecksum() {
        return u16(b, IP_OFFSET + 10);
    }

    public int srcIp() {
        return u32(b, IP_OFFSET + 12);
    }

    public int dstIp() {
        return u32(b, IP_OFFSET + 16);
    }

    public int udpSourcePort() {
        return u16(b, UDP_OFFSET);
    }

    public int udpDestinationPort() {
        return u16(b, UDP_OFFSET + 2);
    }

    public int udpLength() {
        return u16(b, UDP_OFFSET + 4);
    }

    public int udpChecksum() {
        return u16(b, UDP_OFFSET + 6);
    }

    public int opcode() {
        return b[BTH_OFFSET] & 0xFF;
    }

    public boolean solicited() {
        return (b[BTH_OFFSET + 1] & 0x80) != 0;
    }

    public boolean migReq() {
        return (b[BTH_OFFSET + 1] & 0x40) != 0;
    }

    public int padCount() {
        return (b[BTH_OFFSET + 1] >>> 4) & 3;
    }

    public int transportVersion() {
        return b[BTH_OFFSET + 1] & 0x0F;
    }

    public int pkey() {
        return u16(b, BTH_OFFSET + 2);
    }

    /** BTH byte 4: FECN (bit 7), BECN (bit 6) and reserved bits; not covered by the ICRC. */
    public int bthResv8a() {
        return b[BTH_OFFSET + 4] & 0xFF;
    }

    public int destQp() {
        return u24(b, BTH_OFFSET + 5);
    }

    public boolean ackRequest() {
        return (b[BTH_OFFSET + 8] & 0x80) != 0;
    }

    public int psn() {
        return u24(b, BTH_OFFSET + 9);
    }

    public boolean hasDeth() {
        requireValid();
        return hasDeth;
    }

    /** DETH Q_Key of a UD packet. */
    public int dethQkey() {
        return u32(b, dethOffset());
    }

    /** DETH source QP of a UD packet. */
    public int dethSourceQp() {
        return u24(b, dethOffset() + 5);
    }

    public boolean hasReth() {
        requireValid();
        return hasReth;
    }

    public boolean hasAeth() {
        requireValid();
        return hasAeth;
    }

    public boolean hasImmediate() {
        requireValid();
        return hasImmediate;
    }

    public long rethVirtualAddress() {
        return u64(b, rethOffset());
    }

    public int rethRkey() {
        return u32(b, rethOffset() + 8);
    }

    public int rethDmaLength() {
        return u32(b, rethOffset() + 12);
    }

    public int aethSyndrome() {
        return b[aethOffset()] & 0xFF;
    }

    public int aethMsn() {
        return u24(b, aethOffset() + 1);
    }

    public int immediate() {
        if (!hasImmediate()) {
            throw new IllegalStateException(Opcode.name(opcode()) + " carries no ImmDt");
        }
        return u32(b, payloadOffset() - IMMDT);
    }

    public int payloadOffset() {
        requireValid();
        return EXT_OFFSET + ext;
    }

    public int payloadLength() {
        requireValid();
        return payloadLength;
    }

    /** The ICRC as carried in the frame (stored least significant byte first). */
    public int icrc() {
        requireValid();
        return Icrc.load(b, IP_OFFSET + ipLength - ICRC);
    }

    /** The frame's bytes; the payload is {@code bytes()[payloadOffset() .. + payloadLength())}. */
    public byte[] bytes() {
        return b;
    }

    private int dethOffset() {
        if (!hasDeth()) {
            throw new IllegalStateException(Opcode.name(opcode()) + " carries no DETH");
        }
        return EXT_OFFSET;
    }

    private int rethOffset() {
        if (!hasReth()) {
            throw new IllegalStateException(Opcode.name(opcode()) + " carries no RETH");
        }
        return EXT_OFFSET;
    }

    private int aethOffset() {
        if (!hasAeth()) {
            throw new IllegalStateException(Opcode.name(opcode()) + " carries no AETH");
        }
        return EXT_OFFSET; // never together with a RETH in RC
    }
}
