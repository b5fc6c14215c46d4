package dev.rdmasim.adapter.nic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.cache.SetAssocCache;
import dev.rdmasim.adapter.format.AccessFlags;
import dev.rdmasim.adapter.format.BigEndian;
import dev.rdmasim.adapter.format.CqeSyndrome;
import dev.rdmasim.adapter.format.TranslationEntry;
import dev.rdmasim.adapter.pcie.DmaPort;
import dev.rdmasim.adapter.pcie.PcieConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The key unit alone, over its real DMA port to key contexts and translation tables in host memory, with the test as
 * the firmware (registers and deregisters regions through {@link KeyUnit#writeContext}) and as the engines that ask it.
 */
class KeyUnitTest {
    private static final int PD = 0x2A;
    private static final int[] LOG_PAGES = {12, 13, 16, 21};
    private static final int LINE = KeyUnit.MTT_LINE;

    /**
     * A key context in the layout the unit reads from context memory (its own, not the mailbox layout of
     * {@code format.MkeyContext}): 0 key, 4 PD, 8 access, 12 log2 page size, 16 start, 24 length, 32 table, 40 valid.
     */
    static byte[] context(int key, int pd, int access, int logPage, long va, long length, long mtt, boolean valid) {
        byte[] c = new byte[KeyUnit.CONTEXT_BYTES];
        BigEndian.putI32(c, 0, key);
        BigEndian.putI32(c, 4, pd);
        BigEndian.putI32(c, 8, access);
        BigEndian.putI32(c, 12, logPage);
        BigEndian.putI64(c, 16, va);
        BigEndian.putI64(c, 24, length);
        BigEndian.putI64(c, 32, mtt);
        c[40] = (byte) (valid ? 1 : 0);
        return c;
    }

    /** One registration as the firmware made it: the region and the physical page behind each of its pages. */
    private static final class Region {
        final int key;
        final int pd;
        final int access;
        final int logPage;
        final long va;
        final long length;
        final long mtt;
        final long[] pages;
        boolean valid = true;

        Region(int key, int pd, int access, int logPage, long va, long length, long mtt, long[] pages) {
            this.key = key;
            this.pd = pd;
            this.access = access;
            this.logPage = logPage;
            this.va = va;
            this.length = length;
            this.mtt = mtt;
            this.pages = pages;
        }

        int index() {
            return key >>> 8;
        }

        long pageSize() {
            return 1L << logPage;
        }

        /** Index of the page holding {@code v}, counted from the page the region starts in. */
        long pageOf(long v) {
            return Math.floorDiv(v - Math.floorDiv(va, pageSize()) * pageSize(), pageSize());
        }

        /** The 64-byte translation lines holding the entries of every page that [v, v + len) touches. */
        List<Long> lines(long v, long len) {
            List<Long> out = new ArrayList<>();
            for (long p = pageOf(v); p <= pageOf(v + len - 1); p++) {
                long line = Math.floorDiv(mtt + p * TranslationEntry.SIZE, LINE) * LINE;
                if (out.isEmpty() || out.get(out.size() - 1) != line) {
                    out.add(line);
                }
            }
            return out;
        }
    }

    /** One lookup a client asks: {@code check(key, pd, va, len, access, remote)}. */
    private record Lookup(int id, int client, int key, int pd, long va, long len, int access, boolean remote) {
    }

    /** An answer as a client took it: verdict and, when allowed, the physical pieces {pa, bytes} it translated. */
    private record Answer(Lookup lookup, int verdict, List<List<Long>> pieces, long at) {
    }

    /** The key unit with its port, host memory holding the contexts, and the test's record of registrations. */
    private static final class Rig {
        final SplittableRandom rnd;
        final BlockHarness h;
        final int maxKeys;
        final KeyUnit keys;
        final DmaPort port;
        final Region[] table;
        final List<Region> retired = new ArrayList<>();
        int registrations;

        Rig(long seed, SplittableRandom rnd, PcieConfig pcie, int maxKeys, int keyEntries, int keyWays, int mttEntries,
                int mttWays, SetAssocCache.Policy policy, int channelDepth) {
            this.rnd = rnd;
            this.maxKeys = maxKeys;
            h = new BlockHarness(seed, pcie);
            long contexts = h.mem.allocate((long) maxKeys * KeyUnit.CONTEXT_BYTES, 4096);
            // The memory right after the table holds contexts that look valid in every field: a key index beyond
            // the table reaches them, and only the index check can refuse it.
            long beyond = h.mem.allocate(8L * KeyUnit.CONTEXT_BYTES, 64);
            for (int j = 0; j < 8; j++) {
                byte[] c = context(beyondKey(j), PD, AccessFlags.ALL, 12, 0x10_0000L, 1L << 40, 0x1000, true);
                h.mem.write(beyond + (long) j * KeyUnit.CONTEXT_BYTES, c, 0, c.length);
            }
            assertThat(beyond).isEqualTo(contexts + (long) maxKeys * KeyUnit.CONTEXT_BYTES);
            // Fills in flight are at most MAX_FILLS: the backlog the adapter gives the key port.
            port = h.port("keyFill", channelDepth, KeyUnit.MAX_FILLS);
            keys = new KeyUnit(h.top, h.mem, contexts, maxKeys, keyEntries, keyWays, mttEntries, mttWays, port, policy,
                    h.work);
            table = new Region[maxKeys];
        }

        int beyondKey(int j) {
            return (maxKeys + j) << 8 | 0x5A;
        }

        /** Registers a region at {@code index} whose pages lie anywhere in host memory, with a fresh key variant. */
        Region register(int index, int logPage, long length, int access, int pd) {
            long pageSize = 1L << logPage;
            long va = (0x7f00_0000_0000L + rnd.nextLong(1L << 36)) & -8L;
            long base = va & -pageSize;
            int n = (int) ((va + length - 1 - base) >>> logPage) + 1;
            long[] pages = new long[n];
            for (int i = 0; i < n; i++) {
                if (rnd.nextInt(3) == 0) {
                    h.mem.allocate(pageSize * (1 + rnd.nextInt(3)), pageSize); // a gap: pages are not contiguous
                }
                pages[i] = h.mem.allocate(pageSize, pageSize);
            }
            // Tables start on 8-byte boundaries anywhere in a line, so a region's entries straddle lines.
            long mtt = h.mem.allocate(8L * n + LINE, LINE) + 8L * rnd.nextInt(8);
            byte[] e = new byte[8 * n];
            for (int i = 0; i < n; i++) {
                TranslationEntry.put(e, 0, i, pages[i]);
            }
            h.mem.write(mtt, e, 0, e.length);
            registrations++;
            int key = index << 8 | (registrations % 255 + 1);
            keys.writeContext(key, pd, access, logPage, va, length, mtt, true);
            Region r = new Region(key, pd, access, logPage, va, length, mtt, pages);
            table[index] = r;
            return r;
        }

        /** Deregisters as the firmware does: the context is rewritten invalid. */
        void deregister(Region r) {
            keys.writeContext(r.key, 0, 0, 12, 0, 0, 0, false);
            r.valid = false;
            table[r.index()] = null;
            retired.add(r);
        }

        /** The verdict of the registrations as they stand now. */
        int verdict(Lookup l) {
            int index = l.key() >>> 8;
            Region r = index < maxKeys ? table[index] : null;
            boolean allowed = r != null && r.valid && r.key == l.key() && r.pd == l.pd()
                    && (l.access() & ~r.access) == 0 && l.len() >= 0 && l.va() >= r.va
                    && l.len() <= r.length && l.va() + l.len() <= r.va + r.length;
            if (allowed) {
                return KeyUnit.OK;
            }
            return l.remote() ? CqeSyndrome.REMOTE_ACCESS : CqeSyndrome.LOCAL_PROT;
        }

        String describe(Lookup l) {
            Region r = (l.key() >>> 8) < maxKeys ? table[l.key() >>> 8] : null;
            return r == null ? "none" : "key " + r.key + " pd " + r.pd + " acc " + r.access + " va " + r.va + " len " + r.length + " valid " + r.valid;
        }

        /** The physical pieces of an allowed lookup: one per page touched, each up to its page's end. */
        List<List<Long>> pieces(Lookup l) {
            Region r = table[l.key() >>> 8];
            List<List<Long>> out = new ArrayList<>();
            long v = l.va();
            long end = l.va() + l.len();
            while (v < end) {
                long inPage = Math.floorMod(v, r.pageSize());
                long n = Math.min(end - v, r.pageSize() - inPage);
                out.add(List.of(r.pages[(int) r.pageOf(v)] + inPage, n));
                v += n;
            }
            return out;
        }

        /** Whether the key context is on chip, and for an access that is allowed every translation line too. */
        boolean answerable(Lookup l) {
            if (!keys.keyCache().contains(l.key() >>> 8)) {
                return false;
            }
            if (verdict(l) != KeyUnit.OK || l.len() == 0) {
                return true;
            }
            for (long line : table[l.key() >>> 8].lines(l.va(), l.len())) {
                if (!keys.mttCache().contains(line)) {
                    return false;
                }
            }
            return true;
        }

        /** Translation lookups an answer-or-wait on a lookup makes, once its key context is on chip. */
        long mttLookups(Lookup l) {
            if (verdict(l) != KeyUnit.OK || l.len() == 0) {
                return 0;
            }
            Region r = table[l.key() >>> 8];
            return r.pageOf(l.va() + l.len() - 1) - r.pageOf(l.va()) + 1;
        }

        /** How a client takes an allowed answer: translated page piece by page piece, as the engines do. */
        List<List<Long>> translate(Lookup l) {
            List<List<Long>> out = new ArrayList<>();
            long a = 0;
            while (a < l.len()) {
                long piece = Math.min(l.len() - a, keys.pageRemaining(l.key(), l.va() + a));
                out.add(List.of(keys.translate(l.key(), l.va() + a), piece));
                a += piece;
            }
            return out;
        }

        Region anyValid() {
            List<Region> valid = new ArrayList<>();
            for (Region r : table) {
                if (r != null) {
                    valid.add(r);
                }
            }
            return valid.isEmpty() ? null : valid.get(rnd.nextInt(valid.size()));
        }

        /**
         * A seeded lookup: mostly valid accesses (a random subset of the region's rights, a range inside it whose
         * entries need at most {@code lineCap} translation lines), the rest refused one way or another.
         */
        Lookup make(int id, int client, int lineCap) {
            Region r = anyValid();
            boolean remote = rnd.nextBoolean();
            if (r == null) {
                return new Lookup(id, client, rnd.nextInt(maxKeys) << 8 | 1, PD, 0x7f00_0000_0000L, 8, 0, remote);
            }
            int kind = rnd.nextInt(100);
            if (kind < 55 || kind >= 93) {
                long len = kind >= 93 ? 0 : length(r);
                while (len > 0 && r.lines(r.va, len).size() > lineCap) {
                    len /= 2;
                }
                long va = r.va + rnd.nextLong(r.length - len + 1);
                for (int tries = 0; len > 0 && r.lines(va, len).size() > lineCap; tries++) {
                    va = tries < 20 ? r.va + rnd.nextLong(r.length - len + 1) : r.va;
                }
                return new Lookup(id, client, r.key, r.pd, va, len, r.access & rnd.nextInt(AccessFlags.ALL + 1), remote);
            }
            long len = length(r);
            long va = r.va + rnd.nextLong(r.length - len + 1);
            if (kind < 62 && r.access != AccessFlags.ALL) {
                // One right the region lacks, alongside any it grants.
                int missing = AccessFlags.ALL & ~r.access;
                int bit;
                do {
                    bit = 1 << rnd.nextInt(5);
                } while ((missing & bit) == 0);
                return new Lookup(id, client, r.key, r.pd, va, len, (r.access & rnd.nextInt(32)) | bit, remote);
            }
            if (kind < 68) {
                return new Lookup(id, client, r.key, r.pd ^ (1 + rnd.nextInt(0xFF_FFFE)), va, len, 0, remote);
            }
            if (kind < 76) {
                return switch (rnd.nextInt(4)) {
                    case 0 -> new Lookup(id, client, r.key, r.pd, r.va - 1 - rnd.nextLong(1 << 14), len, 0, remote);
                    case 1 -> new Lookup(id, client, r.key, r.pd, r.va + r.length - len + 1 + rnd.nextLong(1 << 14), len, 0,
                            remote);
                    case 2 -> new Lookup(id, client, r.key, r.pd, r.va, r.length + 1 + rnd.nextLong(1 << 20), 0, remote);
                    default -> new Lookup(id, client, r.key, r.pd, r.va + r.length + 1, 0, 0, remote);
                };
            }
            if (kind < 82) {
                return new Lookup(id, client, r.key ^ (1 + rnd.nextInt(255)), r.pd, va, len, 0, remote);
            }
            if (kind < 89) {
                // A deregistered key, or an index never registered (its context memory is zero).
                if (!retired.isEmpty() && rnd.nextBoolean()) {
                    Region old = retired.get(rnd.nextInt(retired.size()));
                    return new Lookup(id, client, old.key, old.pd, old.va, Math.min(old.length, 64), 0, remote);
                }
                int free = rnd.nextInt(maxKeys);
                return new Lookup(id, client, free << 8 | 1, PD, 0x7f00_0000_0000L, 8, 0, remote);
            }
            return new Lookup(id, client, beyondKey(rnd.nextInt(8)), PD, 0x10_0000L + 64, 64, 0, remote);
        }

        /** A length inside the region: small, a page or so, or several pages. */
        long length(Region r) {
            long max = switch (rnd.nextInt(3)) {
                case 0 -> 64;
                case 1 -> r.pageSize() + 1;
                default -> r.length;
            };
            return 1 + rnd.nextLong(Math.min(max, r.length));
        }

        /** Registers a region at a random free index with a random page size, rights and length. */
        void registerRandom() {
            List<Integer> free = new ArrayList<>();
            for (int i = 1; i < maxKeys; i++) {
                if (table[i] == null) {
                    free.add(i);
                }
            }
            if (free.isEmpty()) {
                return;
            }
            int logPage = LOG_PAGES[rnd.nextInt(LOG_PAGES.length)];
            long length = 1 + rnd.nextLong((1L << logPage) * (1 + rnd.nextInt(40)));
            register(free.get(rnd.nextInt(free.size())), logPage, length, rnd.nextInt(AccessFlags.ALL + 1), PD);
        }

        /** No line of either cache is still being filled: every fill the unit started has come back. */
        void assertNothingFilling(Set<Integer> indices, Set<Long> lines) {
            for (int k : indices) {
                int r = keys.keyCache().lookup(k);
                assertThat(r).as("key %d's context line still filling at the end", k).isNotEqualTo(SetAssocCache.PENDING);
                if (SetAssocCache.missSlot(r) >= 0) {
                    keys.keyCache().abandon(SetAssocCache.missSlot(r));
                }
            }
            for (long line : lines) {
                int r = keys.mttCache().lookup(line);
                assertThat(r).as("translation line %x still filling at the end", line).isNotEqualTo(SetAssocCache.PENDING);
                if (SetAssocCache.missSlot(r) >= 0) {
                    keys.mttCache().abandon(SetAssocCache.missSlot(r));
                }
            }
        }
    }

    /**
     * A key deregistered while its context is being fetched: whenever the firmware rewrites the context during the
     * fill, the next check refuses the key (the unit must not keep the bytes the host read before the rewrite).
     */
    @Test
    void aKeyDeregisteredWhileItsContextIsFetchedIsRefused() {
        List<Long> staleAt = new ArrayList<>();
        for (long t = 0; t <= 3_000_000; t += 20_000) {
            SplittableRandom rnd = new SplittableRandom(1);
            Rig rig = new Rig(1, rnd, PcieConfig.defaults(), 8, 4, 4, 8, 8, SetAssocCache.Policy.LRU, 4);
            Region r = rig.register(3, 12, 8192, AccessFlags.ALL, PD);
            int[] woken = {0};
            rig.keys.addWaiter(() -> woken[0]++);
            assertThat(rig.keys.check(r.key, PD, r.va, 64, 0, true)).isEqualTo(KeyUnit.WAIT);
            rig.h.sim.runUntil(t);
            rig.deregister(r);
            rig.h.sim.run();
            int st = rig.keys.check(r.key, PD, r.va, 64, 0, true);
            if (st == KeyUnit.WAIT) {
                rig.h.sim.run();
                st = rig.keys.check(r.key, PD, r.va, 64, 0, true);
            }
            if (st != CqeSyndrome.REMOTE_ACCESS) {
                staleAt.add(t);
            }
        }
        assertThat(staleAt).as("deregistered at these instants (ps) after the fill started, still allowed").isEmpty();
    }
}
