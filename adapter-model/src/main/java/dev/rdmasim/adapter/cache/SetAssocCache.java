package dev.rdmasim.adapter.cache;

import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.stats.Counter;
import java.util.Arrays;

/**
 * An on-chip, set-associative cache of adapter context entries (QP contexts, CQ contexts, memory
 * keys, translation entries) that live in host memory. It models presence, replacement (LRU per
 * set) and the bytes of each line; the owner fetches a missing line by DMA and calls {@link #fill}.
 *
 * <p>A line is INVALID, FILLING (a miss is outstanding: later requests for the same key wait on
 * it instead of issuing a second read, like an MSHR) or VALID. A miss needs a victim that is not
 * FILLING; when every way of the set is filling the request must retry after a fill.
 */
public final class SetAssocCache extends Module {
    /** {@link #lookup} result: the key is being fetched; wait for its fill. */
    public static final int PENDING = -1;
    /** {@link #lookup} result: every way of the set is being filled; retry after a fill. */
    public static final int SET_BUSY = -2;

    private static final byte INVALID = 0;
    private static final byte FILLING = 1;
    private static final byte VALID = 2;

    private final int sets;
    private final int ways;
    private final int lineBytes;
    private final long[] keys;
    private final byte[] state;
    private final long[] lastUse;
    private final byte[][] data;
    private long useClock;
    /**
     * The slot of the last valid line found: packet after packet names the same key (a QP's memory key, the
     * translation line of the pages it moves through), so it is checked before the set is searched. A key has at most
     * one line, so finding it there is what the search would find.
     */
    private int lastHit;

    private long lastEvicted = -1;
    private byte[] evictedLine;
    private final Counter hits;
    private final Counter misses;
    private final Counter pendingHits;
    private final Counter evictions;
    private final Counter setBusy;

    /** Replacement policies: least recently used, first in first out, or random (seeded per cache). */
    public enum Policy {
        LRU, FIFO, RANDOM;

        /** {@code lru}, {@code fifo} or {@code random}, as profiles spell them. */
        public static Policy of(String name) {
            return valueOf(name.toUpperCase(java.util.Locale.ROOT));
        }
    }

    private final Policy policy;

    public SetAssocCache(Module parent, String name, int entries, int ways, int lineBytes) {
        this(parent, name, entries, ways, lineBytes, Policy.LRU);
    }

    public SetAssocCache(Module parent, String name, int entries, int ways, int lineBytes, Policy policy) {
        super(parent, name);
        this.policy = policy;
        if (entries < 1 || ways < 1 || entries % ways != 0) {
            throw new IllegalArgumentException(fullName() + ": " + entries + " entries cannot be split into sets of "
                    + ways + " ways (ways must divide entries)");
        }
        if (lineBytes < 1) {
            throw new IllegalArgumentException(fullName() + ": line size " + lineBytes + " B must be positive");
        }
        this.ways = ways;
        this.sets = entries / ways;
        this.lineBytes = lineBytes;
        this.keys = new long[entries];
        this.state = new byte[entries];
        this.lastUse = new long[entries];
        this.data = new byte[entries][lineBytes];
        hits = stats().counter("hits", "lookups", "lookups that found a valid line");
        misses = stats().counter("misses", "lookups", "lookups that allocated a line and need a fill from host memory");
        pendingHits = stats().counter("pendingHits", "lookups", "lookups that found their line already being filled");
        evictions = stats().counter("evictions", "lines", "valid lines replaced by a miss");
        setBusy = stats().counter("setBusy", "lookups", "lookups refused because every way of the set was filling");
        stats().formula("hitRate", "ratio", "hits / (hits + misses + pendingHits)", () -> {
            long all = hits.value() + misses.value() + pendingHits.value();
            return all == 0 ? 0 : hits.value() / (double) all;
        });
    }

    public int entries() {
        return keys.length;
    }

    public int ways() {
        return ways;
    }

    public int lineBytes() {
        return lineBytes;
    }

    private int setOf(long key) {
        // Mix the key so that strided keys (every 4th QP, page-aligned addresses) spread over sets.
        long h = key * 0x9E37_79B9_7F4A_7C15L;
        // Map the top 32 hash bits onto [0, sets) by multiplication: no division on the hot path.
        return (int) (((h >>> 32) * sets) >>> 32);
    }

    /**
     * Looks {@code key} up. Returns the slot (>= 0) of a valid line, or {@link #PENDING}, or
     * {@link #SET_BUSY}, or {@code -(slot + 3)} for a miss that allocated {@code slot} in FILLING
     * state: the caller must fetch the line and call {@link #fill(int)}. Use {@link #missSlot} to
     * decode.
     */
    public int lookup(long key) {
        int m = lastHit;
        if (state[m] == VALID && keys[m] == key) {
            if (policy == Policy.LRU) {
                lastUse[m] = ++useClock;
            }
            hits.inc();
            return m;
        }
        int base = setOf(key) * ways;
        int victim = -1;
        long oldest = Long.MAX_VALUE;
        for (int s = base; s < base + ways; s++) {
            byte st = state[s];
            if (st != INVALID && keys[s] == key) {
                if (st == VALID) {
                    if (policy == Policy.LRU) {
                        lastUse[s] = ++useClock;
                    }
                    hits.inc();
                    lastHit = s;
                    return s;
                }
                pendingHits.inc();
                return PENDING;
            }
            if (st == INVALID) {
                if (oldest != Long.MIN_VALUE) {
                    victim = s;
                    oldest = Long.MIN_VALUE;
                }
            } else if (st == VALID && lastUse[s] < oldest) {
                victim = s;
                oldest = lastUse[s];
            }
        }
        if (victim < 0) {
            setBusy.inc();
            return SET_BUSY;
        }
        if (policy == Policy.RANDOM && oldest != Long.MIN_VALUE) {
            // Any valid way of the set (none is free): pick one with the cache's own seeded stream.
            int pick = random().nextInt(ways);
            for (int k = 0; k < ways; k++) {
                int cand = base + (pick + k) % ways;
                if (state[cand] == VALID) {
                    victim = cand;
                    break;
                }
            }
        }
        lastEvicted = -1;
        if (state[victim] == VALID) {
            evictions.inc();
            lastEvicted = keys[victim];
            if (evictedLine != null) {
                System.arraycopy(data[victim], 0, evictedLine, 0, lineBytes);
            }
        }
        misses.inc();
        keys[victim] = key;
        state[victim] = FILLING;
        lastUse[victim] = ++useClock;
        return -(victim + 3);
    }

    /** The slot a miss result of {@link #lookup} allocated, or -1 if {@code result} was not a miss. */
    public static int missSlot(int result) {
        return result <= -3 ? -result - 3 : -1;
    }

    /** The line's bytes; the owner writes the fetched entry here before {@link #fill}. */
    public byte[] line(int slot) {
        return data[slot];
    }

    public long keyAt(int slot) {
        return keys[slot];
    }

    /**
     * The key whose valid line the last missing {@link #lookup} replaced, or -1 if it took a free
     * line; with {@link #keepEvictedLines()}, {@link #evictedLine()} holds that line's bytes (for a
     * write-back) until the next lookup.
     */
    public long lastEvicted() {
        return lastEvicted;
    }

    /** Makes misses copy the bytes of the line they replace, for owners that write dirty lines back. */
    public void keepEvictedLines() {
        evictedLine = new byte[lineBytes];
    }

    public byte[] evictedLine() {
        return evictedLine;
    }

    /** The slot of a key known to be valid, without counting a lookup; fails loudly otherwise. */
    public int lookupQuiet(long key) {
        int m = lastHit;
        if (state[m] == VALID && keys[m] == key) {
            return m;
        }
        int base = setOf(key) * ways;
        for (int s = base; s < base + ways; s++) {
            if (state[s] == VALID && keys[s] == key) {
                lastHit = s;
                return s;
            }
        }
        throw new InvariantViolation(fullName() + ": key " + key + " is not resident");
    }

    /** Gives up a line allocated by a miss whose fill could not be started. */
    public void abandon(int slot) {
        if (state[slot] != FILLING) {
            throw new InvariantViolation(fullName() + ": abandon of slot " + slot + " which is not filling");
        }
        state[slot] = INVALID;
    }

    /** Marks a filling line valid. */
    public void fill(int slot) {
        if (state[slot] != FILLING) {
            throw new InvariantViolation(fullName() + ": fill of slot " + slot + " which is not being filled");
        }
        state[slot] = VALID;
    }

    /** Drops {@code key} if present (the driver destroyed or modified the object). */
    public void invalidate(long key) {
        int base = setOf(key) * ways;
        for (int s = base; s < base + ways; s++) {
            if (state[s] == VALID && keys[s] == key) {
                state[s] = INVALID;
            }
        }
    }

    public boolean contains(long key) {
        int base = setOf(key) * ways;
        for (int s = base; s < base + ways; s++) {
            if (state[s] == VALID && keys[s] == key) {
                return true;
            }
        }
        return false;
    }

    public long hits() {
        return hits.value();
    }

    public long misses() {
        return misses.value();
    }

    @Override
    protected void onReset() {
        Arrays.fill(state, INVALID);
        useClock = 0;
    }
}
