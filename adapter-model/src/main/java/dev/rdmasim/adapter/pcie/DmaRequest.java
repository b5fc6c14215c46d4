package dev.rdmasim.adapter.pcie;

import dev.rdmasim.kernel.InvariantViolation;
import java.util.Objects;

/**
 * A DMA read or write of a contiguous host range, owned and reused by its client. The client fills it with
 * {@link #read} or {@link #write}, optionally gives it a ready time with {@link #notBefore}, submits it on a
 * {@link DmaChannel}, and must not touch it until its callback says it is finished ({@code readDone},
 * {@code writeSent}, or {@code writeApplied} when asked for).
 */
public final class DmaRequest {
    /** Direction from the device's point of view. */
    public enum Kind {
        /** Host memory to device buffer (MRd + CplD). */
        READ,
        /** Device buffer to host memory (MWr). */
        WRITE
    }

    Kind kind;
    long hostAddress;
    int length;
    byte[] buffer;
    int offset;
    DmaCallback callback;
    long cookie;
    boolean notifyApplied;
    /** Lends the write's bytes to its TLPs instead of having them copied ({@link #lentBy}), or null. */
    ByteLender lender;
    /** Earliest start on the link asked for by the client, or {@link #NOW}. */
    long notBeforePs = NOW;

    /** {@link #notBeforePs} when the client gave no ready time. */
    static final long NOW = Long.MIN_VALUE;

    // Engine bookkeeping.
    DmaEngine engine;
    boolean inEngine;
    int issued;
    int outstanding;
    long submitPs;
    long readyPs;
    boolean sentSeen;
    boolean appliedSeen;

    /** Prepares a read of {@code len} bytes at {@code hostAddress} into {@code buf[off..]}. */
    public DmaRequest read(long hostAddress, byte[] buf, int off, int len, DmaCallback callback, long cookie) {
        return set(Kind.READ, hostAddress, buf, off, len, callback, cookie, false);
    }

    /**
     * Prepares a write of {@code buf[off..off+len)} to {@code hostAddress}; with {@code notifyApplied} the client is
     * also told when the last byte lands in host memory.
     */
    public DmaRequest write(long hostAddress, byte[] buf, int off, int len, DmaCallback callback, long cookie,
                            boolean notifyApplied) {
        return set(Kind.WRITE, hostAddress, buf, off, len, callback, cookie, notifyApplied);
    }

    /**
     * For a write: its TLPs read the bytes straight from the buffer, which {@code lender} keeps unchanged until each
     * TLP has been applied to host memory and returned them, instead of copying them when they are built. Only after
     * {@link #write}, which clears it.
     */
    public DmaRequest lentBy(ByteLender lender) {
        if (kind != Kind.WRITE || inEngine) {
            throw new IllegalStateException("DMA request " + this + ": only a write not yet submitted lends its bytes");
        }
        this.lender = lender;
        return this;
    }

    private DmaRequest set(Kind k, long addr, byte[] buf, int off, int len, DmaCallback cb, long ck, boolean notify) {
        if (inEngine) {
            throw new IllegalStateException("DMA request " + this + " is still in the engine; wait for its callback");
        }
        lender = null;
        Objects.requireNonNull(buf, "buffer");
        Objects.requireNonNull(cb, "callback");
        if (len < 1) {
            throw new IllegalArgumentException("DMA length must be >= 1, got " + len);
        }
        Objects.checkFromIndexSize(off, len, buf.length);
        if (Long.compareUnsigned(addr + len - 1, addr) < 0) {
            throw new IllegalArgumentException("DMA of " + len + " bytes at 0x" + Long.toHexString(addr) + " wraps");
        }
        kind = k;
        hostAddress = addr;
        buffer = buf;
        offset = off;
        length = len;
        callback = cb;
        cookie = ck;
        notifyApplied = notify;
        notBeforePs = NOW;
        return this;
    }

    /**
     * Gives the request, as prepared by the last {@link #read} or {@link #write} (which reset it to "ready at
     * submission"), a ready time: none of its TLPs starts on the link before {@code ps}. The engine still issues it
     * as soon as its channel's turn comes, so its TLPs hold their transmit-queue slots, and a read its tags, from
     * then on; see {@link DmaChannel#submit} for the rules within a channel.
     */
    public DmaRequest notBefore(long ps) {
        if (inEngine) {
            throw new IllegalStateException("DMA request " + this + " is still in the engine; wait for its callback");
        }
        if (kind == null) {
            throw new IllegalStateException("notBefore(" + ps + ") before read(...) or write(...) set the request up");
        }
        if (ps < 0) {
            throw new IllegalArgumentException("DMA ready time must be >= 0 ps, got " + ps);
        }
        notBeforePs = ps;
        return this;
    }

    public Kind kind() {
        return kind;
    }

    public long hostAddress() {
        return hostAddress;
    }

    public int length() {
        return length;
    }

    public byte[] buffer() {
        return buffer;
    }

    public int offset() {
        return offset;
    }

    public long cookie() {
        return cookie;
    }

    public boolean notifyApplied() {
        return notifyApplied;
    }

    /** True from submission until the engine is done with the request. */
    public boolean inEngine() {
        return inEngine;
    }

    /** Time the request was accepted by its channel, ps. */
    public long submitPs() {
        return submitPs;
    }

    /**
     * Time from which the request's TLPs may start, ps: set at submission to the later of the submission time and
     * {@link #notBefore} (or, without one, the channel's previous request's ready time). Read latency counts from it.
     */
    public long readyPs() {
        return readyPs;
    }

    /** Called by the root complex when the last MWr of a notifying write is applied. */
    void applied() {
        if (!inEngine || kind != Kind.WRITE || appliedSeen) {
            throw new InvariantViolation("write " + this + " applied twice, or while not in the engine");
        }
        appliedSeen = true;
        engine.writeApplied(this);
    }

    @Override
    public String toString() {
        return kind + "[0x" + Long.toHexString(hostAddress) + "+" + length + " cookie=" + cookie + "]";
    }
}
