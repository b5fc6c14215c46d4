package dev.rdmasim.bench;

import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.driver.HostPair;
import dev.rdmasim.driver.WriteStream;
import dev.rdmasim.kernel.Simulator;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Simulation speed of the adapter model: simulated 64 B RDMA WRITEs completed per wall-clock
 * second between two adapters on the default profile, with 128 WRITEs kept outstanding by the
 * driver ({@link WriteStream}). One operation is one completed WRITE.
 *
 * <p>Try {@code -p batch=16 -p signalEvery=16} for doorbell batching with selective signaling,
 * {@code -p inline=true} for inline payloads.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = BenchJvm.GC)
public class AdapterWriteBench {
    /** Completed WRITEs per benchmark invocation. */
    public static final int OPS = 1024;
    static final int DEPTH = 128;
    static final int BYTES = 64;

    /** WQEs per doorbell. */
    @Param("1")
    public int batch;

    /** Every n-th WRITE is signaled. */
    @Param("1")
    public int signalEvery;

    @Param("false")
    public boolean inline;

    /** Event queue: {@code adaptive} (the simulator's default, so the default here), {@code calendar} or {@code heapD}. */
    @Param("adaptive")
    public String queue = "adaptive";

    private Simulator sim;
    private WriteStream stream;
    private long target;

    @Setup(Level.Trial)
    public void setUp() {
        sim = new Simulator(1, KernelHoldModel.queue(queue, 64));
        HostPair pair = HostPair.create(sim, Profile.defaults());
        stream = new WriteStream(pair.a(), pair.b(), BYTES, DEPTH, batch, signalEvery, inline);
        stream.start();
        target = 0;
    }

    /** Runs the simulation until {@link #OPS} more WRITEs have completed; returns simulated time. */
    @Benchmark
    @OperationsPerInvocation(OPS)
    public long write() {
        target += OPS;
        stream.stopWhenCompleted(target);
        sim.run();
        return sim.now();
    }

    /** WRITEs completed so far (for checks). */
    long completed() {
        return stream.completed();
    }

    Simulator sim() {
        return sim;
    }
}
