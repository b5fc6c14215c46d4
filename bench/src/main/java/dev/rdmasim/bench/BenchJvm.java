package dev.rdmasim.bench;

/**
 * JVM options every benchmark fork runs with: the ones the {@code rdmasim} launcher uses, so the
 * figures describe what users run. A simulation is a throughput job whose live objects are
 * long-lived and whose hot path allocates nothing; the parallel collector's cheaper write barrier
 * on reference stores (every event insertion stores references) is worth about 15-20% on the hold
 * model over G1 on this machine. Peers (SSJ, DSOL) run with the same options.
 */
public final class BenchJvm {
    public static final String GC = "-XX:+UseParallelGC";

    private BenchJvm() {
    }
}
