package dev.rdmasim.adapter.transport;

/** Where a packet sits in its message, from its opcode. */
public enum Position {
    FIRST, MIDDLE, LAST, ONLY;

    public boolean opensMessage() {
        return this == FIRST || this == ONLY;
    }

    public boolean closesMessage() {
        return this == LAST || this == ONLY;
    }
}
