package dev.rdmasim.adapter.pcie;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.stats.Stat;
import dev.rdmasim.kernel.stats.TimeAverage;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * DMA requests with a ready time ({@link DmaRequest#notBefore}): handed to the engine early, they must time exactly
 * as if submitted at their ready time, keep each channel's order, hold their queue slots and tags from issue, measure
 * read latency from the ready time, and cost no event of the DMA engine.
 */
class DmaReadyTimeTest {
    private static final long READ_BASE = 0x3_0000_0000L;
    private static final long WRITE_BASE = 0x2_0000_0000L;
    private static final long REGION = 0x10_0000;

    /** What one TLP did, seen by its receiver at its arrival. */
    private record Seen(TlpKind kind, long address, int length, long startPs, long endPs, long arrivePs) {
    }

    /** Wraps a link end to log every TLP it receives before passing it on. */
    private static final class Recorder {
        final List<Seen> seen = new ArrayList<>();
        final TlpTap tap;

        Recorder(LinkEnd inner, Simulator sim) {
            tap = new TlpTap(inner, t -> seen.add(new Seen(t.kind, t.address, t.length, t.startPs, t.endPs, sim.now())));
        }
    }

    /** A link whose both directions are logged, over host memory whose read regions hold a known pattern. */
    private static final class Bench {
        final Simulator sim = new Simulator(7);
        final HostMemory mem = new HostMemory("host");
        final PcieLink link;
        final Recorder upSeen;
        final Recorder downSeen;

        Bench(PcieConfig cfg) {
            link = new PcieLink(sim, "pcie", cfg, mem);
            upSeen = new Recorder(link.host().linkEnd, sim);
            downSeen = new Recorder(link.dma().linkEnd, sim);
            link.up().connect(link.dma().linkEnd, upSeen.tap);
            link.down().connect(link.host().linkEnd, downSeen.tap);
        }
    }

    private static byte pattern(long addr) {
        return (byte) (addr * 0x9E3779B97F4A7C15L >>> 56);
    }

    private static void fillPattern(HostMemory mem, long addr, int len) {
        for (int i = 0; i < len; i++) {
            mem.putByte(addr + i, pattern(addr + i));
        }
    }

    private static TimeAverage timeAverage(dev.rdmasim.kernel.hw.Module m, String name) {
        m.stats().refresh(); // blocks that keep statistics lazily bring them up to date on refresh
        for (Stat s : m.stats().stats()) {
            if (s.name().equals(name)) {
                return (TimeAverage) s;
            }
        }
        throw new AssertionError("no statistic " + name);
    }

    // ---- (a) and (d): a request ready at T, submitted early, against the same request submitted at T ----------

    private record Outcome(List<Seen> up, List<Seen> down, List<String> callbacks, long digest, byte[] buffer,
            long events, long readLatencyMax, long readyPs) {
    }

    private static Outcome single(PcieConfig cfg, boolean read, long addr, int len, boolean notify, long readyAt,
                                  boolean early, byte[] data) {
        Bench b = new Bench(cfg);
        fillPattern(b.mem, addr, len);
        DmaChannel ch = b.link.dma().addChannel("c", 2);
        List<String> callbacks = new ArrayList<>();
        byte[] buf = read ? new byte[len] : data.clone();
        DmaRequest r = new DmaRequest();
        DmaCallback cb = new DmaCallback() {
            @Override
            public void readDone(DmaRequest q) {
                callbacks.add("readDone@" + b.sim.now());
            }

            @Override
            public void writeSent(DmaRequest q) {
                callbacks.add("writeSent@" + b.sim.now());
            }

            @Override
            public void writeApplied(DmaRequest q) {
                callbacks.add("writeApplied@" + b.sim.now());
            }
        };
        b.sim.event("client", () -> {
            if (read) {
                r.read(addr, buf, 0, len, cb, 1);
            } else {
                r.write(addr, buf, 0, len, cb, 1, notify);
            }
            if (early) {
                r.notBefore(readyAt);
            }
            assertThat(ch.submit(r)).isTrue();
        }).schedule(early ? 0 : readyAt);
        b.sim.run();
        assertThat(r.inEngine()).isFalse();
        return new Outcome(b.upSeen.seen, b.downSeen.seen, callbacks, b.mem.digest(addr, len), buf,
                b.sim.eventsExecuted(), b.link.dma().readLatency().max(), r.readyPs());
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6})
    void aRequestReadyAtTSubmittedEarlyTimesExactlyAsOneSubmittedAtT(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        int[] sizes = {128, 256, 512, 1024};
        for (int trial = 0; trial < 25; trial++) {
            PcieConfig cfg = PcieConfig.defaults().withLink(1 + rnd.nextInt(5), 1 << rnd.nextInt(5))
                    .withMps(sizes[rnd.nextInt(3)]).withMrrs(sizes[rnd.nextInt(4)])
                    .withReadTags(1 + rnd.nextInt(4)).withQueues(1 + rnd.nextInt(3), 16)
                    .withDllpLimits(rnd.nextBoolean() ? 0 : 24 + rnd.nextInt(300), 0);
            boolean read = rnd.nextBoolean();
            long addr = 0x1_0000_0000L + rnd.nextInt(1 << 16);
            int len = 1 + rnd.nextInt(rnd.nextBoolean() ? 128 : 5000);
            boolean notify = rnd.nextBoolean();
            long readyAt = 1 + rnd.nextLong(3_000_000);
            byte[] data = new byte[len];
            rnd.nextBytes(data);

            Outcome early = single(cfg, read, addr, len, notify, readyAt, true, data);
            Outcome atT = single(cfg, read, addr, len, notify, readyAt, false, data);
            String what = (read ? "read " : "write ") + len + " B at 0x" + Long.toHexString(addr) + " ready " + readyAt;
            assertThat(early.up).as(what).isNotEmpty().isEqualTo(atT.up);
            assertThat(early.down).as(what).isEqualTo(atT.down);
            assertThat(early.callbacks).as(what).isNotEmpty().isEqualTo(atT.callbacks);
            assertThat(early.digest).as(what).isEqualTo(atT.digest);
            assertThat(early.buffer).as(what).isEqualTo(atT.buffer);
            assertThat(early.readyPs).isEqualTo(readyAt);
            // On an idle link the first TLP starts at the ready time, not at the submission.
            assertThat(early.up.get(0).startPs).as(what).isEqualTo(readyAt);
            // (c) read latency counts from the ready time: the same figure as a submission at T.
            assertThat(early.readLatencyMax).as(what).isEqualTo(atT.readLatencyMax);
            // (d) the same events: the client's one, then the link's; nothing of the DMA engine's own. A request with
            // more TLPs than its class may queue waits for a slot held since issue: one wake-up at the ready time.
            long tlps = early.up.size();
            if (tlps <= cfg.deviceTxDepth()) {
                assertThat(early.events).as(what).isEqualTo(atT.events);
            } else {
                assertThat(early.events).as(what).isBetween(atT.events, atT.events + 1);
            }
            if (read) {
                for (int i = 0; i < len; i++) {
                    assertThat(early.buffer[i]).isEqualTo(pattern(addr + i));
                }
            }
        }
    }

    @Test
    void aWriteReadyLaterCostsOnlyTheLinksDeliveriesAndItsSentReport() {
        // 1000 B at MPS 256 from a page-aligned address: 4 MWr TLPs.
        byte[] data = new byte[1000];
        Outcome o = single(PcieConfig.defaults(), false, 0x1_0000_0000L, 1000, true, 2_000_000, true, data);
        assertThat(o.up).hasSize(4);
        // The client's event, one delivery per TLP and one sent report: no pump, no engine event at the ready time.
        assertThat(o.events).isEqualTo(1 + 4 + 1);
    }

    // ---- (c) read latency from the ready time ------------------------------------------------------------------

    @Test
    void readLatencyCountsFromTheReadyTimeAndTheTagIsHeldFromIssue() {
        Bench b = new Bench(PcieConfig.defaults());
        DmaChannel ch = b.link.dma().addChannel("rd", 2);
        DmaRequest r = new DmaRequest();
        long readyAt = 1_000_000;
        long[] done = {-1};
        int[] tagsMid = {-1};
        int[] queuedMid = {-1};
        b.sim.event("client", () -> {
            r.read(READ_BASE, new byte[64], 0, 64, new DmaCallback() {
                @Override
                public void readDone(DmaRequest q) {
                    done[0] = b.sim.now();
                }
            }, 0).notBefore(readyAt);
            assertThat(ch.submit(r)).isTrue();
        }).schedule(0);
        b.sim.event("probe", () -> {
            tagsMid[0] = b.link.dma().tagsInUse();
            queuedMid[0] = b.link.up().queued();
        }).schedule(readyAt / 2);
        b.sim.run();
        // 3.047 + 80 + 400 + 10.665 + 80 ns after the ready time (docs/pcie.md, latency calibration).
        assertThat(done[0]).isEqualTo(readyAt + 573_712);
        assertThat(r.submitPs()).isZero();
        assertThat(r.readyPs()).isEqualTo(readyAt);
        assertThat(b.link.dma().readLatency().count()).isEqualTo(1);
        assertThat(b.link.dma().readLatency().max()).isEqualTo(573);
        // The tag is taken at issue (time 0), the TLP only counts as queued from its ready time.
        assertThat(tagsMid[0]).isEqualTo(1);
        assertThat(queuedMid[0]).isZero();
        assertThat(b.link.dma().averageTagsInUse()).isCloseTo(1.0, within(1e-12));
        assertThat(timeAverage(b.link.up(), "queued").average()).isZero(); // it starts the instant it is ready
    }

    // ---- resources held from issue ------------------------------------------------------------------------------

    @Test
    void aWriteWaitingForItsReadyTimeHoldsItsQueueSlotAndOthersWaitBehindIt() {
        // One posted slot: a write ready at T holds it from time 0, so a write ready now on another channel can
        // only issue when the first one starts, and starts when its last byte is out.
        Bench b = new Bench(PcieConfig.defaults().withQueues(1, 16));
        DmaChannel late = b.link.dma().addChannel("late", 1);
        DmaChannel now = b.link.dma().addChannel("now", 1);
        long readyAt = 500_000;
        long[] sent = new long[2];
        DmaCallback cb = new DmaCallback() {
            @Override
            public void writeSent(DmaRequest q) {
                sent[(int) q.cookie()] = b.sim.now();
            }
        };
        DmaRequest a = new DmaRequest().write(WRITE_BASE, new byte[64], 0, 64, cb, 0, false).notBefore(readyAt);
        DmaRequest c = new DmaRequest().write(WRITE_BASE + REGION, new byte[64], 0, 64, cb, 1, false);
        b.sim.event("client", () -> {
            assertThat(late.submit(a)).isTrue();
            assertThat(now.submit(c)).isTrue();
            assertThat(b.link.dma().writeTlpsIssued()).isEqualTo(1); // the second waits for the slot
        }).schedule(0);
        b.sim.run();
        long ser = b.link.up().serializationPs(64 + 24);
        List<Seen> up = b.upSeen.seen;
        assertThat(up).hasSize(2);
        assertThat(up.get(0).address).isEqualTo(WRITE_BASE);
        assertThat(up.get(0).startPs).isEqualTo(readyAt);
        assertThat(up.get(1).startPs).isEqualTo(readyAt + ser);
        assertThat(sent).containsExactly(readyAt + ser, readyAt + 2 * ser);
        // The second TLP is queued from its issue (the first one's start) to its own start.
        TimeAverage queued = timeAverage(b.link.up(), "queued");
        assertThat(queued.average()).isCloseTo((double) ser / b.sim.now(), within(1e-12));
        // Client, the wake-up at the first start, two deliveries, two sent reports.
        assertThat(b.sim.eventsExecuted()).isEqualTo(6);
    }

    // ---- per-channel rules --------------------------------------------------------------------------------------

    @Test
    void aReadyTimeBeforeTheChannelsPreviousOneIsRefusedAndNoReadyTimeWaitsBehindIt() {
        Bench b = new Bench(PcieConfig.defaults());
        DmaChannel ch = b.link.dma().addChannel("w", 4);
        DmaCallback cb = new DmaCallback() {
            @Override
            public void writeSent(DmaRequest q) {
            }
        };
        DmaRequest first = new DmaRequest().write(WRITE_BASE, new byte[8], 0, 8, cb, 0, false).notBefore(900_000);
        DmaRequest plain = new DmaRequest().write(WRITE_BASE + 8, new byte[8], 0, 8, cb, 1, false);
        DmaRequest early = new DmaRequest().write(WRITE_BASE + 16, new byte[8], 0, 8, cb, 2, false).notBefore(800_000);
        b.sim.event("client", () -> {
            assertThat(ch.submit(first)).isTrue();
            assertThat(ch.submit(plain)).isTrue();
            assertThat(plain.readyPs()).isEqualTo(900_000);
            assertThatThrownBy(() -> ch.submit(early)).isInstanceOf(InvariantViolation.class)
                    .hasMessageContaining("pcie.dma.w").hasMessageContaining("ready at 800000 ps")
                    .hasMessageContaining("previous request, ready at 900000 ps");
            assertThat(early.inEngine()).isFalse();
        }).schedule(100_000);
        b.sim.run();
        assertThat(b.upSeen.seen).extracting(Seen::address).containsExactly(WRITE_BASE, WRITE_BASE + 8);
        assertThat(b.upSeen.seen.get(0).startPs).isEqualTo(900_000);
        // Once its ready time is in the past, an earlier notBefore just means "now".
        assertThat(ch.submit(early.notBefore(800_000))).isTrue();
        assertThat(early.readyPs()).isEqualTo(b.sim.now());
        b.sim.run();
    }

    @Test
    void notBeforeIsValidatedAndResetByTheNextSetUp() {
        DmaRequest r = new DmaRequest();
        assertThatThrownBy(() -> r.notBefore(5)).isInstanceOf(IllegalStateException.class);
        DmaCallback cb = new DmaCallback() {
        };
        r.read(0x1000, new byte[4], 0, 4, cb, 0);
        assertThatThrownBy(() -> r.notBefore(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ready time");
        r.notBefore(7);
        assertThat(r.notBeforePs).isEqualTo(7);
        r.read(0x1000, new byte[4], 0, 4, cb, 0);
        assertThat(r.notBeforePs).isEqualTo(DmaRequest.NOW);
    }

    // ---- (b) mixed channels with random ready times -------------------------------------------------------------

    private record Accepted(TlpKind kind, long address, int length, long readyPs) {
    }

    /** One client on one channel: submits random reads and/or writes with random ready times. */
    private static final class Client implements DmaCallback {
        final int id;
        final Bench b;
        final SplittableRandom rnd;
        final DmaChannel ch;
        final int mode; // 0 reads, 1 writes, 2 both
        final int total;
        final ArrayDeque<DmaRequest> free = new ArrayDeque<>();
        final Event tick;
        final byte[] shadow = new byte[(int) REGION];
        /** Accepted requests in submission order (a copy: request objects are reused), and the wire's progress. */
        final List<Accepted> order = new ArrayList<>();
        int wireIdx;
        int wireOff;
        final ArrayDeque<DmaRequest> readsDue = new ArrayDeque<>();
        final ArrayDeque<DmaRequest> sentDue = new ArrayDeque<>();
        final ArrayDeque<DmaRequest> appliedDue = new ArrayDeque<>();
        DmaRequest refused;
        long lastReady;
        int submitted;
        int finished;

        Client(int id, Bench b, SplittableRandom rnd, int mode, int total) {
            this.id = id;
            this.b = b;
            this.rnd = rnd;
            this.mode = mode;
            this.total = total;
            this.ch = b.link.dma().addChannel("ch" + id, 1 + rnd.nextInt(4));
            for (int i = 0; i < 6; i++) {
                DmaRequest r = new DmaRequest();
                r.read(0, new byte[1600], 0, 1, this, 0); // a buffer for life
                free.add(r);
            }
            ch.setRetry(() -> {
                DmaRequest r = refused;
                refused = null;
                trySubmit(r);
            });
            tick = b.sim.event("client" + id, this::onTick);
        }

        void onTick() {
            if (refused == null && !free.isEmpty() && submitted < total) {
                DmaRequest r = free.poll();
                boolean read = mode == 0 || mode == 2 && rnd.nextBoolean();
                int len = 1 + rnd.nextInt(rnd.nextInt(3) == 0 ? 1600 : 100);
                long now = b.sim.now();
                if (read) {
                    r.read(READ_BASE + id * REGION + rnd.nextInt(8192), r.buffer(), 0, len, this, submitted);
                } else {
                    byte[] buf = r.buffer();
                    for (int i = 0; i < len; i++) {
                        buf[i] = (byte) rnd.nextInt();
                    }
                    r.write(WRITE_BASE + id * REGION + rnd.nextInt(8192), buf, 0, len, this, submitted,
                            rnd.nextBoolean());
                }
                long base = Math.max(now, lastReady);
                switch (rnd.nextInt(6)) {
                    case 0, 1 -> { } // ready at once, behind the channel's previous request
                    case 2, 3 -> r.notBefore(base + rnd.nextLong(600_000));
                    case 4 -> r.notBefore(base);
                    default -> r.notBefore(lastReady <= now ? rnd.nextLong(now + 1) : lastReady); // maybe in the past
                }
                trySubmit(r);
            }
            if (submitted < total) {
                tick.scheduleIn(rnd.nextInt(4) == 0 ? 0 : rnd.nextLong(300_000));
            }
        }

        void trySubmit(DmaRequest r) {
            long now = b.sim.now();
            long expected = Math.max(now, r.notBeforePs == DmaRequest.NOW ? lastReady : r.notBeforePs);
            if (!ch.submit(r)) {
                refused = r;
                return;
            }
            assertThat(r.readyPs()).as("ready time").isEqualTo(expected);
            assertThat(expected).as("ready times of a channel never decrease").isGreaterThanOrEqualTo(lastReady);
            lastReady = expected;
            submitted++;
            order.add(new Accepted(r.kind() == DmaRequest.Kind.READ ? TlpKind.MRD : TlpKind.MWR, r.hostAddress(),
                    r.length(), expected));
            if (r.kind() == DmaRequest.Kind.READ) {
                readsDue.add(r);
            } else {
                // Writes of a channel land in submission order: the shadow applies them in that order.
                System.arraycopy(r.buffer(), 0, shadow, (int) (r.hostAddress() - WRITE_BASE - id * REGION), r.length());
                sentDue.add(r);
                if (r.notifyApplied()) {
                    appliedDue.add(r);
                }
            }
        }

        /** A request TLP of this channel arrived at the root complex: it must continue the channel's order. */
        void onWire(Seen s) {
            Accepted r = order.get(wireIdx);
            assertThat(s.kind).as("kind of TLP %d of channel %d", wireIdx, id).isEqualTo(r.kind);
            assertThat(s.address).as("address, channel %d", id).isEqualTo(r.address + wireOff);
            assertThat(s.startPs).as("start after the ready time, channel %d", id).isGreaterThanOrEqualTo(r.readyPs);
            wireOff += s.length;
            if (wireOff == r.length) {
                wireIdx++;
                wireOff = 0;
            }
        }

        private void finish(ArrayDeque<DmaRequest> due, DmaRequest r, String what, long minDelay) {
            assertThat(due.poll()).as(what + " in order on channel " + id).isSameAs(r);
            assertThat(b.sim.now()).as(what + " after the ready time").isGreaterThanOrEqualTo(r.readyPs() + minDelay);
            if (!r.inEngine()) {
                finished++;
                free.add(r);
            }
        }

        @Override
        public void readDone(DmaRequest r) {
            PcieConfig cfg = b.link.config();
            finish(readsDue, r, "readDone", 2 * cfg.linkLatencyPs() + cfg.hostReadLatencyPs());
            for (int i = 0; i < r.length(); i++) {
                if (r.buffer()[i] != pattern(r.hostAddress() + i)) {
                    throw new AssertionError("read byte " + i + " of " + r + " differs");
                }
            }
        }

        @Override
        public void writeSent(DmaRequest r) {
            finish(sentDue, r, "writeSent", 1);
        }

        @Override
        public void writeApplied(DmaRequest r) {
            finish(appliedDue, r, "writeApplied", 1 + b.link.config().linkLatencyPs());
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {11, 12, 13, 14, 15, 16})
    void mixedChannelsWithRandomReadyTimesKeepOrderAndBytes(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        int[] sizes = {128, 256, 512};
        PcieConfig cfg = PcieConfig.defaults().withMps(sizes[rnd.nextInt(3)]).withMrrs(sizes[rnd.nextInt(3)])
                .withReadTags(1 + rnd.nextInt(6)).withQueues(1 + rnd.nextInt(3), 16);
        Bench b = new Bench(cfg);
        List<Client> clients = new ArrayList<>();
        for (int c = 0; c < 5; c++) {
            fillPattern(b.mem, READ_BASE + c * REGION, 8192 + 1600);
            clients.add(new Client(c, b, rnd, c % 3, 80));
        }
        List<Seen> log = b.upSeen.seen;
        int[] checked = {0};
        for (Client c : clients) {
            c.tick.schedule(rnd.nextLong(100_000));
        }
        while (b.sim.pendingEvents() > 0) {
            b.sim.runUntil(b.sim.now() + 200_000);
            for (; checked[0] < log.size(); checked[0]++) {
                Seen s = log.get(checked[0]);
                long base = s.address >= READ_BASE ? READ_BASE : WRITE_BASE;
                clients.get((int) ((s.address - base) / REGION)).onWire(s);
            }
        }
        for (Client c : clients) {
            assertThat(c.submitted).isEqualTo(80);
            assertThat(c.finished).as("requests finished on channel %d", c.id).isEqualTo(80);
            assertThat(c.wireIdx).isEqualTo(80);
            byte[] host = new byte[(int) REGION];
            b.mem.read(WRITE_BASE + c.id * REGION, host, 0, host.length);
            assertThat(Arrays.equals(host, c.shadow)).as("host memory of channel %d", c.id).isTrue();
        }
        assertThat(b.link.dma().tagsInUse()).isZero();
        assertThat(b.link.up().queued()).isZero();
    }
}
