package dev.rdmasim.adapter.format;

/**
 * Driver side: walks a ring of {@code 2^logSize} 64-byte entries that the adapter fills (CQ or EQ),
 * using the owner-bit parity rule. {@link #poll()} says whether the entry at the consumer index is
 * software's; read its fields at {@link #entryOffset()} with {@link Cqe} / {@link Eqe}, then
 * {@link #advance()}. The consumer index is a running count (it does not wrap at the ring size).
 */
public final class OwnedRingPoller {
    public static final int ENTRY = 64;

    private final byte[] ring;
    private final int base;
    private final int logSize;
    private final boolean completionQueue;
    private long consumerIndex;

    private OwnedRingPoller(byte[] ring, int base, int logSize, boolean completionQueue) {
        if (logSize < 0 || logSize > 24) {
            throw new IllegalArgumentException("logSize must be 0..24: " + logSize);
        }
        if (base < 0 || (long) base + ((long) ENTRY << logSize) > ring.length) {
            throw new IllegalArgumentException("ring of " + (1 << logSize) + " entries at base " + base
                + " does not fit an array of " + ring.length);
        }
        this.ring = ring;
        this.base = base;
        this.logSize = logSize;
        this.completionQueue = completionQueue;
    }

    /** Poller for a CQ: also requires the CQE opcode to differ from {@link Cqe#INVALID}. */
    public static OwnedRingPoller forCq(byte[] ring, int base, int logSize) {
        return new OwnedRingPoller(ring, base, logSize, true);
    }

    public static OwnedRingPoller forEq(byte[] ring, int base, int logSize) {
        return new OwnedRingPoller(ring, base, logSize, false);
    }

    public boolean poll() {
        int off = entryOffset();
        return completionQueue ? Cqe.isSoftwareOwned(ring, off, consumerIndex, logSize)
            : Eqe.isSoftwareOwned(ring, off, consumerIndex, logSize);
    }

    /** Array offset of the entry at the consumer index. */
    public int entryOffset() {
        return base + Cqe.entryOffset(consumerIndex, logSize);
    }

    public byte[] ring() {
        return ring;
    }

    public void advance() {
        consumerIndex++;
    }

    public long consumerIndex() {
        return consumerIndex;
    }

    public int logSize() {
        return logSize;
    }
}
