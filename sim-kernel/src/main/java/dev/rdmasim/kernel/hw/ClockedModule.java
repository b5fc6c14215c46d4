package dev.rdmasim.kernel.hw;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A module that runs on a {@link ClockDomain} in two phases per cycle: {@link #evaluate()} computes
 * next state from committed state (registers, port signals, which transfers fire), then the domain
 * commits every module. Registers and port drives are committed automatically after
 * {@link #commit()}.
 *
 * <p>A module is evaluated only at edges where it is awake: it asked with {@link #wake()} or
 * {@link #wakeIn(long)}, one of its channels fires, or one of its channels' signals changed in the
 * previous cycle. An evaluate call with nothing to do must therefore be harmless.
 */
public abstract class ClockedModule extends Module {
    private final ClockDomain clock;
    final int domainIndex;
    /** Cycle of the next-edge list this module is in (dedupes wake-ups). */
    long nextMark = -1;
    /** Cycle of the edge being processed whose list this module is in. */
    long currentMark = -1;

    private final List<Port> ports = new ArrayList<>();
    private final List<Register> registers = new ArrayList<>();

    protected ClockedModule(Module parent, String name, ClockDomain clock) {
        super(parent, name);
        this.clock = checkClock(clock);
        this.domainIndex = clock.register(this);
    }

    protected ClockedModule(dev.rdmasim.kernel.Simulator sim, String name, ClockDomain clock) {
        super(sim, name);
        this.clock = checkClock(clock);
        this.domainIndex = clock.register(this);
    }

    private ClockDomain checkClock(ClockDomain c) {
        Objects.requireNonNull(c, "clock");
        if (c.sim() != sim()) {
            throw new IllegalArgumentException("module '" + fullName() + "': clock '" + c.name() + "' belongs to another simulator");
        }
        return c;
    }

    /** Computes next state from current state. Must not depend on other modules' evaluation order. */
    protected abstract void evaluate();

    /** Publishes next state held outside registers (queues, tables). Registers and ports commit by themselves. */
    protected void commit() {
    }

    public final ClockDomain clock() {
        return clock;
    }

    /** The cycle being evaluated (or the last edge at or before now, outside an edge). */
    public final long cycle() {
        return clock.cycle();
    }

    /** Evaluates this module at the next edge. */
    public final void wake() {
        clock.wake(this);
    }

    /** Evaluates this module {@code cycles} edges from now ({@code wakeIn(1)} is {@link #wake()}). */
    public final void wakeIn(long cycles) {
        if (cycles < 1) {
            throw new IllegalArgumentException("module '" + fullName() + "': wakeIn needs at least 1 cycle, got " + cycles);
        }
        long base = clock.phase() == Phase.IDLE ? clock.cycleAt(now()) : clock.cycle();
        clock.wakeAt(this, base + cycles);
    }

    /** Evaluates this module at edge {@code cycle} (or the next edge if that is not in the future). */
    public final void wakeAtCycle(long cycle) {
        clock.wakeAt(this, cycle);
    }

    /** A producer port; connect it with {@link Channels#connect(OutPort, InPort)} or feed it to a {@link Fifo}. */
    protected final <T> OutPort<T> outPort(String name) {
        return new OutPort<>(this, name, null);
    }

    /** A consumer port whose ready starts as {@code initialReady}. */
    protected final <T> InPort<T> inPort(String name, boolean initialReady) {
        return new InPort<>(this, name, initialReady, null);
    }

    protected final RegLong regLong(String name, long init) {
        return new RegLong(this, name, init);
    }

    protected final RegBool regBool(String name, boolean init) {
        return new RegBool(this, name, init);
    }

    protected final <T> Reg<T> reg(String name, T init) {
        return new Reg<>(this, name, init);
    }

    void addPort(Port p) {
        for (Port x : ports) {
            if (x.name().equals(p.name())) {
                throw new IllegalArgumentException("module '" + fullName() + "' already has a port named '" + p.name() + "'");
            }
        }
        ports.add(p);
    }

    void addRegister(Register r) {
        for (Register x : registers) {
            if (x.name.equals(r.name)) {
                throw new IllegalArgumentException("module '" + fullName() + "' already has a register named '" + r.name + "'");
            }
        }
        registers.add(r);
    }

    /** Register and port writes are legal only while this module's domain evaluates. */
    final void checkWritable(String what) {
        if (clock.phase() != Phase.EVALUATE) {
            throw new IllegalStateException("module '" + fullName() + "': '" + what
                    + "' may only be written in evaluate(), not in phase " + clock.phase());
        }
    }

    final void latch(long cycle) {
        for (int i = 0, n = ports.size(); i < n; i++) {
            Port p = ports.get(i);
            if (p.latch(cycle)) {
                clock.includeInThisCycle(p.peerOwner());
            }
        }
    }

    final void commitAll(long cycle) {
        commit();
        for (int i = 0, n = registers.size(); i < n; i++) {
            registers.get(i).commit();
        }
        boolean active = false;
        for (int i = 0, n = ports.size(); i < n; i++) {
            Port p = ports.get(i);
            if (p.commit(cycle)) {
                active = true;
                p.peerOwner().wake();
            }
        }
        // A transfer or a changed signal may enable another transfer next cycle.
        if (active) {
            wake();
        }
    }

    @Override
    void resetKernelState() {
        for (Register r : registers) {
            r.reset();
        }
        for (Port p : ports) {
            p.reset();
        }
    }
}
