package dev.rdmasim.ndk;

/**
 * An IPv4 socket address ({@code SOCKADDR_IN}): what NdkConnect, NdkListen and the address queries take
 * and return. The port selects the RDMA CM service ID (TCP port space) a listener answers on.
 *
 * @param ipv4 the address, most significant byte first (10.0.0.1 = 0x0A000001); 0 = any local address
 * @param port 0..65535
 */
public record NdkAddress(int ipv4, int port) {
    public NdkAddress {
        if (port < 0 || port > 0xFFFF) {
            throw new IllegalArgumentException("port must be 0..65535, got " + port);
        }
    }

    @Override
    public String toString() {
        return (ipv4 >>> 24) + "." + (ipv4 >>> 16 & 0xFF) + "." + (ipv4 >>> 8 & 0xFF) + "." + (ipv4 & 0xFF) + ":" + port;
    }
}
