package dev.rdmasim.adapter.pcie;

/**
 * Sees each device write the moment it becomes visible in host memory, in the order the root complex applies them:
 * the hook a driver model uses instead of polling, and tests use to check ordering.
 */
@FunctionalInterface
public interface HostWriteObserver {
    void written(long address, int length);
}
