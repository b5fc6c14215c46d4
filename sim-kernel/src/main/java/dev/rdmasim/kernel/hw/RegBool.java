package dev.rdmasim.kernel.hw;

import dev.rdmasim.kernel.wave.Signal;

/** A one-bit register. */
public final class RegBool extends Register {
    private final boolean init;
    private boolean cur;
    private boolean next;
    private Signal signal;

    RegBool(ClockedModule owner, String name, boolean init) {
        super(owner, name);
        this.init = init;
        this.cur = init;
        this.next = init;
    }

    public boolean get() {
        return cur;
    }

    public boolean next() {
        return next;
    }

    public void set(boolean v) {
        checkWritable();
        next = v;
    }

    /** Shows this register in the waveform. */
    public RegBool trace() {
        signal = owner.signal(name, 1);
        signal.set(cur ? 1 : 0);
        return this;
    }

    @Override
    void commit() {
        cur = next;
        if (signal != null) {
            signal.set(cur ? 1 : 0);
        }
    }

    @Override
    void reset() {
        cur = init;
        next = init;
    }
}
