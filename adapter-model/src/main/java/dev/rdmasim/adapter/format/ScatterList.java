package dev.rdmasim.adapter.format;

/**
 * A reusable holder for a parsed scatter/gather list: parallel primitive arrays sized once, so
 * parsing a WQE allocates nothing.
 */
public final class ScatterList {
    private final long[] address;
    private final int[] length;
    private final int[] lkey;
    private int count;
    private long totalLength;

    public ScatterList(int capacity) {
        if (capacity < 1 || capacity > ControlSegment.MAX_DS) {
            throw new IllegalArgumentException("capacity must be 1.." + ControlSegment.MAX_DS + ": " + capacity);
        }
        address = new long[capacity];
        length = new int[capacity];
        lkey = new int[capacity];
    }

    public int capacity() {
        return address.length;
    }

    public int count() {
        return count;
    }

    public long address(int i) {
        check(i);
        return address[i];
    }

    /** Length of entry {@code i} in bytes (1..2^31-1). */
    public int length(int i) {
        check(i);
        return length[i];
    }

    public int lkey(int i) {
        check(i);
        return lkey[i];
    }

    /** Sum of all lengths (a long: up to 62 entries of almost 2 GiB each). */
    public long totalLength() {
        return totalLength;
    }

    void clear() {
        count = 0;
        totalLength = 0;
    }

    void add(long addr, int len, int key) {
        address[count] = addr;
        length[count] = len;
        lkey[count] = key;
        count++;
        totalLength += len;
    }

    private void check(int i) {
        if (i < 0 || i >= count) {
            throw new IndexOutOfBoundsException("entry " + i + " of " + count);
        }
    }
}
