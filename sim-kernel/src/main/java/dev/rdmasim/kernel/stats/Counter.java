package dev.rdmasim.kernel.stats;

/** A 64-bit event or quantity counter. Not thread-safe: a counter belongs to one simulation block. */
public final class Counter extends Stat {

    private long value;

    Counter(StatInfo info) {
        super(info);
    }

    public void inc() {
        value++;
    }

    public void add(long amount) {
        value += amount;
    }

    public long value() {
        return value;
    }

    void reset() {
        value = 0;
    }

    @Override
    public String toString() {
        return fullName() + " = " + value;
    }
}
