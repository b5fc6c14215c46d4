package dev.rdmasim.adapter.nic;

/**
 * The connection attributes of the QP transitions: to READY_TO_RECEIVE the peer's QP number, MAC and
 * IPv4 address and the first PSN expected from it; to READY_TO_SEND the first PSN sent (24-bit PSNs).
 */
public record QpPeer(int remoteQpn, long mac, int ip, int sendPsn, int expectedPsn) {
    public QpPeer {
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
