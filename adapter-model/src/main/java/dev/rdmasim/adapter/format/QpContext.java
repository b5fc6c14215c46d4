package dev.rdmasim.adapter.format;

import java.util.Arrays;

/**
 * The 256-byte QP context the adapter keeps in its context memory in host RAM and fetches by DMA on a
 * context-cache miss. The record is the parsed form (off the hot path); the static accessors read and
 * update the fields the data path touches per packet directly in the cached bytes.
 *
 * <pre>
 * 0 state | 1 type | 2 path MTU (IB enum 1..5 = 256..4096) | 3 reserved
 * 4-7 QPN (24) | 8-11 PD (24) | 12-15 send CQN (24) | 16-19 receive CQN (24) | 20-23 remote QPN (24)
 * 24-31 SQ ring base | 32 SQ log2 BBs | 33 SQ max ds | 34 SQ max SGE | 35 reserved | 36-37 max inline
 * 40-47 RQ ring base | 48 RQ log2 WQEs | 49 RQ log2 stride (16-B segments) | 50 RQ max SGE
 * 56-63 doorbell record address
 * 64-67 next send PSN (24) | 68-71 expected receive PSN (24)
 * 72 max outstanding reads (initiator) | 73 max inbound reads (responder) | 74 retry count
 * 75 RNR retry | 76 local ACK timeout (4.096 us * 2^t) | 77 min RNR NAK timer | 78 remote access
 * 80-83 max unacknowledged packets
 * 96-97 SQ fetch counter (next WQE index, BBs) | 98-99 SQ completed counter | 100-101 RQ counter
 * 104-107 MSN (24) | 108-111 oldest unacknowledged PSN (24)
 * 128-133 peer MAC | 134-135 UDP source port | 136-151 peer IP (IPv4-mapped IPv6)
 * 152 hop limit | 153 traffic class | 156-159 flow label (20)
 * </pre>
 * Bytes not listed are reserved and zero.
 */
public record QpContext(int state, int type, int pmtu, int qpn, int pd, int sendCqn, int recvCqn, int remoteQpn,
                        long sqBase, int sqLogBbs, int sqMaxDs, int sqMaxSge, int maxInline,
                        long rqBase, int rqLogSize, int rqLogStride, int rqMaxSge, long doorbellRecord,
                        int nextSendPsn, int expectedPsn, int maxReadsOut, int maxReadsIn, int retryCount,
                        int rnrRetry, int ackTimeout, int minRnrTimer, int remoteAccess, int maxUnacked,
                        int sqFetchCounter, int sqCompletedCounter, int rqCounter, int msn, int unackedPsn,
                        long peerMac, int udpSourcePort, long peerIpHigh, long peerIpLow,
                        int hopLimit, int trafficClass, int flowLabel) {
    public static final int SIZE = 256;

    public static final int STATE_RESET = 0;
    public static final int STATE_INIT = 1;
    public static final int STATE_RTR = 2;
    public static final int STATE_RTS = 3;
    public static final int STATE_SQD = 4;
    public static final int STATE_SQE = 5;
    public static final int STATE_ERR = 6;
    public static final int TYPE_RC = 0;

    public static final int OFF_STATE = 0;
    public static final int OFF_TYPE = 1;
    public static final int OFF_PMTU = 2;
    public static final int OFF_QPN = 4;
    public static final int OFF_PD = 8;
    public static final int OFF_SEND_CQN = 12;
    public static final int OFF_RECV_CQN = 16;
    public static final int OFF_REMOTE_QPN = 20;
    public static final int OFF_SQ_BASE = 24;
    public static final int OFF_SQ_LOG_BBS = 32;
    public static final int OFF_SQ_MAX_DS = 33;
    public static final int OFF_SQ_MAX_SGE = 34;
    public static final int OFF_MAX_INLINE = 36;
    public static final int OFF_RQ_BASE = 40;
    public static final int OFF_RQ_LOG_SIZE = 48;
    public static final int OFF_RQ_LOG_STRIDE = 49;
    public static final int OFF_RQ_MAX_SGE = 50;
    public static final int OFF_DOORBELL_RECORD = 56;
    public static final int OFF_NEXT_SEND_PSN = 64;
    public static final int OFF_EXPECTED_PSN = 68;
    public static final int OFF_MAX_READS_OUT = 72;
    public static final int OFF_MAX_READS_IN = 73;
    public static final int OFF_RETRY_COUNT = 74;
    /**
     * In the retry-count and read-limit bytes of a modify mailbox: keep the adapter's default
     * ({@code transport.*}).
     */
    public static final int RETRY_DEFAULT = 0xFF;
    public static final int OFF_RNR_RETRY = 75;
    public static final int OFF_ACK_TIMEOUT = 76;
    public static final int OFF_MIN_RNR_TIMER = 77;
    public static final int OFF_REMOTE_ACCESS = 78;
    public static final int OFF_MAX_UNACKED = 80;
    public static final int OFF_SQ_FETCH_COUNTER = 96;
    public static final int OFF_SQ_COMPLETED_COUNTER = 98;
    public static final int OFF_RQ_COUNTER = 100;
    public static final int OFF_MSN = 104;
    public static final int OFF_UNACKED_PSN = 108;
    public static final int OFF_PEER_MAC = 128;
    public static final int OFF_UDP_SOURCE_PORT = 134;
    public static final int OFF_PEER_IP = 136;
    public static final int OFF_HOP_LIMIT = 152;
    public static final int OFF_TRAFFIC_CLASS = 153;
    public static final int OFF_FLOW_LABEL = 156;

    public QpContext {
        Fields.checkRange("state", state, STATE_RESET, STATE_ERR);
        Fields.checkRange("type", type, 0, 0xff);
        Fields.checkRange("pmtu", pmtu, 0, 0xff);
        Fields.check24("qpn", qpn);
        Fields.check24("pd", pd);
        Fields.check24("sendCqn", sendCqn);
        Fields.check24("recvCqn", recvCqn);
        Fields.check24("remoteQpn", remoteQpn);
        Fields.checkRange("sqLogBbs", sqLogBbs, 0, 16);
        Fields.checkRange("sqMaxDs", sqMaxDs, 0, ControlSegment.MAX_DS);
        Fields.checkRange("sqMaxSge", sqMaxSge, 0, ControlSegment.MAX_DS);
        Fields.checkRange("maxInline", maxInline, 0, 0xffff);
        Fields.checkRange("rqLogSize", rqLogSize, 0, 16);
        Fields.checkRange("rqLogStride", rqLogStride, 0, 6);
        Fields.checkRange("rqMaxSge", rqMaxSge, 0, 64);
        Fields.check24("nextSendPsn", nextSendPsn);
        Fields.check24("expectedPsn", expectedPsn);
        Fields.checkRange("maxReadsOut", maxReadsOut, 0, 0xff);
        Fields.checkRange("maxReadsIn", maxReadsIn, 0, 0xff);
        Fields.checkRange("retryCount", retryCount, 0, 7);
        Fields.checkRange("rnrRetry", rnrRetry, 0, 7);
        Fields.checkRange("ackTimeout", ackTimeout, 0, 31);
        Fields.checkRange("minRnrTimer", minRnrTimer, 0, 31);
        Fields.checkRange("remoteAccess", remoteAccess, 0, AccessFlags.ALL);
        Fields.checkRange("maxUnacked", maxUnacked, 0, Integer.MAX_VALUE);
        Fields.checkRange("sqFetchCounter", sqFetchCounter, 0, 0xffff);
        Fields.checkRange("sqCompletedCounter", sqCompletedCounter, 0, 0xffff);
        Fields.checkRange("rqCounter", rqCounter, 0, 0xffff);
        Fields.check24("msn", msn);
        Fields.check24("unackedPsn", unackedPsn);
        Fields.checkRange("peerMac", peerMac, 0, (1L << 48) - 1);
        Fields.checkRange("udpSourcePort", udpSourcePort, 0, 0xffff);
        Fields.checkRange("hopLimit", hopLimit, 0, 0xff);
        Fields.checkRange("trafficClass", trafficClass, 0, 0xff);
        Fields.checkRange("flowLabel", flowLabel, 0, 0xf_ffff);
    }

    /** Writes all 256 bytes (reserved bytes zero). */
    public void encode(byte[] b, int off) {
        Arrays.fill(b, off, off + SIZE, (byte) 0);
        b[off + OFF_STATE] = (byte) state;
        b[off + OFF_TYPE] = (byte) type;
        b[off + OFF_PMTU] = (byte) pmtu;
        BigEndian.putI32(b, off + OFF_QPN, qpn);
        BigEndian.putI32(b, off + OFF_PD, pd);
        BigEndian.putI32(b, off + OFF_SEND_CQN, sendCqn);
        BigEndian.putI32(b, off + OFF_RECV_CQN, recvCqn);
        BigEndian.putI32(b, off + OFF_REMOTE_QPN, remoteQpn);
        BigEndian.putI64(b, off + OFF_SQ_BASE, sqBase);
        b[off + OFF_SQ_LOG_BBS] = (byte) sqLogBbs;
        b[off + OFF_SQ_MAX_DS] = (byte) sqMaxDs;
        b[off + OFF_SQ_MAX_SGE] = (byte) sqMaxSge;
        BigEndian.putU16(b, off + OFF_MAX_INLINE, maxInline);
        BigEndian.putI64(b, off + OFF_RQ_BASE, rqBase);
        b[off + OFF_RQ_LOG_SIZE] = (byte) rqLogSize;
        b[off + OFF_RQ_LOG_STRIDE] = (byte) rqLogStride;
        b[off + OFF_RQ_MAX_SGE] = (byte) rqMaxSge;
        BigEndian.putI64(b, off + OFF_DOORBELL_RECORD, doorbellRecord);
        BigEndian.putI32(b, off + OFF_NEXT_SEND_PSN, nextSendPsn);
        BigEndian.putI32(b, off + OFF_EXPECTED_PSN, expectedPsn);
        b[off + OFF_MAX_READS_OUT] = (byte) maxReadsOut;
        b[off + OFF_MAX_READS_IN] = (byte) maxReadsIn;
        b[off + OFF_RETRY_COUNT] = (byte) retryCount;
        b[off + OFF_RNR_RETRY] = (byte) rnrRetry;
        b[off + OFF_ACK_TIMEOUT] = (byte) ackTimeout;
        b[off + OFF_MIN_RNR_TIMER] = (byte) minRnrTimer;
        b[off + OFF_REMOTE_ACCESS] = (byte) remoteAccess;
        BigEndian.putI32(b, off + OFF_MAX_UNACKED, maxUnacked);
        BigEndian.putU16(b, off + OFF_SQ_FETCH_COUNTER, sqFetchCounter);
        BigEndian.putU16(b, off + OFF_SQ_COMPLETED_COUNTER, sqCompletedCounter);
        BigEndian.putU16(b, off + OFF_RQ_COUNTER, rqCounter);
        BigEndian.putI32(b, off + OFF_MSN, msn);
        BigEndian.putI32(b, off + OFF_UNACKED_PSN, unackedPsn);
        BigEndian.putU16(b, off + OFF_PEER_MAC, (int) (peerMac >>> 32));
        BigEndian.putI32(b, off + OFF_PEER_MAC + 2, (int) peerMac);
        BigEndian.putU16(b, off + OFF_UDP_SOURCE_PORT, udpSourcePort);
        BigEndian.putI64(b, off + OFF_PEER_IP, peerIpHigh);
        BigEndian.putI64(b, off + OFF_PEER_IP + 8, peerIpLow);
        b[off + OFF_HOP_LIMIT] = (byte) hopLimit;
        b[off + OFF_TRAFFIC_CLASS] = (byte) trafficClass;
        BigEndian.putI32(b, off + OFF_FLOW_LABEL, flowLabel);
    }

    /** Parses a context fetched from context memory; fields are masked to their widths. */
    public static QpContext decode(byte[] b, int off) {
        return new QpContext(Math.min(BigEndian.u8(b, off + OFF_STATE), STATE_ERR), BigEndian.u8(b, off + OFF_TYPE),
            BigEndian.u8(b, off + OFF_PMTU), Fields.u24At32(b, off + OFF_QPN), Fields.u24At32(b, off + OFF_PD),
            Fields.u24At32(b, off + OFF_SEND_CQN), Fields.u24At32(b, off + OFF_RECV_CQN),
            Fields.u24At32(b, off + OFF_REMOTE_QPN), BigEndian.i64(b, off + OFF_SQ_BASE),
            Math.min(BigEndian.u8(b, off + OFF_SQ_LOG_BBS), 16),
            Math.min(BigEndian.u8(b, off + OFF_SQ_MAX_DS), ControlSegment.MAX_DS),
            Math.min(BigEndian.u8(b, off + OFF_SQ_MAX_SGE), ControlSegment.MAX_DS),
            BigEndian.u16(b, off + OFF_MAX_INLINE), BigEndian.i64(b, off + OFF_RQ_BASE),
            Math.min(BigEndian.u8(b, off + OFF_RQ_LOG_SIZE), 16), Math.min(BigEndian.u8(b, off + OFF_RQ_LOG_STRIDE), 6),
            Math.min(BigEndian.u8(b, off + OFF_RQ_MAX_SGE), 64), BigEndian.i64(b, off + OFF_DOORBELL_RECORD),
            nextSendPsn(b, off), expectedPsn(b, off), BigEndian.u8(b, off + OFF_MAX_READS_OUT),
            BigEndian.u8(b, off + OFF_MAX_READS_IN), BigEndian.u8(b, off + OFF_RETRY_COUNT) & 7,
            BigEndian.u8(b, off + OFF_RNR_RETRY) & 7, BigEndian.u8(b, off + OFF_ACK_TIMEOUT) & 31,
            BigEndian.u8(b, off + OFF_MIN_RNR_TIMER) & 31, BigEndian.u8(b, off + OFF_REMOTE_ACCESS) & AccessFlags.ALL,
            BigEndian.i32(b, off + OFF_MAX_UNACKED) & Integer.MAX_VALUE, sqFetchCounter(b, off),
            sqCompletedCounter(b, off), rqCounter(b, off), msn(b, off), unackedPsn(b, off),
            (long) BigEndian.u16(b, off + OFF_PEER_MAC) << 32 | BigEndian.u32(b, off + OFF_PEER_MAC + 2),
            BigEndian.u16(b, off + OFF_UDP_SOURCE_PORT), BigEndian.i64(b, off + OFF_PEER_IP),
            BigEndian.i64(b, off + OFF_PEER_IP + 8), BigEndian.u8(b, off + OFF_HOP_LIMIT),
            BigEndian.u8(b, off + OFF_TRAFFIC_CLASS), BigEndian.i32(b, off + OFF_FLOW_LABEL) & 0xf_ffff);
    }

    // ---- in-place accessors for fields the data path reads or updates per packet

    public static int state(byte[] b, int off) {
        return BigEndian.u8(b, off + OFF_STATE);
    }

    public static void putState(byte[] b, int off, int state) {
        b[off + OFF_STATE] = (byte) state;
    }

    public static int nextSendPsn(byte[] b, int off) {
        return Fields.u24At32(b, off + OFF_NEXT_SEND_PSN);
    }

    public static void putNextSendPsn(byte[] b, int off, int psn) {
        BigEndian.putI32(b, off + OFF_NEXT_SEND_PSN, psn & 0xff_ffff);
    }

    public static int expectedPsn(byte[] b, int off) {
        return Fields.u24At32(b, off + OFF_EXPECTED_PSN);
    }

    public static void putExpectedPsn(byte[] b, int off, int psn) {
        BigEndian.putI32(b, off + OFF_EXPECTED_PSN, psn & 0xff_ffff);
    }

    public static int sqFetchCounter(byte[] b, int off) {
        return BigEndian.u16(b, off + OFF_SQ_FETCH_COUNTER);
    }

    public static void putSqFetchCounter(byte[] b, int off, int counter) {
        BigEndian.putU16(b, off + OFF_SQ_FETCH_COUNTER, counter);
    }

    public static int sqCompletedCounter(byte[] b, int off) {
        return BigEndian.u16(b, off + OFF_SQ_COMPLETED_COUNTER);
    }

    public static void putSqCompletedCounter(byte[] b, int off, int counter) {
        BigEndian.putU16(b, off + OFF_SQ_COMPLETED_COUNTER, counter);
    }

    public static int rqCounter(byte[] b, int off) {
        return BigEndian.u16(b, off + OFF_RQ_COUNTER);
    }

    public static void putRqCounter(byte[] b, int off, int counter) {
        BigEndian.putU16(b, off + OFF_RQ_COUNTER, counter);
    }

    public static int msn(byte[] b, int off) {
        return Fields.u24At32(b, off + OFF_MSN);
    }

    public static void putMsn(byte[] b, int off, int msn) {
        BigEndian.putI32(b, off + OFF_MSN, msn & 0xff_ffff);
    }

    public static int unackedPsn(byte[] b, int off) {
        return Fields.u24At32(b, off + OFF_UNACKED_PSN);
    }

    public static void putUnackedPsn(byte[] b, int off, int psn) {
        BigEndian.putI32(b, off + OFF_UNACKED_PSN, psn & 0xff_ffff);
    }

    public static int sendCqn(byte[] b, int off) {
        return Fields.u24At32(b, off + OFF_SEND_CQN);
    }

    public static int recvCqn(byte[] b, int off) {
        return Fields.u24At32(b, off + OFF_RECV_CQN);
    }

    public static int remoteAccess(byte[] b, int off) {
        return BigEndian.u8(b, off + OFF_REMOTE_ACCESS);
    }
}
