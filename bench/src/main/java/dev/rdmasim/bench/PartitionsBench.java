package dev.rdmasim.bench;

import dev.rdmasim.kernel.Crossing;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.Partitions;
import dev.rdmasim.kernel.Simulator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What running two partitions on two threads gives for a given amount of work per window: two partitions joined by
 * a crossing each way with the cable's least latency (110 ns, the window), each running an event every
 * {@code periodPs} that does {@code work} rounds of arithmetic and sends the other side a message. One operation is
 * one simulated microsecond, so the score is simulated microseconds per wall second on {@code threads} threads; the
 * ratio of the two thread counts is the speed-up, the window's cost included (see {@code docs/performance.md}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = BenchJvm.GC)
public class PartitionsBench {
    private static final long WINDOW_PS = 110_000;
    private static final long SPAN_PS = 1_000_000_000L; // 1 ms of simulated time per invocation
    private static final int SPAN_US = 1_000;

    @Param({"1", "2"})
    public int threads;

    /** Rounds of arithmetic per event: about 1 ns each. */
    @Param({"100", "1000"})
    public int work;

    /** Simulated time between one partition's events. */
    @Param("50000")
    public long periodPs;

    private Partitions partitions;
    private long until;

    /** One side: a periodic event that works and sends the other side a message. */
    static final class Side {
        final Simulator sim;
        final Event tick;
        Crossing<Side> out;
        long acc = 1;
        long received;
        final int work;

        Side(Simulator sim, String name, int work, long periodPs) {
            this.sim = sim;
            this.work = work;
            this.tick = sim.event(name + ".tick", () -> {
                long x = acc;
                for (int i = 0; i < this.work; i++) {
                    x = x * 6364136223846793005L + 1442695040888963407L;
                }
                acc = x;
                out.send(this, sim.now() + WINDOW_PS + (x & 0xFFF));
                tickAgain(periodPs);
            });
        }

        void tickAgain(long periodPs) {
            tick.scheduleIn(periodPs);
        }
    }

    @Setup(Level.Trial)
    public void setUp() {
        Simulator a = new Simulator(1);
        Simulator b = new Simulator(1);
        partitions = new Partitions(List.of(a, b));
        Side sa = new Side(a, "a", work, periodPs);
        Side sb = new Side(b, "b", work, periodPs);
        sa.out = partitions.crossing("aToB", a, b, WINDOW_PS, 0, m -> sb.received++);
        sb.out = partitions.crossing("bToA", b, a, WINDOW_PS, 0, m -> sa.received++);
        sa.tick.schedule(0);
        sb.tick.schedule(periodPs / 2);
        until = 0;
    }

    @Benchmark
    @org.openjdk.jmh.annotations.OperationsPerInvocation(SPAN_US)
    public long simulatedMicroseconds() {
        until += SPAN_PS;
        partitions.runUntil(until, threads);
        return partitions.windows();
    }
}
