package dev.rdmasim.kernel.stats;

/** A named statistic owned by a {@link StatsGroup}: a name, a unit and a one-line description. */
public abstract sealed class Stat permits Counter, Histogram, Formula, TimeAverage {
    private final StatInfo info;

    Stat(StatInfo info) {
        this.info = info;
    }

    /** Name within the owning group, e.g. {@code readBytes}. */
    public final String name() {
        return info.name();
    }

    /** Hierarchical name, the group's path and the local name joined by a dot, e.g. {@code nicA.dma.readBytes}. */
    public final String fullName() {
        return info.fullName();
    }

    /** Unit of the reported values, e.g. {@code bytes} or {@code ps}. */
    public final String unit() {
        return info.unit();
    }

    /** One-line human-readable description. */
    public final String description() {
        return info.description();
    }
}
