package dev.rdmasim.kernel.hw;

import dev.rdmasim.kernel.wave.Signal;
import java.util.function.BooleanSupplier;

/**
 * The consumer's end of a ready/valid channel: the consumer drives {@code ready} (a register, level
 * held until changed) and takes {@link #bits()} in the cycles where {@link #fire()} is true.
 */
public final class InPort<T> {
    private final ClockedModule owner;
    private final String name;
    private final BooleanSupplier logic;
    private final boolean initialReady;
    private OutPort<T> peer;

    private boolean ready;
    private boolean nextReady;
    private boolean written;
    private Signal readySignal;

    InPort(ClockedModule owner, String name, boolean initialReady, BooleanSupplier logic) {
        this.owner = owner;
        this.name = name;
        this.logic = logic;
        this.initialReady = initialReady;
        this.ready = initialReady;
        this.nextReady = initialReady;
        owner.addIn(this);
    }

    public String name() {
        return name;
    }

    public String fullName() {
        return owner.fullName() + "." + name;
    }

    public ClockedModule owner() {
        return owner;
    }

    public boolean connected() {
        return peer != null;
    }

    void connect(OutPort<T> out) {
        if (peer != null) {
            throw new IllegalStateException("port '" + fullName() + "' is already connected to '" + peer.fullName() + "'");
        }
        peer = out;
        if (logic == null) {
            readySignal = owner.signal(name + "_ready", 1);
            readySignal.set(ready ? 1 : 0);
        }
    }

    OutPort<T> peer() {
        if (peer == null) {
            throw new IllegalStateException("port '" + fullName() + "' is not connected");
        }
        return peer;
    }

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
        owner.checkWritable(name);
        nextReady = r;
        written = true;
    }

    boolean latch(long cycle) {
        return peer().latch(cycle);
    }

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

    void reset() {
        ready = initialReady;
        nextReady = initialReady;
        written = false;
    }

    @Override
    public String toString() {
        return fullName();
    }
}
