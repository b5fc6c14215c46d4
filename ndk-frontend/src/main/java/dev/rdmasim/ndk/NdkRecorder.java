package dev.rdmasim.ndk;

/**
 * An observer of the NDK calls a consumer makes on one adapter ({@link NdkAdapter#setRecorder}), each told
 * with the simulated time of the call, in picoseconds: what a tool needs to write the run down as a trace.
 * Creations are told when they succeeded (a failed creation leaves nothing to replay); calls are told as
 * they are made, whatever their status. Nothing is recorded, and nothing costs, when no recorder is set.
 * A recorder must not call back into the provider.
 */
public interface NdkRecorder {
    /** {@code NdkCreateCq} completed with {@code cq}. */
    void cqCreated(long ps, NdkCq cq, long depth);

    /** {@code NdkCreatePd} completed with {@code pd}. */
    void pdCreated(long ps, NdkPd pd);

    /** {@code NdkRegisterMr} of {@code mr} (of {@code pd}) over {@code [address, address + length)} completed. */
    void mrRegistered(long ps, NdkPd pd, NdkMr mr, long address, long length, int flags);

    /** {@code NdkCreateQp} completed with {@code qp}. */
    void qpCreated(long ps, NdkPd pd, NdkQp qp, NdkCq receiveCq, NdkCq initiatorCq, Object qpContext, long receiveDepth,
            long initiatorDepth, long receiveSge, long initiatorSge, long inlineSize);

    /** {@code NdkConnect} of {@code qp} to {@code dest} was accepted for processing ({@code STATUS_PENDING}). */
    void connecting(long ps, NdkConnector connector, NdkQp qp, NdkAddress dest, long inboundReadLimit,
            long outboundReadLimit, byte[] privateData, int privateDataLength);

    /** {@code NdkAccept} of {@code qp} on a passive {@code connector} was accepted for processing. */
    void accepting(long ps, NdkConnector connector, NdkQp qp, long inboundReadLimit, long outboundReadLimit,
            byte[] privateData, int privateDataLength);

    /**
     * {@code NdkSend}, {@code NdkWrite}, {@code NdkRead} ({@code type} an {@link NdkOperationType}; the remote
     * arguments are 0 for a send) or {@code NdkReceive} (flags 0), before the provider acts on it.
     */
    void post(long ps, NdkQp qp, int type, Object requestContext, NdkSge[] sgl, int nSge, long remoteAddress,
            int remoteToken, int flags);

    /** {@code NdkArmCq}. */
    void arm(long ps, NdkCq cq, int triggerType);

    /** {@code NdkGetCqResults(Ex)} asked for {@code requested} results and got {@code got} (in {@code results[0..got)}). */
    void polled(long ps, NdkCq cq, int requested, NdkResult[] results, int got);

    /** {@code NdkFlush}. */
    void flush(long ps, NdkQp qp);

    /** {@code NdkControlCqInterruptModeration}. */
    void moderate(long ps, NdkCq cq, long intervalUs, long count);

    /** {@code NdkResizeCq}. */
    void resize(long ps, NdkCq cq, long depth);

    /** {@code NdkDisconnect} on {@code connector}. */
    void disconnect(long ps, NdkConnector connector);

    /** {@code NdkCloseObject} of {@code object}, before it starts closing. */
    void close(long ps, NdkObject object);
}
