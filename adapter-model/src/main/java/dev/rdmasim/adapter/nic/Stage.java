package dev.rdmasim.adapter.nic;

/**
 * The stages a request passes through, in pipeline order; each request records the simulated time
 * it reached each stage so outputs can show where the time went. A stage a request skips (no WQE
 * fetch after BlueFlame, no payload read for inline data) keeps the value {@link #NOT_REACHED}.
 */
public enum Stage {
    /** The driver finished writing the WQE (set by the host side). */
    POSTED,
    /** The doorbell or the last BlueFlame chunk reached the adapter. */
    DOORBELL,
    /** The WQE was in the adapter and parsed (fetched by DMA or written by BlueFlame). */
    WQE_FETCHED,
    /** The payload's DMA read completed (the first packet's worth). */
    PAYLOAD_READ,
    FIRST_PACKET,
    LAST_PACKET,
    /** The responder placed the last byte in its host memory (write issued to PCIe). */
    REMOTE_PLACED,
    /** The acknowledgement (or last read response) retiring the request arrived. */
    ACKED,
    /** The CQE reporting the request landed in host memory. */
    CQE_WRITTEN,
    /** The driver polled the completion (set by the host side). */
    POLLED;

    public static final long NOT_REACHED = -1;
    private static final Stage[] ALL = values();

    public static Stage[] all() {
        return ALL.clone();
    }
}
