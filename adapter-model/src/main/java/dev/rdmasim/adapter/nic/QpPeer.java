package dev.rdmasim.adapter.nic;

/**
 * The connection attributes of the QP transitions: to READY_TO_RECEIVE the peer's QP number, MAC and
 * IPv4 address, the first PSN expected from it and the inbound RDMA READs this side answers at once
 * ({@code maxReadsIn}, the responder resources); to READY_TO_SEND the first PSN sent (24-bit PSNs), the
 * retry counts the connection agreed on ({@code retryCount} for timeouts and sequence NAKs,
 * {@code rnrRetry} for RNR NAKs, 7 = forever) and the READs it may have outstanding ({@code maxReadsOut},
 * the initiator depth). Each of the last four is -1 for the profile's {@code transport.*} value.
 */
public record QpPeer(int remoteQpn, long mac, int ip, int sendPsn, int expectedPsn, int retryCount, int rnrRetry,
        int maxReadsIn, int maxReadsOut) {
    /** Attributes with the profile's retry counts and read limits. */
    public QpPeer(int remoteQpn, long mac, int ip, int sendPsn, int expectedPsn) {
        this(remoteQpn, mac, ip, sendPsn, expectedPsn, -1, -1, -1, -1);
    }

    public QpPeer {
        if (maxReadsIn < -1 || maxReadsIn > 255 || maxReadsOut < -1 || maxReadsOut > 255) {
            throw new IllegalArgumentException("read limits are 0..255 (or -1 for the profile's), got " + maxReadsIn
                    + " and " + maxReadsOut);
        }
        if (retryCount < -1 || retryCount > 7 || rnrRetry < -1 || rnrRetry > 7) {
            throw new IllegalArgumentException("retry counts are 3 bits (or -1 for the profile's), got " + retryCount
                    + " and " + rnrRetry);
        }
        if (remoteQpn < 0 || remoteQpn > 0xFF_FFFF) {
            throw new IllegalArgumentException("remoteQpn must be a 24-bit QP number, got " + remoteQpn);
        }
        if (mac < 0 || mac > 0xFFFF_FFFF_FFFFL) {
            throw new IllegalArgumentException("mac must be 48 bits, got 0x" + Long.toHexString(mac));
        }
        if ((sendPsn & ~0xFF_FFFF) != 0 || (expectedPsn & ~0xFF_FFFF) != 0) {
            throw new IllegalArgumentException("PSNs are 24 bits, got " + sendPsn + " and " + expectedPsn);
        }
    }
}
