package dev.rdmasim.kernel;

/**
 * Work a model does without events of its own: it happens at known instants, but nothing needs it done at those
 * instants, only before anyone looks (the model brings it up to date on every access). The simulator needs to know
 * of it only when its event queue runs dry: a run must not end before the last of it, so the clock then moves to
 * {@link #deferredUntilPs()} and every piece of deferred work is settled there, as if its events had run.
 */
public interface DeferredWork {
    /** Returned by {@link #deferredUntilPs()} when nothing is deferred. */
    long NONE = Long.MIN_VALUE;

    /** The last instant at which this work still has something to do, or {@link #NONE}. */
    long deferredUntilPs();

    /**
     * Does everything due at or before the current time. Afterwards {@link #deferredUntilPs()} is {@link #NONE} or
     * later than now (work that settling made known, such as the arrival of something that was waiting to start).
     */
    void settle();
}
