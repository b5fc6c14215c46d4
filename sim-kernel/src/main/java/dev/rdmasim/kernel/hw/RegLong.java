package dev.rdmasim.kernel.hw;

import dev.rdmasim.kernel.wave.Signal;

/** A {@code long} register: {@link #get()} reads the committed value, {@link #set(long)} the next one. */
public final class RegLong extends Register {
    private final long init;
    private long cur;
    private long next;
    private Signal signal;

    RegLong(ClockedModule owner, String name, long init) {
        super(owner, name);
        this.init = init;
        this.cur = init;
        this.next = init;
    }

    public long get() {
        return cur;
    }

    /** The value that will be committed (the current one unless set this cycle). */
    public long next() {
        return next;
    }

    public void set(long v) {
        checkWritable();
        next = v;
    }

    /** Shows this register in the waveform with {@code width} bits. */
    public RegLong trace(int width) {
        signal = owner.signal(name, width);
        signal.set(cur);
        return this;
    }

    @Override
    void commit() {
        cur = next;
        if (signal != null) {
            signal.set(cur);
        }
    }

    @Override
    void reset() {
        cur = init;
        next = init;
    }
}
