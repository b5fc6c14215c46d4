package dev.rdmasim.kernel.hw;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.kernel.Simulator;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random valid/ready stalls through chains of queues of every kind: whatever the stalls, every item
 * arrives exactly once and in order.
 */
class ChannelScoreboardTest {

    static Stream<Arguments> chains() {
        // seed, queue kinds (d = default, f = flow, p = pipe, F = flow+pipe, number = delay line of that latency)
        return Stream.of(
                Arguments.of(1L, "d"),
                Arguments.of(2L, "f"),
                Arguments.of(3L, "p"),
                Arguments.of(4L, "F"),
                Arguments.of(5L, "dfpF"),
                Arguments.of(6L, "3d1"),
                Arguments.of(7L, "pppp"),
                Arguments.of(8L, "ffff"),
                Arguments.of(9L, "d5f2p"),
                Arguments.of(10L, ""));
    }

    @ParameterizedTest(name = "seed {0}, chain \"{1}\"")
    @MethodSource("chains")
    void itemsArriveOnceAndInOrder(long seed, String chain) {
        for (int depth : new int[] {1, 2, 5}) {
            Simulator sim = new Simulator(seed);
            Top top = new Top(sim);
            ClockDomain clk = ClockDomain.ofMHz(sim, "clk", 500);
            int total = 2_000;
            TestProducer p = new TestProducer(top, "producer", clk, total, 0.3, 4);
            OutPort<Integer> tail = buildChain(p.out, chain, depth);
            TestConsumer c = new TestConsumer(top, "consumer", clk, 0.4, 5);
            c.expected = total;
            Channels.connect(tail, c.in);
            p.wake();
            c.wake();
            sim.run();

            assertThat(c.items.size()).as("items delivered through %s at depth %d", chain, depth).isEqualTo(total);
            for (int i = 0; i < total; i++) {
                assertThat(c.items.get(i)).as("item %d", i).isEqualTo(i);
            }
            assertThat(p.sent()).isEqualTo(total);
        }
    }

    static OutPort<Integer> buildChain(OutPort<Integer> head, String chain, int depth) {
        OutPort<Integer> tail = head;
        for (char k : chain.toCharArray()) {
            switch (k) {
                case 'd' -> tail = Fifo.of(tail, depth);
                case 'f' -> tail = Fifo.of(tail, depth, true, false);
                case 'p' -> tail = Fifo.of(tail, depth, false, true);
                case 'F' -> tail = Fifo.of(tail, depth, true, true);
                default -> tail = Fifo.delay(tail, k - '0');
            }
        }
        return tail;
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void evaluationOrderDoesNotChangeResults(long seed) {
        long[] reference = runShuffled(seed, -1);
        for (long shuffle = 1; shuffle <= 4; shuffle++) {
            assertThat(runShuffled(seed, shuffle)).as("shuffle seed %d", shuffle).containsExactly(reference);
        }
    }

    static Stream<Long> seeds() {
        return Stream.of(11L, 12L, 13L, 14L, 15L);
    }

    /** Two pipelines sharing a clock plus a clock crossing; returns (item, cycle) pairs of all consumers. */
    private static long[] runShuffled(long seed, long shuffleSeed) {
        Simulator sim = new Simulator(seed);
        Top top = new Top(sim);
        ClockDomain fast = ClockDomain.ofMHz(sim, "fast", 1000);
        ClockDomain slow = ClockDomain.ofMHz(sim, "slow", 250);
        if (shuffleSeed >= 0) {
            fast.shuffleEvaluationOrder(shuffleSeed);
            slow.shuffleEvaluationOrder(shuffleSeed + 100);
        }
        TestProducer p1 = new TestProducer(top, "p1", fast, 500, 0.2, 3);
        TestConsumer c1 = new TestConsumer(top, "c1", fast, 0.3, 4);
        c1.expected = 500;
        Channels.connect(buildChain(p1.out, "dpf2F", 2), c1.in);
        TestProducer p2 = new TestProducer(top, "p2", fast, 500, 0.5, 2);
        TestConsumer c2 = new TestConsumer(top, "c2", slow, 0.2, 3);
        c2.expected = 500;
        Channels.connect(AsyncFifo.of(Fifo.of(p2.out, 3, false, true), slow, 4, 2), c2.in);
        for (ClockedModule m : new ClockedModule[] {p1, c1, p2, c2}) {
            m.wake();
        }
        sim.run();
        assertThat(c1.items.size()).isEqualTo(500);
        assertThat(c2.items.size()).isEqualTo(500);
        long[] log = new long[4 * 500 + 1];
        int k = 0;
        for (TestConsumer c : new TestConsumer[] {c1, c2}) {
            for (int i = 0; i < c.items.size(); i++) {
                log[k++] = c.items.get(i);
                log[k++] = c.cycles.get(i);
            }
        }
        log[k] = sim.now();
        return log;
    }
}
