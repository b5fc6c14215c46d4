package dev.rdmasim.adapter.format;

import java.util.Arrays;

/**
 * The 64-byte CQ context in adapter context memory.
 *
 * <pre>
 * 0 status (0 ok, 1 overrun, 2 access error) | 1 log2 entries | 2 arm state (0 disarmed,
 *   1 armed ANY, 2 armed SOLICITED) | 3 last arm sequence (2 bit)
 * 4-7 CQN (24) | 8-11 EQ number (24) | 12-15 producer index (running, 32 bit)
 * 16-19 last consumer index seen (24) | 24-31 ring base | 32-39 doorbell record address
 * 40-41 moderation count (CQEs) | 42-43 moderation period (us)
 * </pre>
 */
public record CqContext(int status, int logSize, int armState, int armSequence, int cqn, int eqn, int producerIndex,
                        int consumerIndex, long ringBase, long doorbellRecord, int moderationCount,
                        int moderationPeriodUs) {
    public static final int SIZE = 64;

    public static final int STATUS_OK = 0;
    public static final int STATUS_OVERRUN = 1;
    public static final int STATUS_ACCESS_ERROR = 2;
    public static final int ARM_DISARMED = 0;
    public static final int ARM_ANY = 1;
    public static final int ARM_SOLICITED = 2;

    public static final int OFF_STATUS = 0;
    public static final int OFF_LOG_SIZE = 1;
    public static final int OFF_ARM_STATE = 2;
    public static final int OFF_ARM_SEQUENCE = 3;
    public static final int OFF_CQN = 4;
    public static final int OFF_EQN = 8;
    public static final int OFF_PRODUCER_INDEX = 12;
    public static final int OFF_CONSUMER_INDEX = 16;
    public static final int OFF_RING_BASE = 24;
    public static final int OFF_DOORBELL_RECORD = 32;
    public static final int OFF_MODERATION_COUNT = 40;
    public static final int OFF_MODERATION_PERIOD = 42;

    public CqContext {
        Fields.checkRange("status", status, 0, STATUS_ACCESS_ERROR);
        Fields.checkRange("logSize", logSize, 0, 24);
        Fields.checkRange("armState", armState, ARM_DISARMED, ARM_SOLICITED);
        Fields.checkRange("armSequence", armSequence, 0, 3);
        Fields.check24("cqn", cqn);
        Fields.check24("eqn", eqn);
        Fields.check24("consumerIndex", consumerIndex);
        Fields.checkRange("moderationCount", moderationCount, 0, 0xffff);
        Fields.checkRange("moderationPeriodUs", moderationPeriodUs, 0, 0xffff);
    }

    /** Arm state for an arm doorbell command ({@link Doorbells#ARM_CMD_ANY} / SOLICITED). */
    public static int armStateFor(int armCmd) {
        return armCmd == Doorbells.ARM_CMD_SOLICITED ? ARM_SOLICITED : ARM_ANY;
    }

    public void encode(byte[] b, int off) {
        Arrays.fill(b, off, off + SIZE, (byte) 0);
        b[off + OFF_STATUS] = (byte) status;
        b[off + OFF_LOG_SIZE] = (byte) logSize;
        b[off + OFF_ARM_STATE] = (byte) armState;
        b[off + OFF_ARM_SEQUENCE] = (byte) armSequence;
        BigEndian.putI32(b, off + OFF_CQN, cqn);
        BigEndian.putI32(b, off + OFF_EQN, eqn);
        BigEndian.putI32(b, off + OFF_PRODUCER_INDEX, producerIndex);
        BigEndian.putI32(b, off + OFF_CONSUMER_INDEX, consumerIndex);
        BigEndian.putI64(b, off + OFF_RING_BASE, ringBase);
        BigEndian.putI64(b, off + OFF_DOORBELL_RECORD, doorbellRecord);
        BigEndian.putU16(b, off + OFF_MODERATION_COUNT, moderationCount);
        BigEndian.putU16(b, off + OFF_MODERATION_PERIOD, moderationPeriodUs);
    }

    public static CqContext decode(byte[] b, int off) {
        return new CqContext(Math.min(status(b, off), STATUS_ACCESS_ERROR), Math.min(BigEndian.u8(b, off + OFF_LOG_SIZE), 24),
            Math.min(armState(b, off), ARM_SOLICITED), armSequence(b, off), Fields.u24At32(b, off + OFF_CQN),
            Fields.u24At32(b, off + OFF_EQN), producerIndex(b, off), consumerIndex(b, off),
            BigEndian.i64(b, off + OFF_RING_BASE), BigEndian.i64(b, off + OFF_DOORBELL_RECORD),
            BigEndian.u16(b, off + OFF_MODERATION_COUNT), BigEndian.u16(b, off + OFF_MODERATION_PERIOD));
    }

    // ---- in-place accessors used per CQE

    public static int status(byte[] b, int off) {
        return BigEndian.u8(b, off + OFF_STATUS);
    }

    public static void putStatus(byte[] b, int off, int status) {
        b[off + OFF_STATUS] = (byte) status;
    }

    public static int armState(byte[] b, int off) {
        return BigEndian.u8(b, off + OFF_ARM_STATE);
    }

    public static void putArmState(byte[] b, int off, int armState) {
        b[off + OFF_ARM_STATE] = (byte) armState;
    }

    public static int armSequence(byte[] b, int off) {
        return BigEndian.u8(b, off + OFF_ARM_SEQUENCE) & 3;
    }

    public static void putArmSequence(byte[] b, int off, int sequence) {
        b[off + OFF_ARM_SEQUENCE] = (byte) (sequence & 3);
    }

    public static int producerIndex(byte[] b, int off) {
        return BigEndian.i32(b, off + OFF_PRODUCER_INDEX);
    }

    public static void putProducerIndex(byte[] b, int off, int index) {
        BigEndian.putI32(b, off + OFF_PRODUCER_INDEX, index);
    }

    public static int consumerIndex(byte[] b, int off) {
        return Fields.u24At32(b, off + OFF_CONSUMER_INDEX);
    }

    public static void putConsumerIndex(byte[] b, int off, int index) {
        BigEndian.putI32(b, off + OFF_CONSUMER_INDEX, index & 0xff_ffff);
    }
}
