package dev.rdmasim.adapter.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.stats.Stat;
import dev.rdmasim.kernel.stats.StatsGroup;
import dev.rdmasim.kernel.stats.TimeAverage;
import dev.rdmasim.kernel.wave.SignalFilter;
import dev.rdmasim.kernel.wave.VcdWriter;
import java.io.StringWriter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.eclipse.collections.impl.list.mutable.primitive.LongArrayList;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The lazily timed {@link LinkDirection} against a reference written independently: a plain discrete-event
 * model with one event per change (frame sent, frame ready, slot end, arrival, retry), in the spirit of the
 * direction before it became lazy. Random frame sizes, send times, ready times, receiver refusals with retries,
 * drops and bit flips; every frame's start, end and arrival picosecond, the start and delivery order, the
 * counters, the time averages (also read mid-run), the traced waveform and the number of events must agree.
 *
 * <p>Ties at one instant follow the link's rules, which the reference encodes as phases: the line first (a slot
 * ends, the next frame starts), then frames sent or becoming ready, then arrivals (a refusal stalls from here),
 * then the receiver's retry. The test's sender runs at a priority before the link's events so that its sends
 * at an instant precede the link's own work there, as phase order says.
 */
class LazyLinkReferenceTest {
    private static final int FRAMES = 1_500;
    private static final int SENDER_PRIORITY = -1;

    enum Mode {
        /** No tap, no traced signal: nothing but arrivals and retries drives the direction. */
        BARE,
        /** A tap: frames must be shown at their start, in order. */
        TAPPED,
        /** The direction's signals traced to a VCD. */
        TRACED
    }

    /** The environment: what is sent when, and what the receiver decides. Shared by the run and the reference. */
    static final class Plan {
        final int rate;
        final long propagation;
        final double pDrop;
        final double pCorrupt;
        final long receiverSeed;
        final long retryUnit;
        final long retryRange;
        final long[] sendPs = new long[FRAMES];
        final long[] readyDelay = new long[FRAMES];
        final int[] payload = new int[FRAMES];

        /**
         * @param ties put every time on a grid of two byte times and use two frame sizes whose slots are whole
         *     grid steps, so that sends, readiness, slot ends, arrivals and retries often fall on one instant
         */
        Plan(long seed, boolean ties) {
            SplittableRandom rnd = new SplittableRandom(seed);
            int[] rates = ties ? new int[] {25, 100, 400} : new int[] {25, 56, 100, 333, 400};
            rate = rates[rnd.nextInt(rates.length)];
            long unit = ties ? 2 * 8000L / rate : 1;
            propagation = rnd.nextInt(3) == 0 ? 0 : unit * rnd.nextLong(ties ? 200 : 100_000);
            boolean faulty = rnd.nextBoolean();
            pDrop = faulty ? 0.05 : 0;
            pCorrupt = faulty ? 0.05 : 0;
            receiverSeed = rnd.nextLong();
            retryUnit = unit;
            retryRange = ties ? 300 : 500_000;
            long t = unit * (1 + rnd.nextLong(ties ? 10 : 10_000)); // after 0, where a time average is its current level
            for (int i = 0; i < FRAMES; i++) {
                t += unit * switch (rnd.nextInt(4)) {
                    case 0 -> 0; // bursts
                    case 1 -> rnd.nextLong(ties ? 60 : 50_000);
                    case 2 -> rnd.nextLong(ties ? 200 : 300_000);
                    default -> rnd.nextLong(ties ? 1_000 : 2_000_000);
                };
                sendPs[i] = t;
                readyDelay[i] = rnd.nextBoolean() ? 0 : unit * rnd.nextLong(ties ? 300 : 400_000);
                if (ties) {
                    payload[i] = rnd.nextBoolean() ? 16 : 116; // frames of 74 and 174 bytes: 98 and 198 byte times
                } else {
                    payload[i] = rnd.nextInt(10) == 0 ? rnd.nextInt(4097) : rnd.nextInt(1500);
                }
            }
        }
    }

    /** One receiver decision: refuse (and retry after {@code delay}) or take the frame. */
    record Decision(boolean refuse, long delay) {
        static Decision next(SplittableRandom rnd, Plan plan) {
            boolean refuse = rnd.nextInt(10) == 0;
            long delay = rnd.nextInt(4) == 0 ? 0 : plan.retryUnit * rnd.nextLong(plan.retryRange);
            return new Decision(refuse, delay);
        }
    }

    /** A level change of a traced quantity at an instant, in the order it happened. */
    record Change(long time, long value) {
    }

    /** What the link did, as seen by the test or computed by the reference. */
    static final class Outcome {
        final long[] start = new long[FRAMES];
        final long[] end = new long[FRAMES];
        final long[] arrival = new long[FRAMES];
        final long[] sequence = new long[FRAMES];
        final long[] delivered = new long[FRAMES];
        final int[] corruptBit = new int[FRAMES];
        final LongArrayList startOrder = new LongArrayList();
        final LongArrayList deliveryOrder = new LongArrayList();
        final List<Change> busy = new ArrayList<>();
        final List<Change> queue = new ArrayList<>();
        final List<Change> stalled = new ArrayList<>();
        long dropped;
        long corrupted;
        long refusals;
        long stalledTime;
        long queueMax;
        long arrivalEvents;

        Outcome() {
            Arrays.fill(delivered, -1);
            Arrays.fill(corruptBit, -1);
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6})
    void bareDirectionMatchesTheReference(long seed) {
        check(seed, Mode.BARE, false);
    }

    @ParameterizedTest
    @ValueSource(longs = {7, 8, 9})
    void tappedDirectionMatchesTheReference(long seed) {
        check(seed, Mode.TAPPED, false);
    }

    @ParameterizedTest
    @ValueSource(longs = {10, 11, 12})
    void tracedDirectionMatchesTheReference(long seed) {
        check(seed, Mode.TRACED, false);
    }

    @ParameterizedTest
    @ValueSource(longs = {13, 14, 15, 16})
    void bareDirectionMatchesTheReferenceWhenEverythingTies(long seed) {
        check(seed, Mode.BARE, true);
    }

    @ParameterizedTest
    @ValueSource(longs = {17, 18})
    void tappedDirectionMatchesTheReferenceWhenEverythingTies(long seed) {
        check(seed, Mode.TAPPED, true);
    }

    @ParameterizedTest
    @ValueSource(longs = {19, 20, 21, 22})
    void tracedDirectionMatchesTheReferenceWhenEverythingTies(long seed) {
        check(seed, Mode.TRACED, true);
    }

    private void check(long seed, Mode mode, boolean ties) {
        Plan plan = new Plan(seed, ties);
        Simulator sim = new Simulator(seed);
        StringWriter vcd = new StringWriter();
        VcdWriter wave = null;
        if (mode == Mode.TRACED) {
            wave = new VcdWriter(vcd, sim, SignalFilter.parse("link.aToB.*"));
            sim.attachWave(wave);
        }
        // One buffer per frame: no buffer is reused, so every Frame keeps its times for the check.
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(plan.rate, plan.propagation, FRAMES));
        LinkDirection dir = link.aToB();
        dir.setFaults(plan.pDrop, plan.pCorrupt);
        LongArrayList tapTimes = new LongArrayList();
        LongArrayList tapPsns = new LongArrayList();
        if (mode == Mode.TAPPED) {
            link.addTap((t, d, n) -> {
                tapTimes.add(t);
                tapPsns.add(RoceLayout.u24(d, RoceLayout.BTH_OFFSET + 9));
            });
        }

        // Buffers are reused once released: a frame's times are read when its buffer is next acquired, or at the end.
        int[] lastUse = new int[FRAMES];
        Arrays.fill(lastUse, -1);
        Frame[] byId = new Frame[FRAMES];
        byte[][] sent = new byte[FRAMES][];
        Outcome got = new Outcome();
        SplittableRandom decisions = new SplittableRandom(plan.receiverSeed);
        RoceReader reader = new RoceReader();
        int[] testEvents = {0};
        Event unblock = sim.event("unblock", () -> {
            testEvents[0]++;
            link.b().retryDelivery();
        });
        link.b().connectReceiver(f -> {
            Decision d = Decision.next(decisions, plan);
            if (d.refuse()) {
                unblock.scheduleIn(d.delay());
                return false;
            }
            int psn = reader.wrap(f.data(), f.length()) == FrameCheck.VALID ? reader.psn() : -1;
            int i = psn >= 0 ? psn : lastUse[f.id];
            got.delivered[i] = sim.now();
            got.deliveryOrder.add(i);
            if (psn < 0) {
                got.corruptBit[i] = flippedBit(sent[i], f.data(), f.length());
            }
            f.release();
            return true;
        });

        RoceWriter writer = new RoceWriter();
        List<long[]> reads = new ArrayList<>(); // {time, busy average bits, txQueue average bits}
        TimeAverage txQueue = timeAverage(sim, "link.aToB", "txQueue");
        int[] next = {0};
        Event[] send = new Event[1];
        send[0] = sim.event("send", SENDER_PRIORITY, () -> {
            testEvents[0]++;
            long now = sim.now();
            while (next[0] < FRAMES && plan.sendPs[next[0]] == now) {
                int i = next[0]++;
                Frame f = link.a().acquire();
                if (lastUse[f.id] >= 0) {
                    snapshot(got, lastUse[f.id], f, plan.propagation);
                }
                lastUse[f.id] = i;
                byId[f.id] = f;
                writer.bth(Opcode.SEND_ONLY, 9, i);
                Arrays.fill(f.data(), writer.payloadOffset(), writer.payloadOffset() + plan.payload[i], (byte) i);
                f.length(writer.write(f.data(), plan.payload[i]));
                sent[i] = Arrays.copyOf(f.data(), f.length());
                link.a().send(f, now + plan.readyDelay[i]);
                if (i % 97 == 0) {
                    reads.add(new long[] {now, Double.doubleToLongBits(dir.busyFraction()),
                        Double.doubleToLongBits(txQueue.average())});
                }
            }
            if (next[0] < FRAMES) {
                send[0].schedule(plan.sendPs[next[0]]);
            }
        });
        send[0].schedule(plan.sendPs[0]);
        sim.run();
        long endPs = sim.now();
        if (wave != null) {
            wave.close();
        }
        for (int id = 0; id < FRAMES; id++) {
            if (lastUse[id] >= 0) {
                snapshot(got, lastUse[id], byId[id], plan.propagation);
            }
        }

        Outcome want = new Reference(plan, sim.random().stream("link.aToB"), sent).run();
        assertThat(got.start).as("start ps").containsExactly(want.start);
        assertThat(got.end).as("slot end ps").containsExactly(want.end);
        assertThat(got.arrival).as("arrival ps").containsExactly(want.arrival);
        assertThat(got.sequence).as("start order").containsExactly(want.sequence);
        assertThat(got.deliveryOrder.toArray()).as("delivery order").containsExactly(want.deliveryOrder.toArray());
        assertThat(got.delivered).as("delivery ps").containsExactly(want.delivered);
        assertThat(got.corruptBit).as("flipped bits").containsExactly(want.corruptBit);
        assertThat(dir.framesSent()).isEqualTo(FRAMES);
        assertThat(dir.framesDelivered()).isEqualTo(want.deliveryOrder.size());
        assertThat(dir.framesDropped()).isEqualTo(want.dropped);
        assertThat(dir.framesCorrupted()).isEqualTo(want.corrupted);
        assertThat(dir.refusals()).isEqualTo(want.refusals);
        assertThat(counter(sim, "link.aToB", "stalledTime")).isEqualTo(want.stalledTime);
        assertThat(want.refusals).as("the plan exercises stalls").isGreaterThan(50);
        if (plan.pDrop > 0) {
            assertThat(want.dropped).as("the plan exercises drops").isGreaterThan(20);
            assertThat(want.corrupted).as("the plan exercises bit flips").isGreaterThan(20);
        }

        // Time averages, exactly: integer areas over the same span, also at the reads taken mid-run.
        assertThat(dir.busyFraction()).isEqualTo((double) area(want.busy, endPs) / endPs);
        assertThat(txQueue.average()).isEqualTo((double) area(want.queue, endPs) / endPs);
        assertThat(txQueue.max()).isEqualTo(want.queueMax);
        for (long[] r : reads) {
            double busyThen = r[0] == 0 ? 0 : (double) area(want.busy, r[0]) / r[0];
            double queueThen = r[0] == 0 ? 0 : (double) area(want.queue, r[0]) / r[0];
            assertThat(Double.longBitsToDouble(r[1])).as("busy read at %d ps", r[0]).isEqualTo(busyThen);
            assertThat(Double.longBitsToDouble(r[2])).as("txQueue read at %d ps", r[0]).isEqualTo(queueThen);
        }

        switch (mode) {
            case BARE -> {
                // One event per frame arriving while the direction is not stalled, one per retry; nothing else.
                long linkEvents = sim.eventsExecuted() - testEvents[0];
                assertThat(linkEvents).isEqualTo(want.arrivalEvents + want.refusals);
            }
            case TAPPED -> {
                long[] order = want.startOrder.toArray();
                long[] times = new long[order.length];
                for (int k = 0; k < order.length; k++) {
                    times[k] = want.start[(int) order[k]];
                }
                assertThat(tapPsns.toArray()).as("tapped frames").containsExactly(order);
                assertThat(tapTimes.toArray()).as("tap times").containsExactly(times);
            }
            case TRACED -> {
                Map<String, List<Change>> traced = parseVcd(vcd.toString());
                assertThat(traced.get("busy")).as("busy signal").containsExactlyElementsOf(want.busy);
                assertThat(traced.get("txQueue")).as("txQueue signal").containsExactlyElementsOf(want.queue);
                assertThat(traced.get("stalled")).as("stalled signal").containsExactlyElementsOf(want.stalled);
            }
        }
    }

    private static void snapshot(Outcome got, int i, Frame f, long propagation) {
        got.start[i] = f.txStartPs();
        got.arrival[i] = f.arrivalPs();
        got.end[i] = f.arrivalPs() - propagation;
        got.sequence[i] = f.sequence();
    }

    private static int flippedBit(byte[] sent, byte[] got, int length) {
        assertThat(length).isEqualTo(sent.length);
        int bit = -1;
        for (int i = 0; i < length; i++) {
            int diff = (sent[i] ^ got[i]) & 0xFF;
            if (diff != 0) {
                assertThat(bit).as("one flipped bit").isEqualTo(-1);
                assertThat(Integer.bitCount(diff)).isEqualTo(1);
                bit = i * 8 + Integer.numberOfTrailingZeros(diff);
            }
        }
        return bit;
    }

    /** Integral of a level over [0, until) from its changes (level 0 before the first). */
    private static long area(List<Change> changes, long until) {
        long area = 0;
        long level = 0;
        long since = 0;
        for (Change c : changes) {
            if (c.time() >= until) {
                break;
            }
            area += level * (c.time() - since);
            level = c.value();
            since = c.time();
        }
        return area + level * (until - since);
    }

    private static TimeAverage timeAverage(Simulator sim, String group, String name) {
        return (TimeAverage) stat(sim, group, name);
    }

    private static long counter(Simulator sim, String group, String name) {
        return ((dev.rdmasim.kernel.stats.Counter) stat(sim, group, name)).value();
    }

    private static Stat stat(Simulator sim, String group, String name) {
        for (StatsGroup g : sim.stats().groups()) {
            if (g.path().equals(group)) {
                for (Stat s : g.stats()) {
                    if (s.name().equals(name)) {
                        return s;
                    }
                }
            }
        }
        throw new AssertionError("no statistic " + group + "." + name);
    }

    /** Changes of the traced signals (by their last name component), after the initial dump. */
    static Map<String, List<Change>> parseVcd(String text) {
        Map<String, String> names = new HashMap<>();
        Map<String, List<Change>> changes = new HashMap<>();
        boolean body = false;
        boolean initial = false;
        long time = 0;
        for (String line : text.split("\n")) {
            if (line.startsWith("$var")) {
                String[] p = line.split(" ");
                names.put(p[3], p[4]);
                changes.put(p[4], new ArrayList<>());
            } else if (line.startsWith("$enddefinitions")) {
                body = true;
            } else if (!body) {
                continue;
            } else if (line.equals("$dumpvars")) {
                initial = true;
            } else if (line.equals("$end")) {
                initial = false;
            } else if (line.startsWith("#")) {
                time = Long.parseLong(line.substring(1));
            } else if (!initial && !line.isEmpty()) {
                long value;
                String id;
                if (line.startsWith("b")) {
                    int space = line.indexOf(' ');
                    value = Long.parseLong(line.substring(1, space), 2);
                    id = line.substring(space + 1);
                } else {
                    value = line.charAt(0) - '0';
                    id = line.substring(1);
                }
                changes.get(names.get(id)).add(new Change(time, value));
            }
        }
        return changes;
    }

    /**
     * The reference: one event per change in a priority queue ordered by (time, phase, key), with the
     * direction's rules restated plainly. Phases at one instant: 0 slot end, 1 send / ready (key = frame
     * index, i.e. send order), 2 arrival, 3 retry.
     */
    static final class Reference {
        private static final int SLOT_END = 0;
        private static final int SEND = 1;
        private static final int READY = 2;
        private static final int ARRIVAL = 3;
        private static final int RETRY = 4;

        private final Plan plan;
        private final SplittableRandom faults;
        private final SplittableRandom decisions;
        private final byte[][] bytes;
        private final Outcome out = new Outcome();
        private final PriorityQueue<long[]> events = new PriorityQueue<>((x, y) -> {
            for (int k = 0; k < 3; k++) {
                int c = Long.compare(x[k], y[k]);
                if (c != 0) {
                    return c;
                }
            }
            return 0;
        });
        private long order;
        private long now;
        /** Waiting frames, by (ready, index); whether each is ready yet. */
        private final List<Integer> queue = new ArrayList<>();
        private final boolean[] ready = new boolean[FRAMES];
        private final long[] readyTimes = new long[FRAMES];
        private int readyCount;
        private final ArrayDeque<Integer> inFlight = new ArrayDeque<>();
        private final int[] fate = new int[FRAMES];
        private boolean lineBusy;
        private boolean busyLevel;
        private long lineFreeAt = -1;
        private long epoch;
        private long epochBytes;
        private int parked = -1;
        private long stallStart;
        private long nextSequence;

        Reference(Plan plan, SplittableRandom faults, byte[][] bytes) {
            this.plan = plan;
            this.faults = faults;
            this.decisions = new SplittableRandom(plan.receiverSeed);
            this.bytes = bytes;
        }

        private void at(long time, int phase, long key, int type, int arg) {
            events.add(new long[] {time, phase, key, type, arg});
        }

        Outcome run() {
            for (int i = 0; i < FRAMES; i++) {
                at(plan.sendPs[i], 1, i, SEND, i);
            }
            while (!events.isEmpty()) {
                long[] e = events.poll();
                now = e[0];
                int i = (int) e[4];
                switch ((int) e[3]) {
                    case SEND -> {
                        long readyAt = now + plan.readyDelay[i];
                        int pos = 0;
                        while (pos < queue.size() && readyAt(queue.get(pos)) <= readyAt) {
                            pos++;
                        }
                        queue.add(pos, i);
                        readyTimes[i] = readyAt;
                        if (readyAt == now) {
                            becomeReady(i);
                        } else {
                            at(readyAt, 1, i, READY, i);
                        }
                    }
                    case READY -> becomeReady(i);
                    case SLOT_END -> {
                        lineBusy = false;
                        tryStart();
                        if (!lineBusy) {
                            setBusy(false);
                        }
                    }
                    case ARRIVAL -> {
                        if (parked < 0) {
                            out.arrivalEvents++;
                            deliver();
                        }
                    }
                    case RETRY -> {
                        out.stalledTime += now - stallStart;
                        out.stalled.add(new Change(now, 0));
                        int f = parked;
                        parked = -1;
                        offer(f);
                        if (parked < 0) {
                            deliver();
                        }
                        tryStart();
                    }
                    default -> throw new AssertionError();
                }
            }
            return out;
        }

        private long readyAt(int i) {
            return readyTimes[i];
        }

        private void becomeReady(int i) {
            ready[i] = true;
            readyCount++;
            out.queue.add(new Change(now, readyCount));
            out.queueMax = Math.max(out.queueMax, readyCount);
            tryStart();
        }

        private void setBusy(boolean on) {
            if (busyLevel != on) {
                busyLevel = on;
                out.busy.add(new Change(now, on ? 1 : 0));
            }
        }

        private void tryStart() {
            if (lineBusy || parked >= 0 || queue.isEmpty() || !ready[queue.get(0)]) {
                return;
            }
            int i = queue.remove(0);
            readyCount--;
            out.queue.add(new Change(now, readyCount));
            if (now != lineFreeAt || epochBytes * 8000 % plan.rate == 0) {
                epoch = now;
                epochBytes = 0;
            }
            epochBytes += 8 + Math.max(bytes[i].length, 60) + 4 + 12;
            long end = epoch + epochBytes * 8000 / plan.rate;
            out.start[i] = now;
            out.end[i] = end;
            out.arrival[i] = end + plan.propagation;
            out.sequence[i] = nextSequence++;
            out.startOrder.add(i);
            fate[i] = 0;
            if (plan.pDrop + plan.pCorrupt > 0) {
                double u = faults.nextDouble();
                if (u < plan.pDrop) {
                    fate[i] = 1;
                } else if (u < plan.pDrop + plan.pCorrupt) {
                    fate[i] = 2;
                    // BTH (byte 42) through the ICRC, skipping BTH byte 4.
                    int ipEnd = 14 + (((bytes[i][16] & 0xFF) << 8) | (bytes[i][17] & 0xFF));
                    int bit = 42 * 8 + faults.nextInt((ipEnd - 43) * 8);
                    out.corruptBit[i] = bit >= 46 * 8 ? bit + 8 : bit;
                }
            }
            lineBusy = true;
            lineFreeAt = end;
            setBusy(true);
            inFlight.add(i);
            at(end, 0, order++, SLOT_END, i);
            at(out.arrival[i], 2, order++, ARRIVAL, i);
        }

        private void deliver() {
            while (parked < 0 && !inFlight.isEmpty() && out.arrival[inFlight.peek()] <= now) {
                int i = inFlight.poll();
                if (fate[i] == 1) {
                    out.dropped++;
                    continue;
                }
                if (fate[i] == 2) {
                    out.corrupted++;
                }
                offer(i);
            }
        }

        private void offer(int i) {
            Decision d = Decision.next(decisions, plan);
            if (d.refuse()) {
                parked = i;
                out.refusals++;
                stallStart = now;
                out.stalled.add(new Change(now, 1));
                at(now + d.delay(), 3, order++, RETRY, i);
                return;
            }
            out.delivered[i] = now;
            out.deliveryOrder.add(i);
        }
    }
}
