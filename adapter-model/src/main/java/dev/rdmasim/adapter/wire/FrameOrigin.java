package dev.rdmasim.adapter.wire;

/**
 * The sender's record of the request a frame belongs to, carried beside the frame but never on the wire (not in
 * its bytes, its ICRC or the pcap). The receiving adapter tells it when the request's data was placed, so one
 * request's lifecycle spans both adapters the way a logic analyser on both would see it.
 */
public interface FrameOrigin {
    /** Bumped whenever the record is reused for another request, so a late frame cannot stamp its successor. */
    long generation();

    /** The receiver handed the last byte of the request's data to its PCIe link at {@code ps}. */
    void placed(long ps);
}
