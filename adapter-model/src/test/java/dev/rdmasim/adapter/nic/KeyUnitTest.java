package dev.rdmasim.adapter.nic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.adapter.cache.SetAssocCache;
import dev.rdmasim.adapter.format.AccessFlags;
import dev.rdmasim.adapter.format.BigEndian;
import dev.rdmasim.adapter.format.CqeSyndrome;
import dev.rdmasim.adapter.format.TranslationEntry;
import dev.rdmasim.adapter.pcie.DmaCallback;
import dev.rdmasim.adapter.pcie.DmaChannel;
import dev.rdmasim.adapter.pcie.DmaPort;
import dev.rdmasim.adapter.pcie.DmaRequest;
import dev.rdmasim.adapter.pcie.PcieConfig;
import dev.rdmasim.kernel.Event;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The key unit alone, over its real DMA port to key contexts and translation tables in host memory, with the test as
 * the firmware (registers and deregisters regions through {@link KeyUnit#writeContext}) and as the engines that ask it
 * (stand-in clients that register as waiters, keep their lookups in order and retry the head lookup only when woken,
 * as the transmitter and receiver do). Lookups are seeded: valid accesses over regions of several page sizes whose
 * pages are scattered in host memory, zero-length ones, and every way to be refused (access rights, protection
 * domain, bounds, a stale key variant, a deregistered or never registered key, a key beyond the table). The host side
 * stalls: random PCIe timing, a shallow fill channel that makes the port hold fills, and a competing reader that
 * takes read tags and link time.
 *
 * <p>Scoreboard, against a reference computed here from the test's own record of the registrations: every lookup is
 * answered exactly once, in each client's order, with the verdict of the registrations at the instant of the answer
 * and, when allowed, with the physical pieces its pages map to; the unit answers at once exactly when what it needs
 * is on chip (the key context, and for an allowed access every translation line) and otherwise waits; waiters are
 * woken in the order they registered; its counters agree with the lookups made; it ends idle with no fill
 * outstanding. A serial run compares every answer and the caches' counters with a reference set-associative cache
 * (LRU and FIFO). Further tests: a key deregistered while its context is in flight, the fill slots, the context
 * layout, and the two livelocks of checks that need several translation lines at once (pinned as they are today).
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
            keys = new KeyUnit(h.top, new KeyUnit.Params(maxKeys, keyEntries, keyWays, mttEntries, mttWays, policy), h.mem,
                    contexts, port, h.work);
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

        /**
         * Deregisters as the firmware does (the context rewritten invalid and empty), or half the time invalidates it
         * with every other field left as it was, so that the valid byte alone refuses it.
         */
        void deregister(Region r) {
            if (rnd.nextBoolean()) {
                keys.writeContext(r.key, 0, 0, 12, 0, 0, 0, false);
            } else {
                keys.writeContext(r.key, r.pd, r.access, r.logPage, r.va, r.length, r.mtt, false);
            }
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

        /** Registers a region at a random free index with a random page size, rights and length; null if none is free. */
        Region registerRandom() {
            List<Integer> free = new ArrayList<>();
            for (int i = 1; i < maxKeys; i++) {
                if (table[i] == null) {
                    free.add(i);
                }
            }
            if (free.isEmpty()) {
                return null;
            }
            int logPage = LOG_PAGES[rnd.nextInt(LOG_PAGES.length)];
            long length = 1 + rnd.nextLong((1L << logPage) * (1 + rnd.nextInt(40)));
            return register(free.get(rnd.nextInt(free.size())), logPage, length, rnd.nextInt(AccessFlags.ALL + 1), PD);
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

    /** Another DMA reader on the same link: it takes read tags and link time, so key fills wait behind it. */
    private static final class Noise implements DmaCallback {
        final SplittableRandom rnd;
        final DmaChannel channel;
        final long buffer;
        final Event tick;
        final ArrayDeque<DmaRequest> idle = new ArrayDeque<>();
        final byte[] sink = new byte[4096];
        boolean stopped;

        Noise(BlockHarness h, SplittableRandom rnd) {
            this.rnd = rnd;
            channel = h.link.dma().addChannel("noise", 4);
            buffer = h.mem.allocate(1 << 16, 4096);
            tick = h.sim.event("noise", this::tick);
            for (int i = 0; i < 4; i++) {
                idle.add(new DmaRequest());
            }
            channel.setRetry(() -> { });
        }

        void tick() {
            while (!stopped && !idle.isEmpty() && rnd.nextInt(3) != 0) {
                DmaRequest r = idle.poll();
                r.read(buffer + rnd.nextInt(1 << 15), sink, 0, 256 + rnd.nextInt(3840), this, 0);
                if (!channel.submit(r)) {
                    idle.add(r);
                    break;
                }
            }
            if (!stopped) {
                tick.scheduleIn(rnd.nextLong(2_000_000));
            }
        }

        @Override
        public void readDone(DmaRequest r) {
            idle.add(r);
        }
    }

    /** A stand-in engine: lookups in order, the head retried only when the unit wakes it after a WAIT. */
    private static final class Client {
        final Run run;
        final int no;
        final ArrayDeque<Lookup> queue = new ArrayDeque<>();
        final Event arrive;
        int toIssue;
        boolean waiting;

        Client(Run run, int no, int lookups) {
            this.run = run;
            this.no = no;
            this.toIssue = lookups;
            arrive = run.rig.h.sim.event("client" + no, this::arrive);
        }

        void arrive() {
            SplittableRandom rnd = run.rig.rnd;
            for (int k = 1 + rnd.nextInt(4); k > 0 && toIssue > 0; k--) {
                Lookup l = run.rig.make(run.issued.size(), no, run.lineCap);
                run.issued.add(l);
                queue.add(l);
                toIssue--;
            }
            // A waiting engine does not retry on its own: only the unit's wake-up resumes it.
            if (!waiting) {
                pump();
            }
            if (toIssue > 0) {
                arrive.scheduleIn(rnd.nextInt(4) == 0 ? rnd.nextLong(3_000_000) : rnd.nextLong(100_000));
            }
        }

        void wake() {
            run.wakeLog.add(no);
            if (waiting) {
                waiting = false;
                pump();
            }
        }

        void pump() {
            Rig rig = run.rig;
            while (!queue.isEmpty()) {
                Lookup l = queue.peek();
                boolean answerable = rig.answerable(l);
                boolean keyOnChip = rig.keys.keyCache().contains(l.key() >>> 8);
                long mttBefore = lookups(rig.keys.mttCache());
                int st = rig.keys.check(l.key(), l.pd(), l.va(), l.len(), l.access(), l.remote());
                run.calls++;
                if (keyOnChip) {
                    run.keyOnChipCalls++;
                    assertThat(lookups(rig.keys.mttCache()) - mttBefore)
                            .as("lookup %s: one translation lookup per page of an allowed range", l)
                            .isEqualTo(rig.mttLookups(l));
                } else {
                    assertThat(lookups(rig.keys.mttCache())).as("no translation lookup before the key context").isEqualTo(mttBefore);
                }
                if (st == KeyUnit.WAIT) {
                    assertThat(answerable).as("lookup %s waits with everything it needs on chip", l).isFalse();
                    run.waits++;
                    waiting = true;
                    return;
                }
                assertThat(answerable).as("lookup %s answered without what it needs on chip", l).isTrue();
                int want = rig.verdict(l);
                assertThat(st).as("verdict of %s", l).isEqualTo(want);
                List<List<Long>> pieces = st == KeyUnit.OK ? rig.translate(l) : List.of();
                if (st == KeyUnit.OK) {
                    assertThat(pieces).as("translation of %s", l).isEqualTo(rig.pieces(l));
                } else {
                    run.violations++;
                }
                run.answers.add(new Answer(l, st, pieces, rig.h.sim.now()));
                queue.poll();
            }
        }
    }

    private static long lookups(SetAssocCache c) {
        return BlockHarness.counter(c, "hits") + BlockHarness.counter(c, "misses") + BlockHarness.counter(c, "pendingHits")
                + BlockHarness.counter(c, "setBusy");
    }

    /** A concurrent run: clients, a firmware that registers and deregisters as they go, and noise on the link. */
    private static final class Run {
        final Rig rig;
        final int lineCap;
        final List<Client> clients = new ArrayList<>();
        final List<Lookup> issued = new ArrayList<>();
        final List<Answer> answers = new ArrayList<>();
        final List<Integer> wakeLog = new ArrayList<>();
        final Noise noise;
        final Event firmware;
        long calls;
        long keyOnChipCalls;
        long waits;
        long violations;

        Run(long seed, int keyEntries, int keyWays, int mttEntries, int mttWays, int lineCap, int clientCount,
                int perClient, boolean churn) {
            SplittableRandom rnd = new SplittableRandom(seed);
            SetAssocCache.Policy policy = SetAssocCache.Policy.values()[rnd.nextInt(3)];
            int maxKeys = 8 + rnd.nextInt(24);
            rig = new Rig(seed, rnd, BlockHarness.randomPcie(rnd), maxKeys, keyEntries, keyWays, mttEntries, mttWays, policy,
                    1 + rnd.nextInt(3));
            this.lineCap = lineCap;
            for (int i = 0; i < 3 + rnd.nextInt(4); i++) {
                rig.registerRandom();
            }
            for (int c = 0; c < clientCount; c++) {
                Client client = new Client(this, c, perClient);
                clients.add(client);
                rig.keys.addWaiter(client::wake);
                client.arrive.schedule(rnd.nextLong(200_000));
            }
            noise = new Noise(rig.h, rnd);
            noise.tick.schedule(0);
            firmware = rig.h.sim.event("firmware", () -> churn(rnd));
            if (churn) {
                firmware.schedule(rnd.nextLong(1_000_000));
            }
        }

        void churn(SplittableRandom rnd) {
            Region r = rig.anyValid();
            if (r != null && rnd.nextBoolean()) {
                rig.deregister(r);
            } else {
                rig.registerRandom();
            }
            if (!issuing()) {
                return;
            }
            firmware.scheduleIn(rnd.nextLong(3_000_000));
        }

        boolean issuing() {
            for (Client c : clients) {
                if (c.toIssue > 0) {
                    return true;
                }
            }
            return false;
        }

        /** Runs until idle or {@code maxEvents}; stops the noise once the clients have nothing more to issue. */
        boolean runToIdle(long maxEvents) {
            long budget = maxEvents;
            while (budget > 0) {
                long n = rig.h.sim.run(Math.min(budget, 10_000));
                budget -= n;
                if (!issuing()) {
                    noise.stopped = true;
                }
                if (rig.h.sim.pendingEvents() == 0) {
                    return true;
                }
            }
            return false;
        }

        void assertScoreboard() {
            assertThat(answers).as("every lookup answered").hasSameSizeAs(issued);
            Set<Integer> seen = new HashSet<>();
            int[] next = new int[clients.size()];
            Map<Integer, List<Integer>> perClient = new HashMap<>();
            for (Lookup l : issued) {
                perClient.computeIfAbsent(l.client(), c -> new ArrayList<>()).add(l.id());
            }
            for (Answer a : answers) {
                assertThat(seen.add(a.lookup().id())).as("lookup %d answered twice", a.lookup().id()).isTrue();
                int c = a.lookup().client();
                assertThat(a.lookup().id()).as("client %d answered out of its order", c)
                        .isEqualTo(perClient.get(c).get(next[c]++));
            }
            for (Client c : clients) {
                assertThat(c.queue).isEmpty();
                assertThat(c.waiting).isFalse();
            }
            // Every wake-up goes to every waiter, in the order they registered.
            assertThat(wakeLog.size() % clients.size()).as("a wake-up that skipped a waiter").isZero();
            int firstOutOfTurn = -1;
            for (int i = 0; i < wakeLog.size() && firstOutOfTurn < 0; i++) {
                firstOutOfTurn = wakeLog.get(i) == i % clients.size() ? -1 : i;
            }
            assertThat(firstOutOfTurn).as("first waiter woken out of registration order").isEqualTo(-1);
            KeyUnit keys = rig.keys;
            assertThat(lookups(keys.keyCache())).as("one key lookup per check").isEqualTo(calls);
            assertThat(BlockHarness.counter(keys, "checks")).as("checks made with the key on chip").isEqualTo(keyOnChipCalls);
            assertThat(BlockHarness.counter(keys, "violations")).isEqualTo(violations);
            assertThat(rig.port.blocked()).isFalse();
            Set<Integer> indices = new HashSet<>();
            Set<Long> lines = new HashSet<>();
            for (Lookup l : issued) {
                indices.add(l.key() >>> 8);
            }
            for (Region r : rig.table) {
                if (r != null) {
                    lines.addAll(r.lines(r.va, r.length));
                }
            }
            for (Region r : rig.retired) {
                lines.addAll(r.lines(r.va, r.length));
            }
            rig.assertNothingFilling(indices, lines);
        }
    }

    /**
     * Seeded lookups from several engines at once over small caches (misses, evictions, sets busy, fill slots
     * running out) while the firmware registers and deregisters regions and the host side stalls.
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
    void everyLookupIsAnsweredOnceInOrderWithTheRightVerdictAndTranslation(long seed) {
        SplittableRandom cfg = new SplittableRandom(seed * 31 + 7);
        // Ways enough for what every client's head lookup needs at once, even all in one set: a key context each
        // and up to lineCap translation lines each. Fewer is the livelock the tests further down show.
        int clients = 1 + cfg.nextInt(4);
        int lineCap = 1 + cfg.nextInt(3);
        int keyWays = clients + cfg.nextInt(2);
        int mttWays = clients * lineCap + cfg.nextInt(3);
        Run run = new Run(seed, keyWays * (1 + cfg.nextInt(4)), keyWays, mttWays * (1 + cfg.nextInt(4)), mttWays, lineCap,
                clients, 60 + cfg.nextInt(60), true);
        assertThat(run.runToIdle(2_000_000)).as("seed %d: the unit went idle", seed).isTrue();
        run.assertScoreboard();
        assertThat(run.waits).as("the caches made lookups wait").isPositive();
    }

    /**
     * A key deregistered while its context is being fetched: whenever the firmware rewrites the context during the
     * fill, the next check refuses the key (the unit must not keep the bytes the host read before the rewrite).
     */
    @Test
    void aKeyDeregisteredWhileItsContextIsFetchedIsRefused() {
        List<Long> staleAt = new ArrayList<>();
        for (long t = 0; t <= 2_000_000; t += 20_000) {
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

    /**
     * A reference set-associative cache, kept apart from the real one: each set is a list of at most {@code ways}
     * lines with a stamp; a miss takes a free way or else replaces the valid line with the oldest stamp (LRU stamps
     * on every hit, FIFO only when the line comes in); a set whose every line is being filled refuses the miss.
     */
    private static final class RefCache {
        private static final class Line {
            final long key;
            boolean filling = true;
            long stamp;

            Line(long key, long stamp) {
                this.key = key;
                this.stamp = stamp;
            }
        }

        static final int HIT = 0;
        static final int PENDING = 1;
        static final int BUSY = 2;
        static final int MISS = 3;

        final int sets;
        final int ways;
        final boolean lru;
        final List<List<Line>> lines = new ArrayList<>();
        long clock;
        long hits;
        long misses;
        long pendingHits;
        long evictions;
        long setBusy;

        RefCache(int entries, int ways, SetAssocCache.Policy policy) {
            this.sets = entries / ways;
            this.ways = ways;
            this.lru = policy == SetAssocCache.Policy.LRU;
            for (int i = 0; i < sets; i++) {
                lines.add(new ArrayList<>());
            }
        }

        /** The set of a key: the top 32 bits of the key times the 64-bit golden ratio, scaled onto the sets. */
        List<Line> set(long key) {
            long mixed = key * 0x9E37_79B9_7F4A_7C15L;
            return lines.get((int) (((mixed >>> 32) * sets) >>> 32));
        }

        int lookup(long key) {
            List<Line> set = set(key);
            for (Line l : set) {
                if (l.key == key) {
                    if (l.filling) {
                        pendingHits++;
                        return PENDING;
                    }
                    hits++;
                    if (lru) {
                        l.stamp = ++clock;
                    }
                    return HIT;
                }
            }
            if (set.size() == ways) {
                Line victim = null;
                for (Line l : set) {
                    if (!l.filling && (victim == null || l.stamp < victim.stamp)) {
                        victim = l;
                    }
                }
                if (victim == null) {
                    setBusy++;
                    return BUSY;
                }
                set.remove(victim);
                evictions++;
            }
            set.add(new Line(key, ++clock));
            misses++;
            return MISS;
        }

        void abandon(long key) {
            set(key).removeIf(l -> l.key == key && l.filling);
        }

        void invalidate(long key) {
            set(key).removeIf(l -> l.key == key && !l.filling);
        }

        void fillAll() {
            for (List<Line> set : lines) {
                for (Line l : set) {
                    l.filling = false;
                }
            }
        }

        void assertMatches(SetAssocCache c, String what) {
            assertThat(new long[] {BlockHarness.counter(c, "hits"), BlockHarness.counter(c, "misses"),
                BlockHarness.counter(c, "pendingHits"), BlockHarness.counter(c, "evictions"), BlockHarness.counter(c, "setBusy")})
                    .as("%s: hits, misses, pending hits, evictions, sets busy", what)
                    .containsExactly(hits, misses, pendingHits, evictions, setBusy);
        }
    }

    /**
     * What one check does to the caches when nothing is in flight, from the unit's description: the key context is
     * looked up; missing, a fill starts and the check waits; present, the verdict is known; an allowed range looks up
     * the translation line of each of its pages in turn, a fill for each miss while fill slots last, and waits if any
     * was not a hit.
     */
    private static int referenceCheck(Rig rig, RefCache keyRef, RefCache mttRef, Lookup l, long[] checksAndViolations) {
        int fills = 0;
        int index = l.key() >>> 8;
        int k = keyRef.lookup(index);
        if (k != RefCache.HIT) {
            return KeyUnit.WAIT; // idle: a miss, and the fill slots are all free
        }
        checksAndViolations[0]++;
        int verdict = rig.verdict(l);
        if (verdict != KeyUnit.OK) {
            checksAndViolations[1]++;
            return verdict;
        }
        if (l.len() == 0) {
            return KeyUnit.OK;
        }
        Region r = rig.table[index];
        boolean all = true;
        for (long p = r.pageOf(l.va()); p <= r.pageOf(l.va() + l.len() - 1); p++) {
            long line = Math.floorDiv(r.mtt + p * TranslationEntry.SIZE, LINE) * LINE;
            int m = mttRef.lookup(line);
            all &= m == RefCache.HIT;
            if (m == RefCache.MISS && fills++ >= KeyUnit.MAX_FILLS) {
                mttRef.abandon(line);
            }
        }
        return all ? KeyUnit.OK : KeyUnit.WAIT;
    }

    /**
     * One lookup at a time, every fill back before the next call: each call's answer (WAIT or verdict) and the
     * counters of both caches and of the unit match the reference after every call, over LRU and FIFO caches of
     * one to four sets, ranges of up to 24 translation lines (more than the fill slots), and the firmware
     * registering and deregistering between lookups.
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void serialLookupsMatchAReferenceCacheCallByCall(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        SetAssocCache.Policy policy = rnd.nextBoolean() ? SetAssocCache.Policy.LRU : SetAssocCache.Policy.FIFO;
        int keyWays = 1 + rnd.nextInt(4);
        int keyEntries = keyWays * (1 + rnd.nextInt(4));
        int mttWays = seed % 4 == 0 ? 24 : 1 + rnd.nextInt(8);
        int mttEntries = mttWays * (1 + rnd.nextInt(4));
        Rig rig = new Rig(seed, rnd, BlockHarness.randomPcie(rnd), 8 + rnd.nextInt(24), keyEntries, keyWays, mttEntries,
                mttWays, policy, 1 + rnd.nextInt(3));
        RefCache keyRef = new RefCache(keyEntries, keyWays, policy);
        RefCache mttRef = new RefCache(mttEntries, mttWays, policy);
        long[] counts = new long[2];
        int[] wakes = {0};
        rig.keys.addWaiter(() -> wakes[0]++);
        for (int i = 0; i < 4 + rnd.nextInt(4); i++) {
            rig.registerRandom();
        }
        int waits = 0;
        for (int n = 0; n < 300; n++) {
            if (rnd.nextInt(20) == 0) {
                Region r = rig.anyValid();
                if (r != null && rnd.nextBoolean()) {
                    rig.deregister(r);
                    keyRef.invalidate(r.index());
                } else {
                    Region q = rig.registerRandom();
                    if (q != null) {
                        keyRef.invalidate(q.index());
                    }
                }
            }
            Lookup l = rig.make(n, 0, mttWays);
            for (int attempt = 0; ; attempt++) {
                assertThat(attempt).as("seed %d lookup %s still waiting", seed, l).isLessThan(8);
                int want = referenceCheck(rig, keyRef, mttRef, l, counts);
                int got = rig.keys.check(l.key(), l.pd(), l.va(), l.len(), l.access(), l.remote());
                assertThat(got).as("seed %d lookup %s attempt %d", seed, l, attempt).isEqualTo(want);
                keyRef.assertMatches(rig.keys.keyCache(), "key cache after " + l);
                mttRef.assertMatches(rig.keys.mttCache(), "translation cache after " + l);
                assertThat(BlockHarness.counter(rig.keys, "checks")).isEqualTo(counts[0]);
                assertThat(BlockHarness.counter(rig.keys, "violations")).isEqualTo(counts[1]);
                if (got != KeyUnit.WAIT) {
                    if (got == KeyUnit.OK) {
                        assertThat(rig.translate(l)).as("translation of %s", l).isEqualTo(rig.pieces(l));
                    }
                    break;
                }
                waits++;
                int before = wakes[0];
                rig.h.sim.run();
                assertThat(wakes[0]).as("a WAIT is followed by a wake-up").isGreaterThan(before);
                keyRef.fillAll();
                mttRef.fillAll();
            }
        }
        assertThat(waits).isPositive();
        assertThat(keyRef.evictions + mttRef.evictions).as("the caches replaced lines").isPositive();
    }

    /**
     * Engines that retry one lookup each when woken, as the transmitter and receiver do; {@link #run} runs the
     * simulator for {@code events} events and returns how many lookups were answered.
     */
    private static final class Retriers {
        final Rig rig;
        final Lookup[] lookups;
        final int[] verdicts;

        Retriers(Rig rig, Lookup... lookups) {
            this.rig = rig;
            this.lookups = lookups;
            verdicts = new int[lookups.length];
            Arrays.fill(verdicts, KeyUnit.WAIT);
            for (int i = 0; i < lookups.length; i++) {
                int c = i;
                rig.keys.addWaiter(() -> attempt(c));
            }
        }

        void attempt(int c) {
            if (verdicts[c] == KeyUnit.WAIT) {
                Lookup l = lookups[c];
                verdicts[c] = rig.keys.check(l.key(), l.pd(), l.va(), l.len(), l.access(), l.remote());
            }
        }

        int run(long events) {
            for (int c = 0; c < lookups.length; c++) {
                attempt(c);
            }
            rig.h.sim.run(events);
            int answered = 0;
            for (int v : verdicts) {
                answered += v == KeyUnit.WAIT ? 0 : 1;
            }
            return answered;
        }
    }

    /** A lookup of {@code pages} whole pages from the start of {@code r}'s first full page. */
    private static Lookup pagesOf(int id, Region r, int pages) {
        long va = (r.va + r.pageSize() - 1) & -r.pageSize();
        return new Lookup(id, id, r.key, r.pd, va, pages * r.pageSize(), AccessFlags.LOCAL_WRITE, false);
    }

    /**
     * A check needs every translation line of its range on chip at once. One needing more lines than its set holds
     * never completes: each fill replaces a line the same check needs, and the check waits again. This pins today's
     * behaviour (the receiver checks a whole RDMA READ range at once, so a large READ meets it with the default
     * translation cache too); a fix must turn it into a completion test.
     */
    @Test
    void aCheckNeedingMoreTranslationLinesThanItsSetHoldsNeverCompletes() {
        Rig rig = new Rig(1, new SplittableRandom(1), PcieConfig.defaults(), 8, 4, 4, 2, 2, SetAssocCache.Policy.LRU, 4);
        Region r = rig.register(1, 12, 64 * 4096L, AccessFlags.ALL, PD);
        Lookup l = pagesOf(0, r, 17);
        assertThat(r.lines(l.va(), l.len())).as("17 entries span three lines").hasSize(3);
        Retriers one = new Retriers(rig, l);
        assertThat(one.run(50_000)).as("answered").isZero();
        long misses = BlockHarness.counter(rig.keys.mttCache(), "misses");
        assertThat(rig.h.sim.pendingEvents()).as("still fetching: a livelock, not a deadlock").isPositive();
        assertThat(misses).as("translation fills go on").isGreaterThan(1000);

        // The same check over a cache whose set holds its three lines is answered at once after its fills.
        Rig roomy = new Rig(1, new SplittableRandom(1), PcieConfig.defaults(), 8, 4, 4, 3, 3, SetAssocCache.Policy.LRU, 4);
        Region q = roomy.register(1, 12, 64 * 4096L, AccessFlags.ALL, PD);
        Lookup m = pagesOf(0, q, 17);
        Retriers fits = new Retriers(roomy, m);
        assertThat(fits.run(100_000)).isEqualTo(1);
        assertThat(fits.verdicts[0]).isEqualTo(KeyUnit.OK);
        assertThat(roomy.translate(m)).isEqualTo(roomy.pieces(m));
    }

    /**
     * Engines whose lookups each fit the translation cache alone, but not all together, take each other's lines for
     * ever: two lookups of two lines each over a two-line cache livelock (as seeds 1, 2, 10, 14, 15, 17 and 20 of
     * the random run over one- and two-entry caches did), while one engine alone, or a cache holding both lookups'
     * lines, completes. This pins today's behaviour; a fix must turn it into a completion test.
     */
    @Test
    void enginesWhoseLookupsFitTheCacheOnlyOneAtATimeLivelock() {
        Rig rig = new Rig(1, new SplittableRandom(1), PcieConfig.defaults(), 8, 4, 4, 2, 2, SetAssocCache.Policy.LRU, 4);
        Region a = rig.register(1, 12, 64 * 4096L, AccessFlags.ALL, PD);
        Region b = rig.register(2, 12, 64 * 4096L, AccessFlags.ALL, PD);
        Lookup la = pagesOf(0, a, 9);
        Lookup lb = pagesOf(1, b, 9);
        assertThat(a.lines(la.va(), la.len())).as("nine entries span two lines").hasSize(2);
        assertThat(b.lines(lb.va(), lb.len())).hasSize(2);
        Retriers two = new Retriers(rig, la, lb);
        assertThat(two.run(50_000)).as("answered").isZero();
        assertThat(rig.h.sim.pendingEvents()).as("still fetching: a livelock, not a deadlock").isPositive();
        assertThat(BlockHarness.counter(rig.keys.mttCache(), "misses")).isGreaterThan(1000);

        for (int lines : new int[] {2, 4}) {
            Rig alone = new Rig(1, new SplittableRandom(1), PcieConfig.defaults(), 8, 4, 4, lines, lines,
                    SetAssocCache.Policy.LRU, 4);
            Region a2 = alone.register(1, 12, 64 * 4096L, AccessFlags.ALL, PD);
            Region b2 = alone.register(2, 12, 64 * 4096L, AccessFlags.ALL, PD);
            Retriers r = lines == 2 ? new Retriers(alone, pagesOf(0, a2, 9)) : new Retriers(alone, pagesOf(0, a2, 9), pagesOf(1, b2, 9));
            assertThat(r.run(200_000)).as("%d-line cache", lines).isEqualTo(r.lookups.length);
            assertThat(alone.h.sim.pendingEvents()).isZero();
        }
    }

    /**
     * Up to eight engines over a one- or two-entry key cache and a one-entry translation cache, every lookup needing
     * one translation line: they take each other's key contexts all the time, yet every lookup completes with the
     * full scoreboard. The livelock needs lookups of two lines or more competing for the same lines (above).
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void manyEnginesOverOneEntryCachesCompleteWhenEachLookupNeedsOneLine(long seed) {
        SplittableRandom cfg = new SplittableRandom(seed);
        int keyEntries = 1 + cfg.nextInt(2);
        Run run = new Run(seed, keyEntries, keyEntries, 1, 1, 1, 2 + cfg.nextInt(7), 40, true);
        assertThat(run.runToIdle(2_000_000)).as("seed %d: the unit went idle", seed).isTrue();
        run.assertScoreboard();
        assertThat(BlockHarness.counter(run.rig.keys.keyCache(), "evictions")).isPositive();
    }

    /**
     * At most {@link KeyUnit#MAX_FILLS} fills at once: misses beyond them give their line back and wait, and are
     * fetched once woken; a one-deep fill channel makes the port hold the rest. Every fill slot is free again at the
     * end: another full set of misses at once gets all its fills.
     */
    @Test
    void fillsBeyondTheSlotsWaitAndEverySlotComesBack() {
        int n = KeyUnit.MAX_FILLS + 4;
        Rig rig = new Rig(1, new SplittableRandom(1), PcieConfig.defaults(), 2 * n + 2, 64, 64, 8, 8,
                SetAssocCache.Policy.LRU, 1);
        List<Lookup> first = new ArrayList<>();
        List<Lookup> second = new ArrayList<>();
        for (int i = 1; i <= 2 * n; i++) {
            Region r = rig.register(i, 12, 4096, AccessFlags.ALL, PD);
            (i <= n ? first : second).add(new Lookup(i, 0, r.key, PD, r.va, 0, 0, false));
        }
        Retriers a = new Retriers(rig, first.toArray(new Lookup[0]));
        for (int c = 0; c < n; c++) {
            a.attempt(c);
        }
        assertThat(rig.port.blocked()).as("the one-deep channel refused, the port holds the fills").isTrue();
        assertThat(BlockHarness.counter(rig.keys.keyCache(), "misses")).isEqualTo(n);
        rig.h.sim.run();
        assertThat(a.verdicts).as("all answered, the last four after a wake-up").containsOnly(KeyUnit.OK);
        // The four that found no slot miss again when woken, until a slot is free (each such miss is counted).
        assertThat(BlockHarness.counter(rig.keys.keyCache(), "misses")).isGreaterThanOrEqualTo(n + 4);

        int before = (int) BlockHarness.counter(rig.keys.keyCache(), "misses");
        Lookup[] again = second.subList(0, KeyUnit.MAX_FILLS).toArray(new Lookup[0]);
        for (Lookup l : again) {
            assertThat(rig.keys.check(l.key(), l.pd(), l.va(), l.len(), l.access(), l.remote())).isEqualTo(KeyUnit.WAIT);
        }
        rig.h.sim.run();
        for (Lookup l : again) {
            assertThat(rig.keys.keyCache().contains(l.key() >>> 8)).as("key %x fetched", l.key()).isTrue();
        }
        assertThat(BlockHarness.counter(rig.keys.keyCache(), "misses") - before).isEqualTo(KeyUnit.MAX_FILLS);
        assertThat(rig.port.blocked()).isFalse();
    }

    /** The firmware's context write puts the fields where the unit reads them, and refuses an index past the table. */
    @Test
    void writeContextLaysTheContextOutAndRefusesAnIndexPastTheTable() {
        Rig rig = new Rig(1, new SplittableRandom(1), PcieConfig.defaults(), 8, 4, 4, 8, 8, SetAssocCache.Policy.LRU, 4);
        int key = 5 << 8 | 0x77;
        rig.keys.writeContext(key, 0x12_3456, 0x15, 16, 0x7f12_3456_7890L, 0x1_0000_0001L, 0x2_0000_0040L, true);
        byte[] got = new byte[KeyUnit.CONTEXT_BYTES];
        rig.h.mem.read(rig.keys.contextAddress(key), got, 0, got.length);
        assertThat(got).isEqualTo(context(key, 0x12_3456, 0x15, 16, 0x7f12_3456_7890L, 0x1_0000_0001L, 0x2_0000_0040L, true));
        assertThat(rig.keys.contextAddress(key)).isEqualTo(rig.keys.contextAddress(0) + 5L * KeyUnit.CONTEXT_BYTES);
        assertThatThrownBy(() -> rig.keys.writeContext(8 << 8 | 1, PD, 0, 12, 0, 4096, 0, true))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("key index 8");
    }

    /** Asks until answered, letting every fill come back in between. */
    private static int answer(Rig rig, int key, int pd, long va, long len, int access, boolean remote) {
        for (int i = 0; i < 4; i++) {
            int st = rig.keys.check(key, pd, va, len, access, remote);
            if (st != KeyUnit.WAIT) {
                return st;
            }
            rig.h.sim.run();
        }
        throw new AssertionError("no answer");
    }

    /** The edges of a region, exactly: its first and last byte, empty ranges at both ends, one byte past, negative. */
    @Test
    void rangesAreDecidedExactlyAtTheRegionsEdges() {
        Rig rig = new Rig(1, new SplittableRandom(1), PcieConfig.defaults(), 8, 4, 4, 8, 8, SetAssocCache.Policy.LRU, 4);
        Region r = rig.register(2, 12, 3 * 4096 + 100, AccessFlags.REMOTE_READ | AccessFlags.LOCAL_WRITE, PD);
        long end = r.va + r.length;
        int ok = KeyUnit.OK;
        int refused = CqeSyndrome.REMOTE_ACCESS;
        assertThat(answer(rig, r.key, PD, r.va, r.length, AccessFlags.REMOTE_READ, true)).as("the whole region").isEqualTo(ok);
        assertThat(answer(rig, r.key, PD, r.va, r.length + 1, 0, true)).as("one byte more").isEqualTo(refused);
        assertThat(answer(rig, r.key, PD, r.va - 1, 1, 0, true)).as("the byte before").isEqualTo(refused);
        assertThat(answer(rig, r.key, PD, end - 1, 1, 0, true)).as("the last byte").isEqualTo(ok);
        assertThat(answer(rig, r.key, PD, end, 1, 0, true)).as("the byte after").isEqualTo(refused);
        assertThat(answer(rig, r.key, PD, end, 0, 0, true)).as("empty, at the end").isEqualTo(ok);
        assertThat(answer(rig, r.key, PD, end + 1, 0, 0, true)).as("empty, past the end").isEqualTo(refused);
        assertThat(answer(rig, r.key, PD, r.va + 8, -1, 0, true)).as("a negative length").isEqualTo(refused);
        assertThat(answer(rig, r.key, PD, Long.MAX_VALUE, 1, 0, true)).as("at the top of the address space").isEqualTo(refused);
        assertThat(answer(rig, r.key, PD, r.va, Long.MAX_VALUE, 0, false)).as("the longest length")
                .isEqualTo(CqeSyndrome.LOCAL_PROT);
        assertThat(answer(rig, r.key, PD, r.va, 8, AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE, false))
                .as("one right of two missing").isEqualTo(CqeSyndrome.LOCAL_PROT);
        // A range ending on a page's last byte, or just before it, looks up that page's entry and no further one.
        long pageEnd = (r.va & -4096L) + 2 * 4096;
        for (long tail : new long[] {0, 1, 2}) {
            long v = pageEnd - 16 - tail;
            answer(rig, r.key, PD, v, 16, 0, true);
            long before = lookups(rig.keys.mttCache());
            assertThat(rig.keys.check(r.key, PD, v, 16, 0, true)).isEqualTo(ok);
            assertThat(lookups(rig.keys.mttCache()) - before).as("ending %d bytes before a page boundary", tail).isEqualTo(1);
        }
        // The last byte translates through its own page's entry.
        Lookup last = new Lookup(0, 0, r.key, PD, end - 1, 1, 0, false);
        assertThat(rig.translate(last)).containsExactly(List.of(r.pages[(int) r.pageOf(end - 1)] + ((end - 1) & 4095), 1L));
    }
}
