package dev.rdmasim.kernel.stats;

/** A 64-bit event or quantity counter. Not thread-safe: a counter belongs to one simulation block. */
public final class Counter implements Stat {

    private final StatInfo info;
    private long value;

    Counter(StatInfo info) {
        this.info = info;
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
    public String name() {
        return info.name();
    }

    @Override
    public String fullName() {
        return info.fullName();
    }

    @Override
    public String unit() {
        return info.unit();
    }

    @Override
    public String description() {
        return info.description();
    }

    @Override
    public String toString() {
        return info.fullName() + " = " + value;
    }
}
