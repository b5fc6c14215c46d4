package dev.rdmasim.adapter.pcie;

/** Host-side receiver of MSI-X interrupts: memory writes that landed in the MSI-X window. */
@FunctionalInterface
public interface InterruptHandler {
    /** Vector {@code vector} fired with its 32-bit message data. */
    void interrupt(int vector, int data);
}
