package dev.rdmasim.adapter.transport;

/**
 * The part of a responder QP's state that the ordered transport checks need (after Linux rxe's
 * responder): the expected PSN, whether a multi-packet SEND or WRITE is open, whether a sequence
 * NAK is outstanding, and the message sequence number returned in ACKs.
 *
 * <p>{@link #check} runs the PSN, opcode-sequence, opcode-validity and length checks in that
 * order; resource (receive WQE, inbound read slot) and remote-key checks need memory state and
 * are made by the receive engine after an {@link Verdict#EXECUTE}, before {@link #accept}.
 */
public final class ResponderState {
    private int expectedPsn;
    private RequestKind open;
    private boolean nakOutstanding;
    private int msn;
    private boolean remoteWrite;
    private boolean remoteRead;

    public ResponderState(int initialPsn, boolean remoteWrite, boolean remoteRead) {
        reset(initialPsn, remoteWrite, remoteRead);
    }

    public void reset(int initialPsn, boolean allowRemoteWrite, boolean allowRemoteRead) {
        this.expectedPsn = Psn.checked(initialPsn);
        this.open = null;
        this.nakOutstanding = false;
        this.msn = 0;
        this.remoteWrite = allowRemoteWrite;
        this.remoteRead = allowRemoteRead;
    }

    /**
     * Checks one request packet. {@code payload} is its payload length in bytes, {@code mtu} the
     * path MTU. Does not change state; call {@link #accept} once the packet has been executed.
     */
    public Verdict check(int psn, RequestKind kind, Position pos, int payload, int mtu) {
        int d = Psn.diff(psn, expectedPsn);
        if (d < 0) {
            return Verdict.DUPLICATE;
        }
        if (d > 0) {
            return nakOutstanding ? Verdict.DROP : Verdict.SEQUENCE_NAK;
        }
        if (open != null) {
            if (kind != open || pos.opensMessage()) {
                return Verdict.INVALID_REQUEST;
            }
        } else if (!pos.opensMessage()) {
            return Verdict.INVALID_REQUEST;
        }
        if ((kind == RequestKind.WRITE && !remoteWrite) || (kind == RequestKind.READ && !remoteRead)) {
            return Verdict.INVALID_REQUEST;
        }
        if (kind == RequestKind.READ) {
            // A read request carries no payload and is always ONLY.
            return pos == Position.ONLY && payload == 0 ? Verdict.EXECUTE : Verdict.INVALID_REQUEST;
        }
        boolean lengthOk = switch (pos) {
            case ONLY -> payload <= mtu;
            case FIRST, MIDDLE -> payload == mtu;
            case LAST -> payload >= 1 && payload <= mtu;
        };
        return lengthOk ? Verdict.EXECUTE : Verdict.INVALID_REQUEST;
    }

    /**
     * Records an executed packet: advances the expected PSN ({@code psnSpan} packets: 1, or the
     * number of response packets a READ will take), tracks the open message and counts completed
     * messages.
     */
    public void accept(RequestKind kind, Position pos, int psnSpan) {
        expectedPsn = Psn.add(expectedPsn, psnSpan);
        nakOutstanding = false;
        if (pos.closesMessage()) {
            open = null;
            msn = (msn + 1) & Psn.MASK;
        } else {
            open = kind;
        }
    }

    /** Notes that a sequence NAK was sent, so later out-of-order packets are dropped quietly. */
    public void nakSent() {
        nakOutstanding = true;
    }

    public int expectedPsn() {
        return expectedPsn;
    }

    public int msn() {
        return msn;
    }

    public RequestKind openMessage() {
        return open;
    }

    public boolean nakOutstanding() {
        return nakOutstanding;
    }
}
