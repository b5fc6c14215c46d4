package dev.rdmasim.kernel.hw;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.kernel.Simulator;
import org.junit.jupiter.api.Test;

class ResetTest {

    /** Never ready: whatever is offered piles up upstream. */
    static final class Blocked extends ClockedModule {
        final InPort<Integer> in = inPort("in", false);

        Blocked(Module parent, String name, ClockDomain clock) {
            super(parent, name, clock);
        }

        @Override
        protected void evaluate() {
        }
    }

    /** Overrides onReset without calling super: its register must reset all the same. */
    static final class Forgetful extends ClockedModule {
        final RegLong count = regLong("count", 3);
        boolean onResetRan;

        Forgetful(Module parent, String name, ClockDomain clock) {
            super(parent, name, clock);
        }

        @Override
        protected void evaluate() {
            count.set(count.get() + 1);
            if (count.next() < 10) {
                wake();
            }
        }

        @Override
        protected void onReset() {
            onResetRan = true;
        }
    }

    @Test
    void resetEmptiesQueuesAndRestoresRegistersAndPorts() {
        Simulator sim = new Simulator(1);
        Top top = new Top(sim);
        ClockDomain clk = ClockDomain.ofMHz(sim, "clk", 1000);
        TestProducer p = new TestProducer(top, "p", clk, 20, 0, 1);
        Fifo<Integer> q = new Fifo<>(top, "q", clk, 4, 1, false, false);
        Channels.connect(p.out, q.enq);
        Channels.connect(q.deq, new Blocked(top, "c", clk).in);
        Forgetful f = new Forgetful(top, "f", clk);
        p.wake();
        f.wake();
        sim.run();
        assertThat(q.size()).isEqualTo(4);
        assertThat(p.sent()).isEqualTo(4);
        assertThat(p.out.valid()).isTrue();
        assertThat(f.count.get()).isEqualTo(10);

        top.reset();

        assertThat(q.size()).isZero();
        assertThat(p.sent()).isZero();
        assertThat(p.out.valid()).isFalse();
        assertThat(f.count.get()).isEqualTo(3);
        assertThat(f.onResetRan).isTrue();

        // The model runs again from its initial state.
        p.wake();
        sim.run();
        assertThat(q.size()).isEqualTo(4);
        assertThat(p.sent()).isEqualTo(4);
    }
}
