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
import umontreal.ssj.simevents.eventlist.Henriksen;

/**
 * Hold model on SSJ's simulator with the {@code Henriksen} event list.
 * One operation is one fired event, so scores are events per second.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = BenchJvm.GC)
public class SsjHenriksenHold {
    /** Pending events N; constant throughout, as the hold model keeps it. */
    @Param("1024")
    public int pending;

    // Concrete type keeps the call site monomorphic.
    private SsjHoldModel model;

    // Trial level: the model simply keeps running across invocations; that is the hold model.
    @Setup(Level.Trial)
    public void setUp() {
        model = new SsjHoldModel(new Henriksen(), pending);
    }

    @Benchmark
    @OperationsPerInvocation(HoldModel.BATCH)
    public void hold(Blackhole bh) {
        model.run(HoldModel.BATCH);
        bh.consume(model.now());
    }
}
