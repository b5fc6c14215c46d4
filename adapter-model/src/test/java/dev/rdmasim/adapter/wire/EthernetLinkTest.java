package dev.rdmasim.adapter.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.stats.StatsGroup;
import java.io.IOException;
import java.io.StringWriter;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.eclipse.collections.impl.list.mutable.primitive.LongArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class EthernetLinkTest {

    /** Wire time of an n-byte frame at rateGbps in ps, from first principles: (8 + n + 4 + 12) bytes * 8 bits / rate. */
    static double wirePs(int n, int rateGbps) {
        return (8 + Math.max(n, 60) + 4 + 12) * 8 * 1000.0 / rateGbps;
    }

    /** Sends a RoCE SEND ONLY frame whose PSN is its index and whose payload is {@code size} bytes of the index. */
    static int fill(Frame f, RoceWriter w, int index, int payload) {
        w.bth(Opcode.SEND_ONLY, 5, index & 0xFFFFFF);
        byte[] d = f.data();
        for (int i = 0; i < payload; i++) {
            d[w.payloadOffset() + i] = (byte) (index + i);
        }
        int len = w.write(d, payload);
        f.length(len);
        return len;
    }

    @ParameterizedTest
    @ValueSource(ints = {25, 100, 400})
    void aFrameArrivesAfterItsSlotPlusPropagation(int rate) {
        Simulator sim = new Simulator(1);
        long prop = 12_345;
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(rate, prop, 4));
        LongArrayList arrivals = new LongArrayList();
        link.b().connectReceiver(f -> {
            arrivals.add(sim.now());
            assertThat(f.arrivalPs()).isEqualTo(sim.now());
            f.release();
            return true;
        });
        link.a().connectReceiver(f -> true);
        RoceWriter w = new RoceWriter();
        Event send = sim.event("send", () -> {
            Frame f = link.a().acquire();
            fill(f, w, 0, 1000);
            link.a().send(f);
        });
        send.schedule(1_000_000);
        sim.run();
        int n = 1000 + 54 + 4;
        assertThat(arrivals.size()).isEqualTo(1);
        assertThat((double) arrivals.get(0)).isEqualTo(1_000_000 + wirePs(n, rate) + prop);
        assertThat(link.aToB().framesDelivered()).isEqualTo(1);
        assertThat(link.aToB().bytesSent()).isEqualTo(n);
        assertThat(link.bToA().framesSent()).isZero();
    }

    @Test
    void shortFramesArePaddedToTheEthernetMinimumOnTheLine() {
        Simulator sim = new Simulator(1);
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(100, 0, 4));
        LongArrayList arrivals = new LongArrayList();
        link.b().connectReceiver(f -> arrivals.add(sim.now()) && Pump.consume(f));
        Frame f = link.a().acquire();
        f.length(20);
        link.a().send(f);
        sim.run();
        assertThat(arrivals.get(0)).isEqualTo((8 + 60 + 4 + 12) * 80L);
    }

    @ParameterizedTest
    @ValueSource(ints = {56, 100, 333})
    void backToBackFramesNeverDriftOverALongRun(int rate) {
        Simulator sim = new Simulator(3);
        long prop = 1_000;
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(rate, prop, 64));
        SplittableRandom rnd = new SplittableRandom(rate);
        int frames = 20_000;
        int[] sizes = new int[frames];
        for (int i = 0; i < frames; i++) {
            sizes[i] = 20 + rnd.nextInt(4200);
        }
        long[] arrivals = new long[frames];
        int[] received = {0};
        link.b().connectReceiver(f -> {
            arrivals[received[0]++] = sim.now();
            f.release();
            return true;
        });
        Pump.start(link.a(), frames, (f, i) -> f.length(Math.min(sizes[i], Frame.CAPACITY)));
        sim.run();
        assertThat(received[0]).isEqualTo(frames);
        // The pool keeps the transmit queue non-empty, so the line never idles: slot k ends at the total wire time.
        double cumulativePs = 0;
        long cumulativeBytes = 0;
        for (int i = 0; i < frames; i++) {
            int n = Math.min(sizes[i], Frame.CAPACITY);
            cumulativePs += wirePs(n, rate);
            cumulativeBytes += 8 + Math.max(n, 60) + 4 + 12;
            assertThat(arrivals[i]).as("frame %d", i).isEqualTo(cumulativeBytes * 8000 / rate + prop);
            assertThat(Math.abs(arrivals[i] - prop - cumulativePs)).as("frame %d", i).isLessThan(1.0);
        }
        assertThat(link.aToB().busyFraction()).isGreaterThan(0.99);
    }

    @Test
    void framesSentAfterIdleStartImmediatelyAndBusyFractionIsWireTimeOverElapsed() {
        Simulator sim = new Simulator(1);
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(100, 500, 8));
        LongArrayList arrivals = new LongArrayList();
        LongArrayList taps = new LongArrayList();
        link.addTap((t, d, n) -> taps.add(t));
        link.b().connectReceiver(f -> arrivals.add(sim.now()) && Pump.consume(f));
        long[] sendAt = {0, 100_000, 100_001, 5_000_000};
        for (long t : sendAt) {
            sim.event("send" + t, () -> {
                Frame f = link.a().acquire();
                f.length(1000);
                link.a().send(f);
            }).schedule(t);
        }
        sim.run();
        long slot = 1024 * 80;
        assertThat(taps.toArray()).containsExactly(0, 100_000, 100_000 + slot, 5_000_000);
        assertThat(arrivals.toArray()).containsExactly(slot + 500, 100_000 + slot + 500, 100_000 + 2 * slot + 500,
                5_000_000 + slot + 500);
        sim.runUntil(10_000_000);
        assertThat(link.aToB().busyFraction()).isEqualTo(4.0 * slot / 10_000_000);
    }

    @ParameterizedTest
    @ValueSource(longs = {11, 12})
    void dropAndCorruptionRatesMatchTheirProbabilitiesAndRepeatForASeed(long seed) {
        Outcome first = runFaulty(seed);
        Outcome again = runFaulty(seed);
        assertThat(again.dropped).isEqualTo(first.dropped);
        assertThat(again.corrupted).isEqualTo(first.corrupted);
        assertThat(runFaulty(seed + 100).dropped).isNotEqualTo(first.dropped);

        int n = Outcome.FRAMES;
        double pDrop = 0.1, pCorrupt = 0.05;
        assertThat(first.dropped.size()).isBetween(expectLow(n, pDrop), expectHigh(n, pDrop));
        assertThat(first.corrupted.size()).isBetween(expectLow(n, pCorrupt), expectHigh(n, pCorrupt));
        assertThat(first.valid + first.corrupted.size() + first.dropped.size()).isEqualTo(n);
    }

    private static int expectLow(int n, double p) {
        return (int) (n * p - 4 * Math.sqrt(n * p * (1 - p)));
    }

    private static int expectHigh(int n, double p) {
        return (int) Math.ceil(n * p + 4 * Math.sqrt(n * p * (1 - p)));
    }

    static final class Outcome {
        static final int FRAMES = 10_000;
        final LongArrayList dropped = new LongArrayList();
        final LongArrayList corrupted = new LongArrayList();
        int valid;
    }

    private Outcome runFaulty(long seed) {
        Simulator sim = new Simulator(seed);
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(100, 100, 16));
        link.aToB().setFaults(0.1, 0.05);
        Outcome out = new Outcome();
        RoceReader reader = new RoceReader(new StatsGroup("rx", sim));
        long[] expect = {0};
        link.b().connectReceiver(f -> {
            // Sequence numbers the receiver never sees were dropped.
            while (expect[0] < f.sequence()) {
                out.dropped.add(expect[0]++);
            }
            expect[0]++;
            FrameCheck v = reader.wrap(f.data(), f.length());
            if (v == FrameCheck.VALID) {
                assertThat(reader.psn()).isEqualTo((int) f.sequence());
                out.valid++;
            } else {
                assertThat(v).isEqualTo(FrameCheck.BAD_ICRC);
                out.corrupted.add(f.sequence());
            }
            f.release();
            return true;
        });
        RoceWriter w = new RoceWriter();
        Pump.start(link.a(), Outcome.FRAMES, (f, i) -> fill(f, w, i, i % 300));
        sim.run();
        while (expect[0] < Outcome.FRAMES) {
            out.dropped.add(expect[0]++);
        }
        assertThat(link.aToB().framesDropped()).isEqualTo(out.dropped.size());
        assertThat(link.aToB().framesCorrupted()).isEqualTo(out.corrupted.size());
        assertThat(link.a().freeBuffers()).isEqualTo(16);
        return out;
    }

    @ParameterizedTest
    @ValueSource(longs = {21, 22, 23})
    void aRefusingReceiverStallsTheDirectionLosslesslyAndInOrder(long seed) {
        Simulator sim = new Simulator(seed);
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(100, 30_000, 12));
        SplittableRandom rnd = new SplittableRandom(seed);
        int frames = 3_000;
        RoceWriter w = new RoceWriter();
        RoceReader reader = new RoceReader();
        int[] next = {0};
        long[] stallFrom = {-1};
        List<long[]> stalls = new ArrayList<>();
        LongArrayList starts = new LongArrayList();
        link.addTap((t, d, n) -> starts.add(t));
        Event unblock = sim.event("unblock", () -> link.b().retryDelivery());
        link.b().connectReceiver(f -> {
            if (rnd.nextInt(10) == 0) {
                if (stallFrom[0] < 0) {
                    stallFrom[0] = sim.now();
                }
                unblock.scheduleIn(1 + rnd.nextLong(400_000));
                return false;
            }
            if (stallFrom[0] >= 0) {
                stalls.add(new long[] {stallFrom[0], sim.now()});
                stallFrom[0] = -1;
            }
            assertThat(reader.wrap(f.data(), f.length())).isEqualTo(FrameCheck.VALID);
            assertThat(reader.psn()).as("in-order delivery").isEqualTo(next[0]);
            for (int i = 0; i < reader.payloadLength(); i++) {
                if (f.data()[reader.payloadOffset() + i] != (byte) (next[0] + i)) {
                    throw new AssertionError("frame " + next[0] + " payload byte " + i + " differs");
                }
            }
            next[0]++;
            f.release();
            return true;
        });
        Pump.start(link.a(), frames, (f, i) -> fill(f, w, i, rnd.nextInt(2000)));
        sim.run();
        assertThat(next[0]).isEqualTo(frames);
        assertThat(link.aToB().refusals()).isGreaterThan(100);
        assertThat(link.aToB().framesDelivered()).isEqualTo(frames);
        assertThat(link.aToB().stalled()).isFalse();
        assertThat(stalls).hasSizeGreaterThan(100);
        // While stalled no new frame starts on the line (one already on it may finish).
        int k = 0;
        for (long[] s : stalls) {
            while (k < starts.size() && starts.get(k) <= s[0]) {
                k++;
            }
            if (k < starts.size() && starts.get(k) < s[1]) {
                throw new AssertionError("frame started at " + starts.get(k) + " during stall [" + s[0] + ", " + s[1] + "]");
            }
        }
    }

    /** Sends a 1002-byte frame (a slot of 1026 byte times) whose PSN is {@code psn}, not to start before {@code readyPs}. */
    private static void sendAt(EthernetLink link, RoceWriter w, int psn, long readyPs) {
        Frame f = link.a().acquire();
        w.bth(Opcode.SEND_ONLY, 5, psn);
        f.length(w.write(f.data(), 1002 - 58));
        assertThat(f.length()).isEqualTo(1002);
        link.a().send(f, readyPs);
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void framesStartInReadyTimeOrderWithTiesInSendOrder(boolean tapped) {
        Simulator sim = new Simulator(1);
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(100, 500, 8));
        LongArrayList tapTimes = new LongArrayList();
        LongArrayList tapPsns = new LongArrayList();
        if (tapped) {
            link.addTap((t, d, n) -> {
                tapTimes.add(t);
                tapPsns.add(RoceLayout.u24(d, RoceLayout.BTH_OFFSET + 9));
            });
        }
        LongArrayList arrivals = new LongArrayList();
        LongArrayList psns = new LongArrayList();
        RoceReader reader = new RoceReader();
        link.b().connectReceiver(f -> {
            reader.wrap(f.data(), f.length());
            psns.add(reader.psn());
            arrivals.add(sim.now());
            assertThat(f.txStartPs()).isEqualTo(f.arrivalPs() - 1026 * 80 - 500);
            return Pump.consume(f);
        });
        RoceWriter w = new RoceWriter();
        sim.event("send", () -> {
            sendAt(link, w, 1, 300_000);
            sendAt(link, w, 2, 100_000);
            sendAt(link, w, 3, 100_000);
            sendAt(link, w, 4, 0);
        }).schedule(0);
        sim.run();
        long slot = 1026 * 80;
        // 4 is ready at once; 2 and 3 (in send order) at 100 ns; 1, sent first, at 300 ns.
        assertThat(psns.toArray()).containsExactly(4, 2, 3, 1);
        assertThat(arrivals.toArray()).containsExactly(slot + 500, 100_000 + slot + 500, 100_000 + 2 * slot + 500,
                300_000 + slot + 500);
        if (tapped) {
            assertThat(tapPsns.toArray()).containsExactly(4, 2, 3, 1);
            assertThat(tapTimes.toArray()).containsExactly(0, 100_000, 100_000 + slot, 300_000);
        } else {
            // The send event and one arrival per frame: no event marks a slot's end or a frame becoming ready.
            assertThat(sim.eventsExecuted()).isEqualTo(1 + 4);
        }
        assertThat(link.aToB().busyFraction()).isEqualTo(4.0 * slot / sim.now());
    }

    @Test
    void aFrameReadyDuringAStallStartsWhenTheReceiverRetries() {
        Simulator sim = new Simulator(1);
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(100, 0, 8));
        long slot = 1026 * 80;
        LongArrayList psns = new LongArrayList();
        LongArrayList at = new LongArrayList();
        RoceReader reader = new RoceReader();
        boolean[] refused = {false};
        int[] testEvents = {0};
        Event unblock = sim.event("unblock", () -> {
            testEvents[0]++;
            link.b().retryDelivery();
        });
        link.b().connectReceiver(f -> {
            if (!refused[0]) {
                refused[0] = true;
                unblock.schedule(500_000);
                return false;
            }
            reader.wrap(f.data(), f.length());
            psns.add(reader.psn());
            at.add(sim.now());
            assertThat(f.txStartPs()).isEqualTo(reader.psn() == 2 ? 500_000 : reader.psn() == 3 ? slot : 0);
            return Pump.consume(f);
        });
        RoceWriter w = new RoceWriter();
        sim.event("send", () -> {
            testEvents[0]++;
            sendAt(link, w, 1, 0);
            sendAt(link, w, 2, 200_000); // ready during the stall: waits for the retry
            sendAt(link, w, 3, slot); // ready as 1 arrives and is refused: starts before the stall, lands behind 1
        }).schedule(0);
        sim.run();
        assertThat(psns.toArray()).containsExactly(1, 3, 2);
        assertThat(at.toArray()).containsExactly(500_000, 500_000, 500_000 + slot);
        assertThat(link.aToB().refusals()).isEqualTo(1);
        assertThat(sim.eventsExecuted() - testEvents[0]).as("arrival of 1, the retry, arrival of 2").isEqualTo(3);
        assertThat(link.aToB().busyFraction()).isEqualTo(3.0 * slot / sim.now());
    }

    @Test
    void aReadyTimeInThePastIsRejected() {
        Simulator sim = new Simulator(1);
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(100, 0, 2));
        sim.runUntil(1_000);
        Frame f = link.a().acquire();
        f.length(100);
        assertThatThrownBy(() -> link.a().send(f, 999)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("readyPs 999");
    }

    @Test
    void statisticsDumpsAndResetsSeeFramesThatStartedWithoutAnEvent() throws IOException {
        Simulator sim = new Simulator(1);
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(100, 0, 4));
        link.b().connectReceiver(Pump::consume);
        long slot = 1026 * 80;
        RoceWriter w = new RoceWriter();
        sim.event("send", () -> {
            sendAt(link, w, 1, 1_000); // starts at 1 ns with no event of its own
            sendAt(link, w, 2, 1_000); // starts when 1's slot ends
        }).schedule(0);
        long reset = slot / 2;
        sim.runUntil(reset);
        StringWriter json = new StringWriter();
        sim.stats().writeJson(json); // the link's first group brings the lines up to date before any counter is read
        assertThat(new ObjectMapper().readTree(json.toString())
                .path("link.aToB.framesSent").path("value").asLong()).isEqualTo(1);
        sim.stats().reset(); // frame 1 is on the line, counted before the reset; frame 2 follows it
        sim.runUntil(4 * slot);
        assertThat(link.aToB().framesSent()).isEqualTo(1);
        assertThat(link.aToB().busyFraction()).isEqualTo((double) (1_000 + 2 * slot - reset) / (4 * slot - reset));
    }

    @Test
    void anEmptyPoolRefusesAcquireAndCallsTheSenderBackOnce() {
        Simulator sim = new Simulator(1);
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(100, 0, 2));
        List<Frame> held = new ArrayList<>();
        link.b().connectReceiver(f -> held.add(f));
        int[] retries = {0};
        link.a().onBufferFree(() -> retries[0]++);
        for (int i = 0; i < 2; i++) {
            Frame f = link.a().acquire();
            f.length(100);
            link.a().send(f);
        }
        assertThat(link.a().acquire()).isNull();
        assertThat(link.a().acquire()).isNull();
        sim.run();
        assertThat(held).hasSize(2);
        assertThat(retries[0]).isZero();
        held.get(0).release();
        held.get(1).release();
        sim.run();
        assertThat(retries[0]).isEqualTo(1);
        assertThatThrownBy(() -> held.get(0).release()).hasMessageContaining("released while free");
        Frame f = link.a().acquire();
        assertThat(f.length()).isZero();
        assertThatThrownBy(() -> link.b().send(f)).hasMessageContaining("belongs to link.a");
        assertThatThrownBy(() -> link.a().send(f)).hasMessageContaining("set length() first");
    }

    @Test
    void loopbackDeliversToTheSameEndpoint() {
        Simulator sim = new Simulator(1);
        EthernetLink link = EthernetLink.loopback(sim, "lo", new EthernetLink.Config(200, 0, 2));
        LongArrayList got = new LongArrayList();
        link.a().connectReceiver(f -> got.add(f.sequence()) && Pump.consume(f));
        for (int i = 0; i < 2; i++) {
            Frame f = link.a().acquire();
            f.length(500);
            link.a().send(f);
        }
        sim.run();
        assertThat(got.toArray()).containsExactly(0, 1);
        assertThat(sim.now()).isEqualTo(2 * (8 + 500 + 4 + 12) * 40L);
        assertThat(link.isLoopback()).isTrue();
        assertThatThrownBy(link::b).hasMessageContaining("loopback");
        assertThat(link.aToB().name()).isEqualTo("loop");
    }

    @Test
    void configRejectsImpossibleValues() {
        assertThatThrownBy(() -> new EthernetLink.Config(10, 0, 1)).hasMessageContaining("rateGbps");
        assertThatThrownBy(() -> new EthernetLink.Config(100, -1, 1)).hasMessageContaining("propagationPs");
        assertThatThrownBy(() -> new EthernetLink.Config(100, 0, 0)).hasMessageContaining("buffersPerEndpoint");
        EthernetLink link = EthernetLink.cable(new Simulator(1), "l", new EthernetLink.Config(100, 0, 1));
        assertThatThrownBy(() -> link.aToB().setFaults(0.7, 0.5)).hasMessageContaining("corrupt probability");
        assertThatThrownBy(() -> link.aToB().setFaults(-0.1, 0)).hasMessageContaining("drop probability");
    }

    /** Each documented range holds its ends and refuses one past them; FEC modes are found by their profile names. */
    @Test
    void configRangesIncludeTheirEnds() {
        assertThat(new EthernetLink.Config(25, 0, 1).rateGbps()).isEqualTo(25);
        assertThat(new EthernetLink.Config(400, 0, 65_535).buffersPerEndpoint()).isEqualTo(65_535);
        assertThatThrownBy(() -> new EthernetLink.Config(24, 0, 1)).hasMessage("rateGbps must be 25..400, got 24");
        assertThatThrownBy(() -> new EthernetLink.Config(401, 0, 1)).hasMessage("rateGbps must be 25..400, got 401");
        assertThatThrownBy(() -> new EthernetLink.Config(100, 0, 65_536))
                .hasMessage("buffersPerEndpoint must be 1..65535, got 65536");
        assertThat(new EthernetLink.Phy(EthernetLink.Fec.NONE, 0, 0)).isEqualTo(EthernetLink.Phy.NONE);
        assertThatThrownBy(() -> new EthernetLink.Phy(EthernetLink.Fec.NONE, -1, 0))
                .hasMessage("PHY latencies must be >= 0, got -1 and 0");
        assertThatThrownBy(() -> new EthernetLink.Phy(EthernetLink.Fec.NONE, 0, -1))
                .hasMessage("PHY latencies must be >= 0, got 0 and -1");
        for (EthernetLink.Fec f : EthernetLink.Fec.values()) {
            assertThat(EthernetLink.Fec.of(f.key())).isSameAs(f);
        }
        assertThat(EthernetLink.Fec.of("rs544")).isSameAs(EthernetLink.Fec.RS544);
        assertThatThrownBy(() -> EthernetLink.Fec.of("RS544"))
                .hasMessage("unknown FEC mode 'RS544' (none, rs528, rs544, rs272)");
    }

    @Test
    void resetReturnsEveryBufferAndIdlesTheLine() {
        Simulator sim = new Simulator(1);
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(100, 1_000_000, 4));
        link.b().connectReceiver(f -> false);
        for (int i = 0; i < 4; i++) {
            Frame f = link.a().acquire();
            f.length(100);
            link.a().send(f);
        }
        sim.runUntil(1_100_000);
        assertThat(link.aToB().stalled()).isTrue();
        link.reset();
        assertThat(link.a().freeBuffers()).isEqualTo(4);
        assertThat(link.aToB().stalled()).isFalse();
        assertThat(sim.pendingEvents()).isZero();
    }

    @Test
    void steadyTrafficAllocatesNothing() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Simulator sim = new Simulator(1);
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(100, 2_000, 8));
        link.aToB().setFaults(0.01, 0.01);
        RoceReader reader = new RoceReader();
        long[] ok = {0};
        link.b().connectReceiver(f -> {
            if (reader.wrap(f.data(), f.length()) == FrameCheck.VALID) {
                ok[0]++;
            }
            f.release();
            return true;
        });
        RoceWriter w = new RoceWriter();
        int[] sent = Pump.start(link.a(), Integer.MAX_VALUE, (f, i) -> fill(f, w, i, 256));
        sim.runUntil(20_000_000);
        long before = mx.getCurrentThreadAllocatedBytes();
        sim.runUntil(200_000_000);
        long allocated = mx.getCurrentThreadAllocatedBytes() - before;
        assertThat(ok[0]).isGreaterThan(5_000);
        assertThat(allocated).as("bytes allocated over %d frames", sent[0]).isLessThan(4_096);
    }
}
