package dev.rdmasim.kernel.hw;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.Simulator;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link OutPort#fire()} asked by a module at neither end of the channel, in a cycle where neither end runs: in
 * evaluate() the port decides the transfer there and then (none: valid is up but ready is not); in commit() it is too
 * late to decide, which is a kernel misuse that fails loudly.
 */
class FireFromElsewhereTest {

    /** Offers one item at its first evaluation and is never woken again by itself. */
    static final class Holder extends ClockedModule {
        final OutPort<String> out = outPort("out");
        int evaluations;

        Holder(Module parent, ClockDomain clock) {
            super(parent, "holder", clock);
        }

        @Override
        protected void evaluate() {
            if (evaluations++ == 0) {
                out.offer("x");
            }
        }
    }

    /** Never ready. */
    static final class Refuser extends ClockedModule {
        final InPort<String> in = inPort("in", false);

        Refuser(Module parent, ClockDomain clock) {
            super(parent, "refuser", clock);
        }

        @Override
        protected void evaluate() {
        }
    }

    /** Asks the holder's port at cycle 10 in evaluate() and at cycle 12 in commit(). */
    static final class Observer extends ClockedModule {
        final OutPort<String> watched;
        final List<String> seen = new ArrayList<>();

        Observer(Module parent, ClockDomain clock, OutPort<String> watched) {
            super(parent, "observer", clock);
            this.watched = watched;
        }

        @Override
        protected void evaluate() {
            if (cycle() == 10) {
                seen.add("evaluate " + cycle() + ": valid " + watched.valid() + " fire " + watched.fire());
            }
        }

        @Override
        protected void commit() {
            if (cycle() == 12) {
                try {
                    seen.add("commit " + cycle() + ": fire " + watched.fire());
                } catch (InvariantViolation e) {
                    seen.add("commit " + cycle() + ": " + e.getMessage());
                }
            }
        }
    }

    @Test
    void anotherModuleSeesNoTransferInEvaluateAndCannotAskInCommit() {
        Simulator sim = new Simulator();
        Top top = new Top(sim);
        ClockDomain c = ClockDomain.ofPeriod(sim, "c", 1_000);
        Holder h = new Holder(top, c);
        Refuser r = new Refuser(top, c);
        Channels.connect(h.out, r.in);
        Observer o = new Observer(top, c, h.out);
        sim.event("start", () -> {
            h.wake();
            o.wakeAtCycle(10);
            o.wakeAtCycle(12);
        }).schedule(0);
        sim.run();
        assertThat(o.seen).containsExactly("evaluate 10: valid true fire false",
                "commit 12: port 'top.holder.out': transfer not latched before commit");
        // valid rose at 2 and woke both ends once; nothing ran the holder after that.
        assertThat(h.evaluations).isEqualTo(2);
        assertThat(h.out.valid()).isTrue();
    }
}
