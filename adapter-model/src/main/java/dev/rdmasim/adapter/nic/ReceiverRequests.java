package dev.rdmasim.adapter.nic;

import dev.rdmasim.adapter.wire.Frame;
import dev.rdmasim.adapter.wire.RoceReader;

/**
 * The responder's side of the {@link Receiver}: request packets for the QP, and the end of a received message's
 * writes. A top-level type rather than nested in the receiver, since the receiver and the responder each implement an
 * interface of the other and javac would see the nesting as cyclic inheritance.
 */
interface ReceiverRequests {
    /** The receiver hands requests over and is woken; the counts go to its statistics. */
    void connect(Responder.Intake receiver, Responder.Counters counters);

    /** Returns -1 to wait, 1 if the frame is held by DMA writes, 0 if it can be released. */
    int request(Qp qp, Frame f, int op, RoceReader reader);

    /** Writes of the QP's received message have left. */
    void messageWritten(Qp qp);
}
