package dev.rdmasim.driver;

/**
 * A reusable gather / scatter list: up to {@code capacity} entries of (address, length, key).
 * Callers {@link #clear()} and {@link #add} per request; nothing allocates after construction.
 */
public final class SgeList {
    private final long[] address;
    private final int[] length;
    private final int[] key;
    private int count;

    public SgeList(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("SGE list capacity must be >= 1, got " + capacity);
        }
        address = new long[capacity];
        length = new int[capacity];
        key = new int[capacity];
    }

    public SgeList clear() {
        count = 0;
        return this;
    }

    /** Appends one entry; {@code length} must be positive (zero-length SGEs are simply not added). */
    public SgeList add(long addr, int len, int lkey) {
        if (count == address.length) {
            throw new IllegalStateException("SGE list full (" + address.length + " entries)");
        }
        if (len <= 0) {
            throw new IllegalArgumentException("SGE length must be > 0, got " + len);
        }
        address[count] = addr;
        length[count] = len;
        key[count] = lkey;
        count++;
        return this;
    }

    /** Convenience: a one-entry list over part of a registered region. */
    public SgeList set(MemoryRegion mr, long offset, int len) {
        clear();
        return add(mr.address() + offset, len, mr.lkey());
    }

    public int count() {
        return count;
    }

    public int capacity() {
        return address.length;
    }

    public long address(int i) {
        return address[i];
    }

    public int length(int i) {
        return length[i];
    }

    public int key(int i) {
        return key[i];
    }

    /** Sum of the entries' lengths. */
    public long totalLength() {
        long t = 0;
        for (int i = 0; i < count; i++) {
            t += length[i];
        }
        return t;
    }
}
