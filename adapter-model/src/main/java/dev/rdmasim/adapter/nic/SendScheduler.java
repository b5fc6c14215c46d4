package dev.rdmasim.adapter.nic;

/**
 * The send scheduler: QPs that have request packets to send, served round robin, one packet per turn, whenever
 * the transmitter has a free slot and no acknowledgement or READ response is waiting ahead of them. A QP whose
 * turn yields nothing now (window full, fenced, READ slots full) leaves the queue until the requester transport
 * queues it again; one that must wait for a key or translation line stays in the round (at its back) and stops it.
 */
final class SendScheduler {
    /** Who decides a QP's next packet (the requester transport). */
    interface Requester {
        /** Has the QP's next request packet built: 1 = more to send, 0 = nothing more now, -1 = wait. */
        int nextRequestPacket(Qp qp);
    }

    private final QpTable qps;
    private final IntRing queue = new IntRing(16);
    private Requester requester;

    SendScheduler(QpTable qps) {
        this.qps = qps;
    }

    void connect(Requester requesterTransport) {
        this.requester = requesterTransport;
    }

    /** Whether one QP is in the round: written by this block only. */
    static final class Turn {
        private boolean queued;

        boolean queued() {
            return queued;
        }
    }

    /** A ready-to-send QP has requests to send: it joins the round unless it is in it. */
    void add(Qp qp) {
        if (!qp.turn.queued && qp.state() == QpState.READY_TO_SEND) {
            qp.turn.queued = true;
            queue.add(qp.qpn);
        }
    }

    /** Whether the QP is in the round. */
    boolean busyWith(Qp qp) {
        return qp.turn.queued;
    }

    /** Gives the next QP its turn; false when nothing more can be sent now (no QP, or the head waits). */
    boolean step() {
        if (queue.isEmpty()) {
            return false;
        }
        Qp qp = qps.qp(queue.poll());
        int r = requester.nextRequestPacket(qp);
        if (r < 0) {
            queue.add(qp.qpn);
            return false; // Waiting for a key or translation line; the key unit pumps the transmitter again.
        }
        if (r > 0) {
            queue.add(qp.qpn); // Round robin: one packet per turn.
        } else {
            qp.turn.queued = false;
        }
        return true;
    }
}
