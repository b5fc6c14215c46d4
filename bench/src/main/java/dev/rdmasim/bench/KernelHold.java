package dev.rdmasim.bench;

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
import org.openjdk.jmh.infra.Blackhole;

/**
 * Hold model on our kernel (d-ary heap event queue).
 * One operation is one fired event, so scores are events per second.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = BenchJvm.GC)
public class KernelHold {
    /** Pending events N; constant throughout, as the hold model keeps it. */
    @Param("1024")
    public int pending;

    /**
     * Event queue: {@code calendar}, {@code adaptive} (the simulator's default: a sorted ring below 32 pending events,
     * the calendar above, so at 1,024 the calendar plus one check per operation) or {@code heapD}; try
     * {@code -p queue=calendar,adaptive,heap4}.
     */
    @Param("calendar")
    public String queue;

    // Concrete type keeps the call site monomorphic.
    private KernelHoldModel model;

    // Trial level: the model simply keeps running across invocations; that is the hold model.
    @Setup(Level.Trial)
    public void setUp() {
        model = new KernelHoldModel(pending, queue);
    }

    @Benchmark
    @OperationsPerInvocation(HoldModel.BATCH)
    public void hold(Blackhole bh) {
        model.run(HoldModel.BATCH);
        bh.consume(model.now());
    }
}
