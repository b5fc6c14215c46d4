package dev.rdmasim.adapter.nic;

/** The firmware's table of CQs as the CQE writer sees it: lookup by number, and the effect of an overflow. */
interface CqTable {
    /** The CQ, which must exist. */
    Cq cq(int cqn);

    /** The CQ overflowed: every QP completing into it goes to error. */
    void cqOverflowed(Cq cq);
}
