package dev.rdmasim.adapter.nic;

/** Reliable-connection QP states, as the adapter tracks them. */
public enum QpState {
    RESET, INIT, READY_TO_RECEIVE, READY_TO_SEND, ERROR;

    /** The transitions a modify command may ask for; any state may go to ERROR or RESET. */
    public boolean canMoveTo(QpState next) {
        if (next == ERROR || next == RESET) {
            return true;
        }
        return switch (this) {
            case RESET -> next == INIT;
            case INIT -> next == INIT || next == READY_TO_RECEIVE;
            case READY_TO_RECEIVE -> next == READY_TO_SEND;
            case READY_TO_SEND -> next == READY_TO_SEND;
            case ERROR -> false;
        };
    }

    /**
     * Whether a QP in this state takes incoming request packets. Below ready-to-receive (RESET, INIT) a QP has no
     * peer or expected PSN yet, and in ERROR it takes nothing more: the packet is dropped silently, without an ACK
     * or NAK, as the IB spec has it (and ConnectX does). The spec's SQD and SQE states, which the model does not
     * have, still receive: they stop only the send side.
     */
    public boolean receives() {
        return this == READY_TO_RECEIVE || this == READY_TO_SEND;
    }
}
