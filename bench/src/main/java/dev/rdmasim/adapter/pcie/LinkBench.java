package dev.rdmasim.adapter.pcie;

import dev.rdmasim.bench.BenchJvm;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.hw.Module;
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
 * Simulation speed of one direction of the PCIe link alone: a sender keeps its posted credits full of 256 B memory
 * writes on the default PCIe configuration's link, refilling whenever a slot frees, and the receiver takes each TLP
 * as it is handed over (late, the default, or in an event per TLP with {@code -p late=false}) and frees it. One
 * operation is one TLP through the link: its queueing, placement on the byte clock with DLLP and SKIP bytes, start,
 * statistics and hand-over, and the sender's wake-up. In this package to reach the link's package-private interface.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = BenchJvm.GC)
public class LinkBench implements LinkEnd {
    /** TLPs per benchmark invocation. */
    public static final int OPS = 1024;
    static final int CREDITS = 16;
    static final int PAYLOAD = 256;

    /** Whether the receiver takes TLPs late (no delivery event each). */
    @Param("true")
    public boolean late = true;

    private Simulator sim;
    private LinkTransmitter link;
    private TlpPool pool;
    private long received;
    private int wireBytes;

    @Setup(Level.Trial)
    public void setUp() {
        sim = new Simulator(1);
        Module top = new Module(sim, "top") {
        };
        PcieConfig cfg = PcieConfig.defaults();
        wireBytes = PAYLOAD + cfg.requestOverheadBytes();
        link = new LinkTransmitter(top, "link", cfg, CREDITS, 0, 0);
        link.connect(this, this);
        link.setLateHandover(late);
        pool = new TlpPool(cfg.mps(), CREDITS * 4, CREDITS * 64);
        Event start = sim.event("start", this::fill);
        start.schedule(0);
        received = 0;
    }

    /**
     * Runs the simulation until {@link #OPS} more TLPs have been handed over (a few more when the last event hands
     * over several late ones); returns simulated time.
     */
    @Benchmark
    @OperationsPerInvocation(OPS)
    public long tlps() {
        long target = received + OPS;
        while (received < target) {
            if (sim.run(1) == 0) {
                throw new IllegalStateException("the link ran out of events after " + received + " TLPs");
            }
        }
        return sim.now();
    }

    /** TLPs handed over so far (for checks). */
    public long received() {
        return received;
    }

    /** Fraction of the time the serializer was busy (for checks). */
    public double busyFraction() {
        return link.busyFraction();
    }

    /** Payload bytes the link has carried so far (for checks). */
    public long payloadBytes() {
        return link.payloadBytes();
    }

    /** Runs the simulation to {@code ps} and returns every byte put on the wire so far (for checks). */
    public long wireBytesAt(long ps) {
        sim.runUntil(ps);
        return link.wireBytes();
    }

    private void fill() {
        while (link.canAccept(TlpKind.MWR)) {
            Tlp t = pool.acquire(TlpKind.MWR);
            t.address = 0x1000 + (received & 0xFF) * PAYLOAD;
            t.length = PAYLOAD;
            t.wireBytes = wireBytes;
            link.enqueue(t);
        }
    }

    @Override
    public void receive(Tlp tlp) {
        received++;
        pool.release(tlp);
    }

    @Override
    public void sent(Tlp tlp) {
        // No TLP here asks to hear of its end.
    }

    @Override
    public void txSpace() {
        fill();
    }

    @Override
    public boolean takesLate(Tlp tlp) {
        return late;
    }
}
