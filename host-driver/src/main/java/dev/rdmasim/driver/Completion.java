package dev.rdmasim.driver;

import dev.rdmasim.adapter.format.Cqe;

/**
 * A parsed CQE, reused by its {@link CompletionQueue}: valid until the next poll of that queue.
 * Requester completions ({@link #isRequester()}) name a send WQE; {@link #retired()} says how many
 * send WQEs the CQE retired, counting the unsignaled ones before it.
 */
public final class Completion {
    int opcode;
    int wqeOpcode;
    int syndrome;
    int vendorSyndrome;
    int qpn;
    int wqeCounter;
    int byteCount;
    int immediate;
    boolean solicited;
    long wrId;
    int retired;

    void parse(byte[] b, int off) {
        opcode = Cqe.opcode(b, off);
        wqeOpcode = Cqe.wqeOpcode(b, off);
        qpn = Cqe.qpn(b, off);
        wqeCounter = Cqe.wqeCounter(b, off);
        if (Cqe.isError(opcode)) {
            syndrome = Cqe.syndrome(b, off);
            vendorSyndrome = Cqe.vendorSyndrome(b, off);
            byteCount = 0;
            immediate = 0;
            solicited = false;
        } else {
            syndrome = 0;
            vendorSyndrome = 0;
            byteCount = Cqe.byteCount(b, off);
            immediate = Cqe.immediate(b, off);
            solicited = Cqe.solicited(b, off);
        }
    }

    /** CQE opcode ({@code Cqe.REQ}, {@code RESP_SEND}, {@code REQ_ERR}, ...). */
    public int opcode() {
        return opcode;
    }

    /** Opcode of the completed send WQE (requester CQEs). */
    public int wqeOpcode() {
        return wqeOpcode;
    }

    /** 0 on success, else the {@code CqeSyndrome}. */
    public int syndrome() {
        return syndrome;
    }

    public int vendorSyndrome() {
        return vendorSyndrome;
    }

    public boolean isError() {
        return syndrome != 0 || Cqe.isError(opcode);
    }

    /** A completion of a send WQE (REQ or REQ_ERR); otherwise of a receive WQE. */
    public boolean isRequester() {
        return opcode == Cqe.REQ || opcode == Cqe.REQ_ERR;
    }

    public int qpn() {
        return qpn;
    }

    /** 16-bit WQE counter: the send WQE's first BB, or the receive WQE's number. */
    public int wqeCounter() {
        return wqeCounter;
    }

    public int byteCount() {
        return byteCount;
    }

    public int immediate() {
        return immediate;
    }

    public boolean solicited() {
        return solicited;
    }

    /** The caller's id of the completed WQE. */
    public long wrId() {
        return wrId;
    }

    /** WQEs this CQE retired: 1 for receives, 1 + preceding unsignaled WQEs for sends. */
    public int retired() {
        return retired;
    }

    @Override
    public String toString() {
        return Cqe.opcodeName(opcode) + " qpn=" + qpn + " wqe=" + wqeCounter + " bytes=" + byteCount
                + (syndrome != 0 ? " syndrome=0x" + Integer.toHexString(syndrome) : "") + " wrId=" + wrId
                + " retired=" + retired;
    }
}
