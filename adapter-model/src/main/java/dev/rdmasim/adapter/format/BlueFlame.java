package dev.rdmasim.adapter.format;

/**
 * Driver-side state of one BlueFlame register: two halves of {@code bfSize} bytes at offsets 0 and
 * {@code bfSize} from {@link Doorbells#PAGE_BLUEFLAME}; each doorbell or BlueFlame copy goes to the
 * current half, then the half toggles. A BlueFlame post copies the whole WQE (one WQE, at most
 * {@code bfSize} bytes) in 64-byte chunks, so the adapter needs no WQE fetch.
 */
public final class BlueFlame {
    public static final int CHUNK = 64;

    private final int bfSize;
    private int current;

    public BlueFlame(int bfSize) {
        if (bfSize < CHUNK || Integer.bitCount(bfSize) != 1) {
            throw new IllegalArgumentException("bfSize must be a power of two >= 64: " + bfSize);
        }
        this.bfSize = bfSize;
    }

    public int bfSize() {
        return bfSize;
    }

    /** Offset of the half to write next, relative to the BlueFlame register (0 or bfSize). */
    public int currentOffset() {
        return current;
    }

    /** Offset inside the doorbell page of the half to write next. */
    public int currentPageOffset() {
        return Doorbells.PAGE_BLUEFLAME + current;
    }

    /** Switches halves after a doorbell or BlueFlame write. */
    public void toggle() {
        current ^= bfSize;
    }

    /** Whether a WQE of {@code bbs} basic blocks fits one half. */
    public boolean fits(int bbs) {
        return bbs * CHUNK <= bfSize;
    }

    /**
     * Copies 64-byte chunk {@code chunk} of the WQE starting at BB {@code wqeIndex} of an SQ ring
     * ({@code 2^logBbs} BBs at {@code ring[base..]}) to {@code dst[dstOff..dstOff+64)}; chunk k of a WQE
     * is its BB k, taken with the ring's wrap.
     */
    public static void copyChunk(byte[] ring, int base, int logBbs, int wqeIndex, int chunk, byte[] dst,
                                 int dstOff) {
        int bb = (wqeIndex + chunk) & ((1 << logBbs) - 1);
        System.arraycopy(ring, base + bb * CHUNK, dst, dstOff, CHUNK);
    }

    /** Adapter side: chunks a BlueFlame WQE spans, read from the ds of its first chunk. */
    public static int chunksOf(byte[] firstChunk, int off) {
        return Math.max(1, SendWqeBuilder.bbsForDs(ControlSegment.ds(firstChunk, off)));
    }
}
