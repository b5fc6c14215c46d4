package dev.rdmasim.adapter.host;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Objects;
import org.eclipse.collections.impl.map.mutable.primitive.LongObjectHashMap;

/**
 * Sparse physical memory of one host: a 64-bit byte address space stored as 4 KiB pages that exist only once
 * touched. Bytes never written read as 0. Addresses are unsigned; an access may not wrap past 2^64 - 1.
 *
 * <p>Large fills ({@link #fill}, {@link #fillPattern}, {@link #fillLongsBE}) are kept as ranges and made page by page
 * when a page is first touched (read or written), so a region of a terabyte filled with a pattern costs the pages a
 * run uses, not a terabyte. A page is made by applying, in order, every fill that covers it; a page that already
 * exists when a fill comes is filled at once. The bytes are the same as an eager fill's.
 *
 * <p>Reading or writing pages that already exist allocates nothing, so DMA on the hot path is free of garbage.
 * Not thread-safe: one memory belongs to one simulation.
 */
public final class HostMemory {
    /** Page size in bytes. */
    public static final int PAGE_SIZE = 4096;
    private static final int PAGE_BITS = 12;
    private static final int PAGE_MASK = PAGE_SIZE - 1;
    private static final long DEFAULT_HEAP_BASE = 0x1_0000_0000L;
    /**
     * What a page never written reads as. Copying from it is several times faster than {@code Arrays.fill} for the
     * few hundred bytes of a read completion (JDK 17 on x86), and most DMA sources in perf runs are never written.
     */
    private static final byte[] ZEROS = new byte[PAGE_SIZE];

    private static final VarHandle S_LE = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle S_BE = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle I_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle I_BE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle L_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle L_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private final String name;
    private final LongObjectHashMap<byte[]> pages = new LongObjectHashMap<>();
    private final byte[] scratch = new byte[8];
    // A small direct-mapped page cache in front of the map: a request touches several regions in turn (send ring,
    // payload, completion ring, doorbell records), and each stays on the same few pages for a long time.
    private static final int CACHE_SLOTS = 64;
    private final long[] cachedPageNo = new long[CACHE_SLOTS];
    private final byte[][] cachedPage = new byte[CACHE_SLOTS][];
    /** Cache entry for a page that does not exist (reads as zeros); never handed out. */
    private static final byte[] ABSENT = new byte[0];
    private long heapNext;
    private final long heapEnd;

    /** Fills up to this many bytes are made at once; larger ones on first touch of each page. */
    private static final long EAGER_FILL = 64 * 1024;
    private static final byte FILL_BYTE = 0;
    private static final byte FILL_PATTERN = 1;
    private static final byte FILL_LONGS_BE = 2;
    /** Lazy fills in the order made: [start, end), kind, and its value (byte, seed, or first value and step). */
    private long[] lazyStart = new long[4];
    private long[] lazyEnd = new long[4];
    private byte[] lazyKind = new byte[4];
    private long[] lazyValue = new long[4];
    private long[] lazyStep = new long[4];
    private int lazyCount;
    /** Run before every access while set: device writes applied without an event come due first (HostBridge). */
    private Runnable settle;
    /** SplittableRandom's increment: long j of a seed's stream is mix64(seed + (j + 1) * GAMMA). */
    private static final long GOLDEN_GAMMA = 0x9e3779b97f4a7c15L;

    /** A memory whose allocator hands out addresses from 4 GiB up to 2^63. */
    public HostMemory(String name) {
        this(name, DEFAULT_HEAP_BASE, Long.MAX_VALUE);
    }

    /**
     * @param heapBase first address {@link #allocate} may return
     * @param heapEnd  exclusive upper bound of allocations (signed comparison; at most 2^63 - 1)
     */
    public HostMemory(String name, long heapBase, long heapEnd) {
        this.name = Objects.requireNonNull(name, "name");
        if (heapBase < 0 || heapEnd < heapBase) {
            throw new IllegalArgumentException("host memory '" + name + "': heap [" + heapBase + ", " + heapEnd
                    + ") must satisfy 0 <= heapBase <= heapEnd");
        }
        this.heapNext = heapBase;
        this.heapEnd = heapEnd;
    }

    public String name() {
        return name;
    }

    /** Number of 4 KiB pages that exist: written, filled or read inside a fill at least once. */
    public int pagesInUse() {
        settle();
        return pages.size();
    }

    // ---------------------------------------------------------------- allocation

    /**
     * Reserves {@code size} bytes aligned to {@code align} (a power of two) and returns the start address. Memory is
     * never freed; the region reads as zero until written.
     */
    public long allocate(long size, long align) {
        if (size <= 0) {
            throw new IllegalArgumentException("host memory '" + name + "': allocation size must be positive, got " + size);
        }
        if (align <= 0 || Long.bitCount(align) != 1) {
            throw new IllegalArgumentException("host memory '" + name + "': alignment must be a power of two, got " + align);
        }
        long start = (heapNext + align - 1) & -align;
        if (start < heapNext || start > heapEnd - size) {
            throw new IllegalStateException("host memory '" + name + "': out of heap allocating " + size
                    + " bytes aligned to " + align + " (next free " + hex(heapNext) + ", end " + hex(heapEnd) + ")");
        }
        heapNext = start + size;
        return start;
    }

    /** The next address {@link #allocate} would consider. */
    public long heapNext() {
        return heapNext;
    }

    // ---------------------------------------------------------------- byte ranges

    /** Copies {@code len} bytes starting at host address {@code addr} into {@code dst[off..]}. */
    public void read(long addr, byte[] dst, int off, int len) {
        checkRange(addr, len);
        Objects.checkFromIndexSize(off, len, dst.length);
        int inPage = (int) (addr & PAGE_MASK);
        if (inPage + len <= PAGE_SIZE) {
            // One page (every CQE, WQE and small payload): one lookup, one copy.
            byte[] page = pageOrNull(addr >>> PAGE_BITS);
            System.arraycopy(page == null ? ZEROS : page, inPage, dst, off, len);
            return;
        }
        while (len > 0) {
            inPage = (int) (addr & PAGE_MASK);
            int n = Math.min(len, PAGE_SIZE - inPage);
            byte[] page = pageOrNull(addr >>> PAGE_BITS);
            System.arraycopy(page == null ? ZEROS : page, inPage, dst, off, n);
            addr += n;
            off += n;
            len -= n;
        }
    }

    /** Copies {@code src[off..off+len)} to host address {@code addr}. */
    public void write(long addr, byte[] src, int off, int len) {
        checkRange(addr, len);
        Objects.checkFromIndexSize(off, len, src.length);
        int inPage = (int) (addr & PAGE_MASK);
        if (inPage + len <= PAGE_SIZE) {
            if (len > 0) {
                System.arraycopy(src, off, page(addr >>> PAGE_BITS), inPage, len);
            }
            return;
        }
        while (len > 0) {
            inPage = (int) (addr & PAGE_MASK);
            int n = Math.min(len, PAGE_SIZE - inPage);
            System.arraycopy(src, off, page(addr >>> PAGE_BITS), inPage, n);
            addr += n;
            off += n;
            len -= n;
        }
    }

    /** Sets {@code len} bytes from {@code addr} to {@code value} (pages not yet touched: on first touch). */
    public void fill(long addr, long len, byte value) {
        if (len < 0) {
            throw new IllegalArgumentException("host memory '" + name + "': negative fill length " + len);
        }
        checkRange(addr, len);
        if (len > EAGER_FILL) {
            // Zeros need recording only over an earlier lazy fill; absent pages read as zero anyway.
            fillExisting(addr, len, FILL_BYTE, value & 0xff, 0, value != 0 || lazyCount > 0);
            return;
        }
        while (len > 0) {
            int inPage = (int) (addr & PAGE_MASK);
            int n = (int) Math.min(len, PAGE_SIZE - inPage);
            long pageNo = addr >>> PAGE_BITS;
            if (value != 0 || pageOrNull(pageNo) != null) {
                byte[] page = page(pageNo);
                java.util.Arrays.fill(page, inPage, inPage + n, value);
            }
            addr += n;
            len -= n;
        }
    }

    /**
     * Fills {@code len} bytes from {@code addr} with the bytes of {@code new SplittableRandom(seed).nextBytes}: byte k
     * is byte {@code k % 8} (least significant first) of the stream's long {@code k / 8}. Made on first touch of each
     * page, so a large region costs only the pages a run uses.
     */
    public void fillPattern(long addr, long len, long seed) {
        if (len < 0) {
            throw new IllegalArgumentException("host memory '" + name + "': negative fill length " + len);
        }
        checkRange(addr, len);
        if (len > 0) {
            fillExisting(addr, len, FILL_PATTERN, seed, 0, true);
        }
    }

    /**
     * Writes {@code count} big-endian 8-byte values {@code first, first + step, ...} from {@code addr} (a translation
     * table), each page on its first touch.
     */
    public void fillLongsBE(long addr, long count, long first, long step) {
        if (count < 0 || count > Long.MAX_VALUE / 8) {
            throw new IllegalArgumentException("host memory '" + name + "': bad count of longs " + count);
        }
        checkRange(addr, count * 8);
        if (count > 0) {
            fillExisting(addr, count * 8, FILL_LONGS_BE, first, step, true);
        }
    }

    /**
     * Applies a fill to the pages that exist and, if {@code record}, keeps it for the others (made when first
     * touched); a large fill of zeros where nothing is lazy only clears the pages that exist.
     */
    private void fillExisting(long addr, long len, byte kind, long value, long step, boolean record) {
        if (lazyCount == lazyStart.length) {
            int n = lazyCount * 2;
            lazyStart = java.util.Arrays.copyOf(lazyStart, n);
            lazyEnd = java.util.Arrays.copyOf(lazyEnd, n);
            lazyKind = java.util.Arrays.copyOf(lazyKind, n);
            lazyValue = java.util.Arrays.copyOf(lazyValue, n);
            lazyStep = java.util.Arrays.copyOf(lazyStep, n);
        }
        int f = lazyCount;
        lazyStart[f] = addr;
        lazyEnd[f] = addr + len; // unsigned; checkRange made sure the range does not wrap
        lazyKind[f] = kind;
        lazyValue[f] = value;
        lazyStep[f] = step;
        long first = addr >>> PAGE_BITS;
        long last = (addr + len - 1) >>> PAGE_BITS;
        if (len <= EAGER_FILL) {
            // Small: made now, not recorded.
            for (long p = first; Long.compareUnsigned(p, last) <= 0; p++) {
                byte[] page = pages.get(p);
                if (page == null && (kind != FILL_BYTE || value != 0 || lazilyFilled(p))) {
                    page = page(p);
                }
                if (page != null) {
                    apply(f, p, page);
                }
            }
            return;
        }
        // Large: the pages that exist are filled now (walking whichever is fewer, them or the range's pages).
        if (Long.compareUnsigned(last - first, pages.size()) >= 0) {
            pages.forEachKeyValue((p, page) -> {
                if (Long.compareUnsigned(p, first) >= 0 && Long.compareUnsigned(p, last) <= 0) {
                    apply(f, p, page);
                }
            });
        } else {
            for (long p = first; Long.compareUnsigned(p, last) <= 0; p++) {
                byte[] page = pages.get(p);
                if (page != null) {
                    apply(f, p, page);
                }
            }
        }
        if (record) {
            lazyCount++;
        }
    }

    /** Writes the bytes of lazy fill {@code f} that fall on page {@code pageNo} into {@code page}. */
    private void apply(int f, long pageNo, byte[] page) {
        long pageStart = pageNo << PAGE_BITS;
        long pageLast = pageStart + PAGE_MASK;
        long start = lazyStart[f];
        long last = lazyEnd[f] - 1; // inclusive: a fill may end at 2^64
        if (Long.compareUnsigned(start, pageLast) > 0 || Long.compareUnsigned(last, pageStart) < 0) {
            return;
        }
        long from = Long.compareUnsigned(start, pageStart) > 0 ? start : pageStart;
        long toLast = Long.compareUnsigned(last, pageLast) < 0 ? last : pageLast;
        int a = (int) (from - pageStart);
        int b = (int) (toLast - pageStart) + 1;
        switch (lazyKind[f]) {
            case FILL_BYTE -> java.util.Arrays.fill(page, a, b, (byte) lazyValue[f]);
            case FILL_PATTERN -> {
                long k = from - start;
                long word = 0;
                for (int i = a; i < b; i++, k++) {
                    if (i == a || (k & 7) == 0) {
                        word = mix64(lazyValue[f] + ((k >>> 3) + 1) * GOLDEN_GAMMA);
                    }
                    page[i] = (byte) (word >>> ((k & 7) << 3));
                }
            }
            default -> {
                long k = from - start;
                long word = 0;
                for (int i = a; i < b; i++, k++) {
                    if (i == a || (k & 7) == 0) {
                        word = lazyValue[f] + (k >>> 3) * lazyStep[f];
                    }
                    page[i] = (byte) (word >>> ((7 - (k & 7)) << 3));
                }
            }
        }
    }

    /** SplittableRandom's output function (Stafford variant 13), as the JDK defines it. */
    private static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    /** True if a lazy fill covers any byte of page {@code pageNo}. */
    private boolean lazilyFilled(long pageNo) {
        long pageStart = pageNo << PAGE_BITS;
        long pageLast = pageStart + PAGE_MASK;
        for (int f = 0; f < lazyCount; f++) {
            long last = lazyEnd[f] - 1;
            if (Long.compareUnsigned(lazyStart[f], pageLast) <= 0 && Long.compareUnsigned(last, pageStart) >= 0) {
                return true;
            }
        }
        return false;
    }

    /** True if the {@code len} bytes at {@code addr} equal {@code expected[off..off+len)}. */
    public boolean equalsRange(long addr, byte[] expected, int off, int len) {
        checkRange(addr, len);
        Objects.checkFromIndexSize(off, len, expected.length);
        while (len > 0) {
            int inPage = (int) (addr & PAGE_MASK);
            int n = Math.min(len, PAGE_SIZE - inPage);
            byte[] page = pageOrNull(addr >>> PAGE_BITS);
            for (int i = 0; i < n; i++) {
                byte actual = page == null ? 0 : page[inPage + i];
                if (actual != expected[off + i]) {
                    return false;
                }
            }
            addr += n;
            off += n;
            len -= n;
        }
        return true;
    }

    /** FNV-1a 64-bit hash of {@code len} bytes from {@code addr}; unwritten bytes count as 0. */
    public long digest(long addr, long len) {
        if (len < 0) {
            throw new IllegalArgumentException("host memory '" + name + "': negative digest length " + len);
        }
        checkRange(addr, len);
        long h = 0xcbf29ce484222325L;
        while (len > 0) {
            int inPage = (int) (addr & PAGE_MASK);
            int n = (int) Math.min(len, PAGE_SIZE - inPage);
            byte[] page = pageOrNull(addr >>> PAGE_BITS);
            for (int i = 0; i < n; i++) {
                h ^= page == null ? 0 : page[inPage + i] & 0xff;
                h *= 0x100000001b3L;
            }
            addr += n;
            len -= n;
        }
        return h;
    }

    // ---------------------------------------------------------------- scalars

    public byte getByte(long addr) {
        checkRange(addr, 1);
        byte[] page = pageOrNull(addr >>> PAGE_BITS);
        return page == null ? 0 : page[(int) (addr & PAGE_MASK)];
    }

    public void putByte(long addr, byte value) {
        checkRange(addr, 1);
        page(addr >>> PAGE_BITS)[(int) (addr & PAGE_MASK)] = value;
    }

    public short getShortLE(long addr) {
        return (short) get(addr, 2, S_LE);
    }

    public short getShortBE(long addr) {
        return (short) get(addr, 2, S_BE);
    }

    public int getIntLE(long addr) {
        return (int) get(addr, 4, I_LE);
    }

    public int getIntBE(long addr) {
        return (int) get(addr, 4, I_BE);
    }

    public long getLongLE(long addr) {
        return get(addr, 8, L_LE);
    }

    public long getLongBE(long addr) {
        return get(addr, 8, L_BE);
    }

    public void putShortLE(long addr, short v) {
        put(addr, 2, S_LE, v);
    }

    public void putShortBE(long addr, short v) {
        put(addr, 2, S_BE, v);
    }

    public void putIntLE(long addr, int v) {
        put(addr, 4, I_LE, v);
    }

    public void putIntBE(long addr, int v) {
        put(addr, 4, I_BE, v);
    }

    public void putLongLE(long addr, long v) {
        put(addr, 8, L_LE, v);
    }

    public void putLongBE(long addr, long v) {
        put(addr, 8, L_BE, v);
    }

    private long get(long addr, int size, VarHandle view) {
        checkRange(addr, size);
        int inPage = (int) (addr & PAGE_MASK);
        byte[] src;
        int at;
        if (inPage <= PAGE_SIZE - size) {
            src = pageOrNull(addr >>> PAGE_BITS);
            if (src == null) {
                return 0;
            }
            at = inPage;
        } else {
            read(addr, scratch, 0, size);
            src = scratch;
            at = 0;
        }
        return switch (size) {
            case 2 -> (short) view.get(src, at);
            case 4 -> (int) view.get(src, at);
            default -> (long) view.get(src, at);
        };
    }

    private void put(long addr, int size, VarHandle view, long v) {
        checkRange(addr, size);
        int inPage = (int) (addr & PAGE_MASK);
        boolean inOnePage = inPage <= PAGE_SIZE - size;
        byte[] dst = inOnePage ? page(addr >>> PAGE_BITS) : scratch;
        int at = inOnePage ? inPage : 0;
        switch (size) {
            case 2 -> view.set(dst, at, (short) v);
            case 4 -> view.set(dst, at, (int) v);
            default -> view.set(dst, at, v);
        }
        if (!inOnePage) {
            write(addr, scratch, 0, size);
        }
    }

    // ---------------------------------------------------------------- pages

    private byte[] pageOrNull(long pageNo) {
        int slot = (int) pageNo & (CACHE_SLOTS - 1);
        byte[] p = cachedPage[slot];
        if (p != null && cachedPageNo[slot] == pageNo) {
            return p == ABSENT ? null : p;
        }
        p = pages.get(pageNo);
        if (p == null && lazyCount > 0 && lazilyFilled(pageNo)) {
            p = makePage(pageNo);
        }
        // Pages never written are cached too (as ABSENT): a source buffer that was never filled is read per request.
        cachedPageNo[slot] = pageNo;
        cachedPage[slot] = p == null ? ABSENT : p;
        return p;
    }

    private byte[] page(long pageNo) {
        byte[] p = pageOrNull(pageNo);
        if (p == null) {
            p = makePage(pageNo);
            int slot = (int) pageNo & (CACHE_SLOTS - 1);
            cachedPageNo[slot] = pageNo;
            cachedPage[slot] = p;
        }
        return p;
    }

    /** A new page, with the lazy fills that cover it applied in the order they were made. */
    private byte[] makePage(long pageNo) {
        byte[] p = new byte[PAGE_SIZE];
        for (int f = 0; f < lazyCount; f++) {
            apply(f, pageNo, p);
        }
        pages.put(pageNo, p);
        return p;
    }

    /**
     * Has {@code r} run before every access from now on (null: none): the root complex applies the device writes
     * nobody watches when they are next looked at rather than in events of their own, and brings them up to date
     * here, so every access sees exactly the writes due by then.
     */
    public void settleBeforeAccess(Runnable r) {
        settle = r;
    }

    private void settle() {
        Runnable r = settle;
        if (r != null) {
            r.run();
        }
    }

    private void checkRange(long addr, long len) {
        settle();
        // Unsigned: the last byte addr + len - 1 must not wrap past 2^64 - 1.
        if (len > 0 && Long.compareUnsigned(addr + len - 1, addr) < 0) {
            throw new IllegalArgumentException("host memory '" + name + "': access of " + len + " bytes at "
                    + hex(addr) + " wraps past the end of the 64-bit address space");
        }
        if (len < 0) {
            throw new IllegalArgumentException("host memory '" + name + "': negative length " + len + " at " + hex(addr));
        }
    }

    private static String hex(long v) {
        return "0x" + Long.toHexString(v);
    }

    @Override
    public String toString() {
        return "HostMemory[" + name + ", " + pages.size() + " pages]";
    }
}
