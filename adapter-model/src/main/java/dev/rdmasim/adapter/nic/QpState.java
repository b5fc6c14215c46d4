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
}
