package dev.rdmasim.adapter.nic;

import static dev.rdmasim.adapter.config.Parameters.*;

import dev.rdmasim.adapter.cache.SetAssocCache;
import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.format.BigEndian;
import dev.rdmasim.adapter.format.CqeSyndrome;
import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.adapter.pcie.DmaCallback;
import dev.rdmasim.adapter.pcie.DmaPort;
import dev.rdmasim.adapter.pcie.DmaRequest;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.stats.Counter;
import java.util.ArrayList;
import java.util.List;

/**
 * Memory keys and address translation. A registered region is a 64-byte key context plus a table
 * of 8-byte physical page addresses (MTT), both in adapter-owned context memory on the host. Every
 * access the adapter makes on behalf of a request is checked here (key, protection domain, access
 * rights, bounds) and translated page by page; contexts and MTT lines come from two on-chip caches
 * and a miss is a DMA read that makes the caller wait.
 *
 * <p>Key context layout (big-endian): 0 key, 4 PD, 8 access flags, 12 log2 page size, 16 start
 * virtual address, 24 length, 32 MTT address, 40 valid byte.
 */
final class KeyUnit extends Module implements DmaCallback {
    static final int OK = 0;
    /** A context or translation line is being fetched; call again when the waiters are woken ({@link #addWaiter}). */
    static final int WAIT = -1;

    static final int CONTEXT_BYTES = 64;
    /** Context and translation fills in flight at once. */
    static final int MAX_FILLS = 16;
    static final int MTT_LINE = 64;

    private final HostMemory memory;
    private final long contextBase;
    private final int maxKeys;
    private final SetAssocCache keyCache;
    private final SetAssocCache mttCache;
    private final DmaPort port;
    private final WorkClock clock;
    private final DmaRequest[] fills;
    private final int[] fillSlot;
    private final boolean[] fillIsKey;
    /** The context was rewritten while this fill was in flight: the bytes it brings may predate the rewrite. */
    private final boolean[] fillStale;
    private final List<Runnable> waiters = new ArrayList<>();
    private final Counter checks;
    private final Counter violations;

    /**
     * What the block is built with: the key table's size (context memory's), and the key-context and translation
     * caches' entries, ways and replacement policy, from the profile once.
     */
    record Params(int maxKeys, int keyEntries, int keyWays, int mttEntries, int mttWays, SetAssocCache.Policy policy) {
        static Params of(Profile p, int maxKeys) {
            return new Params(maxKeys, p.getInt(NIC_MKEY_CACHE_ENTRIES), p.getInt(NIC_MKEY_CACHE_WAYS),
                    p.getInt(NIC_MTT_CACHE_ENTRIES), p.getInt(NIC_MTT_CACHE_WAYS),
                    SetAssocCache.Policy.of(p.getString(NIC_CACHE_REPLACEMENT)));
        }
    }

    KeyUnit(Module parent, Params params, HostMemory memory, long contextBase, DmaPort port, WorkClock clock) {
        super(parent, "keys");
        this.memory = memory;
        this.contextBase = contextBase;
        this.maxKeys = params.maxKeys();
        int keyEntries = params.keyEntries();
        int keyWays = params.keyWays();
        int mttEntries = params.mttEntries();
        int mttWays = params.mttWays();
        SetAssocCache.Policy policy = params.policy();
        this.port = port;
        this.clock = clock;
        int maxFills = MAX_FILLS;
        keyCache = new SetAssocCache(this, "keyCache", keyEntries, keyWays, CONTEXT_BYTES, policy);
        mttCache = new SetAssocCache(this, "mttCache", mttEntries, mttWays, MTT_LINE, policy);
        fills = new DmaRequest[maxFills];
        fillSlot = new int[maxFills];
        fillIsKey = new boolean[maxFills];
        fillStale = new boolean[maxFills];
        for (int i = 0; i < maxFills; i++) {
            fills[i] = new DmaRequest();
            fillSlot[i] = -1;
        }
        port.onReady(this::wakeWaiters);
        checks = stats().counter("checks", "checks", "key and bounds checks made");
        violations = stats().counter("violations", "checks", "checks that failed (bad key, PD, access or bounds)");
    }

    /** Engines that got {@link #WAIT} register here once; they are pumped after every fill. */
    void addWaiter(Runnable pump) {
        waiters.add(pump);
    }

    long contextAddress(int key) {
        return contextBase + (long) (key >>> 8) * CONTEXT_BYTES;
    }

    /** Writes a key context (the firmware's part of memory registration). */
    void writeContext(int key, int pd, int access, int logPage, long va, long length, long mttAddr, boolean valid) {
        if ((key >>> 8) >= maxKeys) {
            throw new IllegalArgumentException("key index " + (key >>> 8) + " beyond the " + maxKeys + " keys of context memory");
        }
        byte[] c = new byte[CONTEXT_BYTES];
        BigEndian.putI32(c, 0, key);
        BigEndian.putI32(c, 4, pd);
        BigEndian.putI32(c, 8, access);
        BigEndian.putI32(c, 12, logPage);
        BigEndian.putI64(c, 16, va);
        BigEndian.putI64(c, 24, length);
        BigEndian.putI64(c, 32, mttAddr);
        c[40] = (byte) (valid ? 1 : 0);
        memory.write(contextAddress(key), c, 0, CONTEXT_BYTES);
        keyCache.invalidate(key >>> 8);
        for (int i = 0; i < fills.length; i++) {
            if (fillSlot[i] >= 0 && fillIsKey[i] && keyCache.keyAt(fillSlot[i]) == key >>> 8) {
                fillStale[i] = true;
            }
        }
    }

    /**
     * Checks an access of {@code len} bytes at {@code va} through {@code key}: the key must name a
     * valid region of protection domain {@code pd} granting {@code access} and containing the whole
     * range. Returns {@link #OK}, {@link #WAIT}, or the CQE syndrome of the violation
     * ({@code remote} selects REMOTE_ACCESS instead of LOCAL_PROT).
     */
    int check(int key, int pd, long va, long len, int access, boolean remote) {
        return check(key, pd, va, len, access, remote, true);
    }

    /**
     * As {@link #check}, for a whole range a request names (a RETH's): the key, PD, rights and bounds, with only the
     * key context on chip. Its translations are looked up piece by piece as its packets are placed or read, so a
     * range larger than the translation cache can hold at once is checked all the same.
     */
    int checkRange(int key, int pd, long va, long len, int access, boolean remote) {
        return check(key, pd, va, len, access, remote, false);
    }

    private int check(int key, int pd, long va, long len, int access, boolean remote, boolean translations) {
        byte[] ctx = keyLine(key);
        if (ctx == null) {
            return WAIT;
        }
        checks.inc();
        int index = key >>> 8;
        boolean ok = index < maxKeys && ctx[40] == 1 && BigEndian.i32(ctx, 0) == key && BigEndian.i32(ctx, 4) == pd
                && (BigEndian.i32(ctx, 8) & access) == access;
        long start = BigEndian.i64(ctx, 16);
        long length = BigEndian.i64(ctx, 24);
        ok = ok && len >= 0 && va >= start && va - start <= length - len;
        if (!ok) {
            violations.inc();
            return remote ? CqeSyndrome.REMOTE_ACCESS : CqeSyndrome.LOCAL_PROT;
        }
        if (len == 0 || !translations) {
            return OK;
        }
        int logPage = BigEndian.i32(ctx, 12);
        long mtt = BigEndian.i64(ctx, 32);
        long firstPage = (va - (start & -(1L << logPage))) >>> logPage;
        long lastPage = (va + len - 1 - (start & -(1L << logPage))) >>> logPage;
        boolean all = true;
        for (long p = firstPage; p <= lastPage; p++) {
            long lineAddr = (mtt + p * 8) & -MTT_LINE;
            if (mttLine(lineAddr) == null) {
                all = false;
            }
        }
        return all ? OK : WAIT;
    }

    /** The physical address of {@code va} in {@code key}'s region; only after a successful check. */
    long translate(int key, long va) {
        byte[] ctx = keyCache.line(keyCache.lookupQuiet(key >>> 8));
        int logPage = BigEndian.i32(ctx, 12);
        long base = BigEndian.i64(ctx, 16) & -(1L << logPage);
        long mtt = BigEndian.i64(ctx, 32);
        long page = (va - base) >>> logPage;
        long entry = mtt + page * 8;
        byte[] line = mttCache.line(mttCache.lookupQuiet(entry & -MTT_LINE));
        long pa = BigEndian.i64(line, (int) (entry & (MTT_LINE - 1)));
        return pa + ((va - base) & ((1L << logPage) - 1));
    }

    /** Bytes from {@code va} to the end of its page, for splitting accesses at page boundaries. */
    long pageRemaining(int key, long va) {
        byte[] ctx = keyCache.line(keyCache.lookupQuiet(key >>> 8));
        long pageSize = 1L << BigEndian.i32(ctx, 12);
        return pageSize - (va & (pageSize - 1));
    }

    private byte[] keyLine(int key) {
        long k = key >>> 8;
        int r = keyCache.lookup(k);
        if (r >= 0) {
            return keyCache.line(r);
        }
        if (r <= -3) {
            startFill(SetAssocCache.missSlot(r), contextAddress(key), true);
        }
        return null;
    }

    private byte[] mttLine(long lineAddr) {
        int r = mttCache.lookup(lineAddr);
        if (r >= 0) {
            return mttCache.line(r);
        }
        if (r <= -3) {
            startFill(SetAssocCache.missSlot(r), lineAddr, false);
        }
        return null;
    }

    private void startFill(int slot, long addr, boolean key) {
        for (int i = 0; i < fills.length; i++) {
            if (fillSlot[i] < 0) {
                SetAssocCache c = key ? keyCache : mttCache;
                fillSlot[i] = slot;
                fillIsKey[i] = key;
                fills[i].read(addr, c.line(slot), 0, c.lineBytes(), this, i);
                // A fill asked for while the receive pipeline works ahead leaves at that instant.
                port.send(clock.ready(fills[i]));
                return;
            }
        }
        // No fill slot free: release the allocation so the lookup misses again later.
        (key ? keyCache : mttCache).abandon(slot);
    }

    @Override
    public void readDone(DmaRequest r) {
        int i = (int) r.cookie();
        if (fillStale[i]) {
            // The host may have read the old context: drop the line, so the next lookup fetches the new one.
            keyCache.abandon(fillSlot[i]);
            fillStale[i] = false;
        } else {
            (fillIsKey[i] ? keyCache : mttCache).fill(fillSlot[i]);
        }
        fillSlot[i] = -1;
        wakeWaiters();
    }

    private void wakeWaiters() {
        for (int i = 0; i < waiters.size(); i++) {
            waiters.get(i).run();
        }
    }

    SetAssocCache keyCache() {
        return keyCache;
    }

    SetAssocCache mttCache() {
        return mttCache;
    }
}
