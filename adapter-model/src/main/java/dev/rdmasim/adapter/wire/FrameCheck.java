package dev.rdmasim.adapter.wire;

/** Outcome of {@link RoceReader#wrap}: the frame is valid, or the first check it failed. */
public enum FrameCheck {
    VALID("frames that passed every check"),
    TRUNCATED("frames shorter than Ethernet + IPv4 + UDP + BTH + ICRC"),
    NOT_IPV4("frames whose ethertype is not IPv4"),
    BAD_IP_HEADER("IPv4 headers that are not version 4 with a 20-byte header"),
    BAD_IP_CHECKSUM("IPv4 headers whose checksum does not verify"),
    FRAGMENTED("IPv4 fragments (more-fragments set or a fragment offset)"),
    NOT_UDP("IPv4 packets that do not carry UDP"),
    NOT_ROCEV2("UDP datagrams not sent to port 4791"),
    BAD_LENGTH("IPv4/UDP lengths inconsistent with the frame or the opcode's headers"),
    BAD_ICRC("frames whose invariant CRC does not verify"),
    BAD_TRANSPORT_VERSION("BTHs with a transport header version other than 0"),
    UNSUPPORTED_OPCODE("BTH opcodes outside the RC set this model handles"),
    BAD_PAD("pad counts that do not align the payload to 4 bytes");

    private final String description;

    FrameCheck(String description) {
        this.description = description;
    }

    public String description() {
        return description;
    }

    /** Statistic name: {@code rxValid}, {@code rxBadIcrc}, ... */
    public String statName() {
        StringBuilder sb = new StringBuilder("rx");
        for (String part : name().split("_")) {
            sb.append(part.charAt(0)).append(part.substring(1).toLowerCase(java.util.Locale.ROOT));
        }
        return sb.toString();
    }
}
