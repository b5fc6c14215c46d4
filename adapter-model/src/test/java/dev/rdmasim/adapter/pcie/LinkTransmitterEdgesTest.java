package dev.rdmasim.adapter.pcie;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.testing.VcdChanges;
import dev.rdmasim.kernel.wave.SignalFilter;
import dev.rdmasim.kernel.wave.VcdWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.eclipse.collections.impl.list.mutable.primitive.LongArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The link's timing and its sender's wake-ups at the instants where one picosecond or one byte decides: a TLP ready
 * exactly when the serializer frees, a TLP that exactly fills a DLLP or SKIP interval, a wake-up that comes before a
 * TLP queued ahead lets the class go, a sender that finds room before its wake-up, counts read at a TLP's last byte
 * or before anything else touched the link, and a reset of a link whose serializer is still sending DLLPs.
 * Gen3 x8 throughout: 126.953125 ps a byte.
 */
class LinkTransmitterEdgesTest {

    /** The other end: every TLP delivered and every wake-up, with their instants. */
    private static final class Ends implements LinkEnd {
        final Simulator sim;
        final List<Tlp> received = new ArrayList<>();
        final LongArrayList arrivals = new LongArrayList();
        final LongArrayList wakes = new LongArrayList();
        Runnable onWake = () -> { };

        Ends(Simulator sim) {
            this.sim = sim;
        }

        @Override
        public void receive(Tlp t) {
            received.add(t);
            arrivals.add(sim.now());
        }

        @Override
        public void sent(Tlp t) {
        }

        @Override
        public void txSpace() {
            wakes.add(sim.now());
            onWake.run();
        }
    }

    private static LinkTransmitter link(Simulator sim, PcieConfig cfg, Ends ends) {
        Module top = new Module(sim, "top") {
        };
        LinkTransmitter link = new LinkTransmitter(top, "link", cfg, 1, 1, 1000);
        link.connect(ends, ends);
        return link;
    }

    private static Tlp tlp(TlpKind kind, long id, int wireBytes) {
        Tlp t = new Tlp(16);
        t.kind = kind;
        t.address = id;
        t.wireBytes = wireBytes;
        return t;
    }

    @Test
    void aTlpReadyJustAsTheSerializerFreesContinuesItsByteClock() {
        Simulator sim = new Simulator(1);
        Ends ends = new Ends(sim);
        LinkTransmitter link = link(sim, PcieConfig.defaults(), ends);
        sim.event("send", () -> {
            link.enqueue(tlp(TlpKind.MWR, 1, 24));
            // 24 B end at 3046.875 ps, rounded up to 3047; 64 B in all at exactly 8125 ps. Restarting the byte clock
            // at 3047 would put the second end at 3047 + 5079 (40 B, 5078.125 ps rounded up).
            link.enqueue(tlp(TlpKind.MRD, 2, 40), 3047);
        }).schedule(0);
        sim.run();
        assertThat(ends.received).extracting(t -> t.startPs + "-" + t.endPs).containsExactly("0-3047", "3047-8125");
    }

    /**
     * One interval at a time (Ack or FC update every 64 B, SKIP every 1538 B): the TLP that brings the count to
     * exactly the interval is followed by its DLLP or SKIP, the one before it is not, and so is the next one that
     * crosses the interval again.
     */
    @ParameterizedTest
    @ValueSource(strings = {"ack", "fc", "skip"})
    void aTlpThatExactlyFillsAnIntervalIsFollowedByItsOverhead(String which) {
        int interval = which.equals("skip") ? PcieConfig.SKIP_INTERVAL_BYTES : 64;
        PcieConfig cfg = PcieConfig.defaults().withDllpLimits(which.equals("ack") ? 64 : 4000,
                which.equals("fc") ? 64 : 4000);
        Simulator sim = new Simulator(1);
        Ends ends = new Ends(sim);
        LinkTransmitter link = link(sim, cfg, ends);
        sim.event("send", () -> {
            link.enqueue(tlp(TlpKind.CPLD, 1, interval - 1));
            link.enqueue(tlp(TlpKind.CPLD, 2, 1));
            link.enqueue(tlp(TlpKind.CPLD, 3, interval));
        }).schedule(0);
        sim.run();
        int dllp = which.equals("skip") ? 4 : 8;
        String after = which.equals("ack") ? "8/0/0" : which.equals("fc") ? "0/8/0" : "0/0/4";
        assertThat(ends.received).extracting(t -> t.ackBytes + "/" + t.fcBytes + "/" + t.skipBytes)
                .containsExactly("0/0/0", after, after);
        assertThat(link.overheadBytes()).isEqualTo(2L * dllp);
    }

    /**
     * A posted write waits for 1 us and holds the only posted slot; the refused sender's wake-up is armed for its
     * start. A long completion queued later but ready before it goes ahead: the wake-up comes while the slot is still
     * held, so it wakes nobody and is armed again for the write's real start.
     */
    @Test
    void aWakeUpThatComesBeforeTheSlotFreesWaitsForTheRealStart() {
        Simulator sim = new Simulator(1);
        Ends ends = new Ends(sim);
        LinkTransmitter link = link(sim, PcieConfig.defaults(), ends);
        boolean[] answers = new boolean[2];
        sim.event("send", () -> {
            link.enqueue(tlp(TlpKind.MWR, 1, 100), 1_000_000);
            answers[0] = link.canAccept(TlpKind.MWR);
        }).schedule(0);
        sim.event("completion", () -> link.enqueue(tlp(TlpKind.CPLD, 2, 2000), 900_000)).schedule(500_000);
        ends.onWake = () -> answers[1] = link.canAccept(TlpKind.MWR);
        sim.run();
        Tlp write = ends.received.get(1);
        assertThat(write.address).isEqualTo(1);
        assertThat(write.startPs).isGreaterThan(900_000 + 253_906);
        assertThat(answers).containsExactly(false, true);
        assertThat(ends.wakes.toArray()).containsExactly(write.startPs);
    }

    /**
     * The sender asks again at the instant its class frees, before its wake-up runs: it is accepted and is not woken
     * any more (nor is an event spent on it).
     */
    @ParameterizedTest
    @EnumSource(value = TlpKind.class, names = {"MWR", "MRD"})
    void aSenderThatFindsRoomBeforeItsWakeUpIsNotWoken(TlpKind kind) {
        Simulator sim = new Simulator(1);
        Ends ends = new Ends(sim);
        LinkTransmitter link = link(sim, PcieConfig.defaults(), ends);
        boolean[] answers = new boolean[2];
        // Scheduled first, so at 1 us it runs before the wake-up armed below.
        sim.event("again", () -> {
            answers[1] = link.canAccept(kind);
            link.enqueue(tlp(kind, 2, 24));
        }).schedule(1_000_000);
        sim.event("send", () -> {
            link.enqueue(tlp(kind, 1, 24), 1_000_000);
            answers[0] = link.canAccept(kind);
        }).schedule(0);
        sim.run();
        assertThat(answers).containsExactly(false, true);
        assertThat(ends.wakes.size()).isZero();
        assertThat(ends.received).hasSize(2);
        // The two senders' events and the two deliveries.
        assertThat(sim.eventsExecuted()).isEqualTo(4);
    }

    /** Two classes wait; the first finds room before its wake-up, the other is woken when its own slot frees. */
    @Test
    void oneOfTwoWaitingClassesFindsRoomAndTheOtherIsStillWoken() {
        Simulator sim = new Simulator(1);
        Ends ends = new Ends(sim);
        LinkTransmitter link = link(sim, PcieConfig.defaults(), ends);
        boolean[] answers = new boolean[4];
        sim.event("again", () -> answers[2] = link.canAccept(TlpKind.MWR)).schedule(1_000_000);
        sim.event("send", () -> {
            link.enqueue(tlp(TlpKind.MWR, 1, 24), 1_000_000);
            link.enqueue(tlp(TlpKind.MRD, 2, 24), 1_000_000);
            answers[0] = link.canAccept(TlpKind.MWR);
            answers[1] = link.canAccept(TlpKind.MRD);
        }).schedule(0);
        ends.onWake = () -> answers[3] = link.canAccept(TlpKind.MRD);
        sim.run();
        assertThat(answers).containsExactly(false, false, true, true);
        // The read starts when the write's 24 B are out.
        assertThat(ends.wakes.toArray()).containsExactly(1_003_047L);
    }

    @Test
    void aTlpIsOnTheWireFromItsLastByte() {
        Simulator sim = new Simulator(1);
        Ends ends = new Ends(sim);
        LinkTransmitter link = link(sim, PcieConfig.defaults(), ends);
        int[] seen = new int[3];
        sim.event("send", () -> link.enqueue(tlp(TlpKind.MWR, 1, 24))).schedule(0);
        sim.event("before", () -> seen[0] = link.onWire()).schedule(3046);
        sim.event("end", () -> seen[1] = link.onWire()).schedule(3047);
        sim.event("after", () -> seen[2] = link.onWire()).schedule(3048);
        sim.run();
        assertThat(seen).containsExactly(0, 1, 1);
    }

    private static final String[] COUNTS = {"wireBytes", "payloadBytes", "overheadBytes", "onWire", "queued",
        "bytesMWr statistic"};

    /**
     * Eight stores at time zero on a link with 20 us of latency: nothing of the link runs until the first delivery,
     * yet each count asked for first at 5 us (or the statistics, as a dump refreshes them), when every store is on
     * the wire, is already up to date.
     */
    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 3, 4, 5})
    void eachCountIsCurrentWhenItIsTheFirstThingAskedOfTheLink(int first) {
        PcieConfig cfg = PcieConfig.defaults().withLatencies(0, 20_000_000).withQueues(16, 16);
        Simulator sim = new Simulator(1);
        PcieLink pcie = new PcieLink(sim, "pcie", cfg, new HostMemory("host"));
        pcie.dma().setMmioTarget((off, data, o, len) -> { });
        long[] at5us = new long[COUNTS.length];
        sim.event("store", () -> {
            for (int i = 0; i < 8; i++) {
                assertThat(pcie.host().mmioWrite(0x800, new byte[256], 0, i == 0 ? 8 : 256)).isTrue();
            }
        }).schedule(0);
        sim.event("look", () -> {
            LinkTransmitter down = pcie.down();
            for (int k = 0; k < COUNTS.length; k++) {
                int i = (first + k) % COUNTS.length;
                at5us[i] = switch (i) {
                    case 0 -> down.wireBytes();
                    case 1 -> down.payloadBytes();
                    case 2 -> down.overheadBytes();
                    case 3 -> down.onWire();
                    case 4 -> down.queued();
                    default -> {
                        // A statistics dump refreshes the group first.
                        down.stats().refresh();
                        yield ((Counter) down.stats().stats().stream()
                                .filter(st -> st.name().equals("bytesMWr")).findFirst().orElseThrow()).value();
                    }
                };
            }
        }).schedule(5_000_000);
        sim.run();
        long overhead = pcie.down().overheadBytes();
        assertThat(overhead).isPositive();
        assertThat(at5us).containsExactly(8 * cfg.requestOverheadBytes() + 8 + 7 * 256 + overhead, 8 + 7 * 256,
                overhead, 8, 0, 8 * cfg.requestOverheadBytes() + 8 + 7 * 256);
    }

    /**
     * With no link latency a write is delivered at its last byte, while the DLLP after it is still being sent. A
     * reset then (the link holds no TLP) leaves the serializer idle from that instant, in the statistics and the
     * waveform; a reset later finds it went idle at the DLLP's end. Either way the next TLP is timed as on a fresh
     * link, its DLLP intervals counted from zero again.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aResetLeavesTheSerializerIdleAndTheByteClockFresh(boolean later) {
        PcieConfig cfg = PcieConfig.defaults().withLatencies(0, 0).withDllpLimits(64, 4000);
        Simulator sim = new Simulator(1);
        StringWriter out = new StringWriter();
        // Traced, the serializer is looked at when it goes idle; untraced, only when the reset asks.
        VcdWriter vcd = new VcdWriter(out, sim::now, later ? SignalFilter.NONE : SignalFilter.parse("top.link.busy"));
        sim.attachWave(vcd);
        Ends ends = new Ends(sim);
        LinkTransmitter link = link(sim, cfg, ends);
        // 40 B end at 5078.125 ps, so at 5079; no Ack yet. 24 B more: 64 B at exactly 8125 ps, then the 8 B Ack
        // until 9141 (72 B, 9140.625 ps).
        sim.event("send", () -> {
            link.enqueue(tlp(TlpKind.CPLD, 1, 40));
            link.enqueue(tlp(TlpKind.CPLD, 2, 24));
        }).schedule(0);
        long resetAt = later ? 20_000 : 8125;
        sim.runUntil(resetAt);
        assertThat(ends.arrivals.toArray()).containsExactly(5079L, 8125L);
        link.reset();
        sim.runUntil(40_000);
        long busyUntil = later ? 9141 : 8125;
        assertThat(link.busyFraction()).isEqualTo(busyUntil / 40_000.0);
        // 56 B and 8 B: fresh intervals put the Ack after the second; the 8 B of the Ack before the reset, still
        // counted, would put it after the first.
        sim.event("again", () -> {
            link.enqueue(tlp(TlpKind.CPLD, 3, 56));
            link.enqueue(tlp(TlpKind.CPLD, 4, 8));
        }).schedule(50_000);
        sim.run();
        vcd.close();
        assertThat(ends.received.subList(2, 4)).extracting(t -> (t.startPs - 50_000) + "-" + (t.endPs - 50_000) + "/"
                + t.ackBytes).containsExactly("0-7110/0", "7110-8125/8");
        if (!later) {
            Map<String, List<long[]>> wave = VcdChanges.parseTimed(out.toString());
            assertThat(VcdChanges.steps(wave.get("top.link.busy")))
                    .containsExactly("0=1", busyUntil + "=0", "50000=1", "59141=0");
        }
    }

    @Test
    void aTlpQueuedBeyondItsClassOrReadyInThePastIsRefused() {
        Simulator sim = new Simulator(1);
        Ends ends = new Ends(sim);
        LinkTransmitter link = link(sim, PcieConfig.defaults(), ends);
        sim.event("send", () -> {
            link.enqueue(tlp(TlpKind.MRD, 1, 24), 1_000_000);
            assertThatThrownBy(() -> link.enqueue(tlp(TlpKind.MRD, 2, 24), 1_000_000))
                    .isInstanceOf(InvariantViolation.class)
                    .hasMessage("top.link: MRD queued beyond its class limit 1");
            assertThatThrownBy(() -> link.enqueue(tlp(TlpKind.MWR, 3, 24), 999))
                    .isInstanceOf(InvariantViolation.class)
                    .hasMessage("top.link: MWR[addr=0x3 len=0 tag=0] ready at 999 ps, now is 1000 ps");
            link.enqueue(tlp(TlpKind.MWR, 4, 24), 1000);
        }).schedule(1000);
        sim.run();
        assertThat(ends.received).extracting(t -> t.address).containsExactly(4L, 1L);
    }
}
