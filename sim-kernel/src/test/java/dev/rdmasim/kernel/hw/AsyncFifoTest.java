package dev.rdmasim.kernel.hw;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.stats.TimeAverage;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class AsyncFifoTest {

    static Stream<Arguments> crossings() {
        return Stream.of(
                Arguments.of(1L, 250.0, 1000.0, 4, 2),
                Arguments.of(2L, 1000.0, 250.0, 4, 2),
                Arguments.of(3L, 500.0, 500.0, 2, 2),
                Arguments.of(4L, 322.265625, 250.0, 8, 3),
                Arguments.of(5L, 100.0, 100.0, 1, 1));
    }

    @ParameterizedTest(name = "seed {0}: {1} MHz -> {2} MHz, depth {3}, {4} stages")
    @MethodSource("crossings")
    void deliversEverythingInOrderUnderRandomStalls(long seed, double wMHz, double rMHz, int depth, int stages) {
        Simulator sim = new Simulator(seed);
        Top top = new Top(sim);
        ClockDomain w = ClockDomain.ofMHz(sim, "w", wMHz);
        ClockDomain r = ClockDomain.ofMHz(sim, "r", rMHz);
        TestProducer p = new TestProducer(top, "p", w, 1_000, 0.3, 3);
        TestConsumer c = new TestConsumer(top, "c", r, 0.3, 4);
        c.expected = 1_000;
        Channels.connect(AsyncFifo.of(p.out, r, depth, stages), c.in);
        p.wake();
        c.wake();
        sim.run();
        assertThat(c.items.size()).isEqualTo(1_000);
        for (int i = 0; i < 1_000; i++) {
            assertThat(c.items.get(i)).isEqualTo(i);
        }
        TimeAverage occupancy = (TimeAverage) sim.stats().groups().stream()
                .filter(g -> g.path().equals("top.p_out_cdc_wr")).findFirst().orElseThrow()
                .stats().stream().filter(st -> st.name().equals("occupancy")).findFirst().orElseThrow();
        assertThat(occupancy.max()).isBetween(1L, (long) depth);
        assertThat(occupancy.level()).isZero();
    }

    @Test
    void itemIsVisibleAfterTheSynchronizerStages() {
        Simulator sim = new Simulator(1);
        Top top = new Top(sim);
        ClockDomain w = ClockDomain.ofPeriod(sim, "w", 4_000);
        ClockDomain r = ClockDomain.ofPeriod(sim, "r", 1_000);
        TestProducer p = new TestProducer(top, "p", w, 1, 0, 1);
        TestConsumer c = new TestConsumer(top, "c", r, 0, 1);
        Channels.connect(AsyncFifo.of(p.out, r, 4, 2), c.in);
        p.wake();
        sim.run();
        // Offered from write edge 2 (t=8000), written at that edge; the reader's 2nd edge after it is t=10000.
        assertThat(p.offeredAtCycle[0]).isEqualTo(2);
        assertThat(c.cycles.get(0)).isEqualTo(10);
    }

    @Test
    void coincidentEdgesDoNotRace() {
        // Same period, same phase: the result must not depend on which domain's edge runs first.
        long[] first = null;
        for (boolean writerFirst : new boolean[] {true, false}) {
            Simulator sim = new Simulator(9);
            Top top = new Top(sim);
            ClockDomain a;
            ClockDomain b;
            if (writerFirst) {
                a = ClockDomain.ofPeriod(sim, "w", 1_000);
                b = ClockDomain.ofPeriod(sim, "r", 1_000);
            } else {
                b = ClockDomain.ofPeriod(sim, "r", 1_000);
                a = ClockDomain.ofPeriod(sim, "w", 1_000);
            }
            TestConsumer c = new TestConsumer(top, "c", b, 0.2, 3);
            c.expected = 200;
            TestProducer p = new TestProducer(top, "p", a, 200, 0.2, 3);
            Channels.connect(AsyncFifo.of(p.out, b, 2, 2), c.in);
            if (writerFirst) {
                p.wake();
                c.wake();
            } else {
                c.wake();
                p.wake();
            }
            sim.run();
            long[] log = c.cycles.toArray();
            if (first == null) {
                first = log;
            } else {
                assertThat(log).containsExactly(first);
            }
        }
    }
}
