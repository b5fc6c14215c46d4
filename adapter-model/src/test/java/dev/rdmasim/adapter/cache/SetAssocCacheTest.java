package dev.rdmasim.adapter.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.hw.Module;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class SetAssocCacheTest {
    static final class Top extends Module {
        Top(Simulator sim) {
            super(sim, "nic");
        }
    }

    private static SetAssocCache cache(int entries, int ways) {
        return new SetAssocCache(new Top(new Simulator(1)), "qpc", entries, ways, 64);
    }

    @Test
    void missThenFillThenHit() {
        SetAssocCache c = cache(8, 2);
        int r = c.lookup(42);
        int slot = SetAssocCache.missSlot(r);
        assertThat(slot).isBetween(0, 7);
        assertThat(c.lookup(42)).isEqualTo(SetAssocCache.PENDING);
        c.line(slot)[0] = 7;
        c.fill(slot);
        assertThat(c.lookup(42)).isEqualTo(slot);
        assertThat(c.line(c.lookup(42))[0]).isEqualTo((byte) 7);
        assertThat(c.hits()).isEqualTo(2);
        assertThat(c.misses()).isEqualTo(1);
    }

    @Test
    void setOfFillingWaysRefusesNewMisses() {
        SetAssocCache c = cache(1, 1);
        SetAssocCache.missSlot(c.lookup(1));
        assertThat(c.lookup(2)).isEqualTo(SetAssocCache.SET_BUSY);
        c.fill(0);
        assertThat(SetAssocCache.missSlot(c.lookup(2))).isZero();
        assertThat(c.contains(1)).isFalse();
    }

    @Test
    void rejectsWaysThatDoNotDivideEntries() {
        assertThatThrownBy(() -> cache(12, 5)).hasMessageContaining("ways must divide entries");
    }

    @Test
    void fillOfLineNotFillingIsAnInvariantViolation() {
        SetAssocCache c = cache(4, 4);
        assertThatThrownBy(() -> c.fill(0)).isInstanceOf(dev.rdmasim.kernel.InvariantViolation.class);
    }

    /** Fully associative cache against an LRU list: same hits and misses on a random key stream. */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 99})
    void fullyAssociativeMatchesLruReference(long seed) {
        int n = 16;
        SetAssocCache c = cache(n, n);
        List<Long> lru = new ArrayList<>();
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int i = 0; i < 5000; i++) {
            long key = rnd.nextInt(rnd.nextBoolean() ? 12 : 40);
            access(c, lru, n, key, i);
        }
    }

    /**
     * One lookup of {@code key} in {@code c} and in the reference list of the {@code n} most recently used keys: hit
     * in both or miss in both (a miss is filled); the slot of a hit.
     */
    private static int access(SetAssocCache c, List<Long> lru, int n, long key, int i) {
        boolean refHit = lru.remove(key);
        lru.add(key);
        if (lru.size() > n) {
            lru.remove(0);
        }
        int r = c.lookup(key);
        assertThat(r >= 0).as("access %d key %d", i, key).isEqualTo(refHit);
        if (r < 0) {
            c.fill(SetAssocCache.missSlot(r));
        }
        return r;
    }

    /**
     * The same with invalidations between lookups, and a key looked up again and again (the cache checks the line of
     * its last hit before searching the set): a key invalidated or evicted since misses even there, and every hit's
     * slot is the one {@code lookupQuiet} names.
     */
    @ParameterizedTest
    @ValueSource(longs = {4, 5, 6, 7})
    void repeatedKeysWithInvalidationsMatchTheLruReference(long seed) {
        int n = 8;
        SetAssocCache c = cache(n, n);
        List<Long> lru = new ArrayList<>();
        SplittableRandom rnd = new SplittableRandom(seed);
        long key = 0;
        for (int i = 0; i < 20_000; i++) {
            if (rnd.nextInt(4) != 0) {
                key = rnd.nextInt(rnd.nextBoolean() ? 6 : 20); // else the same key again
            }
            if (rnd.nextInt(10) == 0) {
                c.invalidate(key);
                lru.remove(key);
                assertThat(c.contains(key)).isFalse();
                continue;
            }
            int r = access(c, lru, n, key, i);
            if (r >= 0) {
                assertThat(c.keyAt(r)).isEqualTo(key);
                assertThat(c.lookupQuiet(key)).isEqualTo(r);
            }
        }
    }

    /** More distinct hot keys than ways in one set thrash; a working set within capacity does not. */
    @Test
    void workingSetLargerThanCacheMissesEveryTime() {
        SetAssocCache c = cache(64, 4);
        for (int round = 0; round < 4; round++) {
            for (long k = 0; k < 256; k++) {
                int r = c.lookup(k);
                if (r < 0) {
                    c.fill(SetAssocCache.missSlot(r));
                }
            }
        }
        assertThat(c.hits()).isLessThan(c.misses() / 10);
        SetAssocCache small = cache(64, 4);
        for (int round = 0; round < 4; round++) {
            for (long k = 0; k < 16; k++) {
                int r = small.lookup(k);
                if (r < 0) {
                    small.fill(SetAssocCache.missSlot(r));
                }
            }
        }
        assertThat(small.misses()).isLessThanOrEqualTo(20);
    }

    @Test
    void fifoEvictsTheOldestFillEvenIfItWasJustUsed() {
        SetAssocCache c = new SetAssocCache(new Top(new Simulator(1)), "c", 2, 2, 8, SetAssocCache.Policy.FIFO);
        c.fill(SetAssocCache.missSlot(c.lookup(1)));
        c.fill(SetAssocCache.missSlot(c.lookup(2)));
        assertThat(c.lookup(1)).isNotNegative(); // a hit does not refresh a FIFO line
        c.fill(SetAssocCache.missSlot(c.lookup(3)));
        assertThat(c.contains(1)).isFalse();
        assertThat(c.contains(2)).isTrue();
        SetAssocCache lru = cache(2, 2);
        lru.fill(SetAssocCache.missSlot(lru.lookup(1)));
        lru.fill(SetAssocCache.missSlot(lru.lookup(2)));
        assertThat(lru.lookup(1)).isNotNegative();
        lru.fill(SetAssocCache.missSlot(lru.lookup(3)));
        assertThat(lru.contains(1)).isTrue();
        assertThat(lru.contains(2)).isFalse();
    }

    @Test
    void randomReplacementIsSeededAndKeepsTheCacheFull() {
        long[] evicted = new long[2];
        for (int run = 0; run < 2; run++) {
            SetAssocCache c = new SetAssocCache(new Top(new Simulator(7)), "c", 4, 4, 8, SetAssocCache.Policy.RANDOM);
            for (long k = 0; k < 4; k++) {
                c.fill(SetAssocCache.missSlot(c.lookup(k)));
            }
            c.fill(SetAssocCache.missSlot(c.lookup(99)));
            assertThat(c.lastEvicted()).isBetween(0L, 3L);
            evicted[run] = c.lastEvicted();
        }
        assertThat(evicted[0]).as("same seed, same victim").isEqualTo(evicted[1]);
    }
}
