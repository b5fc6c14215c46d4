package dev.rdmasim.bench;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Control;

/**
 * What one synchronisation window would cost a simulation split over two threads, one per host side: each thread
 * announces that it finished window {@code i} and spins until the other has too, the least any conservative
 * scheme with a fixed lookahead (the cable's latency) must do per window. One operation is one window, so the
 * average time per operation is the pure cost of a window with no simulation work in it. It bounds what running
 * the two sides of a {@code perf} test on two cores could give (see {@code docs/performance.md}).
 */
@State(Scope.Group)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = BenchJvm.GC)
public class WindowBarrierBench {
    /** Each side's last finished window, 128 bytes apart so the two counters never share a cache line. */
    private final AtomicLongArray done = new AtomicLongArray(32);
    private static final int A = 0;
    private static final int B = 16;

    /** Per-thread window count: each side's own. */
    @State(Scope.Thread)
    public static class Side {
        long window;
    }

    @Benchmark
    @Group("window")
    @GroupThreads(1)
    public long sideA(Side side, Control control) {
        return exchange(A, B, side, control);
    }

    @Benchmark
    @Group("window")
    @GroupThreads(1)
    public long sideB(Side side, Control control) {
        return exchange(B, A, side, control);
    }

    private long exchange(int mine, int other, Side side, Control control) {
        long w = ++side.window;
        done.lazySet(mine, w);
        // The other side may already have stopped at the end of an iteration: then stop waiting for it.
        while (done.get(other) < w && !control.stopMeasurement) {
            Thread.onSpinWait();
        }
        return w;
    }
}
