package dev.rdmasim.adapter.pcie;

/**
 * Sees each device write the moment it becomes visible in host memory, in the order the root complex applies them:
 * the hook a driver model uses instead of polling, and tests use to check ordering.
 */
@FunctionalInterface
public interface HostWriteObserver {
    void written(long address, int length);

    /**
     * False if {@link #written} does nothing for a write of {@code length} bytes at {@code address}: the root complex
     * may then apply such a write without an event of its own, whenever host memory is next looked at after it is due
     * (and skip the call). Asked when the write is queued on the link; the answer must not turn to true while such a
     * write is in flight. The default watches everything.
     */
    default boolean watches(long address, int length) {
        return true;
    }
}
