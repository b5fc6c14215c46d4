package dev.rdmasim.kernel.hw;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.kernel.Simulator;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The timed-wake heap against the JDK's priority queue, and timed wakes of many modules at once. */
class LongMinHeapTest {

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void pollsInTheSameOrderAsAReferenceQueue(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        LongMinHeap heap = new LongMinHeap();
        PriorityQueue<Long> ref = new PriorityQueue<>();
        for (int step = 0; step < 2_000; step++) {
            // Mostly adds at first (the heap grows past its initial 16), then mostly polls; small
            // ranges give many equal keys.
            boolean add = ref.isEmpty() || rnd.nextInt(100) < (step < 1_000 ? 70 : 35);
            if (add) {
                long v = rnd.nextLong(seed % 2 == 0 ? 8 : 1_000);
                heap.add(v);
                ref.add(v);
            } else {
                assertThat(heap.peek()).isEqualTo(ref.peek());
                assertThat(heap.poll()).isEqualTo(ref.poll());
            }
            assertThat(heap.isEmpty()).isEqualTo(ref.isEmpty());
        }
        while (!ref.isEmpty()) {
            assertThat(heap.poll()).isEqualTo(ref.poll());
        }
        assertThat(heap.isEmpty()).isTrue();
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {11, 12, 13, 14})
    void manyTimedWakesEvaluateEachModuleAtItsCycles(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        Simulator sim = new Simulator(seed);
        Top top = new Top(sim);
        ClockDomain c = ClockDomain.ofPeriod(sim, "c", 1_000);
        int n = 5;
        List<ClockDomainTest.Probe> probes = new ArrayList<>();
        List<TreeSet<Long>> expected = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            probes.add(new ClockDomainTest.Probe(top, "p" + i, c));
            expected.add(new TreeSet<>());
        }
        TreeSet<Long> allCycles = new TreeSet<>();
        sim.event("arm", () -> {
            for (int k = 0; k < 40; k++) {
                int i = rnd.nextInt(n);
                long target = 1 + rnd.nextInt(60);
                probes.get(i).wakeAtCycle(target);
                expected.get(i).add(target);
                allCycles.add(target);
            }
        }).schedule(0);
        sim.run();
        for (int i = 0; i < n; i++) {
            assertThat(probes.get(i).evaluated).as("p" + i).containsExactlyElementsOf(expected.get(i));
        }
        assertThat(c.edgesProcessed()).isEqualTo(allCycles.size());
    }
}
