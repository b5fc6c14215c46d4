package dev.rdmasim.adapter.pcie;

/**
 * Transaction-layer packet types the model carries. MSI-X interrupts are ordinary {@link #MWR}s. The declaration
 * order is the ordering-class order (posted, non-posted, completion) that the link transmitter indexes by ordinal.
 */
public enum TlpKind {
    /** Memory write, posted: carries data, no completion. */
    MWR,
    /** Memory read request, non-posted: answered by one or more {@link #CPLD}s with the same tag. */
    MRD,
    /** Completion with data. */
    CPLD
}
