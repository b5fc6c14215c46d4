package dev.rdmasim.adapter.transport;

/** The operation a request packet belongs to. */
public enum RequestKind {
    SEND, WRITE, READ
}
