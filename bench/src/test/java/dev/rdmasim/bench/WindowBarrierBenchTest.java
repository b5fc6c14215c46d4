package dev.rdmasim.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.infra.Control;

/** The two sides of the window benchmark wait for each other: neither finishes a window the other has not begun. */
class WindowBarrierBenchTest {
    private static final int WINDOWS = 20_000;

    @Test
    void sidesAdvanceInLockstepAndStopWhenTold() throws Exception {
        WindowBarrierBench bench = new WindowBarrierBench();
        WindowBarrierBench.Side a = new WindowBarrierBench.Side();
        WindowBarrierBench.Side b = new WindowBarrierBench.Side();
        Control control = new Control();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            // Each side checks, after every window, that the other has finished it too.
            Future<Long> fa = pool.submit(() -> run(() -> bench.sideA(a, control), b));
            Future<Long> fb = pool.submit(() -> run(() -> bench.sideB(b, control), a));
            assertThat(fa.get(60, TimeUnit.SECONDS)).isEqualTo(WINDOWS);
            assertThat(fb.get(60, TimeUnit.SECONDS)).isEqualTo(WINDOWS);
            // One side alone would wait forever for the other; the end of a measurement releases it.
            control.stopMeasurement = true;
            assertThat(pool.submit(() -> bench.sideA(a, control)).get(60, TimeUnit.SECONDS)).isEqualTo(WINDOWS + 1);
        } finally {
            pool.shutdownNow();
        }
    }

    private static long run(java.util.function.LongSupplier side, WindowBarrierBench.Side other) {
        long w = 0;
        for (int i = 0; i < WINDOWS; i++) {
            w = side.getAsLong();
            if (other.window < w) { // seen through the other side's release of its counter
                throw new AssertionError("finished window " + w + " while the other side was at " + other.window);
            }
        }
        return w;
    }
}
