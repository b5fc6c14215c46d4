package dev.rdmasim.kernel.hw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.wave.SignalFilter;
import dev.rdmasim.kernel.wave.VcdWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The wake-ups a channel gives by itself: a change of valid or ready, or a transfer, wakes both ends for the next
 * edge, and nothing else does. The two modules here never wake themselves after the first offer, so every
 * evaluation after it comes from the channel, and the cycles they are evaluated at say which wake-up happened.
 */
class PeerWakeTest {

    /** Offers one item when first evaluated; logs every evaluation. */
    static final class OneShot extends ClockedModule {
        final OutPort<String> out = outPort("out");
        final List<Long> evaluated = new ArrayList<>();

        OneShot(Module parent, ClockDomain clock) {
            super(parent, "producer", clock);
        }

        @Override
        protected void evaluate() {
            if (evaluated.isEmpty()) {
                out.offer("x");
            }
            evaluated.add(cycle());
        }
    }

    /** Raises ready when it first sees valid, drops it when the item arrives; logs evaluations and arrivals. */
    static final class Taker extends ClockedModule {
        final InPort<String> in = inPort("in", false);
        final List<Long> evaluated = new ArrayList<>();
        final List<String> arrived = new ArrayList<>();

        Taker(Module parent, ClockDomain clock) {
            super(parent, "consumer", clock);
        }

        @Override
        protected void evaluate() {
            evaluated.add(cycle());
            if (in.fire()) {
                arrived.add(in.bits() + "@" + cycle());
                in.setReady(false);
            } else if (in.valid() && !in.ready()) {
                in.setReady(true);
            }
        }
    }

    /** Never drives anything: its ports keep their reset levels. */
    static final class Silent extends ClockedModule {
        final OutPort<String> out = outPort("out");
        final InPort<String> in;

        Silent(Module parent, String name, ClockDomain clock, boolean ready) {
            super(parent, name, clock);
            in = inPort("in", ready);
        }

        @Override
        protected void evaluate() {
        }
    }

    @Test
    void aChangeOfDriveOrATransferWakesBothEndsForTheNextEdgeOnly() {
        Simulator sim = new Simulator();
        Top top = new Top(sim);
        ClockDomain c = ClockDomain.ofPeriod(sim, "c", 1_000);
        OneShot p = new OneShot(top, c);
        Taker t = new Taker(top, c);
        Channels.connect(p.out, t.in);
        sim.event("start", () -> p.wakeAtCycle(3)).schedule(0);
        sim.run();
        // 3: valid rises (wakes both for 4). 4: the consumer raises ready (wakes both for 5). 5: the transfer,
        // valid and ready fall (wakes both for 6). 6: nothing changes, so nobody is woken again.
        assertThat(p.evaluated).containsExactly(3L, 4L, 5L, 6L);
        assertThat(t.evaluated).containsExactly(4L, 5L, 6L);
        assertThat(t.arrived).containsExactly("x@5");
        assertThat(c.edgesProcessed()).isEqualTo(4);
        assertThat(sim.now()).isEqualTo(6_000);
    }

    /** The same exchange in the waveform: each handshake signal starts at its reset level and changes once each way. */
    @Test
    void theHandshakeSignalsStartAtTheirResetLevelsAndFollowTheExchange() {
        Simulator sim = new Simulator();
        StringWriter out = new StringWriter();
        VcdWriter vcd = new VcdWriter(out, sim::now, SignalFilter.ALL);
        sim.attachWave(vcd);
        Top top = new Top(sim);
        ClockDomain c = ClockDomain.ofPeriod(sim, "c", 1_000);
        OneShot p = new OneShot(top, c);
        Taker t = new Taker(top, c);
        Channels.connect(p.out, t.in);
        Silent open = new Silent(top, "open", c, true);
        Silent idle = new Silent(top, "idle", c, false);
        Channels.connect(idle.out, open.in);
        // Before any edge nothing can have moved, whatever the levels.
        assertThat(p.out.fire()).isFalse();
        sim.event("start", () -> p.wakeAtCycle(3)).schedule(0);
        sim.run();
        vcd.close();
        Map<String, List<Long>> v = HwWaveAndChecksTest.parse(out.toString());
        assertThat(v.get("top.producer.out_valid")).containsExactly(0L, 1L, 0L);
        assertThat(v.get("top.consumer.in_ready")).containsExactly(0L, 1L, 0L);
        assertThat(v.get("top.open.in_ready")).containsExactly(1L);
        assertThat(v.get("top.idle.out_valid")).containsExactly(0L);
    }

    /** A port left unconnected names itself when asked about the other end, rather than failing on nothing. */
    @Test
    void anUnconnectedPortSaysSo() {
        Simulator sim = new Simulator();
        Top top = new Top(sim);
        ClockDomain c = ClockDomain.ofPeriod(sim, "c", 1_000);
        Silent s = new Silent(top, "lone", c, true);
        assertThat(s.out.connected()).isFalse();
        assertThat(s.in.connected()).isFalse();
        assertThatThrownBy(s.out::ready).isInstanceOf(IllegalStateException.class)
                .hasMessage("port 'top.lone.out' is not connected");
        assertThatThrownBy(s.in::valid).isInstanceOf(IllegalStateException.class)
                .hasMessage("port 'top.lone.in' is not connected");
    }

    @Test
    void betweenEdgesTheCycleIsTheLastEdgeAtOrBeforeNowEvenWhenTheClockIsIdle() {
        Simulator sim = new Simulator();
        Top top = new Top(sim);
        ClockDomain c = ClockDomain.ofPeriod(sim, "c", 1_000, 100);
        OneShot p = new OneShot(top, c);
        Taker t = new Taker(top, c);
        Channels.connect(p.out, t.in);
        List<Long> seen = new ArrayList<>();
        sim.event("start", () -> p.wakeAtCycle(1)).schedule(0);
        // The clock processes edges 1 to 4 and then idles; these ordinary events ask for the cycle later on.
        sim.event("at edge 4", () -> seen.add(p.cycle())).schedule(4_100);
        sim.event("after", () -> seen.add(c.cycle())).schedule(9_099);
        sim.event("later", () -> seen.add(c.cycle())).schedule(9_100);
        sim.run();
        assertThat(p.evaluated).containsExactly(1L, 2L, 3L, 4L);
        assertThat(seen).containsExactly(4L, 8L, 9L);
    }
}
