package dev.rdmasim.adapter.nic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.cache.SetAssocCache;
import dev.rdmasim.adapter.format.AccessFlags;
import dev.rdmasim.adapter.nic.BlockHarness.Region;
import dev.rdmasim.adapter.wire.EthernetLink;
import dev.rdmasim.adapter.wire.Frame;
import dev.rdmasim.adapter.wire.LinkEndpoint;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.testing.VcdChanges;
import dev.rdmasim.kernel.wave.SignalFilter;
import dev.rdmasim.kernel.wave.VcdWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The payload writer alone, with a real key unit over regions registered in host memory (key contexts and MTTs
 * whose pages are scattered, not contiguous) and a stand-in receiver that hands it frames from a link endpoint's
 * pool as fast as the writer lets it: messages of random lengths at random frame offsets, scattered over one to
 * four SGEs (some received messages, some READ responses), a few with a bad key. Scoreboard: every byte lands at
 * the physical address the region's MTT gives and nothing else in host memory changes; each SGE piece is split at
 * every page boundary (one write, one {@code written} call per page touched); a bad key writes nothing; a frame
 * goes back to its pool exactly when its last write has left; the pending-write counters of QPs and READs fall
 * back to zero with each write; WAIT (key fills, write requests short) always resumes.
 */
class PayloadWriterTest {
    private static final int MAX_KEYS = 16;
    private static final int PD = 1;

    /** One message: the frame carrying it and where its bytes [off, off + len) go. */
    private static final class Msg {
        Frame frame;
        int payloadOffset;
        byte[] payload;
        long off;
        int len;
        long[] addr;
        int[] lens;
        int[] keys;
        Region[] regions;
        boolean badKey;
        Qp qp;
        Wr readWr;
        int expectedWrites;
        int remaining;
    }

    private static final class Run implements PayloadWriter.Written {
        final SplittableRandom rnd;
        final BlockHarness h;
        final KeyUnit keys;
        final PayloadWriter writer;
        final LinkEndpoint endpoint;
        final int buffers;
        final List<Region> regions = new ArrayList<>();
        final List<Qp> qps = new ArrayList<>();
        final Map<Qp, Msg> recvInFlight = new IdentityHashMap<>();
        final Map<Wr, Msg> readInFlight = new IdentityHashMap<>();
        final List<Msg> done = new ArrayList<>();
        final ArrayDeque<Msg> waiting = new ArrayDeque<>();
        final Event produce;
        final int messages;
        int produced;
        int framesHeld;
        long writtenCalls;
        long expectedWrites;
        long bytes;
        int keyErrors;
        int waits;
        int poolEmpty;
        int writeShortWaits;
        long outstanding;
        long cursor;
        /** Per physical page: the bytes host memory must hold at the end. */
        final Map<Long, byte[]> expected = new TreeMap<>();
        /** Every change of the writes in flight, as the test counts them: (time, count). */
        final List<long[]> inFlight = new ArrayList<>();

        Run(long seed) {
            this(seed, null);
        }

        /** As above, with the payload writer's signals written to {@code wave} (null: no waveform). */
        Run(long seed, Writer wave) {
            rnd = new SplittableRandom(seed);
            h = new BlockHarness(seed, BlockHarness.randomPcie(rnd));
            if (wave != null) {
                h.sim.attachWave(new VcdWriter(wave, h.sim::now, SignalFilter.parse("nic.payload.*")));
            }
            buffers = 4 + rnd.nextInt(44);
            endpoint = EthernetLink.cable(h.sim, "wire", new EthernetLink.Config(100, 0, buffers)).a();
            long ctx = h.mem.allocate((long) MAX_KEYS * KeyUnit.CONTEXT_BYTES, 4096);
            // Ways enough for every key (3) and MTT line (at most 8) one message needs: fewer thrash for ever.
            keys = new KeyUnit(h.top, new KeyUnit.Params(MAX_KEYS, 4 * (1 + rnd.nextInt(3)), 4, 8 * (1 + rnd.nextInt(4)), 8,
                    SetAssocCache.Policy.LRU), h.mem, ctx, h.port("keyFill", 16, KeyUnit.MAX_FILLS), h.work);
            writer = new PayloadWriter(h.top, h.work, keys, h.link.dma().addChannel("rxWrite", 1 + rnd.nextInt(16)));
            writer.connect(this, this::pump);
            keys.addWaiter(this::pump);
            for (int r = 0; r < 3; r++) {
                register(r + 1, 12 + rnd.nextInt(2), 4096L * (8 + rnd.nextInt(24)));
            }
            for (int q = 0; q < 4; q++) {
                qps.add(h.addQp(20 + q, 4, 2, 1, 0, 4, 0));
            }
            messages = 100 + rnd.nextInt(80);
            produce = h.sim.event("rx", this::produce);
            produce.schedule(0);
        }

        /** Registers a region of {@code length} bytes at a page-unaligned VA, its pages anywhere in host memory. */
        void register(int index, int logPage, long length) {
            long va = (0x7f00_0000_0000L + rnd.nextLong(1L << 30)) & -8L;
            regions.add(h.registerScattered(keys, rnd, index << 8 | (0x11 * index), PD, AccessFlags.LOCAL_WRITE, logPage,
                    va, length, () -> rnd.nextBoolean() ? 1 + rnd.nextInt(3) : 0, expected));
        }

        void produce() {
            while (produced < messages && waiting.size() < 4) {
                Frame f = endpoint.acquire();
                if (f == null) {
                    poolEmpty++;
                    break; // a frame comes back when its last write leaves: pump() produces again
                }
                framesHeld++;
                waiting.add(message(f));
                produced++;
            }
            pump();
        }

        Msg message(Frame f) {
            Msg m = new Msg();
            m.frame = f;
            int sges = 1 + rnd.nextInt(4);
            m.addr = new long[sges];
            m.lens = new int[sges];
            m.keys = new int[sges];
            m.regions = new Region[sges];
            long total = 0;
            for (int i = 0; i < sges; i++) {
                Region r = regions.get(rnd.nextInt(regions.size()));
                int l = rnd.nextInt(8) == 0 ? 0 : 1 + rnd.nextInt(rnd.nextBoolean() ? 300 : 6000);
                long start = r.va() + rnd.nextLong(r.length() - l + 1);
                m.addr[i] = start;
                m.lens[i] = l;
                m.keys[i] = r.key();
                m.regions[i] = r;
                total += l;
            }
            m.off = total == 0 ? 0 : rnd.nextLong(Math.min(total, 2000));
            m.len = (int) Math.min(total - m.off, 1 + rnd.nextInt(4096));
            m.payloadOffset = 14 + rnd.nextInt(60);
            m.payload = new byte[m.len];
            rnd.nextBytes(m.payload);
            System.arraycopy(m.payload, 0, f.data(), m.payloadOffset, m.len);
            f.length(m.payloadOffset + m.len);
            if (rnd.nextInt(12) == 0 && m.len > 0) {
                m.badKey = true;
                int i = touchedSge(m);
                long pos = 0;
                for (int k = 0; k < i; k++) {
                    pos += m.lens[k];
                }
                long a = Math.max(m.off, pos) - pos; // the SGE's touched bytes [a, b)
                long b = Math.min(m.off + m.len, pos + m.lens[i]) - pos;
                Region r = m.regions[i];
                switch (rnd.nextInt(3)) {
                    case 0 -> m.keys[i] ^= 0x01; // wrong tag
                    case 1 -> m.addr[i] = r.va() + r.length() - b + 1 + rnd.nextInt(50); // runs past the end
                    default -> m.addr[i] = r.va() - a - 1 - rnd.nextInt(50); // starts before the start
                }
            }
            Qp free = null;
            for (Qp q : qps) {
                if (!recvInFlight.containsKey(q)) {
                    free = q;
                }
            }
            if (free != null && rnd.nextBoolean()) {
                m.qp = free;
                recvInFlight.put(free, m);
            } else {
                m.qp = qps.get(rnd.nextInt(qps.size()));
                m.readWr = new Wr(4, 0);
            }
            return m;
        }

        /** An SGE the message's bytes touch (a bad key elsewhere would rightly not be checked). */
        int touchedSge(Msg m) {
            long pos = 0;
            List<Integer> touched = new ArrayList<>();
            for (int i = 0; i < m.addr.length; i++) {
                if (Math.max(m.off, pos) < Math.min(m.off + m.len, pos + m.lens[i])) {
                    touched.add(i);
                }
                pos += m.lens[i];
            }
            return touched.get(rnd.nextInt(touched.size()));
        }

        /** Offers the head message again: after a fill, a write leaving, or the channel taking held writes. */
        void pump() {
            while (!waiting.isEmpty()) {
                Msg m = waiting.peek();
                long placedBefore = BlockHarness.counter(writer, "placedBytes");
                int r = writer.scatter(m.qp, m.frame, m.payloadOffset, m.addr, m.lens, m.keys, m.addr.length, m.off, m.len,
                        m.readWr);
                if (r == PayloadWriter.WAIT) {
                    waits++;
                    if (outstanding > PayloadWriter.WRITES - 4 * 3) {
                        writeShortWaits++; // too few write requests left for the worst case of four SGEs
                    }
                    assertThat(BlockHarness.counter(writer, "placedBytes")).as("WAIT writes nothing").isEqualTo(placedBefore);
                    return;
                }
                waiting.poll();
                if (r == PayloadWriter.KEY_ERROR) {
                    assertThat(m.badKey).as("a key error only for a bad key").isTrue();
                    assertThat(BlockHarness.counter(writer, "placedBytes")).as("a key error writes nothing")
                            .isEqualTo(placedBefore);
                    keyErrors++;
                    finishRecv(m);
                    m.frame.release();
                    framesHeld--;
                    continue;
                }
                assertThat(m.badKey).as("a bad key is refused").isFalse();
                m.expectedWrites = expectedWrites(m);
                m.remaining = m.expectedWrites;
                expectedWrites += m.expectedWrites;
                outstanding += m.expectedWrites;
                inFlight.add(new long[] {h.sim.now(), outstanding});
                bytes += m.len;
                assertThat(r).as("held exactly when something is written").isEqualTo(m.expectedWrites > 0 ? 1 : 0);
                if (m.readWr != null) {
                    assertThat(m.readWr.pendingWrites).isEqualTo(m.expectedWrites);
                    if (m.expectedWrites > 0) {
                        readInFlight.put(m.readWr, m);
                    }
                } else {
                    assertThat(m.qp.writes.pending()).isEqualTo(m.expectedWrites);
                }
                overlay(m);
                if (m.expectedWrites == 0) {
                    finishRecv(m);
                    m.frame.release();
                    framesHeld--;
                }
                assertFrames();
            }
            if (produced < messages && !produce.scheduled()) {
                produce.scheduleIn(rnd.nextLong(5_000));
            }
        }

        void finishRecv(Msg m) {
            if (m.readWr == null) {
                recvInFlight.remove(m.qp);
            }
            done.add(m);
        }

        /** Writes the message's SGE pieces take: one per page each touches. */
        int expectedWrites(Msg m) {
            int n = 0;
            long pos = 0;
            for (int i = 0; i < m.addr.length; i++) {
                long a = Math.max(m.off, pos);
                long b = Math.min(m.off + m.len, pos + m.lens[i]);
                if (a < b) {
                    long va = m.addr[i] + (a - pos);
                    long ps = 1L << m.regions[i].logPage();
                    n += (int) (((va + (b - a) - 1) / ps) - (va / ps)) + 1;
                }
                pos += m.lens[i];
            }
            return n;
        }

        /** What host memory must hold once the message's writes are done. */
        void overlay(Msg m) {
            long pos = 0;
            for (int i = 0; i < m.addr.length; i++) {
                long a = Math.max(m.off, pos);
                long b = Math.min(m.off + m.len, pos + m.lens[i]);
                for (long k = a; k < b; k++) {
                    long pa = m.regions[i].pa(m.addr[i] + (k - pos));
                    long ps = 1L << m.regions[i].logPage();
                    expected.get(pa & -ps)[(int) (pa & (ps - 1))] = m.payload[(int) (k - m.off)];
                }
                pos += m.lens[i];
            }
        }

        void assertFrames() {
            assertThat(endpoint.freeBuffers()).as("frames back in the pool: all but those held by the receiver or by writes")
                    .isEqualTo(buffers - framesHeld);
            assertThat(BlockHarness.level(writer, "writesInFlight")).as("the writes-in-flight statistic follows the writes")
                    .isEqualTo(outstanding);
        }

        @Override
        public void written(Qp qp, Wr readWr) {
            writtenCalls++;
            outstanding--;
            inFlight.add(new long[] {h.sim.now(), outstanding});
            Msg m = readWr != null ? readInFlight.get(readWr) : recvInFlight.get(qp);
            assertThat(m).as("a write of a message in flight").isNotNull();
            m.remaining--;
            assertThat(m.remaining).as("written once per write").isGreaterThanOrEqualTo(0);
            if (readWr != null) {
                assertThat(readWr.pendingWrites).isEqualTo(m.remaining);
            } else {
                assertThat(qp.writes.pending()).isEqualTo(m.remaining);
            }
            if (m.remaining == 0) {
                framesHeld--;
                readInFlight.remove(readWr);
                finishRecv(m);
            }
            assertFrames();
            pump();
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void payloadLandsWhereTheMttSaysSplitAtPagesAndFramesComeBackAfterTheirLastWrite(long seed) {
        Run run = new Run(seed);
        run.h.sim.run(5_000_000);

        assertThat(run.done).as("every message handled").hasSize(run.messages);
        assertThat(run.waiting).isEmpty();
        assertThat(run.writtenCalls).as("written once per write").isEqualTo(run.expectedWrites);
        assertThat(BlockHarness.counter(run.writer, "placedBytes")).isEqualTo(run.bytes);
        assertThat(run.framesHeld).isZero();
        assertThat(run.endpoint.freeBuffers()).as("every frame back in its pool").isEqualTo(run.buffers);
        for (Qp qp : run.qps) {
            assertThat(qp.writes.pending()).isZero();
        }
        for (Msg m : run.done) {
            assertThat(m.remaining).isZero();
            if (m.readWr != null) {
                assertThat(m.readWr.pendingWrites).isZero();
            }
        }
        run.h.assertPages(run.expected);
    }

    /** The traced writes-in-flight signal takes, at every instant, the count of writes the test has in flight. */
    @Test
    void theWritesInFlightSignalFollowsTheWrites() {
        StringWriter wave = new StringWriter();
        Run run = new Run(3, wave);
        run.h.sim.run(5_000_000);
        run.h.sim.wave().close();
        List<long[]> traced = VcdChanges.parseTimed(wave.toString()).get("nic.payload.writesInFlight");
        assertThat(traced).as("the signal is traced").isNotNull();
        // The level at the end of each instant it changes, against the test's own count.
        List<String> counted = VcdChanges.steps(run.inFlight);
        assertThat(counted).as("the writes go up and down").hasSizeGreaterThan(20);
        assertThat(VcdChanges.steps(traced)).isEqualTo(counted);
    }

    /** The seeds exercise key errors, waits, messages split over pages, and a frame pool run dry. */
    @Test
    void theSeedsExerciseKeyErrorsWaitsAndPageSplits() {
        long keyErrors = 0;
        long waits = 0;
        long splits = 0;
        long refusals = 0;
        long writeShort = 0;
        for (long seed = 1; seed <= 8; seed++) {
            Run run = new Run(seed);
            run.h.sim.run(5_000_000);
            keyErrors += run.keyErrors;
            waits += run.waits;
            for (Msg m : run.done) {
                if (m.expectedWrites > m.addr.length) {
                    splits++;
                }
            }
            refusals += run.poolEmpty;
            writeShort += run.writeShortWaits;
        }
        assertThat(keyErrors).isPositive();
        assertThat(waits).isPositive();
        assertThat(splits).isPositive();
        assertThat(refusals).isPositive();
        assertThat(writeShort).as("waits for write requests").isPositive();
    }
}
