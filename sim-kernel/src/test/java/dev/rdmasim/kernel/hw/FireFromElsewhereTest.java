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

    /** A consumer woken on its own, with nothing moving on its channel, does not pull its producer into the cycle. */
    @Test
    void aConsumerRunningAloneLeavesItsProducerAsleep() {
        Simulator sim = new Simulator();
        Top top = new Top(sim);
        ClockDomain c = ClockDomain.ofPeriod(sim, "c", 1_000);
        Holder h = new Holder(top, c);
        Refuser r = new Refuser(top, c);
        Channels.connect(h.out, r.in);
        sim.event("start", () -> {
            h.wake();
            r.wakeAtCycle(10);
        }).schedule(0);
        sim.run();
        // The holder ran at 1 (its offer) and 2 (valid rose); the refuser's own run at 10 moves nothing.
        assertThat(h.evaluations).isEqualTo(2);
        assertThat(c.evaluations()).isEqualTo(4);
    }

    /** Never offers; its consumer end is ready from reset. */
    static final class Idle extends ClockedModule {
        final OutPort<String> out = outPort("out");
        final InPort<String> in = inPort("in", true);

        Idle(Module parent, String name, ClockDomain clock) {
            super(parent, name, clock);
        }

        @Override
        protected void evaluate() {
        }
    }

    /**
     * Between edges a channel no end latched at the last edge answers from its levels: valid up and ready down, or
     * ready up and valid down, is no transfer.
     */
    @Test
    void betweenEdgesAQuietChannelTransfersOnlyWithBothLevelsUp() {
        Simulator sim = new Simulator();
        Top top = new Top(sim);
        ClockDomain c = ClockDomain.ofPeriod(sim, "c", 1_000);
        Holder h = new Holder(top, c);
        Refuser r = new Refuser(top, c);
        Channels.connect(h.out, r.in);
        Idle producer = new Idle(top, "producer", c);
        Idle consumer = new Idle(top, "consumer", c);
        Channels.connect(producer.out, consumer.in);
        List<String> seen = new ArrayList<>();
        sim.event("start", h::wake).schedule(0);
        sim.event("look", () -> {
            seen.add("cycle " + c.cycle());
            seen.add("valid " + h.out.valid() + " ready " + h.out.ready() + " fire " + h.out.fire());
            seen.add("valid " + producer.out.valid() + " ready " + producer.out.ready() + " fire " + consumer.in.fire());
        }).schedule(5_500);
        sim.run();
        assertThat(seen).containsExactly("cycle 5", "valid true ready false fire false", "valid false ready true fire false");
    }

    /** Takes every item; records, in commit() and between edges, whether the cycle just run transferred. */
    static final class Taker extends ClockedModule {
        final InPort<String> in = inPort("in", true);
        final List<String> log = new ArrayList<>();

        Taker(Module parent, ClockDomain clock) {
            super(parent, "taker", clock);
        }

        @Override
        protected void evaluate() {
            if (in.fire()) {
                log.add("took " + in.bits() + " at " + cycle());
            }
        }

        @Override
        protected void commit() {
            log.add("commit " + cycle() + " fire " + in.fire());
        }
    }

    @Test
    void theEndsAskingInCommitOrBetweenEdgesGetTheTransferOfTheCycleJustRun() {
        Simulator sim = new Simulator();
        Top top = new Top(sim);
        ClockDomain c = ClockDomain.ofPeriod(sim, "c", 1_000);
        Holder h = new Holder(top, c);
        Taker t = new Taker(top, c);
        Channels.connect(h.out, t.in);
        sim.event("start", h::wake).schedule(0);
        // Edge 2 moves the item and drops valid at its commit; half a cycle later the transfer of 2 is still the answer.
        sim.event("between", () -> t.log.add("at " + sim.now() + " fire " + h.out.fire() + " valid " + h.out.valid()))
                .schedule(2_500);
        sim.run();
        assertThat(t.log).containsExactly("took x at 2", "commit 2 fire true", "at 2500 fire true valid false",
                "commit 3 fire false");
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
