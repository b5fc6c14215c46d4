package dev.rdmasim.adapter.pcie;

/** Transaction-layer packet types the model carries. MSI-X interrupts are ordinary {@link #MWR}s. */
public enum TlpKind {
    /** Memory write, posted: carries data, no completion. */
    MWR,
    /** Memory read request, non-posted: answered by one or more {@link #CPLD}s with the same tag. */
    MRD,
    /** Completion with data. */
    CPLD
}
