package dev.rdmasim.adapter.wire;

import static dev.rdmasim.adapter.wire.RoceLayout.*;

import java.util.Arrays;

/**
 * A communication-management MAD (IBA vol. 1, chapters 13.4 and 12.6): the 256-byte management datagram
 * with the common MAD header, carrying one CM message (REQ, MRA, REJ, REP, RTU, DREQ, DREP). One mutable
 * object holds the fields of every message kind; {@link #encode} writes those the attribute carries, at
 * their IBA offsets, and {@link #decode} reads them back. Offsets are from the start of the MAD; all
 * fields are big-endian; bit fields are given from the most significant bit as in the IBA tables.
 *
 * <p>Used by the driver's connection manager, off the data path: the object is reused, the private data
 * buffer is preallocated at the largest size (224 B).
 */
public final class CmMad {
    /** Every MAD is exactly this long. */
    public static final int SIZE = 256;
    /** Bytes of the common MAD header; the CM message follows. */
    public static final int HEADER = 24;

    public static final int BASE_VERSION = 1;
    public static final int MGMT_CLASS_CM = 0x07;
    public static final int CLASS_VERSION = 2;
    public static final int METHOD_SEND = 0x03;

    public static final int ATTR_REQ = 0x0010;
    public static final int ATTR_MRA = 0x0011;
    public static final int ATTR_REJ = 0x0012;
    public static final int ATTR_REP = 0x0013;
    public static final int ATTR_RTU = 0x0014;
    public static final int ATTR_DREQ = 0x0015;
    public static final int ATTR_DREP = 0x0016;

    // Common MAD header.
    public static final int OFF_BASE_VERSION = 0;
    public static final int OFF_MGMT_CLASS = 1;
    public static final int OFF_CLASS_VERSION = 2;
    public static final int OFF_METHOD = 3;
    public static final int OFF_STATUS = 4;
    public static final int OFF_TRANSACTION_ID = 8;
    public static final int OFF_ATTRIBUTE_ID = 16;
    public static final int OFF_ATTRIBUTE_MODIFIER = 20;

    /** Local and remote communication IDs: the first two words of every message but REQ (which has only the local). */
    public static final int OFF_LOCAL_COMM_ID = HEADER;
    public static final int OFF_REMOTE_COMM_ID = HEADER + 4;

    // REQ (IBA table 106).
    public static final int REQ_SERVICE_ID = HEADER + 8;
    public static final int REQ_LOCAL_CA_GUID = HEADER + 16;
    public static final int REQ_LOCAL_QKEY = HEADER + 28;
    public static final int REQ_LOCAL_QPN = HEADER + 32;
    public static final int REQ_RESPONDER_RESOURCES = HEADER + 35;
    public static final int REQ_INITIATOR_DEPTH = HEADER + 39;
    /** Remote CM response timeout (5 bits), transport service type (2), end-to-end flow control (1). */
    public static final int REQ_BYTE_43 = HEADER + 43;
    public static final int REQ_STARTING_PSN = HEADER + 44;
    /** Local CM response timeout (5 bits), retry count (3). */
    public static final int REQ_BYTE_47 = HEADER + 47;
    public static final int REQ_PKEY = HEADER + 48;
    /** Path MTU (4 bits), RDC exists (1), RNR retry count (3). */
    public static final int REQ_BYTE_50 = HEADER + 50;
    /** Max CM retries (4 bits), SRQ (1), extended transport type (3). */
    public static final int REQ_BYTE_51 = HEADER + 51;
    public static final int REQ_PRIMARY_LOCAL_LID = HEADER + 52;
    public static final int REQ_PRIMARY_REMOTE_LID = HEADER + 54;
    public static final int REQ_PRIMARY_LOCAL_GID = HEADER + 56;
    public static final int REQ_PRIMARY_REMOTE_GID = HEADER + 72;
    /** Flow label (top 20 bits of the word), then 6 reserved bits and the packet rate (6). */
    public static final int REQ_PRIMARY_FLOW_LABEL = HEADER + 88;
    public static final int REQ_PRIMARY_TRAFFIC_CLASS = HEADER + 92;
    public static final int REQ_PRIMARY_HOP_LIMIT = HEADER + 93;
    /** SL (4 bits), subnet local (1). */
    public static final int REQ_PRIMARY_BYTE_94 = HEADER + 94;
    /** Local ACK timeout (5 bits). */
    public static final int REQ_PRIMARY_BYTE_95 = HEADER + 95;
    public static final int REQ_PRIVATE_DATA = HEADER + 140;
    public static final int REQ_PRIVATE_DATA_SIZE = 92;

    // MRA (table 107), decoded only by tools: the model sends none.
    public static final int MRA_PRIVATE_DATA = HEADER + 10;
    public static final int MRA_PRIVATE_DATA_SIZE = 222;

    // REJ (table 108).
    /** Message rejected (top 2 bits): 0 REQ, 1 REP, 2 other. */
    public static final int REJ_MESSAGE_REJECTED = HEADER + 8;
    /** Rejection info length (top 7 bits). */
    public static final int REJ_INFO_LENGTH = HEADER + 9;
    public static final int REJ_REASON = HEADER + 10;
    public static final int REJ_ARI = HEADER + 12;
    public static final int REJ_PRIVATE_DATA = HEADER + 84;
    public static final int REJ_PRIVATE_DATA_SIZE = 148;

    // REP (table 110).
    public static final int REP_LOCAL_QKEY = HEADER + 8;
    public static final int REP_LOCAL_QPN = HEADER + 12;
    public static final int REP_STARTING_PSN = HEADER + 20;
    public static final int REP_RESPONDER_RESOURCES = HEADER + 24;
    public static final int REP_INITIATOR_DEPTH = HEADER + 25;
    /** Target ACK delay (5 bits), failover accepted (2), end-to-end flow control (1). */
    public static final int REP_BYTE_26 = HEADER + 26;
    /** RNR retry count (3 bits), SRQ (1). */
    public static final int REP_BYTE_27 = HEADER + 27;
    public static final int REP_LOCAL_CA_GUID = HEADER + 28;
    public static final int REP_PRIVATE_DATA = HEADER + 36;
    public static final int REP_PRIVATE_DATA_SIZE = 196;

    // RTU (table 111), DREQ (112), DREP (113).
    public static final int RTU_PRIVATE_DATA = HEADER + 8;
    public static final int RTU_PRIVATE_DATA_SIZE = 224;
    public static final int DREQ_REMOTE_QPN = HEADER + 8;
    public static final int DREQ_PRIVATE_DATA = HEADER + 12;
    public static final int DREQ_PRIVATE_DATA_SIZE = 220;
    public static final int DREP_PRIVATE_DATA = HEADER + 8;
    public static final int DREP_PRIVATE_DATA_SIZE = 224;

    /** REJ reasons used here (IBA table 109). */
    public static final int REJ_NO_QP = 1;
    public static final int REJ_TIMEOUT = 2;
    public static final int REJ_INVALID_SERVICE_ID = 8;
    public static final int REJ_STALE_CONNECTION = 10;
    public static final int REJ_CONSUMER_DEFINED = 28;

    public static final int REJECTED_REQ = 0;
    public static final int REJECTED_REP = 1;
    public static final int REJECTED_OTHER = 2;

    /** Path MTU codes of the REQ (IBA table 240 encoding: 1 = 256 B ... 5 = 4096 B). */
    public static int mtuCode(int bytes) {
        return switch (bytes) {
            case 256 -> 1;
            case 512 -> 2;
            case 1024 -> 3;
            case 2048 -> 4;
            case 4096 -> 5;
            default -> throw new IllegalArgumentException("path MTU must be 256..4096 B, a power of two; got " + bytes);
        };
    }

    /** Service ID of an RDMA CM TCP-port-space listener on {@code port} (IBA annex A11: 0x0000000001060000 | port). */
    public static long tcpServiceId(int port) {
        if (port < 0 || port > 0xFFFF) {
            throw new IllegalArgumentException("port must be 0..65535, got " + port);
        }
        return 0x0000_0000_0106_0000L | port;
    }

    /** Private data room of a message kind. */
    public static int privateDataSize(int attributeId) {
        return switch (attributeId) {
            case ATTR_REQ -> REQ_PRIVATE_DATA_SIZE;
            case ATTR_MRA -> MRA_PRIVATE_DATA_SIZE;
            case ATTR_REJ -> REJ_PRIVATE_DATA_SIZE;
            case ATTR_REP -> REP_PRIVATE_DATA_SIZE;
            case ATTR_RTU -> RTU_PRIVATE_DATA_SIZE;
            case ATTR_DREQ -> DREQ_PRIVATE_DATA_SIZE;
            case ATTR_DREP -> DREP_PRIVATE_DATA_SIZE;
            default -> throw new IllegalArgumentException("attribute 0x" + Integer.toHexString(attributeId) + " is not a CM message");
        };
    }

    /** Offset of a message kind's private data within the MAD. */
    public static int privateDataOffset(int attributeId) {
        return switch (attributeId) {
            case ATTR_REQ -> REQ_PRIVATE_DATA;
            case ATTR_MRA -> MRA_PRIVATE_DATA;
            case ATTR_REJ -> REJ_PRIVATE_DATA;
            case ATTR_REP -> REP_PRIVATE_DATA;
            case ATTR_RTU -> RTU_PRIVATE_DATA;
            case ATTR_DREQ -> DREQ_PRIVATE_DATA;
            case ATTR_DREP -> DREP_PRIVATE_DATA;
            default -> throw new IllegalArgumentException("attribute 0x" + Integer.toHexString(attributeId) + " is not a CM message");
        };
    }

    // ---------------------------------------------------------------- fields

    public int attributeId;
    public long transactionId;
    public int localCommId;
    public int remoteCommId;
    public long serviceId;
    public long localCaGuid;
    /** The sender's QP (REQ, REP) or, in a DREQ, the receiver's QP. */
    public int qpn;
    public int startingPsn;
    /** REQ: reads the sender accepts (its IRD); REP: the same, as granted by the responder. */
    public int responderResources;
    /** REQ: reads the sender issues at once (its ORD); REP: the same for the responder. */
    public int initiatorDepth;
    public int remoteCmResponseTimeout;
    public int localCmResponseTimeout;
    public int retryCount;
    public int rnrRetryCount;
    public int maxCmRetries;
    public int pathMtuCode = 3;
    public int localAckTimeout;
    public int pkey = 0xFFFF;
    /** IPv4 addresses of the path, carried as IPv4-mapped GIDs (::ffff:a.b.c.d) as RoCEv2 does. */
    public int localIp;
    public int remoteIp;
    public int trafficClass;
    public int hopLimit = 64;
    public int targetAckDelay;
    public int rejectReason;
    public int messageRejected;
    public final byte[] privateData = new byte[RTU_PRIVATE_DATA_SIZE];
    /** Bytes of {@link #privateData} in use; on decode, the whole field (the wire carries no length). */
    public int privateDataLength;

    /** Clears every field, as before building a new message. */
    public CmMad clear() {
        attributeId = 0;
        transactionId = 0;
        localCommId = 0;
        remoteCommId = 0;
        serviceId = 0;
        localCaGuid = 0;
        qpn = 0;
        startingPsn = 0;
        responderResources = 0;
        initiatorDepth = 0;
        remoteCmResponseTimeout = 0;
        localCmResponseTimeout = 0;
        retryCount = 0;
        rnrRetryCount = 0;
        maxCmRetries = 0;
        pathMtuCode = 3;
        localAckTimeout = 0;
        pkey = 0xFFFF;
        localIp = 0;
        remoteIp = 0;
        trafficClass = 0;
        hopLimit = 64;
        targetAckDelay = 0;
        rejectReason = 0;
        messageRejected = 0;
        Arrays.fill(privateData, (byte) 0);
        privateDataLength = 0;
        return this;
    }

    /** Sets the private data ({@code data} may be null when {@code len} is 0); more bytes than the message kind holds is refused. */
    public CmMad privateData(byte[] data, int off, int len) {
        int max = privateDataSize(attributeId);
        if (len < 0 || len > max) {
            throw new IllegalArgumentException("private data of " + len + " B does not fit a " + attributeName(attributeId)
                    + " (at most " + max + " B)");
        }
        if (len > 0) {
            System.arraycopy(data, off, privateData, 0, len);
        }
        Arrays.fill(privateData, len, privateData.length, (byte) 0);
        privateDataLength = len;
        return this;
    }

    /** Writes the whole 256-byte MAD at {@code b[off]}: header, the attribute's fields, zeros elsewhere. */
    public void encode(byte[] b, int off) {
        int max = privateDataSize(attributeId);
        if (privateDataLength > max) {
            throw new IllegalArgumentException("private data of " + privateDataLength + " B does not fit a "
                    + attributeName(attributeId) + " (at most " + max + " B)");
        }
        Arrays.fill(b, off, off + SIZE, (byte) 0);
        b[off + OFF_BASE_VERSION] = BASE_VERSION;
        b[off + OFF_MGMT_CLASS] = MGMT_CLASS_CM;
        b[off + OFF_CLASS_VERSION] = CLASS_VERSION;
        b[off + OFF_METHOD] = METHOD_SEND;
        put64(b, off + OFF_TRANSACTION_ID, transactionId);
        put16(b, off + OFF_ATTRIBUTE_ID, attributeId);
        put32(b, off + OFF_LOCAL_COMM_ID, localCommId);
        switch (attributeId) {
            case ATTR_REQ -> encodeReq(b, off);
            case ATTR_REP -> {
                put32(b, off + OFF_REMOTE_COMM_ID, remoteCommId);
                put24(b, off + REP_LOCAL_QPN, bits("qpn", qpn, 24));
                put24(b, off + REP_STARTING_PSN, bits("startingPsn", startingPsn, 24));
                b[off + REP_RESPONDER_RESOURCES] = (byte) bits("responderResources", responderResources, 8);
                b[off + REP_INITIATOR_DEPTH] = (byte) bits("initiatorDepth", initiatorDepth, 8);
                b[off + REP_BYTE_26] = (byte) (bits("targetAckDelay", targetAckDelay, 5) << 3);
                b[off + REP_BYTE_27] = (byte) (bits("rnrRetryCount", rnrRetryCount, 3) << 5);
                put64(b, off + REP_LOCAL_CA_GUID, localCaGuid);
            }
            case ATTR_REJ -> {
                put32(b, off + OFF_REMOTE_COMM_ID, remoteCommId);
                b[off + REJ_MESSAGE_REJECTED] = (byte) (bits("messageRejected", messageRejected, 2) << 6);
                put16(b, off + REJ_REASON, bits("rejectReason", rejectReason, 16));
            }
            case ATTR_DREQ -> {
                put32(b, off + OFF_REMOTE_COMM_ID, remoteCommId);
                put24(b, off + DREQ_REMOTE_QPN, bits("qpn", qpn, 24));
            }
            case ATTR_RTU, ATTR_DREP, ATTR_MRA -> put32(b, off + OFF_REMOTE_COMM_ID, remoteCommId);
            default -> throw new IllegalArgumentException("attribute 0x" + Integer.toHexString(attributeId) + " is not a CM message");
        }
        System.arraycopy(privateData, 0, b, off + privateDataOffset(attributeId), privateDataLength);
    }

    private void encodeReq(byte[] b, int off) {
        put64(b, off + REQ_SERVICE_ID, serviceId);
        put64(b, off + REQ_LOCAL_CA_GUID, localCaGuid);
        put24(b, off + REQ_LOCAL_QPN, bits("qpn", qpn, 24));
        b[off + REQ_RESPONDER_RESOURCES] = (byte) bits("responderResources", responderResources, 8);
        b[off + REQ_INITIATOR_DEPTH] = (byte) bits("initiatorDepth", initiatorDepth, 8);
        // Transport service type 0 (RC), no end-to-end flow control.
        b[off + REQ_BYTE_43] = (byte) (bits("remoteCmResponseTimeout", remoteCmResponseTimeout, 5) << 3);
        put24(b, off + REQ_STARTING_PSN, bits("startingPsn", startingPsn, 24));
        b[off + REQ_BYTE_47] = (byte) (bits("localCmResponseTimeout", localCmResponseTimeout, 5) << 3
                | bits("retryCount", retryCount, 3));
        put16(b, off + REQ_PKEY, bits("pkey", pkey, 16));
        b[off + REQ_BYTE_50] = (byte) (bits("pathMtuCode", pathMtuCode, 4) << 4 | bits("rnrRetryCount", rnrRetryCount, 3));
        b[off + REQ_BYTE_51] = (byte) (bits("maxCmRetries", maxCmRetries, 4) << 4);
        // RoCE has no LIDs: both are the permissive LID, the path is named by the GIDs.
        put16(b, off + REQ_PRIMARY_LOCAL_LID, 0xFFFF);
        put16(b, off + REQ_PRIMARY_REMOTE_LID, 0xFFFF);
        putMappedGid(b, off + REQ_PRIMARY_LOCAL_GID, localIp);
        putMappedGid(b, off + REQ_PRIMARY_REMOTE_GID, remoteIp);
        b[off + REQ_PRIMARY_TRAFFIC_CLASS] = (byte) bits("trafficClass", trafficClass, 8);
        b[off + REQ_PRIMARY_HOP_LIMIT] = (byte) bits("hopLimit", hopLimit, 8);
        b[off + REQ_PRIMARY_BYTE_95] = (byte) (bits("localAckTimeout", localAckTimeout, 5) << 3);
    }

    /**
     * Reads the MAD at {@code b[off]}; returns false (fields unspecified) if it is not a CM Send of a message
     * kind this model handles. The private data length is set to the whole field.
     */
    public boolean decode(byte[] b, int off) {
        if ((b[off + OFF_BASE_VERSION] & 0xFF) != BASE_VERSION || (b[off + OFF_MGMT_CLASS] & 0xFF) != MGMT_CLASS_CM
                || (b[off + OFF_CLASS_VERSION] & 0xFF) != CLASS_VERSION || (b[off + OFF_METHOD] & 0xFF) != METHOD_SEND) {
            return false;
        }
        int attr = u16(b, off + OFF_ATTRIBUTE_ID);
        if (attr < ATTR_REQ || attr > ATTR_DREP) {
            return false;
        }
        clear();
        attributeId = attr;
        transactionId = u64(b, off + OFF_TRANSACTION_ID);
        localCommId = u32(b, off + OFF_LOCAL_COMM_ID);
        if (attr != ATTR_REQ) {
            remoteCommId = u32(b, off + OFF_REMOTE_COMM_ID);
        }
        switch (attr) {
            case ATTR_REQ -> {
                serviceId = u64(b, off + REQ_SERVICE_ID);
                localCaGuid = u64(b, off + REQ_LOCAL_CA_GUID);
                qpn = u24(b, off + REQ_LOCAL_QPN);
                responderResources = b[off + REQ_RESPONDER_RESOURCES] & 0xFF;
                initiatorDepth = b[off + REQ_INITIATOR_DEPTH] & 0xFF;
                remoteCmResponseTimeout = (b[off + REQ_BYTE_43] & 0xFF) >>> 3;
                startingPsn = u24(b, off + REQ_STARTING_PSN);
                localCmResponseTimeout = (b[off + REQ_BYTE_47] & 0xFF) >>> 3;
                retryCount = b[off + REQ_BYTE_47] & 7;
                pkey = u16(b, off + REQ_PKEY);
                pathMtuCode = (b[off + REQ_BYTE_50] & 0xFF) >>> 4;
                rnrRetryCount = b[off + REQ_BYTE_50] & 7;
                maxCmRetries = (b[off + REQ_BYTE_51] & 0xFF) >>> 4;
                localIp = u32(b, off + REQ_PRIMARY_LOCAL_GID + 12);
                remoteIp = u32(b, off + REQ_PRIMARY_REMOTE_GID + 12);
                trafficClass = b[off + REQ_PRIMARY_TRAFFIC_CLASS] & 0xFF;
                hopLimit = b[off + REQ_PRIMARY_HOP_LIMIT] & 0xFF;
                localAckTimeout = (b[off + REQ_PRIMARY_BYTE_95] & 0xFF) >>> 3;
            }
            case ATTR_REP -> {
                qpn = u24(b, off + REP_LOCAL_QPN);
                startingPsn = u24(b, off + REP_STARTING_PSN);
                responderResources = b[off + REP_RESPONDER_RESOURCES] & 0xFF;
                initiatorDepth = b[off + REP_INITIATOR_DEPTH] & 0xFF;
                targetAckDelay = (b[off + REP_BYTE_26] & 0xFF) >>> 3;
                rnrRetryCount = (b[off + REP_BYTE_27] & 0xFF) >>> 5;
                localCaGuid = u64(b, off + REP_LOCAL_CA_GUID);
            }
            case ATTR_REJ -> {
                messageRejected = (b[off + REJ_MESSAGE_REJECTED] & 0xFF) >>> 6;
                rejectReason = u16(b, off + REJ_REASON);
            }
            case ATTR_DREQ -> qpn = u24(b, off + DREQ_REMOTE_QPN);
            default -> {
                // MRA, RTU, DREP: the communication IDs and the private data only.
            }
        }
        privateDataLength = privateDataSize(attr);
        System.arraycopy(b, off + privateDataOffset(attr), privateData, 0, privateDataLength);
        return true;
    }

    /** An IPv4-mapped IPv6 address ::ffff:a.b.c.d, the GID RoCEv2 uses for an IPv4 port address. */
    static void putMappedGid(byte[] b, int off, int ip) {
        Arrays.fill(b, off, off + 10, (byte) 0);
        b[off + 10] = (byte) 0xFF;
        b[off + 11] = (byte) 0xFF;
        put32(b, off + 12, ip);
    }

    public static String attributeName(int attributeId) {
        return switch (attributeId) {
            case ATTR_REQ -> "REQ";
            case ATTR_MRA -> "MRA";
            case ATTR_REJ -> "REJ";
            case ATTR_REP -> "REP";
            case ATTR_RTU -> "RTU";
            case ATTR_DREQ -> "DREQ";
            case ATTR_DREP -> "DREP";
            default -> "attribute 0x" + Integer.toHexString(attributeId);
        };
    }

    private static int bits(String name, int v, int width) {
        if (v < 0 || (width < 32 && v >>> width != 0)) {
            throw new IllegalArgumentException(name + " must fit in " + width + " unsigned bits, got " + v);
        }
        return v;
    }

    @Override
    public String toString() {
        return attributeName(attributeId) + "[tid=0x" + Long.toHexString(transactionId) + " local=0x"
                + Integer.toHexString(localCommId) + " remote=0x" + Integer.toHexString(remoteCommId) + "]";
    }
}
