package dev.rdmasim.adapter.nic;

/** The adapter's state of one completion queue: its ring in host memory, indices and arming. */
final class Cq {
    final int cqn;
    /** Ring and size; a RESIZE command moves them. */
    long ring;
    int logSize;
    /** Doorbell record: consumer index the driver publishes, arm word. */
    final long dbRecord;
    long producer;
    /** Consumer index last read from the doorbell record. */
    long consumerKnown;
    boolean armed;
    /** Producer index of the newest solicited or error CQE, for SOLICITED arms; -1 if none. */
    long lastSolicited = -1;
    boolean armSolicitedOnly;
    int armSequence = -1;
    boolean overflowed;
    // Interrupt moderation: events held back until the count or the period is reached.
    int moderationCount;
    long moderationPeriodPs;
    int heldEvents;
    boolean eventHeld;
    dev.rdmasim.kernel.Event moderationTimer;
    long firstHeldPs;

    Cq(int cqn, long ring, int logSize, long dbRecord) {
        this.cqn = cqn;
        this.ring = ring;
        this.logSize = logSize;
        this.dbRecord = dbRecord;
    }

    long size() {
        return 1L << logSize;
    }
}
