package dev.rdmasim.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Running events allocates nothing per event once the queue has reached its working size. */
class AllocationTest {

    static Stream<Arguments> queues() {
        Stream<Arguments> queues = Stream.of(
                Arguments.of("calendar", (Supplier<EventQueue>) CalendarEventQueue::new),
                Arguments.of("4-ary heap", (Supplier<EventQueue>) DaryHeapEventQueue::new));
        // Tiny populations empty the queue between poll and add; large ones use big rings.
        return queues.flatMap(q -> IntStream.of(1, 3, 1024, 40_000)
                .mapToObj(n -> Arguments.of(q.get()[0], q.get()[1], n)));
    }

    @ParameterizedTest(name = "{0}, {2} pending")
    @MethodSource("queues")
    void holdModelAllocatesNothingPerEvent(String name, Supplier<EventQueue> queue, int pending) {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long[] inc = new long[4096];
        SplittableRandom rnd = new SplittableRandom(5);
        for (int i = 0; i < inc.length; i++) {
            inc[i] = 1 + (long) (-1_000_000 * Math.log1p(-rnd.nextDouble()));
        }
        Simulator sim = new Simulator(1, queue.get());
        int[] cursor = {0};
        for (int i = 0; i < pending; i++) {
            Event[] self = new Event[1];
            self[0] = sim.event("hold" + i, () -> self[0].scheduleIn(inc[cursor[0]++ & 4095]));
            self[0].scheduleIn(inc[cursor[0]++ & 4095]);
        }
        sim.run(300_000 + 10L * pending);
        long before = mx.getCurrentThreadAllocatedBytes();
        sim.run(1_000_000);
        long allocated = mx.getCurrentThreadAllocatedBytes() - before;
        // A few hundred bytes of slack for the measurement itself; one object per event would be >= 16 MB.
        assertThat(allocated).as("bytes allocated over 1,000,000 events").isLessThan(4_096);
    }
}
