package dev.rdmasim.kernel.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.hw.Channels;
import dev.rdmasim.kernel.hw.ClockDomain;
import dev.rdmasim.kernel.hw.ClockedModule;
import dev.rdmasim.kernel.hw.InPort;
import dev.rdmasim.kernel.hw.Module;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The demo's source on its own, against a consumer that stalls it. */
class SourceTest {

    /** Ready from cycle {@code readyFrom} on; keeps the tokens it takes and the cycles it took them in. */
    private static final class Taker extends ClockedModule {
        final InPort<Token> in = inPort("in", false);
        final List<Token> taken = new ArrayList<>();
        final List<Long> takenAt = new ArrayList<>();
        private final long readyFrom;

        Taker(Module parent, ClockDomain clock, long readyFrom) {
            super(parent, "taker", clock);
            this.readyFrom = readyFrom;
        }

        @Override
        protected void evaluate() {
            if (in.fire()) {
                taken.add(in.bits());
                takenAt.add(cycle());
            }
            if (cycle() + 1 >= readyFrom) {
                in.setReady(true);
            } else {
                wakeAtCycle(readyFrom - 1);
            }
        }
    }

    /**
     * A source of {@code tokens} tokens (pause probability {@code pause}, seed 1) at 1 GHz wired to a taker that takes
     * from cycle {@code takeFrom}, both woken.
     */
    private static final class Rig {
        final Simulator sim = new Simulator(1);
        final Source source;
        final Taker taker;

        Rig(int tokens, double pause, long takeFrom) {
            Module top = new Module(sim, "t") {
            };
            ClockDomain clock = ClockDomain.ofMHz(sim, "core", 1000);
            source = new Source(top, "source", clock, tokens, pause, 1);
            taker = new Taker(top, clock, takeFrom);
            Channels.connect(source.out, taker.in);
            source.wake();
            taker.wake();
        }
    }

    /**
     * A token on offer that is not taken stays as it was offered, with its stamp, however often the source is woken
     * meanwhile; it draws again only once the token is taken.
     */
    @Test
    void aWaitingTokenKeepsItsStampWhenTheSourceIsWokenAgain() {
        Rig rig = new Rig(2, 0.0, 10);
        Simulator sim = rig.sim;
        Source source = rig.source;
        Taker taker = rig.taker;
        for (long t : new long[] {2_500, 4_500, 6_500}) {
            sim.event("poke@" + t, source::wake).schedule(t);
        }
        sim.run();

        // Offered at the first edge after the wake (cycle 1, visible from cycle 2), taken at 10; the next offered
        // at 10, taken at 11.
        assertThat(taker.taken).containsExactly(new Token(0, 2_000), new Token(1, 11_000));
        assertThat(taker.takenAt).containsExactly(10L, 11L);
    }

    /** With pauses certain, the source pauses one cycle at every edge from its first (cycle 1) and offers nothing. */
    @Test
    void aSourceThatAlwaysPausesCountsItsPauses() {
        Rig rig = new Rig(1, 1.0, 0);
        Simulator sim = rig.sim;
        Taker taker = rig.taker;
        sim.runUntil(50_000);

        assertThat(taker.taken).isEmpty();
        assertThat(sim.stats().toText()).containsPattern("t\\.source\\.gapCycles +50 ");
    }
}
