package dev.rdmasim.kernel.hw;

/** Where a clock domain is within the processing of one edge. */
public enum Phase {
    /** Between edges: transaction-level events run here. */
    IDLE,
    /** Deciding which ready/valid transfers fire this cycle, from committed state only. */
    LATCH,
    /** Modules compute next state from current state. */
    EVALUATE,
    /** Modules publish next state. */
    COMMIT
}
