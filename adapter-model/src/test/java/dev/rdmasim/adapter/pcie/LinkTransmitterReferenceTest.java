package dev.rdmasim.adapter.pcie;

import static dev.rdmasim.kernel.testing.VcdChanges.parseTimed;
import static dev.rdmasim.kernel.testing.VcdChanges.steps;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.stats.Stat;
import dev.rdmasim.kernel.stats.TimeAverage;
import dev.rdmasim.kernel.wave.SignalFilter;
import dev.rdmasim.kernel.wave.VcdWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.UnaryOperator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The lazily timed link against a reference written here from the rules alone: TLPs leave in ready order (ties in
 * enqueue order), each starts at the later of its ready time and the end of the bytes before it, DLLP and SKIP
 * bytes follow the TLP that crosses their interval, time is the byte count since the link last went idle times the
 * exact ps per byte, rounded up. A random sender (bursts, gaps, TLPs of every kind ready in the future, some writes
 * that want to hear of their end) pushes against small class limits. Every TLP's start, end, report of its end and
 * arrival, every answer of canAccept and every wake-up, the statistics at checkpoints and the number of events are
 * checked.
 */
class LinkTransmitterReferenceTest {
    private static final int[] HALF_GT = {5, 10, 16, 32, 64};
    private static final long GRID = 50_000;

    /** One TLP of the sender's script and what happened to it. */
    private static final class Item {
        final int id;
        final TlpKind kind;
        final int wireBytes;
        final long readyDelay;
        final boolean notify;
        long enqueuedPs = -1;
        long readyPs;
        long sentPs = -1;
        long arrivedPs = -1;
        /** When the receiver got it: its arrival, or later for a TLP taken late. */
        long handedPs = -1;
        boolean late;
        long startSeen;
        // The reference's answer.
        long start;
        long end;
        long free;
        int overhead;

        Item(int id, TlpKind kind, int wireBytes, long readyDelay, boolean notify) {
            this.id = id;
            this.kind = kind;
            this.wireBytes = wireBytes;
            this.readyDelay = readyDelay;
            this.notify = notify;
        }
    }

    /** An answer of canAccept, given when the first {@code enqueued} items of the script were queued. */
    private record Answer(long timePs, TlpKind kind, int enqueued, boolean accepted) {
    }

    private record Refusal(long timePs, TlpKind kind, int enqueued, long wokenPs) {
    }

    private record Checkpoint(long timePs, double busy, double queuedAverage, long queuedMax, int queued, int onWire,
            long wireBytes, long overheadBytes) {
    }

    private static final class Harness implements LinkEnd {
        final Simulator sim;
        final SplittableRandom rnd;
        final LinkTransmitter link;
        final List<Item> script;
        final Event tick;
        final List<Answer> answers = new ArrayList<>();
        final List<Refusal> refusals = new ArrayList<>();
        final List<Item> arrivals = new ArrayList<>();
        int next;
        int burstLeft;
        int ticks;
        int wakes;
        long refusedAt = -1;
        /** Take two TLPs in three late (by id), with late hand-over on. */
        boolean takeLate;

        Harness(Simulator sim, SplittableRandom rnd, PcieConfig cfg, int[] limits, List<Item> script) {
            this.sim = sim;
            this.rnd = rnd;
            Module top = new Module(sim, "top") {
            };
            this.link = new LinkTransmitter(top, "link", cfg, limits[0], limits[1], limits[2]);
            link.connect(this, this);
            link.setLateHandover(false);
            this.script = script;
            this.tick = sim.event("sender", () -> {
                ticks++;
                burstLeft = 1 + rnd.nextInt(4);
                push();
            });
        }

        void push() {
            while (burstLeft > 0 && next < script.size()) {
                Item it = script.get(next);
                boolean ok = link.canAccept(it.kind);
                answers.add(new Answer(sim.now(), it.kind, next, ok));
                if (!ok) {
                    refusedAt = sim.now();
                    return;
                }
                Tlp t = new Tlp(16);
                t.kind = it.kind;
                t.address = it.id;
                t.wireBytes = it.wireBytes;
                t.notifySent = it.notify;
                it.enqueuedPs = sim.now();
                // Future ready times on a 50 ns grid, so that several often fall on the same picosecond.
                it.readyPs = it.readyDelay == 0 ? sim.now() : (sim.now() + it.readyDelay) / GRID * GRID + GRID;
                link.enqueue(t, it.readyPs);
                next++;
                burstLeft--;
            }
            if (next < script.size()) {
                tick.scheduleIn(rnd.nextInt(3) == 0 ? 0 : rnd.nextLong(250_000));
            }
        }

        @Override
        public boolean takesLate(Tlp tlp) {
            boolean late = takeLate && tlp.address % 3 != 0;
            script.get((int) tlp.address).late = late;
            return late;
        }

        @Override
        public void receive(Tlp tlp) {
            Item it = script.get((int) tlp.address);
            assertThat(tlp.late).as("late flag of %d", it.id).isEqualTo(it.late);
            it.arrivedPs = it.late ? tlp.arrivePs : sim.now();
            it.handedPs = sim.now();
            it.startSeen = tlp.startPs;
            arrivals.add(it);
        }

        @Override
        public void sent(Tlp tlp) {
            script.get((int) tlp.address).sentPs = sim.now();
        }

        @Override
        public void txSpace() {
            wakes++;
            assertThat(refusedAt).as("woken without having been refused").isGreaterThanOrEqualTo(0);
            Item waiting = script.get(next);
            refusals.add(new Refusal(refusedAt, waiting.kind, next, sim.now()));
            refusedAt = -1;
            push();
        }
    }

    // ---- the reference --------------------------------------------------------------------------------------

    /** Wire order and timing of every TLP, from the enqueue and ready times the run produced. */
    private static List<Item> reference(PcieConfig cfg, List<Item> items) {
        List<Item> order = new ArrayList<>(items);
        order.sort(Comparator.comparingLong((Item i) -> i.readyPs).thenComparingLong(i -> i.enqueuedPs)
                .thenComparingInt(i -> i.id));
        long num = 8L * 2000 * (cfg.gen() <= 2 ? 10 : 130);
        long den = (long) HALF_GT[cfg.gen() - 1] * (cfg.gen() <= 2 ? 8 : 128) * cfg.lanes();
        int ack = cfg.effectiveAckLimit();
        int fc = cfg.effectiveFcUpdateLimit();
        long free = 0;
        long anchorPs = 0;
        long sinceAnchor = 0;
        long sinceAck = 0;
        long sinceFc = 0;
        long sinceSkip = 0;
        for (Item it : order) {
            if (it.readyPs > free) {
                anchorPs = it.readyPs;
                sinceAnchor = 0;
                it.start = it.readyPs;
            } else {
                it.start = free;
            }
            sinceAnchor += it.wireBytes;
            sinceAck += it.wireBytes;
            sinceFc += it.wireBytes;
            sinceSkip += it.wireBytes;
            it.end = anchorPs + ceilDiv(sinceAnchor * num, den);
            int extra = 0;
            while (true) {
                int n;
                if (sinceAck >= ack) {
                    sinceAck -= ack;
                    n = 8;
                } else if (sinceFc >= fc) {
                    sinceFc -= fc;
                    n = 8;
                } else if (sinceSkip >= 1538) {
                    sinceSkip -= 1538;
                    n = 4;
                } else {
                    break;
                }
                extra += n;
                sinceAnchor += n;
                sinceAck += n;
                sinceFc += n;
                sinceSkip += n;
            }
            it.overhead = extra;
            it.free = anchorPs + ceilDiv(sinceAnchor * num, den);
            free = it.free;
        }
        return order;
    }

    private static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }

    /**
     * The queue level's maximum over {@code (from, to]}, starting from the level at {@code from}: at one instant an
     * earlier TLP leaves before a later one enters, and a TLP enters before it leaves.
     */
    private static long referenceQueuedMax(List<Item> order, long from, long to) {
        List<long[]> changes = new ArrayList<>(); // {time, position, 0 = enters | 1 = leaves}
        for (int i = 0; i < order.size(); i++) {
            Item it = order.get(i);
            if (it.readyPs <= to) {
                changes.add(new long[] {it.readyPs, i, 0});
            }
            if (it.start <= to) {
                changes.add(new long[] {it.start, i, 1});
            }
        }
        changes.sort(Comparator.<long[]>comparingLong(c -> c[0]).thenComparingLong(c -> c[1]).thenComparingLong(c -> c[2]));
        long level = 0;
        long max = 0;
        for (long[] c : changes) {
            level += c[2] == 0 ? 1 : -1;
            max = c[0] <= from ? level : Math.max(max, level);
        }
        return max;
    }

    private static double overlap(long a, long b, long from, long to) {
        return Math.max(0, Math.min(b, to) - Math.max(a, from));
    }

    private static TimeAverage timeAverage(LinkTransmitter link, String name) {
        for (Stat s : link.stats().stats()) {
            if (s.name().equals(name)) {
                return (TimeAverage) s;
            }
        }
        throw new AssertionError("no statistic " + name);
    }

    // ---- the test ---------------------------------------------------------------------------------------------

    /** A seed's link, class limits and sender script. */
    private record Setup(PcieConfig cfg, int[] limits, List<Item> script) {
    }

    private static Setup setup(long seed, SplittableRandom rnd) {
        int[] mps = {128, 256, 512};
        PcieConfig cfg = PcieConfig.defaults().withLink(1 + rnd.nextInt(5), 1 << rnd.nextInt(6))
                .withMps(mps[rnd.nextInt(3)])
                .withLatencies(0, seed % 4 == 0 ? 0 : rnd.nextLong(150_000)) // no latency: end and arrival coincide
                .withDllpLimits(rnd.nextBoolean() ? 0 : 24 + rnd.nextInt(300), rnd.nextBoolean() ? 0 : 24 + rnd.nextInt(300));
        // Tight posted and non-posted limits push back; completions (ready in the future) are never refused.
        int[] limits = {1 + rnd.nextInt(3), 1 + rnd.nextInt(3), 1000};
        List<Item> script = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            TlpKind kind = TlpKind.values()[rnd.nextInt(3)];
            int payload = kind == TlpKind.MRD ? 0 : 1 + rnd.nextInt(cfg.mps());
            int overhead = kind == TlpKind.CPLD ? cfg.completionOverheadBytes() : cfg.requestOverheadBytes();
            // Completions wait for host memory; requests may be handed over ahead of their ready time (DMA requests
            // with a ready time), including writes that want to hear of their end.
            boolean later = kind == TlpKind.CPLD ? rnd.nextBoolean() : rnd.nextInt(4) == 0;
            long readyDelay = later ? rnd.nextLong(400_000) : 0;
            script.add(new Item(i, kind, overhead + payload, readyDelay, kind == TlpKind.MWR && rnd.nextBoolean()));
        }
        return new Setup(cfg, limits, script);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void everyTlpStartsEndsAndArrivesWhereTheReferenceSays(long seed) {
        checkAgainstTheReference(seed, false);
    }

    /**
     * With late hand-over, TLPs the receiver takes late cost no event: each reaches the receiver in wire order, with
     * its true arrival time, no earlier than that and no later than the next TLP delivered by event (or the end of
     * the run, which waits for the last arrival); timing, limits, wake-ups and statistics are exactly as before.
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void tlpsTakenLateKeepEveryTimeAndCostNoEvent(long seed) {
        checkAgainstTheReference(seed, true);
    }

    /**
     * Ack DLLPs due before flow-control updates, after them, or together, and SKIPs among either: each interval
     * crossed on its own adds its overhead after the TLP that crossed it.
     */
    @ParameterizedTest
    @CsvSource({"40, 300", "300, 40", "64, 64", "1000, 1400"})
    void eachDllpIntervalAddsItsOwnOverhead(int ackLimit, int fcLimit) {
        for (long seed = 41; seed <= 43; seed++) {
            checkAgainstTheReference(seed, seed == 42, c -> c.withDllpLimits(ackLimit, fcLimit));
        }
    }

    private void checkAgainstTheReference(long seed, boolean late) {
        checkAgainstTheReference(seed, late, c -> c);
    }

    private void checkAgainstTheReference(long seed, boolean late, UnaryOperator<PcieConfig> adjust) {
        SplittableRandom rnd = new SplittableRandom(seed);
        Setup setup = setup(seed, rnd);
        PcieConfig cfg = adjust.apply(setup.cfg);
        int[] limits = setup.limits;
        List<Item> script = setup.script;
        Simulator sim = new Simulator(seed);
        Harness h = new Harness(sim, rnd, cfg, limits, script);
        h.takeLate = late;
        h.link.setLateHandover(late);
        h.tick.schedule(0);
        List<Checkpoint> checkpoints = new ArrayList<>();
        TimeAverage queued = timeAverage(h.link, "queued");
        // Statistics are reset at every checkpoint, so each one covers a short interval of its own.
        for (long t = 1 + rnd.nextLong(300_000); h.next < script.size() || sim.pendingEvents() > 0;
                t += 1 + rnd.nextLong(300_000)) {
            sim.runUntil(t);
            h.link.stats().refresh(); // the queue's average is folded in on refresh (Little's law)
            checkpoints.add(new Checkpoint(t, h.link.busyFraction(), queued.average(), queued.max(), h.link.queued(),
                    h.link.onWire(), h.link.wireBytes(), h.link.overheadBytes()));
            sim.stats().reset();
        }
        // Late TLPs still on the wire when the events ran out arrive as the run ends.
        long lastEvent = sim.now();
        sim.run();

        List<Item> order = reference(cfg, script);
        assertThat(h.arrivals).as("arrival order").containsExactlyElementsOf(order);
        long flagged = 0;
        long eagerDeliveries = 0;
        long nextEagerPs = sim.now();
        for (int i = order.size() - 1; i >= 0; i--) {
            Item it = order.get(i);
            assertThat(it.startSeen).as("start of %d", it.id).isEqualTo(it.start);
            assertThat(it.arrivedPs).as("arrival of %d", it.id).isEqualTo(it.end + cfg.linkLatencyPs());
            assertThat(it.sentPs).as("end reported for %d", it.id).isEqualTo(it.notify ? it.end : -1);
            if (it.late) {
                assertThat(it.handedPs).as("hand-over of late %d", it.id).isBetween(it.arrivedPs, nextEagerPs);
            } else {
                assertThat(it.handedPs).as("delivery of %d", it.id).isEqualTo(it.arrivedPs);
                nextEagerPs = it.arrivedPs;
                eagerDeliveries++;
            }
            flagged += it.notify ? 1 : 0;
        }
        long lastArrival = order.stream().mapToLong(i -> i.arrivedPs).max().orElseThrow();
        assertThat(sim.now()).as("the run ends at the last arrival").isEqualTo(Math.max(lastEvent, lastArrival));
        if (late) {
            assertThat(order.stream().filter(i -> i.late).count()).as("TLPs taken late").isPositive();
        } else {
            assertThat(eagerDeliveries).isEqualTo(order.size());
        }

        // Every answer of canAccept: class slots are held from enqueue until the start.
        for (Answer a : h.answers) {
            long held = script.stream().filter(i -> i.id < a.enqueued && i.kind == a.kind && i.start > a.timePs).count();
            assertThat(a.accepted).as("canAccept(%s) at %d with %d held", a.kind, a.timePs, held)
                    .isEqualTo(held < limits[a.kind.ordinal()]);
        }
        // Every refused sender is woken at the instant the first TLP holding a slot of its class starts.
        assertThat(h.refusals).as("the limits pushed back").isNotEmpty();
        for (Refusal r : h.refusals) {
            long frees = script.stream().filter(i -> i.id < r.enqueued && i.kind == r.kind && i.start > r.timePs)
                    .mapToLong(i -> i.start).min().orElseThrow();
            assertThat(r.wokenPs).as("wake-up after the refusal at %d", r.timePs).isEqualTo(frees);
        }

        long from = 0;
        for (Checkpoint c : checkpoints) {
            long t = c.timePs;
            double busyArea = 0;
            double queueArea = 0;
            int waiting = 0;
            int onWire = 0;
            long bytes = 0;
            long overhead = 0;
            for (Item it : order) {
                overhead += it.start <= t && (it.start > from || from == 0) ? it.overhead : 0;
                busyArea += overlap(it.start, it.free, from, t);
                queueArea += overlap(it.readyPs, it.start, from, t);
                waiting += it.readyPs <= t && it.start > t ? 1 : 0;
                onWire += it.end <= t && it.end + cfg.linkLatencyPs() > t ? 1 : 0;
                bytes += it.start <= t ? it.wireBytes + it.overhead : 0;
            }
            assertThat(c.busy).as("busy over (%d, %d]", from, t).isCloseTo(busyArea / (t - from), within(1e-12));
            assertThat(c.queuedAverage).as("queued over (%d, %d]", from, t)
                    .isCloseTo(queueArea / (t - from), within(1e-9));
            assertThat(c.queuedMax).as("queued max over (%d, %d]", from, t)
                    .isEqualTo(referenceQueuedMax(order, from == 0 ? -1 : from, t)); // created before anything at 0
            assertThat(c.queued).as("queued at %d", t).isEqualTo(waiting);
            assertThat(c.onWire).as("on the wire at %d", t).isEqualTo(onWire);
            assertThat(c.wireBytes).as("wire bytes at %d", t).isEqualTo(bytes);
            assertThat(c.overheadBytes).as("DLLP and SKIP bytes over (%d, %d]", from, t).isEqualTo(overhead);
            from = t;
        }

        // Events: the sender's own, one delivery per TLP, one per end reported (with no latency the delivery may
        // report it), one per wake-up; nothing else.
        long expected = h.ticks + eagerDeliveries + h.wakes;
        if (cfg.linkLatencyPs() > 0) {
            assertThat(sim.eventsExecuted()).isEqualTo(expected + flagged);
        } else {
            assertThat(sim.eventsExecuted()).isBetween(expected, expected + flagged);
        }
    }


    /**
     * With its signals traced the link times every TLP as before, and the waveform shows the reference's levels at
     * their instants: busy from each TLP's start to the end of the DLLP and SKIP bytes after it (unless the next
     * TLP follows at once), queued from a TLP's ready time to its start, onWire from its last byte to its arrival.
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void tracedSignalsFollowTheReference(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        Setup setup = setup(seed, rnd);
        Simulator sim = new Simulator(seed);
        StringWriter out = new StringWriter();
        VcdWriter vcd = new VcdWriter(out, sim::now, SignalFilter.ALL);
        sim.attachWave(vcd);
        Harness h = new Harness(sim, rnd, setup.cfg, setup.limits, setup.script);
        h.tick.schedule(0);
        sim.run();
        vcd.close();

        List<Item> order = reference(setup.cfg, setup.script);
        assertThat(h.arrivals).as("arrival order").containsExactlyElementsOf(order);
        long latency = setup.cfg.linkLatencyPs();
        List<long[]> busy = new ArrayList<>();
        List<long[]> queued = new ArrayList<>();
        List<long[]> onWire = new ArrayList<>();
        for (Item it : order) {
            assertThat(it.startSeen).as("start of %d", it.id).isEqualTo(it.start);
            assertThat(it.arrivedPs).as("arrival of %d", it.id).isEqualTo(it.end + latency);
            assertThat(it.sentPs).as("end reported for %d", it.id).isEqualTo(it.notify ? it.end : -1);
            busy.add(new long[] {it.start, 1});
            busy.add(new long[] {it.free, -1});
            queued.add(new long[] {it.readyPs, 1});
            queued.add(new long[] {it.start, -1});
            onWire.add(new long[] {it.end, 1});
            onWire.add(new long[] {it.end + latency, -1});
        }
        Map<String, List<long[]>> wave = parseTimed(out.toString());
        assertThat(steps(wave.get("top.link.busy"))).as("busy").containsExactlyElementsOf(levels(busy));
        assertThat(steps(wave.get("top.link.queued"))).as("queued").containsExactlyElementsOf(levels(queued));
        assertThat(steps(wave.get("top.link.onWire"))).as("onWire").containsExactlyElementsOf(levels(onWire));
        assertThat(levels(queued)).as("the queue was traced").hasSizeGreaterThan(order.size() / 2);
    }

    /** The same form for a level made of +1 and -1 steps (busy is 1 while its level is positive). */
    static List<String> levels(List<long[]> deltas) {
        List<long[]> sorted = new ArrayList<>(deltas);
        sorted.sort(Comparator.comparingLong(d -> d[0]));
        List<long[]> changes = new ArrayList<>();
        long level = 0;
        for (long[] d : sorted) {
            level += d[1];
            changes.add(new long[] {d[0], level});
        }
        return steps(changes);
    }
}
