package dev.rdmasim.adapter.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.Stat;
import dev.rdmasim.kernel.stats.StatsGroup;
import dev.rdmasim.kernel.stats.TimeAverage;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A frame buffer's life cycle as its users see it: the mistakes each state refuses (with the state named), the length
 * range, the request record a frame carries, and the endpoint's pool: refusals counted, a sender called back only when
 * it asked and set a callback, and a reset that forgets a waiting sender.
 */
class FrameLifecycleTest {

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

    @Test
    void eachStateRefusesWhatItMustAndNamesItself() {
        Simulator sim = new Simulator(1);
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(100, 1_000_000, 2));
        List<Frame> held = new ArrayList<>();
        link.b().connectReceiver(held::add);
        assertThatThrownBy(() -> link.b().connectReceiver(f -> true)).isInstanceOf(IllegalStateException.class)
                .hasMessage("link.b already has a receiver");

        Frame f = link.a().acquire();
        assertThat(f).hasToString("link.a.frame[0]");
        assertThat(f.length(14).length()).isEqualTo(14);
        assertThat(f.length(Frame.CAPACITY).length()).isEqualTo(Frame.CAPACITY);
        assertThatThrownBy(() -> f.length(13)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("frame length 13 outside 14..4174");
        assertThatThrownBy(() -> f.length(Frame.CAPACITY + 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("frame length 4175 outside 14..4174");
        f.length(100);
        link.a().send(f, 100_000); // not ready before 100 ns: queued until then
        assertThatThrownBy(() -> f.length(100)).isInstanceOf(IllegalStateException.class)
                .hasMessage("frame link.a.frame[0] can only be resized by its sender before send()");
        assertThatThrownBy(() -> link.a().send(f)).isInstanceOf(IllegalStateException.class)
                .hasMessage("frame link.a.frame[0] sent while queued for transmission");
        assertThatThrownBy(f::release).isInstanceOf(IllegalStateException.class)
                .hasMessage("frame link.a.frame[0] released while queued for transmission (double release, or release before delivery)");
        sim.runUntil(500_000);
        assertThat(link.aToB().framesSent()).isEqualTo(1); // brings the line up to date: the frame is on it
        assertThatThrownBy(f::release).hasMessageContaining("released while on the wire");
        sim.run();
        assertThat(held).containsExactly(f);
        assertThatThrownBy(() -> link.a().send(f)).hasMessage("frame link.a.frame[0] sent while held by the receiver");
        f.release();
        assertThatThrownBy(f::release).hasMessageContaining("released while free");

        // The shortest frame a sender may send is a bare Ethernet header.
        Frame header = link.a().acquire();
        header.length(14);
        link.a().send(header);
        sim.run();
        assertThat(held).hasSize(2);
        held.get(1).release();

        // A sender may give back a buffer it will not send.
        Frame unused = link.a().acquire();
        assertThat(link.a().freeBuffers()).isEqualTo(1);
        unused.release();
        assertThat(link.a().freeBuffers()).isEqualTo(2);
    }

    @Test
    void aFrameArrivingWhereNoReceiverIsConnectedFailsLoudly() {
        Simulator sim = new Simulator(1);
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(100, 0, 1));
        Frame f = link.a().acquire();
        f.length(60);
        link.a().send(f);
        assertThatThrownBy(sim::run).isInstanceOf(IllegalStateException.class)
                .hasMessage("frame arrived at link.b which has no receiver; call connectReceiver()");
    }

    /** A record that counts its placements and can move on to another request. */
    static final class Origin implements FrameOrigin {
        long generation;
        final List<Long> placed = new ArrayList<>();

        @Override
        public long generation() {
            return generation;
        }

        @Override
        public void placed(long ps) {
            placed.add(ps);
        }
    }

    @Test
    void aFrameTellsItsRequestOfThePlacementOnlyWhileTheRecordServesThatRequest() {
        Simulator sim = new Simulator(1);
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(100, 0, 2));
        Origin o = new Origin();
        o.generation = 7;
        Frame f = link.a().acquire();
        f.placed(5); // no record: nothing to tell
        f.origin(o);
        f.placed(10);
        o.generation = 8; // the record moved on to another request
        f.placed(20);
        assertThat(o.placed).containsExactly(10L);
        f.release();
        Frame again = link.a().acquire();
        assertThat(again).isSameAs(f);
        again.placed(30);
        assertThat(o.placed).as("a reused buffer forgets its record").containsExactly(10L);
        again.origin(o);
        again.placed(40);
        assertThat(o.placed).containsExactly(10L, 40L);
    }

    @Test
    void refusedAcquiresAreCountedAndOnlyAWaitingSenderWithACallbackIsCalledBack() {
        Simulator sim = new Simulator(1);
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(100, 0, 1));
        List<Frame> held = new ArrayList<>();
        link.b().connectReceiver(held::add);
        LinkEndpoint a = link.a();
        Frame f = a.acquire();
        f.length(60);
        a.send(f);
        assertThat(a.acquire()).isNull();
        assertThat(a.acquire()).isNull();
        sim.run();
        // No callback set: the release must not fail for want of one.
        held.remove(0).release();
        sim.run();
        assertThat(((Counter) stat(sim, "link.a", "acquireRefusals")).value()).isEqualTo(2);

        int[] calls = {0};
        a.onBufferFree(() -> calls[0]++);
        // The sender was refused and has not been called back since: the next buffer back calls it.
        cycle(sim, a, held);
        assertThat(calls[0]).isEqualTo(1);
        cycle(sim, a, held);
        assertThat(calls[0]).as("the sender did not ask since its last callback").isEqualTo(1);

        Frame h = a.acquire();
        h.length(60);
        a.send(h);
        assertThat(a.acquire()).isNull();
        sim.run();
        held.remove(0).release();
        sim.run();
        assertThat(calls[0]).isEqualTo(2);
        assertThat(((Counter) stat(sim, "link.a", "acquireRefusals")).value()).isEqualTo(3);
    }

    /** Sends one frame, lets it arrive and gives it back. */
    private static void cycle(Simulator sim, LinkEndpoint a, List<Frame> held) {
        Frame g = a.acquire();
        g.length(60);
        a.send(g);
        sim.run();
        held.remove(0).release();
        sim.run();
    }

    @Test
    void aResetForgetsTheWaitingSenderAndItsPendingCallback() {
        Simulator sim = new Simulator(1);
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(100, 0, 1));
        List<Frame> held = new ArrayList<>();
        link.b().connectReceiver(held::add);
        LinkEndpoint a = link.a();
        int[] calls = {0};
        a.onBufferFree(() -> calls[0]++);
        Frame f = a.acquire();
        f.length(60);
        a.send(f);
        assertThat(a.acquire()).isNull();
        sim.run();
        sim.event("release and reset", () -> {
            held.remove(0).release(); // schedules the callback at this instant...
            link.reset(); // ...which the reset cancels
        }).schedule(sim.now() + 1_000);
        sim.run();
        assertThat(calls[0]).isZero();
        assertThat(a.freeBuffers()).isEqualTo(1);

        // After the reset the sender is no longer waiting: a buffer coming back calls nobody.
        Frame g = a.acquire();
        g.length(60);
        a.send(g);
        sim.run();
        held.remove(0).release();
        sim.run();
        assertThat(calls[0]).isZero();
        assertThat(((TimeAverage) stat(sim, "link.a", "buffersInUse")).max()).isEqualTo(1);
    }
}
