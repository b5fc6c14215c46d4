package dev.rdmasim.adapter.nic;

/**
 * Told about every request when the adapter is done with it (its CQE is in host memory, or it was
 * retired without one), with the times it reached each {@link Stage}. The array is only valid
 * during the call.
 *
 * <p>A receive WQE that a SEND or an RDMA WRITE with immediate consumed is reported too, once its CQE is in
 * host memory, with {@code wqeOpcode} {@link #RECEIVE}, {@code wqeIndex} its index in the receive queue and
 * {@code bytes} the message's length; of its stamps only {@link Stage#REMOTE_PLACED} (the last byte of the
 * message handed to PCIe here, the same instant the sender's request records) and {@link Stage#CQE_WRITTEN}
 * are set. Receives completed with an error or flushed are not reported.
 */
@FunctionalInterface
public interface LifecycleListener {
    /** The {@code wqeOpcode} of a consumed receive WQE (no send WQE opcode is negative). */
    int RECEIVE = -1;

    void retired(String adapter, int qpn, int wqeIndex, int wqeOpcode, long bytes, int syndrome, long[] stamps);
}
