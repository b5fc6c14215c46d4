package dev.rdmasim.kernel.hw;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.kernel.Simulator;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A change of the offer alone is a change of drive: a producer that swaps the item it offers without a transfer wakes
 * its consumer, and an offer of a null item raises valid (and wakes both ends) like any other.
 */
class OfferChangeTest {

    /** Offers "a" at its first evaluation and "b" at cycle 4, which it asks to be woken for. */
    static final class Swapper extends ClockedModule {
        final OutPort<String> out = outPort("out");

        Swapper(Module parent, ClockDomain clock) {
            super(parent, "swapper", clock);
        }

        @Override
        protected void evaluate() {
            if (cycle() == 1) {
                out.offer("a");
                wakeAtCycle(4);
            } else if (cycle() == 4) {
                out.offer("b");
            }
        }
    }

    /** Raises ready only when it sees "b" on offer; logs what it sees and takes. */
    static final class Picky extends ClockedModule {
        final InPort<String> in = inPort("in", false);
        final List<String> log = new ArrayList<>();

        Picky(Module parent, ClockDomain clock) {
            super(parent, "picky", clock);
        }

        @Override
        protected void evaluate() {
            if (in.fire()) {
                log.add("took " + in.bits() + " at " + cycle());
            } else if (in.valid()) {
                log.add("saw " + in.bits() + " at " + cycle());
                in.setReady("b".equals(in.bits()));
            }
        }
    }

    @Test
    void swappingTheOfferWakesTheConsumer() {
        Simulator sim = new Simulator();
        Top top = new Top(sim);
        ClockDomain c = ClockDomain.ofPeriod(sim, "c", 1_000);
        Swapper s = new Swapper(top, c);
        Picky p = new Picky(top, c);
        Channels.connect(s.out, p.in);
        sim.event("start", s::wake).schedule(0);
        sim.run();
        assertThat(p.log).containsExactly("saw a at 2", "saw b at 5", "took b at 6");
    }

    /** Offers a null item once. */
    static final class NullOffer extends ClockedModule {
        final OutPort<String> out = outPort("out");

        NullOffer(Module parent, ClockDomain clock) {
            super(parent, "nulls", clock);
        }

        @Override
        protected void evaluate() {
            if (cycle() == 1) {
                out.offer(null);
            }
        }
    }

    @Test
    void aNullItemIsOfferedAndTakenLikeAnyOther() {
        Simulator sim = new Simulator();
        Top top = new Top(sim);
        ClockDomain c = ClockDomain.ofPeriod(sim, "c", 1_000);
        NullOffer n = new NullOffer(top, c);
        TestConsumerOfAnything t = new TestConsumerOfAnything(top, c);
        Channels.connect(n.out, t.in);
        sim.event("start", n::wake).schedule(0);
        sim.run();
        assertThat(t.log).containsExactly("took null at 2");
        assertThat(n.out.valid()).isFalse();
    }

    /** Always ready; logs each item with its cycle. */
    static final class TestConsumerOfAnything extends ClockedModule {
        final InPort<String> in = inPort("in", true);
        final List<String> log = new ArrayList<>();

        TestConsumerOfAnything(Module parent, ClockDomain clock) {
            super(parent, "taker", clock);
        }

        @Override
        protected void evaluate() {
            if (in.fire()) {
                log.add("took " + in.bits() + " at " + cycle());
            }
        }
    }
}
