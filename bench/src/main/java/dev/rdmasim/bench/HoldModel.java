package dev.rdmasim.bench;

/**
 * One hold-model instance on one event-list implementation. The benchmarks call only
 * {@link #run(long)}; the other methods exist so tests can check the model step by step.
 *
 * <p>Every implementation consumes the shared {@link HoldIncrements} table in the same order: the
 * first N entries place the initial population, then one entry per fired event.
 */
public interface HoldModel {
    /** Events fired per benchmark invocation; large so per-invocation overhead vanishes. */
    int BATCH = 1 << 16;

    /** Fires exactly {@code events} events (the population never empties, so all of them run). */
    void run(long events);

    /** Time of the last fired event, in picoseconds. */
    double now();

    /** Time of the earliest pending event, in picoseconds. */
    double nextTime();

    /** Number of pending events, counted by the event list itself. */
    int pending();
}
