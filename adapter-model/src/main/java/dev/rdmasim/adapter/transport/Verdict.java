package dev.rdmasim.adapter.transport;

/** Outcome of the responder's transport checks on one request packet, in check order. */
public enum Verdict {
    /** Expected PSN, valid sequence and length: execute it. */
    EXECUTE,
    /** PSN already seen: do not execute again, acknowledge again (a READ is answered again). */
    DUPLICATE,
    /** PSN ahead of the expected one: send one sequence-error NAK, then drop until it recovers. */
    SEQUENCE_NAK,
    /** PSN ahead while a sequence NAK is outstanding: drop silently. */
    DROP,
    /** Opcode out of sequence, not allowed on this QP, or a bad length: invalid-request NAK. */
    INVALID_REQUEST
}
