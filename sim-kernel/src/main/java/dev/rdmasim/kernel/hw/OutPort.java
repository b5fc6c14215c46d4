package dev.rdmasim.kernel.hw;

import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.wave.Signal;

/**
 * The producer's end of a ready/valid channel. The producer drives {@code valid} and {@code bits}
 * (registers: a value offered in {@code evaluate()} is seen from the next cycle on); the consumer
 * drives {@code ready}. A transfer happens in exactly the cycles where {@link #fire()} is true.
 *
 * <p>After a transfer the port drops {@code valid} by itself unless the producer offered a new item
 * in the same cycle, so an item can never be delivered twice by omission.
 */
public final class OutPort<T> extends Port {
    /** Combinational drive for ports owned by queues (flow-through, latency). */
    interface Logic<T> {
        boolean valid();

        T bits();
    }

    private final Logic<T> logic;
    private InPort<T> peer;

    private boolean valid;
    private T bits;
    private boolean nextValid;
    private T nextBits;
    private boolean offered;

    private long latchCycle = -1;
    private boolean latchFire;
    private Signal validSignal;

    OutPort(ClockedModule owner, String name, Logic<T> logic) {
        super(owner, name);
        this.logic = logic;
    }

    @Override
    public boolean connected() {
        return peer != null;
    }

    void connect(InPort<T> in) {
        if (peer != null) {
            throw alreadyConnected(peer);
        }
        peer = in;
        if (logic == null) {
            validSignal = owner.signal(name() + "_valid", 1);
            validSignal.set(0);
        }
    }

    InPort<T> peer() {
        if (peer == null) {
            throw notConnected();
        }
        return peer;
    }

    @Override
    ClockedModule peerOwner() {
        return peer().owner();
    }

    /** The valid signal seen this cycle. */
    public boolean valid() {
        return logic == null ? valid : logic.valid();
    }

    /** The item on offer this cycle (null when not valid). */
    public T bits() {
        return logic == null ? bits : logic.bits();
    }

    /** The consumer's ready signal seen this cycle. */
    public boolean ready() {
        return peer().ready();
    }

    /** True in exactly the cycles where an item moves from producer to consumer. */
    public boolean fire() {
        long cycle = owner.clock().cycle();
        if (latchCycle == cycle) {
            return latchFire;
        }
        Phase phase = owner.clock().phase();
        if (phase == Phase.IDLE) {
            return valid() && ready();
        }
        InvariantViolation.check(phase != Phase.COMMIT, "port '" + fullName() + "': transfer not latched before commit");
        latch(cycle);
        return latchFire;
    }

    /** Drives {@code item} with valid from the next cycle on (in {@code evaluate()} only). */
    public void offer(T item) {
        checkRegistered();
        owner.checkWritable(name());
        nextValid = true;
        nextBits = item;
        offered = true;
    }

    /** Drops valid from the next cycle on (in {@code evaluate()} only). */
    public void retract() {
        checkRegistered();
        owner.checkWritable(name());
        nextValid = false;
        nextBits = null;
        offered = true;
    }

    private void checkRegistered() {
        if (logic != null) {
            throw new IllegalStateException("port '" + fullName() + "' is driven by its queue");
        }
    }

    @Override
    boolean latch(long cycle) {
        if (latchCycle != cycle) {
            latchFire = valid() && peer().ready();
            latchCycle = cycle;
        }
        return latchFire;
    }

    @Override
    boolean commit(long cycle) {
        boolean fired = latchCycle == cycle && latchFire;
        if (logic != null) {
            return fired;
        }
        if (fired && !offered) {
            nextValid = false;
            nextBits = null;
        }
        offered = false;
        boolean changed = valid != nextValid || bits != nextBits;
        valid = nextValid;
        bits = nextBits;
        if (changed && validSignal != null) {
            validSignal.set(valid ? 1 : 0);
        }
        return fired || changed;
    }

    @Override
    void reset() {
        valid = false;
        bits = null;
        nextValid = false;
        nextBits = null;
        offered = false;
        latchCycle = -1;
    }
}
