package dev.rdmasim.adapter.nic;

/**
 * Told about every request when the adapter is done with it (its CQE is in host memory, or it was
 * retired without one), with the times it reached each {@link Stage}. The array is only valid
 * during the call.
 */
@FunctionalInterface
public interface LifecycleListener {
    void retired(String adapter, int qpn, int wqeIndex, int wqeOpcode, long bytes, int syndrome, long[] stamps);
}
