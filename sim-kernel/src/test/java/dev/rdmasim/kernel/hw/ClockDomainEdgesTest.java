package dev.rdmasim.kernel.hw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.kernel.Simulator;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Clock-domain corners: exact boundaries of conversions and checks, many modules per edge, ports seen between edges. */
class ClockDomainEdgesTest {

    @Test
    void conversionsAndChecksAtTheirExactBoundaries() {
        Simulator sim = new Simulator();
        ClockDomain c = ClockDomain.ofPeriod(sim, "c", 1_000, 999);
        assertThat(c.phasePs()).isEqualTo(999);
        assertThat(c.name()).isEqualTo("c");
        assertThat(c.toString()).isEqualTo("c(1000ps)");
        assertThat(c.psToCycles(0)).isZero();
        assertThat(c.psToCycles(1)).isEqualTo(1);
        assertThat(c.psToCycles(1_000)).isEqualTo(1);
        assertThat(c.psToCycles(1_001)).isEqualTo(2);
        assertThatThrownBy(() -> c.psToCycles(-1)).hasMessageContaining("negative duration -1 ps");
        assertThatThrownBy(() -> ClockDomain.ofPeriod(sim, "m", 1_000, -1)).hasMessageContaining("phase -1 ps");
        assertThat(ClockDomain.ofPeriod(sim, "one", 1).periodPs()).isEqualTo(1);
        // Exactly 1 THz is a 1 ps period; just above rounds to 0 ps and is refused.
        assertThat(ClockDomain.ofFrequency(sim, "thz", 1e12).periodPs()).isEqualTo(1);
        assertThatThrownBy(() -> ClockDomain.ofFrequency(sim, "fast", 2.1e12)).hasMessageContaining("1 THz");
        assertThatThrownBy(() -> ClockDomain.ofFrequency(sim, "zero", 0)).hasMessageContaining("positive, got 0.0 Hz");
        assertThatThrownBy(() -> ClockDomain.ofFrequency(sim, "nan", Double.NaN)).hasMessageContaining("positive");
        assertThatThrownBy(() -> ClockDomain.ofFrequency(sim, "inf", Double.POSITIVE_INFINITY))
                .hasMessageContaining("positive");
    }

    /**
     * The edge at or after a time, asked in sequences callers make (steps within a cycle, a cycle on, exactly one
     * period, back in time, far jumps, times before edge 0): always the first edge at or after it, whatever the clock
     * answered before.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void edgeAtOrAfterIsExactWhateverWasAskedBefore(long seed) {
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(seed);
        long period = seed % 3 == 0 ? 1 + rnd.nextLong(1L << 40) : 1 + rnd.nextLong(5_000);
        long phase = rnd.nextLong(period);
        ClockDomain c = ClockDomain.ofPeriod(new Simulator(), "c", period, phase);
        long t = rnd.nextLong(-2 * period, 10 * period);
        for (int i = 0; i < 20_000; i++) {
            long expected = phase + Math.floorDiv(t - phase + period - 1, period) * period;
            assertThat(c.edgeAtOrAfter(t)).as("t=%d period=%d phase=%d", t, period, phase).isEqualTo(expected);
            t += switch (rnd.nextInt(8)) {
                case 0 -> rnd.nextLong(period);
                case 1 -> period;
                case 2 -> period + 1;
                case 3 -> -rnd.nextLong(2 * period + 1);
                case 4 -> rnd.nextInt(3) == 0 ? rnd.nextLong(1L << 54) - t : rnd.nextLong(1_000 * period);
                case 5 -> expected - t; // exactly on the edge just answered
                case 6 -> expected - t + 1;
                default -> 1;
            };
        }
    }

    @Test
    void manyModulesWokenForOneEdgeAreEachEvaluatedOnce() {
        Simulator sim = new Simulator();
        Top top = new Top(sim);
        ClockDomain c = ClockDomain.ofPeriod(sim, "c", 1_000);
        List<ClockDomainTest.Probe> probes = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            probes.add(new ClockDomainTest.Probe(top, "p" + i, c));
        }
        sim.event("wakeAll", () -> {
            for (ClockDomainTest.Probe p : probes) {
                p.wake();
                p.wakeAtCycle(5);
                p.wakeAtCycle(0);
                p.wakeIn(9);
            }
        }).schedule(500);
        sim.run();
        for (ClockDomainTest.Probe p : probes) {
            assertThat(p.evaluated).containsExactly(1L, 5L, 9L);
        }
        assertThat(c.edgesProcessed()).isEqualTo(3);
        assertThat(c.evaluations()).isEqualTo(300);
    }

    @Test
    void timedWakesOfManyModulesForOneEdgeAllRun() {
        Simulator sim = new Simulator();
        Top top = new Top(sim);
        ClockDomain c = ClockDomain.ofPeriod(sim, "c", 1_000);
        List<ClockDomainTest.Probe> probes = new ArrayList<>();
        for (int i = 0; i < 70; i++) {
            probes.add(new ClockDomainTest.Probe(top, "p" + i, c));
        }
        sim.event("arm", () -> probes.forEach(p -> p.wakeIn(3))).schedule(0);
        sim.run();
        probes.forEach(p -> assertThat(p.evaluated).containsExactly(3L));
        assertThat(c.evaluations()).isEqualTo(70);
    }

    @Test
    void wakeInNeedsAtLeastOneCycleAndCyclesBeyondTheRangeAreRefused() {
        Simulator sim = new Simulator();
        Top top = new Top(sim);
        ClockDomain c = ClockDomain.ofPeriod(sim, "c", 1_000);
        ClockDomainTest.Probe p = new ClockDomainTest.Probe(top, "p", c);
        assertThatThrownBy(() -> p.wakeIn(0)).hasMessageContaining("wakeIn needs at least 1 cycle, got 0");
        assertThatThrownBy(() -> p.wakeAtCycle(Long.MAX_VALUE / 2)).hasMessageContaining("beyond the scheduler's range");
        sim.event("one", () -> p.wakeIn(1)).schedule(2_500);
        sim.run();
        assertThat(p.evaluated).containsExactly(3L);
    }

    /** The edge lists start at 16 entries and double: exactly full lists, at one edge and the next, run every module. */
    @ParameterizedTest(name = "{0} modules")
    @ValueSource(ints = {15, 16, 17, 32})
    void edgeListsFilledExactlyRunEveryModule(int n) {
        Simulator sim = new Simulator();
        Top top = new Top(sim);
        ClockDomain c = ClockDomain.ofPeriod(sim, "c", 1_000);
        List<ClockDomainTest.Probe> probes = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            probes.add(new ClockDomainTest.Probe(top, "p" + i, c));
        }
        sim.event("now", () -> probes.forEach(ClockedModule::wake)).schedule(0);
        sim.event("later", () -> probes.forEach(p -> p.wakeAtCycle(5))).schedule(2_500);
        sim.run();
        probes.forEach(p -> assertThat(p.evaluated).containsExactly(1L, 5L));
        assertThat(c.evaluations()).isEqualTo(2L * n);
    }

    /** The scheduler packs a cycle into 43 bits: the last one it can hold is accepted and runs, the next is refused. */
    @Test
    void theLastCycleOfTheSchedulersRangeRunsAndTheNextIsRefused() {
        Simulator sim = new Simulator();
        Top top = new Top(sim);
        ClockDomain c = ClockDomain.ofPeriod(sim, "c", 1_000);
        ClockDomainTest.Probe p = new ClockDomainTest.Probe(top, "p", c);
        long last = (1L << 43) - 1;
        assertThatThrownBy(() -> p.wakeAtCycle(last + 1)).hasMessageContaining("cycle " + (last + 1) + " is beyond the scheduler's range");
        sim.event("far", () -> p.wakeAtCycle(last)).schedule(0);
        sim.run();
        assertThat(p.evaluated).containsExactly(last);
        assertThat(sim.now()).isEqualTo(last * 1_000);
    }

    /** Offers one item and then, a cycle later, takes it back. */
    static final class Retractor extends ClockedModule {
        final OutPort<Integer> out = outPort("out");

        Retractor(Module parent, ClockDomain clock) {
            super(parent, "r", clock);
        }

        @Override
        protected void evaluate() {
            if (cycle() == 1) {
                out.offer(7);
                wake();
            } else if (cycle() == 2) {
                out.retract();
            }
        }
    }

    /** Never ready. */
    static final class Closed extends ClockedModule {
        final InPort<Integer> in = inPort("in", false);

        Closed(Module parent, ClockDomain clock) {
            super(parent, "closed", clock);
        }

        @Override
        protected void evaluate() {
        }
    }

    @Test
    void portsReadBetweenEdgesAndARetractedOfferNeverMoves() {
        Simulator sim = new Simulator();
        Top top = new Top(sim);
        ClockDomain c = ClockDomain.ofPeriod(sim, "c", 1_000);
        Retractor r = new Retractor(top, c);
        Closed blocked = new Closed(top, c);
        Channels.connect(r.out, blocked.in);
        List<String> seen = new ArrayList<>();
        sim.event("kick", r::wake).schedule(0);
        sim.event("look", () -> seen.add(r.out.valid() + " " + r.out.bits() + " " + r.out.ready() + " " + r.out.fire()))
                .schedule(1_500);
        sim.event("look2", () -> seen.add(r.out.valid() + " " + r.out.bits() + " " + r.out.fire())).schedule(2_500);
        sim.run();
        assertThat(seen).containsExactly("true 7 false false", "false null false");
        Fifo<Integer> f = new Fifo<>(top, "q", c, 1, 1, false, false);
        assertThatThrownBy(() -> f.deq.offer(1)).hasMessageContaining("port 'top.q.deq' is driven by its queue");
        assertThatThrownBy(() -> f.deq.retract()).hasMessageContaining("is driven by its queue");
    }
}
