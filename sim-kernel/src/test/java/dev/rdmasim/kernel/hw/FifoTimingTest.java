package dev.rdmasim.kernel.hw;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.kernel.Simulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The documented latencies and throughputs of the queue kinds. */
class FifoTimingTest {

    private record Run(TestProducer producer, TestConsumer consumer, Simulator sim) {
    }

    private static Run run(String chain, int depth, int total) {
        Simulator sim = new Simulator(7);
        Top top = new Top(sim);
        ClockDomain clk = ClockDomain.ofMHz(sim, "clk", 1000);
        TestProducer p = new TestProducer(top, "p", clk, total, 0, 1);
        TestConsumer c = new TestConsumer(top, "c", clk, 0, 1);
        Channels.connect(ChannelScoreboardTest.buildChain(p.out, chain, depth), c.in);
        p.wake();
        sim.run();
        assertThat(c.items.size()).isEqualTo(total);
        return new Run(p, c, sim);
    }

    @ParameterizedTest(name = "chain \"{0}\" depth {1}: latency {2} cycles")
    @CsvSource({
        "'', 1, 0",
        "d, 1, 1",
        "d, 4, 1",
        "p, 1, 1",
        "f, 1, 0",
        "F, 1, 0",
        "dd, 2, 2",
        "3, 0, 3",
        "7, 0, 7",
        "f3d, 2, 4"
    })
    void latencyOfOneItem(String chain, int depth, int expectedLatency) {
        Run r = run(chain, depth, 1);
        long offered = r.producer.offeredAtCycle[0];
        assertThat(r.consumer.cycles.get(0) - offered).isEqualTo(expectedLatency);
    }

    @ParameterizedTest(name = "chain \"{0}\" depth {1}: {2} items per {3} cycles")
    @CsvSource({
        "'', 1, 1, 1",
        "p, 1, 1, 1",
        "d, 1, 1, 2",
        "d, 2, 1, 1",
        "f, 1, 1, 1",
        "F, 1, 1, 1",
        "pppp, 1, 1, 1",
        "5, 0, 1, 1",
        "dddd, 1, 1, 2"
    })
    void steadyStateThroughput(String chain, int depth, int items, int cycles) {
        int total = 1_000;
        Run r = run(chain, depth, total);
        long span = r.consumer.cycles.get(total - 1) - r.consumer.cycles.get(99);
        // (total - 100) transfers after warm-up take span cycles: rate = items / cycles.
        assertThat(span * items).isEqualTo((long) (total - 100) * cycles);
    }

    @Test
    void idleModulesCostNothing() {
        Simulator sim = new Simulator(1);
        Top top = new Top(sim);
        ClockDomain clk = ClockDomain.ofMHz(sim, "clk", 1000);
        TestProducer p = new TestProducer(top, "p", clk, 3, 0, 1);
        TestConsumer c = new TestConsumer(top, "c", clk, 0, 1);
        Channels.connect(Fifo.of(p.out, 4), c.in);
        p.wake();
        sim.run();
        long edges = clk.edgesProcessed();
        assertThat(edges).isLessThan(12);
        // Nothing pending: the clock stops; later simulated time costs no edges.
        assertThat(sim.pendingEvents()).isZero();
        sim.runUntil(sim.now() + 1_000_000);
        assertThat(clk.edgesProcessed()).isEqualTo(edges);
    }
}
