package dev.rdmasim.adapter.pcie;

/**
 * Bytes a device block lends to the TLPs of a DMA write instead of having each TLP copy them out of its buffer (see
 * {@link DmaRequest#lentBy}). Each MWr TLP of the write takes a slice of the lender's bytes when it is built and reads
 * it when the root complex applies it to host memory, which may come after the write's {@code writeSent}: the lender
 * must keep those bytes unchanged until every slice has been returned, even if the block reuses its buffer for
 * something else before (its bytes then go elsewhere: see the wire's frame buffers). A write's bytes cross the link
 * once, as host memory receives them, rather than being copied into each TLP on the way.
 */
public interface ByteLender {
    /** A TLP took a slice of the bytes. */
    void lent();

    /** A TLP that took a slice has been applied to host memory and reads the bytes no more. */
    void returned();
}
