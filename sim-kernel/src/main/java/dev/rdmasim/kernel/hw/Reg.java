package dev.rdmasim.kernel.hw;

/** A register holding a reference; the referenced object must be treated as immutable. */
public final class Reg<T> extends Register {
    private final T init;
    private T cur;
    private T next;

    Reg(ClockedModule owner, String name, T init) {
        super(owner, name);
        this.init = init;
        this.cur = init;
        this.next = init;
    }

    public T get() {
        return cur;
    }

    public T next() {
        return next;
    }

    public void set(T v) {
        checkWritable();
        next = v;
    }

    @Override
    void commit() {
        cur = next;
    }

    @Override
    void reset() {
        cur = init;
        next = init;
    }
}
