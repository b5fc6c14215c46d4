package dev.rdmasim.kernel.hw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.kernel.Simulator;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClockDomainTest {

    @Test
    void convertsBetweenCyclesAndTime() {
        Simulator sim = new Simulator();
        ClockDomain pcie = ClockDomain.ofMHz(sim, "pcie", 250);
        assertThat(pcie.periodPs()).isEqualTo(4_000);
        assertThat(pcie.frequencyHz()).isEqualTo(250e6);
        assertThat(pcie.edgeTime(3)).isEqualTo(12_000);
        assertThat(pcie.cycleAt(11_999)).isEqualTo(2);
        assertThat(pcie.cycleAt(12_000)).isEqualTo(3);
        assertThat(pcie.edgeAtOrAfter(12_000)).isEqualTo(12_000);
        assertThat(pcie.edgeAtOrAfter(12_001)).isEqualTo(16_000);
        assertThat(pcie.edgeAfter(12_000)).isEqualTo(16_000);
        assertThat(pcie.cyclesToPs(5)).isEqualTo(20_000);
        assertThat(pcie.psToCycles(4_001)).isEqualTo(2);
        assertThat(pcie.psToCycles(8_000)).isEqualTo(2);
    }

    @Test
    void phaseShiftsEveryEdge() {
        Simulator sim = new Simulator();
        ClockDomain c = ClockDomain.ofPeriod(sim, "c", 1_000, 250);
        assertThat(c.edgeTime(0)).isEqualTo(250);
        assertThat(c.cycleAt(249)).isEqualTo(-1);
        assertThat(c.edgeAtOrAfter(0)).isEqualTo(250);
        assertThat(c.edgeAfter(250)).isEqualTo(1_250);
    }

    @Test
    void roundsNonIntegerPeriodsToThePicosecond() {
        Simulator sim = new Simulator();
        ClockDomain mac = ClockDomain.ofMHz(sim, "mac", 322.265625);
        assertThat(mac.periodPs()).isEqualTo(3_103);
        assertThat(mac.frequencyHz()).isCloseTo(322.265625e6, org.assertj.core.data.Percentage.withPercentage(0.01));
    }

    @Test
    void rejectsImpossibleClocks() {
        Simulator sim = new Simulator();
        assertThatThrownBy(() -> ClockDomain.ofPeriod(sim, "z", 0)).hasMessageContaining("period must be positive");
        assertThatThrownBy(() -> ClockDomain.ofPeriod(sim, "p", 10, 10)).hasMessageContaining("phase");
        assertThatThrownBy(() -> ClockDomain.ofFrequency(sim, "f", 3e12)).hasMessageContaining("1 THz");
        assertThatThrownBy(() -> ClockDomain.ofFrequency(sim, "n", -1)).hasMessageContaining("positive");
    }

    /** Logs the cycles at which it is evaluated. */
    static final class Probe extends ClockedModule {
        final List<Long> evaluated = new ArrayList<>();

        Probe(Module parent, String name, ClockDomain clock) {
            super(parent, name, clock);
        }

        @Override
        protected void evaluate() {
            evaluated.add(cycle());
        }
    }

    @Test
    void wakeTargetsTheFirstEdgeStrictlyAfterNow() {
        Simulator sim = new Simulator();
        Top top = new Top(sim);
        ClockDomain c = ClockDomain.ofPeriod(sim, "c", 1_000);
        Probe p = new Probe(top, "p", c);
        // An event exactly on edge 3 wakes the module for edge 4, whatever the event order at that picosecond.
        sim.event("onEdge", p::wake).schedule(3_000);
        sim.event("between", p::wake).schedule(5_500);
        sim.run();
        assertThat(p.evaluated).containsExactly(4L, 6L);
    }

    @Test
    void repeatedWakesForOneEdgeEvaluateOnce() {
        Simulator sim = new Simulator();
        Top top = new Top(sim);
        ClockDomain c = ClockDomain.ofPeriod(sim, "c", 1_000);
        Probe p = new Probe(top, "p", c);
        sim.event("a", () -> {
            p.wake();
            p.wake();
            p.wakeIn(1);
        }).schedule(100);
        sim.run();
        assertThat(p.evaluated).containsExactly(1L);
    }

    @Test
    void timedWakesAreKeptSeparatelyAndInOrder() {
        Simulator sim = new Simulator();
        Top top = new Top(sim);
        ClockDomain c = ClockDomain.ofPeriod(sim, "c", 1_000);
        Probe p = new Probe(top, "p", c);
        Probe q = new Probe(top, "q", c);
        sim.event("a", () -> {
            p.wakeIn(10);
            p.wakeIn(3);
            q.wakeAtCycle(7);
            q.wake();
        }).schedule(0);
        sim.run();
        assertThat(p.evaluated).containsExactly(3L, 10L);
        assertThat(q.evaluated).containsExactly(1L, 7L);
        assertThat(c.edgesProcessed()).isEqualTo(4);
    }

    @Test
    void wakeAtAnEdgeStillPendingAtThisPicosecondGoesToTheNextEdge() {
        Simulator sim = new Simulator();
        Top top = new Top(sim);
        ClockDomain c = ClockDomain.ofPeriod(sim, "c", 1_000);
        Probe p = new Probe(top, "p", c);
        Probe q = new Probe(top, "q", c);
        sim.event("first", p::wake).schedule(1_500);
        // At 2000 the edge for p is pending (edges run after ordinary events); q must wait for 3000.
        sim.event("second", q::wake).schedule(2_000);
        sim.run();
        assertThat(p.evaluated).containsExactly(2L);
        assertThat(q.evaluated).containsExactly(3L);
    }

    @Test
    void registersChangeOnlyAtCommit() {
        Simulator sim = new Simulator();
        Top top = new Top(sim);
        ClockDomain c = ClockDomain.ofPeriod(sim, "c", 1_000);
        List<String> seen = new ArrayList<>();
        ClockedModule m = new ClockedModule(top, "m", c) {
            final RegLong r = regLong("r", 5);

            @Override
            protected void evaluate() {
                r.set(r.get() + 1);
                seen.add(r.get() + "/" + r.next());
                if (r.next() < 8) {
                    wake();
                }
            }
        };
        m.wake();
        sim.run();
        assertThat(seen).containsExactly("5/6", "6/7", "7/8");
    }

    @Test
    void writesOutsideEvaluateFailLoudly() {
        Simulator sim = new Simulator();
        Top top = new Top(sim);
        ClockDomain c = ClockDomain.ofPeriod(sim, "c", 1_000);
        RegLong[] reg = new RegLong[1];
        ClockedModule m = new ClockedModule(top, "m", c) {
            {
                reg[0] = regLong("r", 0);
            }

            @Override
            protected void evaluate() {
            }

            @Override
            protected void commit() {
                reg[0].set(1);
            }
        };
        assertThatThrownBy(() -> reg[0].set(3)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("top.m").hasMessageContaining("evaluate()");
        m.wake();
        assertThatThrownBy(sim::run).isInstanceOf(IllegalStateException.class).hasMessageContaining("COMMIT");
    }

    @Test
    void connectingAcrossClockDomainsNeedsAnAsyncFifo() {
        Simulator sim = new Simulator();
        Top top = new Top(sim);
        ClockDomain a = ClockDomain.ofMHz(sim, "a", 100);
        ClockDomain b = ClockDomain.ofMHz(sim, "b", 200);
        TestProducer p = new TestProducer(top, "p", a, 1, 0, 1);
        TestConsumer q = new TestConsumer(top, "q", b, 0, 1);
        assertThatThrownBy(() -> Channels.connect(p.out, q.in)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("AsyncFifo");
    }

    @Test
    void portsConnectOnce() {
        Simulator sim = new Simulator();
        Top top = new Top(sim);
        ClockDomain a = ClockDomain.ofMHz(sim, "a", 100);
        TestProducer p = new TestProducer(top, "p", a, 1, 0, 1);
        TestConsumer q = new TestConsumer(top, "q", a, 0, 1);
        TestConsumer r = new TestConsumer(top, "r", a, 0, 1);
        Channels.connect(p.out, q.in);
        assertThatThrownBy(() -> Channels.connect(p.out, r.in)).hasMessageContaining("already connected");
    }

    @Test
    void moduleNamesAreCheckedAndHierarchical() {
        Simulator sim = new Simulator();
        Top top = new Top(sim);
        ClockDomain a = ClockDomain.ofMHz(sim, "a", 100);
        Probe p = new Probe(top, "probe", a);
        assertThat(p.fullName()).isEqualTo("top.probe");
        assertThatThrownBy(() -> new Probe(top, "probe", a)).hasMessageContaining("already has a child");
        assertThatThrownBy(() -> new Probe(top, "9lives", a)).hasMessageContaining("bad module name");
        assertThat(new Probe(top, "qp[12]", a).fullName()).isEqualTo("top.qp[12]");
    }

    @Test
    void randomStreamsDependOnlyOnSeedAndName() {
        Simulator a = new Simulator(42);
        Top ta = new Top(a);
        ClockDomain ca = ClockDomain.ofMHz(a, "c", 100);
        Probe pa = new Probe(ta, "p", ca);
        long first = pa.random().nextLong();

        Simulator b = new Simulator(42);
        Top tb = new Top(b);
        ClockDomain cb = ClockDomain.ofMHz(b, "c", 100);
        Probe other = new Probe(tb, "other", cb);
        other.random().nextLong();
        Probe pb = new Probe(tb, "p", cb);
        assertThat(pb.random().nextLong()).isEqualTo(first);
    }
}
