package dev.rdmasim.kernel.hw;

import dev.rdmasim.kernel.wave.Signal;
import java.util.function.BooleanSupplier;

/**
 * The consumer's end of a ready/valid channel: the consumer drives {@code ready} (a register, level
 * held until changed) and takes {@link #bits()} in the cycles where {@link #fire()} is true.
 */
public final class InPort<T> extends Port {
    private final BooleanSupplier logic;
    private final boolean initialReady;
    private OutPort<T> peer;

    private boolean ready;
    private boolean nextReady;
    private boolean written;
    private Signal readySignal;

    InPort(ClockedModule owner, String name, boolean initialReady, BooleanSupplier logic) {
        super(owner, name);
        this.logic = logic;
        this.initialReady = initialReady;
        this.ready = initialReady;
        this.nextReady = initialReady;
    }

    @Override
    public boolean connected() {
        return peer != null;
    }

    void connect(OutPort<T> out) {
        if (peer != null) {
            throw alreadyConnected(peer);
        }
        peer = out;
        if (logic == null) {
            readySignal = owner.signal(name() + "_ready", 1);
            readySignal.set(ready ? 1 : 0);
        }
    }

    OutPort<T> peer() {
        if (peer == null) {
            throw notConnected();
        }
        return peer;
    }

    @Override
    ClockedModule peerOwner() {
        return peer().owner();
    }

    public boolean ready() {
        return logic == null ? ready : logic.getAsBoolean();
    }

    public boolean valid() {
        return peer().valid();
    }

    /** The item on offer this cycle; it is taken only if {@link #fire()} is true. */
    public T bits() {
        return peer().bits();
    }

    public boolean fire() {
        return peer().fire();
    }

    /** Drives ready from the next cycle on (in {@code evaluate()} only). */
    public void setReady(boolean r) {
        if (logic != null) {
            throw new IllegalStateException("port '" + fullName() + "' is driven by its queue");
        }
        owner.checkWritable(name());
        nextReady = r;
        written = true;
    }

    @Override
    boolean latch(long cycle) {
        return peer().latch(cycle);
    }

    @Override
    boolean commit(long cycle) {
        boolean fired = peer().latch(cycle);
        if (logic != null || !written) {
            return fired;
        }
        written = false;
        boolean changed = ready != nextReady;
        ready = nextReady;
        if (changed && readySignal != null) {
            readySignal.set(ready ? 1 : 0);
        }
        return fired || changed;
    }

    @Override
    void reset() {
        ready = initialReady;
        nextReady = initialReady;
        written = false;
    }
}
