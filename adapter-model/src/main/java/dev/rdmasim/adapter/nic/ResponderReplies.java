package dev.rdmasim.adapter.nic;

/**
 * What the responder owes its peers, as the transmitter takes it: the ACK it owes a QP's peer (its syndrome, handed
 * over when the ACK is built) and the inbound READs it holds, oldest first; told when a READ's last response has left.
 * (A top-level interface: nested in the transmitter it would make the blocks' interfaces inherit in a cycle.)
 */
interface ResponderReplies {
    int takeAck(Qp qp);

    /** Inbound READs held (IRD entries in use). */
    int reads(Qp qp);

    /** Inbound READ {@code i}, counted from the oldest: its range, key, first PSN and packet count. */
    long readVa(Qp qp, int i);

    int readRkey(Qp qp, int i);

    long readLength(Qp qp, int i);

    int readPsn(Qp qp, int i);

    int readPackets(Qp qp, int i);

    void readAnswered(Qp qp);
}
