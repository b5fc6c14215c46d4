package dev.rdmasim.kernel.stats;

/** A named statistic owned by a {@link StatsGroup}. */
public sealed interface Stat permits Counter, Histogram, Formula, TimeAverage {

    /** Name within the owning group, e.g. {@code readBytes}. */
    String name();

    /** Hierarchical name, the group's path and the local name joined by a dot, e.g. {@code nicA.dma.readBytes}. */
    String fullName();

    /** Unit of the reported values, e.g. {@code bytes} or {@code ps}. */
    String unit();

    /** One-line human-readable description. */
    String description();
}
