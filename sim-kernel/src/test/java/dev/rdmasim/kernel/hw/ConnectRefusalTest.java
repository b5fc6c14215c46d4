package dev.rdmasim.kernel.hw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.kernel.Simulator;
import org.junit.jupiter.api.Test;

/**
 * A refused connection leaves both ports as they were (a connected end keeps its peer, a free end stays free
 * and can still be connected), and a second top-level module of one name is refused.
 */
class ConnectRefusalTest {

    @Test
    void aConnectionRefusedForEitherEndChangesNeitherPort() {
        Simulator sim = new Simulator();
        Top top = new Top(sim);
        ClockDomain clk = ClockDomain.ofPeriod(sim, "clk", 1_000);
        TestProducer p = new TestProducer(top, "p", clk, 1, 0, 1);
        TestConsumer c = new TestConsumer(top, "c", clk, 0, 1);
        TestProducer p2 = new TestProducer(top, "p2", clk, 1, 0, 1);
        TestConsumer c2 = new TestConsumer(top, "c2", clk, 0, 1);
        Channels.connect(p.out, c.in);

        assertThatThrownBy(() -> Channels.connect(p.out, c2.in)).isInstanceOf(IllegalStateException.class)
                .hasMessage("port 'top.p.out' is already connected");
        assertThat(c2.in.connected()).isFalse();
        assertThatThrownBy(() -> Channels.connect(p2.out, c.in)).isInstanceOf(IllegalStateException.class)
                .hasMessage("port 'top.c.in' is already connected");
        assertThat(p2.out.connected()).isFalse();

        // The free ends are still free: they connect to each other and carry an item.
        Channels.connect(p2.out, c2.in);
        Channels.connect(new TestProducer(top, "p3", clk, 0, 0, 1).out, new TestConsumer(top, "c3", clk, 0, 1).in);
        p.wake();
        p2.wake();
        sim.run();
        assertThat(c.items.toArray()).containsExactly(0);
        assertThat(c2.items.toArray()).containsExactly(0);
    }

    @Test
    void twoTopLevelModulesMayNotShareAName() {
        Simulator sim = new Simulator();
        new Top(sim);
        assertThatThrownBy(() -> new Top(sim)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a top-level module named 'top' already exists");
    }

    @Test
    void aQueueDrivenReadyCannotBeSetAndModulesListTheirChildren() {
        Simulator sim = new Simulator();
        Top top = new Top(sim);
        ClockDomain clk = ClockDomain.ofPeriod(sim, "clk", 1_000);
        Fifo<Integer> q = new Fifo<>(top, "q", clk, 2, 1, false, false);
        assertThatThrownBy(() -> q.enq.setReady(true)).isInstanceOf(IllegalStateException.class)
                .hasMessage("port 'top.q.enq' is driven by its queue");
        TestProducer p = new TestProducer(top, "p", clk, 1, 0, 1);
        assertThat(top.children()).containsExactly(q, p);
        assertThat(q.children()).isEmpty();
        assertThat(p.parent()).isSameAs(top);
        assertThat(p).hasToString("top.p");
        assertThat(top).hasToString("top");
    }
}

