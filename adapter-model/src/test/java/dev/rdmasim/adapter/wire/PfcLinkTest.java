package dev.rdmasim.adapter.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.Stat;
import dev.rdmasim.kernel.stats.StatsGroup;
import dev.rdmasim.kernel.stats.TimeAverage;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import org.eclipse.collections.impl.list.mutable.primitive.IntArrayList;
import org.eclipse.collections.impl.list.mutable.primitive.LongArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Priority flow control on the cable ({@link EthernetLink.Pfc}): a refused frame waits in the receiving MAC's FIFO
 * while the far end keeps sending, the XOFF and XON frames travel back over the reverse line, and the far
 * transmitter is paused exactly from an XOFF's arrival to its XON's (or its pause time's end).
 */
class PfcLinkTest {
    /** 100 Gb/s: 80 ps per byte time. A 1002-byte frame takes 1026 byte times, a pause frame 84. */
    private static final long SLOT = 1026 * 80;
    private static final long PAUSE_SLOT = 84 * 80;
    private static final long PROPAGATION = 1_000;
    private static final long MAC_B = 0x02_00_00_00_00_0BL;

    /** What a tap saw: frame starts, and the pause frames among them. */
    static final class Seen {
        final LongArrayList dataStarts = new LongArrayList();
        final LongArrayList pauseStarts = new LongArrayList();
        final IntArrayList pauseQuanta = new IntArrayList();
        final List<Long> pauseSources = new ArrayList<>();
    }

    private static Stat find(Simulator sim, String fullName) {
        for (StatsGroup g : sim.stats().groups()) {
            g.refresh();
            for (Stat s : g.stats()) {
                if (s.fullName().equals(fullName)) {
                    return s;
                }
            }
        }
        return null;
    }

    private static long counter(Simulator sim, String fullName) {
        Stat s = find(sim, fullName);
        if (s == null) {
            throw new AssertionError("no statistic " + fullName);
        }
        return ((Counter) s).value();
    }

    private static EthernetLink pfcLink(Simulator sim, long xoff, long xon, int quanta, int buffers) {
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(100, PROPAGATION, buffers,
                EthernetLink.Phy.NONE, EthernetLink.Pfc.pfc(xoff, xon, quanta)));
        link.b().macAddress(MAC_B);
        return link;
    }

    private static Seen tap(EthernetLink link) {
        Seen s = new Seen();
        link.addTap((t, d, n) -> {
            if (PauseFrame.isPause(d, n)) {
                assertThat(n).isEqualTo(PauseFrame.LENGTH);
                s.pauseStarts.add(t);
                s.pauseQuanta.add(PauseFrame.quanta(d));
                s.pauseSources.add(RoceLayout.u48(d, 6));
            } else if (RoceLayout.u16(d, RoceLayout.ETH_TYPE) == RoceLayout.ETHERTYPE_IPV4
                    && RoceLayout.u24(d, RoceLayout.BTH_OFFSET + 5) == 5) {
                s.dataStarts.add(t); // a data frame of a -> b (destination QP 5)
            }
        });
        return s;
    }

    /** Sends a 1002-byte frame (PSN {@code psn}) from a, ready at once. */
    private static void send(EthernetLink link, RoceWriter w, int psn) {
        Frame f = link.a().acquire();
        w.bth(Opcode.SEND_ONLY, 5, psn);
        f.length(w.write(f.data(), 1002 - 58));
        link.a().send(f);
    }

    /** Sends frames 0 to {@code count - 1} from A at time 0. */
    private static void sendAtZero(Simulator sim, EthernetLink link, int count) {
        RoceWriter w = new RoceWriter();
        sim.event("send", () -> {
            for (int i = 0; i < count; i++) {
                send(link, w, i);
            }
        }).schedule(0);
    }

    /**
     * Connects a receiver at {@code at} that refuses the first frame, retries at {@code retryAt}, and then hands every
     * frame to {@code taken} before consuming it.
     */
    private static void refuseFirst(Simulator sim, LinkEndpoint at, long retryAt, Consumer<Frame> taken) {
        boolean[] refused = {false};
        Event retry = sim.event("retry", at::retryDelivery);
        at.connectReceiver(f -> {
            if (!refused[0]) {
                refused[0] = true;
                retry.schedule(retryAt);
                return false;
            }
            taken.accept(f);
            return Pump.consume(f);
        });
    }

    @Test
    void anXoffPausesTheFarTransmitterFromItsArrivalToTheXonsArrival() {
        Simulator sim = new Simulator(1);
        EthernetLink link = pfcLink(sim, 3 * 1002, 0, 65_535, 16);
        Seen seen = tap(link);
        long retryAt = 2_000_000;
        LongArrayList delivered = new LongArrayList();
        RoceReader reader = new RoceReader();
        refuseFirst(sim, link.b(), retryAt, f -> {
            reader.wrap(f.data(), f.length());
            delivered.add(reader.psn());
        });
        sendAtZero(sim, link, 10);
        sim.run();

        // Frame 0 arrives at SLOT + P and is refused; 1 and 2 land behind it, and with 2 the FIFO holds 3 frames:
        // XOFF goes on the idle reverse line then and reaches a one pause slot and one propagation later.
        long xoffAt = 3 * SLOT + PROPAGATION;
        long xoffArrives = xoffAt + PAUSE_SLOT + PROPAGATION;
        // Frame 3 started at 3 SLOT, before the XOFF arrived; 4 would start at 4 SLOT, inside the pause. After the
        // retry the receiver takes all four, the FIFO is empty, and XON goes at once.
        long xonArrives = retryAt + PAUSE_SLOT + PROPAGATION;
        long[] expected = new long[10];
        for (int i = 0; i < 4; i++) {
            expected[i] = i * SLOT;
        }
        for (int i = 4; i < 10; i++) {
            expected[i] = xonArrives + (i - 4) * SLOT;
        }
        assertThat(seen.dataStarts.toArray()).containsExactly(expected);
        assertThat(seen.pauseStarts.toArray()).containsExactly(xoffAt, retryAt);
        assertThat(seen.pauseQuanta.toArray()).containsExactly(65_535, 0);
        assertThat(seen.pauseSources).containsExactly(MAC_B, MAC_B);
        assertThat(delivered.toArray()).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);

        assertThat(counter(sim, "link.aToB.xoffSent")).isEqualTo(1);
        assertThat(counter(sim, "link.aToB.xonSent")).isEqualTo(1);
        assertThat(counter(sim, "link.aToB.pausedTime")).isEqualTo(xonArrives - xoffArrives);
        assertThat(counter(sim, "link.bToA.pauseFramesCarried")).isEqualTo(2);
        assertThat(link.bToA().framesSent()).as("pause frames are not data frames").isZero();
        assertThat(counter(sim, "link.bToA.wireBytes")).isEqualTo(2 * 84);
        assertThat(link.aToB().refusals()).isEqualTo(1);
        assertThat(link.a().freeBuffers()).isEqualTo(16);
    }

    @Test
    void theStallStopsTheTransmitterAtTheRefusalInstead() {
        // The same traffic without PFC: frame 1 started before frame 0's refusal and lands behind it; 2 waits.
        Simulator sim = new Simulator(1);
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(100, PROPAGATION, 16));
        Seen seen = tap(link);
        long retryAt = 2_000_000;
        refuseFirst(sim, link.b(), retryAt, f -> { });
        sendAtZero(sim, link, 4);
        sim.run();
        assertThat(seen.dataStarts.toArray()).containsExactly(0, SLOT, retryAt, retryAt + SLOT);
        assertThat(seen.pauseStarts.size()).isZero();
        assertThat(find(sim, "link.aToB.xoffSent")).as("no PFC statistics on a stalling link").isNull();
    }

    @Test
    void aLongPauseIsRefreshedBeforeItsTimeRunsOut() {
        Simulator sim = new Simulator(1);
        int quanta = 100; // 512 ns at 100 Gb/s, refreshed every 256 ns
        long pausePs = 512_000;
        EthernetLink link = pfcLink(sim, 1, 0, quanta, 16);
        Seen seen = tap(link);
        long retryAt = 3_000_000;
        refuseFirst(sim, link.b(), retryAt, f -> { });
        sendAtZero(sim, link, 6);
        sim.run();

        long xoffAt = SLOT + PROPAGATION; // the refused frame alone reaches the 1-byte threshold
        LongArrayList expectedPauses = new LongArrayList();
        for (long t = xoffAt; t < retryAt; t += pausePs / 2) {
            expectedPauses.add(t);
        }
        int refreshes = expectedPauses.size();
        expectedPauses.add(retryAt); // the XON
        assertThat(seen.pauseStarts.toArray()).containsExactly(expectedPauses.toArray());
        assertThat(seen.pauseQuanta.get(0)).isEqualTo(quanta);
        assertThat(seen.pauseQuanta.getLast()).isZero();
        assertThat(counter(sim, "link.aToB.xoffSent")).isEqualTo(refreshes);
        // Frame 1 started before the first XOFF arrived; the rest waited, the pause never lapsing, for the XON.
        long xoffArrives = xoffAt + PAUSE_SLOT + PROPAGATION;
        long xonArrives = retryAt + PAUSE_SLOT + PROPAGATION;
        assertThat(seen.dataStarts.toArray()).containsExactly(0, SLOT, xonArrives, xonArrives + SLOT,
                xonArrives + 2 * SLOT, xonArrives + 3 * SLOT);
        assertThat(counter(sim, "link.aToB.pausedTime")).isEqualTo(xonArrives - xoffArrives);
    }

    @Test
    void aPauseShorterThanItsFrameLapsesBetweenRefreshes() {
        // One quantum (5.12 ns) is shorter than a pause frame's slot (6.72 ns): each refresh waits for the last
        // pause frame to leave the line, so they go back to back and each pause runs out 1.6 ns before the next one
        // arrives. The far transmitter slips frames through such gaps.
        Simulator sim = new Simulator(1);
        EthernetLink link = pfcLink(sim, 1, 0, 1, 16);
        Seen seen = tap(link);
        long retryAt = 1_000_000;
        refuseFirst(sim, link.b(), retryAt, f -> { });
        sendAtZero(sim, link, 4);
        sim.run();
        long xoffAt = SLOT + PROPAGATION;
        long xoffArrives = xoffAt + PAUSE_SLOT + PROPAGATION;
        // Pause k covers [xoffArrives + k PAUSE_SLOT, + 5.12 ns). Frame 2, due at 2 SLOT, falls in a gap and goes;
        // frame 3, due at 3 SLOT, falls in pause 23 and waits for its end.
        long k2 = (2 * SLOT - xoffArrives) / PAUSE_SLOT;
        assertThat(2 * SLOT).isGreaterThanOrEqualTo(xoffArrives + k2 * PAUSE_SLOT + 5_120);
        assertThat(seen.dataStarts.get(2)).isEqualTo(2 * SLOT);
        long k3 = (3 * SLOT - xoffArrives) / PAUSE_SLOT;
        assertThat(3 * SLOT).isLessThan(xoffArrives + k3 * PAUSE_SLOT + 5_120);
        assertThat(seen.dataStarts.get(3)).isEqualTo(xoffArrives + k3 * PAUSE_SLOT + 5_120);
        // Refreshes at xoffAt + k pause slots while the FIFO is full, up to the retry; the XON follows the one then
        // on the line.
        int refreshes = (int) ((retryAt - xoffAt) / PAUSE_SLOT) + 1;
        assertThat(counter(sim, "link.aToB.xoffSent")).isEqualTo(refreshes);
        assertThat(seen.pauseStarts.size()).isEqualTo(refreshes + 1);
        for (int k = 0; k < refreshes; k++) {
            assertThat(seen.pauseStarts.get(k)).isEqualTo(xoffAt + k * PAUSE_SLOT);
        }
        assertThat(seen.pauseStarts.getLast()).isEqualTo(xoffAt + refreshes * PAUSE_SLOT);
        assertThat(seen.pauseQuanta.getLast()).isZero();
        assertThat(link.aToB().framesDelivered()).isEqualTo(4);
    }

    @Test
    void aTransmitBufferFreesAsItsFrameLeavesTheLineAndAReceiveBufferAtTheRelease() {
        // Two buffers of each kind. The receiver keeps the frames it takes until the test releases them.
        Simulator sim = new Simulator(1);
        EthernetLink link = pfcLink(sim, 1 << 20, 0, 65_535, 2);
        List<Frame> held = new ArrayList<>();
        LongArrayList deliveredAt = new LongArrayList();
        link.b().connectReceiver(f -> {
            held.add(f);
            deliveredAt.add(sim.now());
            return true;
        });
        long release0 = 1_000_000;
        long release1 = 1_500_000;
        sim.event("release0", () -> held.get(0).release()).schedule(release0);
        sim.event("release1", () -> held.get(1).release()).schedule(release1);
        RoceWriter w = new RoceWriter();
        LongArrayList acquiredAt = new LongArrayList();
        Pump.start(link.a(), 4, (f, i) -> {
            acquiredAt.add(sim.now());
            assertThat(EthernetLinkTest.fill(f, w, i, 1002 - 58)).isEqualTo(1002);
        });
        sim.run();
        // The third and fourth buffers are taken the instant frames 0 and 1 have left the line, not when the far
        // receiver lets them go: the sender streams back to back.
        assertThat(acquiredAt.toArray()).containsExactly(0, 0, SLOT, 2 * SLOT);
        assertThat(counter(sim, "link.a.acquireRefusals")).isEqualTo(2);
        // Frames 2 and 3 find both receive buffers held: they wait in the MAC until a release frees one.
        long arrive0 = SLOT + PROPAGATION;
        assertThat(deliveredAt.toArray()).containsExactly(arrive0, arrive0 + SLOT, release0, release1);
        assertThat(link.b().heldReceiveBuffers()).isEqualTo(2);
        assertThat(link.a().freeBuffers()).isEqualTo(2);
        assertThat(((TimeAverage) find(sim, "link.b.rxBuffersInUse")).max()).isEqualTo(2);
        assertThat(((TimeAverage) find(sim, "link.a.buffersInUse")).max()).isEqualTo(2);
        assertThat(link.aToB().refusals()).as("two frames waited for a buffer").isEqualTo(2);
    }

    @Test
    void aFrameArrivingAtAFullFifoIsLost() {
        // The FIFO holds two frames and XOFF goes when it is full: frame 2, already on the line, finds no room.
        Simulator sim = new Simulator(1);
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(100, PROPAGATION, 16,
                EthernetLink.Phy.NONE, EthernetLink.Pfc.pfc(2 * 1002, 0, 65_535, 2 * 1002)));
        Seen seen = tap(link);
        LongArrayList delivered = new LongArrayList();
        RoceReader reader = new RoceReader();
        refuseFirst(sim, link.b(), 2_000_000, f -> {
            reader.wrap(f.data(), f.length());
            delivered.add(reader.psn());
        });
        sendAtZero(sim, link, 6);
        sim.run();
        assertThat(delivered.toArray()).containsExactly(0, 1, 3, 4, 5);
        assertThat(counter(sim, "link.aToB.fifoOverflows")).isEqualTo(1);
        assertThat(link.aToB().framesDropped()).as("not a loss on the line").isZero();
        assertThat(((TimeAverage) find(sim, "link.aToB.rxFifo")).max()).isEqualTo(2 * 1002);
        assertThat(seen.dataStarts.get(3)).as("frame 3 waits for the XON").isEqualTo(2_000_000 + PAUSE_SLOT + PROPAGATION);
        assertThat(link.a().freeBuffers()).isEqualTo(16);
        assertThat(link.b().heldReceiveBuffers()).isZero();
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void seededTrafficIsLosslessInOrderAndNeverStartsInsideAPause(long seed) {
        Run bare = run(seed, false);
        Run tapped = run(seed, true);
        // A tap makes the line commit every frame at its start, eagerly; without one it is done lazily. Same times.
        assertThat(tapped.starts.toArray()).isEqualTo(bare.starts.toArray());
        assertThat(tapped.arrivals.toArray()).isEqualTo(bare.arrivals.toArray());
        assertThat(tapped.counters).isEqualTo(bare.counters);
        assertThat(bare.counters[0]).as("XOFF frames sent").isPositive();

        // From the tap: every pause frame's arrival at a, its window, and no data frame starting inside one.
        List<long[]> windows = new ArrayList<>();
        for (int i = 0; i < tapped.seen.pauseStarts.size(); i++) {
            long arrive = tapped.seen.pauseStarts.get(i) + PAUSE_SLOT + PROPAGATION;
            int q = tapped.seen.pauseQuanta.get(i);
            long[] last = windows.isEmpty() ? null : windows.get(windows.size() - 1);
            if (q == 0) {
                if (last != null && arrive < last[1]) {
                    last[1] = arrive;
                }
            } else if (last != null && arrive <= last[1]) {
                last[1] = Math.max(last[1], arrive + PauseFrame.quantaPs(q, 100));
            } else {
                windows.add(new long[] {arrive, arrive + PauseFrame.quantaPs(q, 100)});
            }
        }
        long paused = 0;
        for (long[] win : windows) {
            paused += win[1] - win[0];
        }
        assertThat(tapped.counters[2]).as("paused time, every window over by the end").isEqualTo(paused);
        for (int i = 0; i < tapped.seen.dataStarts.size(); i++) {
            long s = tapped.seen.dataStarts.get(i);
            for (long[] win : windows) {
                if (s >= win[0] && s < win[1]) {
                    throw new AssertionError("seed " + seed + ": frame " + i + " starts at " + s + " ps inside the pause ["
                            + win[0] + ", " + win[1] + ")");
                }
            }
        }
    }

    /** One seeded run: frames from a at random times and sizes, a receiver at b that refuses now and then. */
    static final class Run {
        final LongArrayList starts = new LongArrayList();
        final LongArrayList arrivals = new LongArrayList();
        long[] counters;
        Seen seen;
    }

    private static Run run(long seed, boolean tapped) {
        SplittableRandom plan = new SplittableRandom(seed);
        int frames = 2_000;
        long xoff = 1 + plan.nextInt(8_000);
        long xon = plan.nextInt((int) xoff + 1);
        int quanta = plan.nextBoolean() ? 65_535 : 1 + plan.nextInt(400);
        Simulator sim = new Simulator(seed);
        EthernetLink link = pfcLink(sim, xoff, xon, quanta, 24);
        Run r = new Run();
        if (tapped) {
            r.seen = tap(link);
        }
        SplittableRandom receiver = new SplittableRandom(seed * 31 + 7);
        RoceReader reader = new RoceReader();
        int[] next = {0};
        Event retry = sim.event("retry", () -> link.b().retryDelivery());
        link.b().connectReceiver(f -> {
            if (receiver.nextInt(6) == 0) {
                retry.scheduleIn(receiver.nextInt(4) == 0 ? 0 : 1 + receiver.nextLong(600_000));
                return false;
            }
            assertThat(reader.wrap(f.data(), f.length())).isEqualTo(FrameCheck.VALID);
            assertThat(reader.psn()).as("in-order delivery").isEqualTo(next[0]);
            next[0]++;
            r.starts.add(f.txStartPs());
            r.arrivals.add(f.arrivalPs());
            return Pump.consume(f);
        });
        // The reverse line carries frames too, so that pause frames find it busy now and then.
        link.a().connectReceiver(Pump::consume);
        RoceWriter w = new RoceWriter();
        SplittableRandom sizes = new SplittableRandom(seed + 1);
        Pump.start(link.a(), frames, (f, i) -> EthernetLinkTest.fill(f, w, i, sizes.nextInt(1500)));
        RoceWriter wb = new RoceWriter();
        wb.bth(Opcode.SEND_ONLY, 9, 0);
        SplittableRandom back = new SplittableRandom(seed + 2);
        Event reverse = sim.event("reverse", new Runnable() {
            int sent;

            @Override
            public void run() {
                Frame f = link.b().acquire();
                if (f != null) {
                    f.length(wb.write(f.data(), back.nextInt(4000)));
                    link.b().send(f);
                }
                if (++sent < 400) {
                    sim.event("reverse-" + sent, this).scheduleIn(back.nextLong(2_000_000));
                }
            }
        });
        reverse.schedule(back.nextLong(100_000));
        sim.run();
        assertThat(next[0]).isEqualTo(frames);
        assertThat(link.aToB().framesDelivered()).isEqualTo(frames);
        assertThat(link.a().freeBuffers()).isEqualTo(24);
        r.counters = new long[] {counter(sim, "link.aToB.xoffSent"), counter(sim, "link.aToB.xonSent"),
            counter(sim, "link.aToB.pausedTime"), link.aToB().refusals(),
            counter(sim, "link.bToA.pauseFramesCarried"), counter(sim, "link.bToA.wireBytes")};
        return r;
    }

    @Test
    void aLoopbackPausesItself() {
        Simulator sim = new Simulator(1);
        EthernetLink link = EthernetLink.loopback(sim, "link", new EthernetLink.Config(100, PROPAGATION, 16,
                EthernetLink.Phy.NONE, EthernetLink.Pfc.pfc(2 * 1002, 0, 65_535)));
        LongArrayList starts = new LongArrayList();
        refuseFirst(sim, link.a(), 1_000_000, f -> starts.add(f.txStartPs()));
        sendAtZero(sim, link, 5);
        sim.run();
        // Frame 1 arriving makes two in the FIFO: XOFF after the slot of frame 2 then on the line, at 3 SLOT.
        long xonArrives = 1_000_000 + PAUSE_SLOT + PROPAGATION;
        assertThat(starts.toArray()).hasSize(5);
        assertThat(counter(sim, "link.loop.xoffSent")).isEqualTo(1);
        assertThat(counter(sim, "link.loop.pauseFramesCarried")).isEqualTo(2);
        assertThat(link.aToB().framesDelivered()).isEqualTo(5);
        assertThat(starts.get(4)).as("frame 4 waits for the XON").isGreaterThanOrEqualTo(xonArrives);
    }

    @Test
    void theFifoAndReceiveBufferLevelsAreIntegratedAtTheirOwnInstants() {
        // The first scenario's FIFO: one frame from frame 0's arrival, one more at each of the next three arrivals,
        // empty at the retry. The receive buffers: each frame holds one from its delivery to the end.
        Simulator sim = new Simulator(1);
        EthernetLink link = pfcLink(sim, 3 * 1002, 0, 65_535, 16);
        long retryAt = 2_000_000;
        refuseFirst(sim, link.b(), retryAt, f -> { });
        sendAtZero(sim, link, 4);
        long[] end = new long[1];
        sim.event("end", () -> end[0] = sim.now()).schedule(3_000_000);
        sim.run();
        long a0 = SLOT + PROPAGATION;
        double fifoArea = 1002.0 * SLOT * (1 + 2 + 3) + 4008.0 * (retryAt - a0 - 3 * SLOT);
        TimeAverage fifo = (TimeAverage) find(sim, "link.aToB.rxFifo");
        assertThat(fifo.max()).isEqualTo(4008);
        assertThat(fifo.level()).isZero();
        assertThat(fifo.average()).isCloseTo(fifoArea / 3_000_000, org.assertj.core.data.Offset.offset(1e-9));
        // Four receive buffers held from the retry on (Pump.consume releases them at once: level 0 at the end).
        TimeAverage rx = (TimeAverage) find(sim, "link.b.rxBuffersInUse");
        assertThat(rx.level()).isZero();
        assertThat(rx.max()).isEqualTo(1);
        assertThat(counter(sim, "link.b.rxBuffersFullTime")).isZero();
        assertThat(counter(sim, "link.aToB.pausedTime")).isEqualTo(retryAt + PAUSE_SLOT + PROPAGATION
                - (3 * SLOT + PROPAGATION + PAUSE_SLOT + PROPAGATION));
    }

    @Test
    void heldReceiveBuffersFillTheirBoundUntilReleased() {
        Simulator sim = new Simulator(1);
        EthernetLink link = pfcLink(sim, 1 << 20, 0, 65_535, 2);
        List<Frame> held = new ArrayList<>();
        link.b().connectReceiver(f -> held.add(f));
        long release = 1_000_000;
        sim.event("release", () -> held.get(0).release()).schedule(release);
        sim.event("end", () -> { }).schedule(2_000_000);
        RoceWriter w = new RoceWriter();
        Pump.start(link.a(), 3, (f, i) -> EthernetLinkTest.fill(f, w, i, 1002 - 58));
        sim.run();
        long arrive0 = SLOT + PROPAGATION;
        // Held: 1 from frame 0's delivery, 2 from frame 1's, and frame 2 takes the buffer frame 0 gives back.
        TimeAverage rx = (TimeAverage) find(sim, "link.b.rxBuffersInUse");
        assertThat(rx.level()).isEqualTo(2);
        double area = SLOT + 2.0 * (2_000_000 - arrive0 - SLOT);
        assertThat(rx.average()).isCloseTo(area / 2_000_000, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(counter(sim, "link.b.rxBuffersFullTime")).isEqualTo(2_000_000 - arrive0 - SLOT);
        assertThat(link.b().heldReceiveBuffers()).isEqualTo(2);
        // The transmit side: both buffers taken at 0; frame 2 takes frame 0's as it leaves the line at SLOT, so they
        // stay full until frame 1 leaves at 2 SLOT.
        assertThat(link.a().freeBuffers()).isEqualTo(2);
        assertThat(counter(sim, "link.a.buffersFullTime")).isEqualTo(2 * SLOT);
    }

    @Test
    void aBufferGivenBackUnsentFreesAtOnceAndWakesAWaitingSender() {
        Simulator sim = new Simulator(1);
        EthernetLink link = pfcLink(sim, 1 << 20, 0, 65_535, 2);
        link.b().connectReceiver(Pump::consume);
        LongArrayList retries = new LongArrayList();
        link.a().onBufferFree(() -> retries.add(sim.now()));
        sim.event("take", () -> {
            Frame f0 = link.a().acquire();
            assertThat(link.a().acquire()).isNotNull();
            assertThat(link.a().acquire()).as("both taken").isNull();
            assertThat(link.a().freeBuffers()).isZero();
            f0.release(); // never sent: its transmit buffer is the sender's to give back
            assertThat(link.a().freeBuffers()).isEqualTo(1);
        }).schedule(100);
        sim.run();
        assertThat(retries.toArray()).containsExactly(100);
        assertThat(counter(sim, "link.a.acquireRefusals")).isEqualTo(1);
        assertThat(((TimeAverage) find(sim, "link.a.buffersInUse")).level()).isEqualTo(1);
    }

    @Test
    void aMacAddressHasFortyEightBits() {
        Simulator sim = new Simulator(1);
        EthernetLink link = pfcLink(sim, 1, 0, 1, 2);
        link.a().macAddress(0xFFFF_FFFF_FFFFL);
        assertThat(link.a().macAddress()).isEqualTo(0xFFFF_FFFF_FFFFL);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> link.a().macAddress(1L << 48))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("48 bits");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> link.a().macAddress(-1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theTracedTransmitBufferLevelChangesAtEachFramesLineEnd() {
        Simulator sim = new Simulator(1);
        java.io.StringWriter out = new java.io.StringWriter();
        dev.rdmasim.kernel.wave.VcdWriter vcd = new dev.rdmasim.kernel.wave.VcdWriter(out, sim,
                dev.rdmasim.kernel.wave.SignalFilter.parse("link.a.buffersInUse"));
        sim.attachWave(vcd);
        EthernetLink link = pfcLink(sim, 1 << 20, 0, 65_535, 4);
        link.b().connectReceiver(Pump::consume);
        sendAtZero(sim, link, 3);
        sim.run();
        vcd.close();
        List<long[]> changes = dev.rdmasim.kernel.testing.VcdChanges.parseTimed(out.toString()).get("link.a.buffersInUse");
        List<String> seen = new ArrayList<>();
        for (long[] c : changes) {
            seen.add(c[0] + ":" + c[1]);
        }
        // All three taken at 0, then one frees as each frame's last byte leaves the line.
        assertThat(seen).containsSubsequence("0:3", SLOT + ":2", 2 * SLOT + ":1", 3 * SLOT + ":0");
        assertThat(seen.get(seen.size() - 1)).isEqualTo(3 * SLOT + ":0");
    }

    @Test
    void aResetEmptiesThePortsBuffersAndFifo() {
        Simulator sim = new Simulator(1);
        EthernetLink link = pfcLink(sim, 2 * 1002, 0, 65_535, 16);
        refuseFirst(sim, link.b(), 10_000_000, f -> { });
        sendAtZero(sim, link, 5);
        sim.runUntil(1_000_000); // frame 0 parked, the rest behind it, XOFF sent
        assertThat(counter(sim, "link.aToB.xoffSent")).isEqualTo(1);
        assertThat(((TimeAverage) find(sim, "link.aToB.rxFifo")).level()).isPositive();
        link.reset();
        assertThat(((TimeAverage) find(sim, "link.aToB.rxFifo")).level()).isZero();
        assertThat(((TimeAverage) find(sim, "link.b.rxBuffersInUse")).level()).isZero();
        assertThat(link.a().freeBuffers()).isEqualTo(16);
        assertThat(link.b().heldReceiveBuffers()).isZero();
        // The link works as new: a frame sent now starts at once, unpaused.
        Seen seen = tap(link);
        sim.event("again", () -> send(link, new RoceWriter(), 9)).schedule(1_100_000);
        sim.runUntil(1_200_000);
        assertThat(seen.dataStarts.toArray()).containsExactly(1_100_000);
    }

    @Test
    void aFrameDueTheInstantAPauseArrivesWaitsForTheXon() {
        // The propagation delay chosen so that the XOFF reaches a the very picosecond frame 4 is due: 2 P + one
        // pause slot = one data slot. The pause covers its first instant, so frame 4 waits.
        long p = (SLOT - PAUSE_SLOT) / 2;
        Simulator sim = new Simulator(1);
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(100, p, 16,
                EthernetLink.Phy.NONE, EthernetLink.Pfc.pfc(3 * 1002, 0, 65_535)));
        Seen seen = tap(link);
        long retryAt = 2_000_000;
        refuseFirst(sim, link.b(), retryAt, f -> { });
        sendAtZero(sim, link, 6);
        sim.run();
        long xoffArrives = 3 * SLOT + p + PAUSE_SLOT + p;
        assertThat(xoffArrives).isEqualTo(4 * SLOT);
        long xonArrives = retryAt + PAUSE_SLOT + p;
        assertThat(seen.dataStarts.toArray()).containsExactly(0, SLOT, 2 * SLOT, 3 * SLOT, xonArrives, xonArrives + SLOT);
        assertThat(counter(sim, "link.aToB.pausedTime")).isEqualTo(xonArrives - xoffArrives);
    }

    @Test
    void pauseFrameBytes() {
        byte[] b = new byte[PauseFrame.LENGTH];
        java.util.Arrays.fill(b, (byte) 0xFF); // a reused buffer: every byte not written must be cleared
        PauseFrame.write(b, 0x02_00_00_00_00_0BL, 0x1234);
        assertThat(RoceLayout.u48(b, 0)).isEqualTo(0x0180_C200_0001L);
        assertThat(RoceLayout.u48(b, 6)).isEqualTo(0x02_00_00_00_00_0BL);
        assertThat(RoceLayout.u16(b, 12)).isEqualTo(0x8808);
        assertThat(RoceLayout.u16(b, 14)).isEqualTo(0x0101);
        assertThat(RoceLayout.u16(b, 16)).as("class-enable vector: priority 3").isEqualTo(0x0008);
        for (int p = 0; p < 8; p++) {
            assertThat(RoceLayout.u16(b, 18 + 2 * p)).isEqualTo(p == 3 ? 0x1234 : 0);
        }
        for (int i = 34; i < PauseFrame.LENGTH; i++) {
            assertThat(b[i]).isZero();
        }
        assertThat(PauseFrame.isPause(b, b.length)).isTrue();
        assertThat(PauseFrame.quanta(b)).isEqualTo(0x1234);
        assertThat(PauseFrame.quantaPs(65_535, 100)).isEqualTo(335_539_200L);
        assertThat(PauseFrame.quantaPs(1, 25)).isEqualTo(20_480L);
        b[14] = 0x00; // a plain 802.3x PAUSE (opcode 0x0001) is not a PFC frame
        assertThat(PauseFrame.isPause(b, b.length)).isFalse();
    }
}
