package dev.rdmasim.driver;

/**
 * What a QP is created with: its CQs and protection domain, ring sizes and limits.
 *
 * @param sqLogBbs    log2 of the send ring in 64-byte basic blocks
 * @param rqLogSize   log2 of the receive ring in WQEs
 * @param maxSendSge  data segments per send WQE
 * @param maxRecvSge  SGEs per receive WQE (the receive stride is the next power of two)
 * @param maxInline   inline payload bytes per send WQE
 * @param access      remote access the QP grants ({@code format.AccessFlags})
 * @param core        host core the QP posts on (0 .. {@code host.cores} - 1), or -1 for the driver's choice:
 *                    the i-th QP of a driver on core i mod cores
 */
public record QpOptions(CompletionQueue sendCq, CompletionQueue recvCq, int pd, int sqLogBbs, int rqLogSize,
        int maxSendSge, int maxRecvSge, int maxInline, int access, int core) {
    public QpOptions {
        if (core < -1) {
            throw new IllegalArgumentException("core must be >= 0, or -1 for the driver's choice, got " + core);
        }
        if (sendCq == null || recvCq == null) {
            throw new IllegalArgumentException("sendCq and recvCq are required");
        }
        if (sqLogBbs < 1 || sqLogBbs > 15) {
            throw new IllegalArgumentException("sqLogBbs must be 1..15, got " + sqLogBbs);
        }
        if (rqLogSize < 0 || rqLogSize > 15) {
            throw new IllegalArgumentException("rqLogSize must be 0..15, got " + rqLogSize);
        }
        if (maxSendSge < 1 || maxSendSge > 30) {
            throw new IllegalArgumentException("maxSendSge must be 1..30, got " + maxSendSge);
        }
        if (maxRecvSge < 1 || maxRecvSge > 32) {
            throw new IllegalArgumentException("maxRecvSge must be 1..32, got " + maxRecvSge);
        }
        if (maxInline < 0 || maxInline > 972) {
            throw new IllegalArgumentException("maxInline must be 0..972, got " + maxInline);
        }
    }

    /** Options with the driver's choice of core. */
    public QpOptions(CompletionQueue sendCq, CompletionQueue recvCq, int pd, int sqLogBbs, int rqLogSize,
            int maxSendSge, int maxRecvSge, int maxInline, int access) {
        this(sendCq, recvCq, pd, sqLogBbs, rqLogSize, maxSendSge, maxRecvSge, maxInline, access, -1);
    }

    /** One CQ for both directions, 256-BB send ring, 64 receives of up to 4 SGEs, 220 B inline. */
    public static QpOptions of(CompletionQueue cq, int pd, int access) {
        return new QpOptions(cq, cq, pd, 8, 6, 4, 4, 220, access);
    }

    public QpOptions withRings(int newSqLogBbs, int newRqLogSize) {
        return new QpOptions(sendCq, recvCq, pd, newSqLogBbs, newRqLogSize, maxSendSge, maxRecvSge, maxInline, access,
                core);
    }

    /** The same options, posting on host core {@code newCore} (-1: the driver's choice). */
    public QpOptions withCore(int newCore) {
        return new QpOptions(sendCq, recvCq, pd, sqLogBbs, rqLogSize, maxSendSge, maxRecvSge, maxInline, access,
                newCore);
    }
}
