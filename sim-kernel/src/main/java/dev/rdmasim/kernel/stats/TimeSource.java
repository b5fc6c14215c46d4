package dev.rdmasim.kernel.stats;

/** Current simulated time, as the simulator sees it. */
@FunctionalInterface
public interface TimeSource {

    /** Simulated time in picoseconds; never decreases during a run. */
    long nowPs();
}
