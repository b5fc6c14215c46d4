package dev.rdmasim.adapter.pcie;

/** What a DMA client hears back about its requests. Called from simulator events; may submit new requests. */
public interface DmaCallback {
    /** Every byte of a read request is now in its buffer. */
    default void readDone(DmaRequest request) {
        throw new IllegalStateException("read " + request + " completed but its client does not handle reads");
    }

    /**
     * The last TLP of a write request has left the device: the buffer may be reused. Unless the request asked to be
     * told when the write is applied, the request object may be reused too.
     */
    default void writeSent(DmaRequest request) {
        throw new IllegalStateException("write " + request + " sent but its client does not handle writes");
    }

    /** Only for requests with {@code notifyApplied}: the last byte is visible in host memory. */
    default void writeApplied(DmaRequest request) {
        throw new IllegalStateException("write " + request + " applied but its client does not handle that");
    }
}
