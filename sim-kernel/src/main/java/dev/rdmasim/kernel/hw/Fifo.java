package dev.rdmasim.kernel.hw;

import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.TimeAverage;
import dev.rdmasim.kernel.wave.Signal;

/**
 * A bounded first-in first-out queue between two ready/valid channels, in the manner of Chisel's
 * {@code Queue}.
 *
 * <p><b>Timing.</b> An item that enters in cycle {@code n} can leave in cycle {@code n + latency}
 * (default latency 1). With {@code flow}, an item arriving at an empty queue leaves in the same
 * cycle (latency 0). With {@code pipe}, {@code enq.ready} is also true when the queue is full but its
 * head leaves in the same cycle, so a depth-1 queue passes one item per cycle; without it, ready
 * depends only on occupancy and a depth-1 queue passes one item every two cycles. A pipe-mode queue
 * of depth N and latency N is a fully pipelined N-cycle delay line.
 */
public final class Fifo<T> extends ClockedModule {
    private final int depth;
    private final int latency;
    private final boolean flow;
    private final boolean pipe;

    private final Object[] items;
    private final long[] enqCycles;
    private int head;
    private int count;

    private boolean pendingPop;
    private boolean pendingPush;
    private T pushItem;

    /** Consumer end facing the producer. */
    public final InPort<T> enq;
    /** Producer end facing the consumer. */
    public final OutPort<T> deq;

    private final Counter enqueued;
    private final Counter fullCycles;
    private final TimeAverage occupancy;
    private final Signal occupancySignal;

    public Fifo(Module parent, String name, ClockDomain clock, int depth, int latency, boolean flow, boolean pipe) {
        super(parent, name, clock);
        if (depth < 1) {
            throw new IllegalArgumentException("fifo '" + fullName() + "': depth must be at least 1, got " + depth);
        }
        if (latency < 1) {
            throw new IllegalArgumentException("fifo '" + fullName() + "': latency must be at least 1 cycle, got "
                    + latency + " (use flow for a same-cycle bypass)");
        }
        if (flow && latency != 1) {
            throw new IllegalArgumentException("fifo '" + fullName() + "': flow (same-cycle bypass) cannot be combined with latency "
                    + latency);
        }
        this.depth = depth;
        this.latency = latency;
        this.flow = flow;
        this.pipe = pipe;
        this.items = new Object[depth];
        this.enqCycles = new long[depth];
        this.enq = new InPort<>(this, "enq", false, this::enqReady);
        this.deq = new OutPort<>(this, "deq", new OutPort.Logic<>() {
            @Override
            public boolean valid() {
                return headVisible() || (Fifo.this.flow && count == 0 && enq.valid());
            }

            @Override
            public T bits() {
                return headVisible() ? head() : (Fifo.this.flow && count == 0 ? enq.bits() : null);
            }
        });
        this.enqueued = stats().counter("enqueued", "items", "items that entered the queue");
        this.fullCycles = stats().counter("fullCycles", "cycles", "evaluated cycles in which the queue was full");
        this.occupancy = stats().timeAverage("occupancy", "items", "items held, averaged over simulated time");
        this.occupancySignal = signal("count", bitsFor(depth));
        occupancySignal.set(0);
    }

    /** A default queue (latency 1, no flow, no pipe) fed by {@code producer}; returns its output port. */
    public static <T> OutPort<T> of(OutPort<T> producer, int depth) {
        return of(producer, depth, false, false);
    }

    /**
     * A queue fed by {@code producer}, created beside the producer's module and named after the
     * port ({@code source_out_q} for port {@code out} of {@code source}); returns its output port.
     */
    public static <T> OutPort<T> of(OutPort<T> producer, int depth, boolean flow, boolean pipe) {
        return of(producer, siblingName(producer, "q"), depth, 1, flow, pipe);
    }

    /** A queue with an explicit name and every option, fed by {@code producer}; returns its output port. */
    public static <T> OutPort<T> of(OutPort<T> producer, String name, int depth, int latency, boolean flow, boolean pipe) {
        ClockedModule p = producer.owner();
        Fifo<T> q = new Fifo<>(siblingParent(p), name, p.clock(), depth, latency, flow, pipe);
        Channels.connect(producer, q.enq);
        return q.deq;
    }

    /** A fully pipelined delay line of {@code latency} cycles fed by {@code producer}; returns its output. */
    public static <T> OutPort<T> delay(OutPort<T> producer, int latency) {
        return of(producer, siblingName(producer, "pipe"), latency, latency, false, true);
    }

    /** Blocks a helper creates for a port live beside the port's module (or under it, at top level). */
    static Module siblingParent(ClockedModule owner) {
        return owner.parent() == null ? owner : owner.parent();
    }

    static String siblingName(OutPort<?> producer, String suffix) {
        ClockedModule owner = producer.owner();
        return (owner.parent() == null ? "" : owner.name() + "_") + producer.name() + "_" + suffix;
    }

    private static int bitsFor(int n) {
        return Math.max(1, 64 - Long.numberOfLeadingZeros(n));
    }

    public int depth() {
        return depth;
    }

    public int latency() {
        return latency;
    }

    /** Items held (committed state). */
    public int size() {
        return count;
    }

    @SuppressWarnings("unchecked")
    private T head() {
        return (T) items[head];
    }

    private boolean headVisible() {
        return count > 0 && enqCycles[head] + latency <= cycle();
    }

    private boolean enqReady() {
        return count < depth || (pipe && headVisible() && deq.ready());
    }

    @Override
    protected void evaluate() {
        boolean in = enq.fire();
        boolean out = deq.fire();
        if (flow && count == 0 && out) {
            // Bypass: the arriving item leaves in the same cycle and is never stored.
            pendingPush = false;
            pendingPop = false;
            enqueued.inc();
        } else {
            pendingPop = out;
            pendingPush = in;
            pushItem = in ? enq.bits() : null;
        }
        if (count == depth) {
            fullCycles.inc();
        }
    }

    @Override
    protected void commit() {
        if (pendingPop) {
            items[head] = null;
            head = head + 1 == depth ? 0 : head + 1;
            count--;
        }
        if (pendingPush) {
            int tail = head + count;
            if (tail >= depth) {
                tail -= depth;
            }
            items[tail] = pushItem;
            enqCycles[tail] = cycle();
            count++;
            enqueued.inc();
        }
        if (pendingPop || pendingPush) {
            occupancy.set(count);
            occupancySignal.set(count);
        }
        pendingPop = false;
        pendingPush = false;
        pushItem = null;
        // Sleep through the latency, then present the head.
        if (count > 0 && enqCycles[head] + latency > cycle() + 1) {
            wakeAtCycle(enqCycles[head] + latency);
        }
    }

    @Override
    protected void onReset() {
        java.util.Arrays.fill(items, null);
        head = 0;
        count = 0;
        pendingPop = false;
        pendingPush = false;
        pushItem = null;
        occupancy.set(0);
        occupancySignal.set(0);
    }
}
