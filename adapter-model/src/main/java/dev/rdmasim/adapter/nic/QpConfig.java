package dev.rdmasim.adapter.nic;

import dev.rdmasim.adapter.format.RecvWqe;

/**
 * What the driver tells the adapter when it creates a QP: its rings in host memory, its CQs and
 * protection domain, and its limits. Ring sizes are powers of two.
 *
 * @param sqLogBbs       log2 of the send ring size in 64-byte basic blocks
 * @param rqLogSize      log2 of the receive ring size in WQEs
 * @param rqLogStride    log2 of 16-byte segments per receive WQE
 * @param dbRecord       address of the QP's doorbell record (receive counter, send counter)
 * @param accessFlags    remote access the QP grants ({@code format.AccessFlags})
 */
public record QpConfig(int pd, int sendCqn, int recvCqn, long sqBase, int sqLogBbs, long rqBase, int rqLogSize,
        int rqLogStride, long dbRecord, int maxSendSge, int maxRecvSge, int maxInline, int accessFlags) {
    public QpConfig {
        if (sqLogBbs < 0 || sqLogBbs > 15) {
            throw new IllegalArgumentException("send ring of 2^" + sqLogBbs + " basic blocks: expected 2^0..2^15");
        }
        if (rqLogSize < 0 || rqLogSize > 15) {
            throw new IllegalArgumentException("receive ring of 2^" + rqLogSize + " WQEs: expected 2^0..2^15");
        }
        if (rqLogStride < 0 || rqLogStride > 5) {
            throw new IllegalArgumentException("receive WQE stride of 2^" + rqLogStride + " segments: expected 2^0..2^5");
        }
        if (maxRecvSge > (1 << rqLogStride)) {
            throw new IllegalArgumentException(maxRecvSge + " receive SGEs do not fit a stride of " + (1 << rqLogStride) + " segments");
        }
        if (maxSendSge < 1 || maxRecvSge < 1 || maxInline < 0) {
            throw new IllegalArgumentException("SGE limits must be >= 1 and the inline size >= 0");
        }
    }

    /** Bytes per receive WQE in the receive ring. */
    public int rqStrideBytes() {
        return RecvWqe.strideBytes(rqLogStride);
    }
}
