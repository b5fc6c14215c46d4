package dev.rdmasim.adapter.format;

/** One 8-byte translation entry: the big-endian physical address of a page. */
public final class TranslationEntry {
    public static final int SIZE = 8;

    private TranslationEntry() {
    }

    public static void put(byte[] b, int tableOff, int index, long physicalAddress) {
        BigEndian.putI64(b, tableOff + index * SIZE, physicalAddress);
    }

    public static long get(byte[] b, int tableOff, int index) {
        return BigEndian.i64(b, tableOff + index * SIZE);
    }

    /** Index of the entry holding {@code va} for a key starting at {@code start} with 2^logPage pages. */
    public static long indexOf(long start, int logPageSize, long va) {
        long firstPage = start & -(1L << logPageSize);
        return (va - firstPage) >>> logPageSize;
    }

    /** Physical address of {@code va} given the entry that covers it. */
    public static long translate(long entryAddress, int logPageSize, long va) {
        return entryAddress + (va & ((1L << logPageSize) - 1));
    }
}
