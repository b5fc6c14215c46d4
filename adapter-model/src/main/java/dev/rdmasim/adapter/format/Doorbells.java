package dev.rdmasim.adapter.format;

/**
 * Doorbell records (host memory, written by the driver, read by the adapter) and MMIO doorbell words
 * (written by the driver to the adapter's doorbell page).
 *
 * <pre>
 * QP doorbell record, 8 B:  bytes 0-3 receive counter, bytes 4-7 send counter (big-endian 32-bit,
 *                           the 16-bit producer counters zero-extended: RQ in WQEs, SQ in BBs)
 * CQ doorbell record, 8 B:  bytes 0-3 consumer index (24 bit), bytes 4-7 arm word
 * arm word:                 sequence (bits 29-28) | cmd (bits 26-24) | consumer index (bits 23-0)
 * SQ MMIO doorbell, 8 B:    the first 8 bytes of the last posted WQE's control segment
 * CQ arm MMIO, 8 B:         arm word (high 32 bits) | CQ number (low 24 bits)
 * </pre>
 *
 * Doorbell page (per driver context): CQ arm at {@link #PAGE_CQ_ARM}, the BlueFlame register at
 * {@link #PAGE_BLUEFLAME} with two halves of {@code bfSize} bytes (see {@link BlueFlame}). The 8-byte SQ
 * doorbell is written to the current BlueFlame half too, and toggles it, as mlx5 does.
 *
 * <p>The BAR is an array of such pages, page n at {@code n * PAGE_SIZE} belonging to QP n
 * ({@link #sqDoorbellOffset}, {@link #cqArmOffset}); the driver writes to these offsets and the adapter
 * decodes them, so both take them from here. QP1 (the general services interface) has the first page after
 * the QPs' pages ({@link #gsiPage}): its send doorbell at {@link #PAGE_GSI_SEND}, its receive doorbell at
 * {@link #PAGE_GSI_RECV}, each an 8-byte big-endian running 32-bit count.
 */
public final class Doorbells {
    public static final int QP_RECORD_SIZE = 8;
    public static final int OFF_RECV_COUNTER = 0;
    public static final int OFF_SEND_COUNTER = 4;

    public static final int CQ_RECORD_SIZE = 8;
    public static final int OFF_CQ_SET_CI = 0;
    public static final int OFF_CQ_ARM = 4;

    /** Arm command: notify on the next completion of any kind (mlx5 REQ_NOT). */
    public static final int ARM_CMD_ANY = 0;
    /** Arm command: notify on the next solicited or error completion (mlx5 REQ_NOT_SOL). */
    public static final int ARM_CMD_SOLICITED = 1;

    /** Bytes of one doorbell page of the BAR; QP n's page starts at n times this. */
    public static final int PAGE_SIZE = 4096;
    public static final int PAGE_CQ_ARM = 0x20;
    public static final int PAGE_BLUEFLAME = 0x800;
    public static final int MMIO_DOORBELL_SIZE = 8;
    /** In QP1's page: the send doorbell (the send ring's producer count). */
    public static final int PAGE_GSI_SEND = 0;
    /** In QP1's page: the receive doorbell (the count of receive buffers posted). */
    public static final int PAGE_GSI_RECV = 8;

    private static final int CI_MASK = 0xff_ffff;

    private Doorbells() {
    }

    /** BAR offset of QP {@code qpn}'s send doorbell / first BlueFlame half: the BlueFlame register of its page. */
    public static long sqDoorbellOffset(int qpn) {
        return (long) qpn * PAGE_SIZE + PAGE_BLUEFLAME;
    }

    /** BAR offset of the CQ arm doorbell in doorbell page {@code page} (any page's arm register takes any CQ). */
    public static long cqArmOffset(int page) {
        return (long) page * PAGE_SIZE + PAGE_CQ_ARM;
    }

    /** QP1's doorbell page in an adapter of {@code maxQps} QPs: the first page after the QPs' pages 0..maxQps-1. */
    public static int gsiPage(int maxQps) {
        return maxQps;
    }

    /** BAR offset of QP1's send doorbell in an adapter of {@code maxQps} QPs. */
    public static long gsiSendDoorbellOffset(int maxQps) {
        return (long) gsiPage(maxQps) * PAGE_SIZE + PAGE_GSI_SEND;
    }

    /** BAR offset of QP1's receive doorbell in an adapter of {@code maxQps} QPs. */
    public static long gsiRecvDoorbellOffset(int maxQps) {
        return (long) gsiPage(maxQps) * PAGE_SIZE + PAGE_GSI_RECV;
    }

    public static void putRecvCounter(byte[] b, int recordOff, int counter) {
        BigEndian.putI32(b, recordOff + OFF_RECV_COUNTER, counter & 0xffff);
    }

    public static int recvCounter(byte[] b, int recordOff) {
        return BigEndian.i32(b, recordOff + OFF_RECV_COUNTER) & 0xffff;
    }

    public static void putSendCounter(byte[] b, int recordOff, int counter) {
        BigEndian.putI32(b, recordOff + OFF_SEND_COUNTER, counter & 0xffff);
    }

    public static int sendCounter(byte[] b, int recordOff) {
        return BigEndian.i32(b, recordOff + OFF_SEND_COUNTER) & 0xffff;
    }

    /** The 8-byte SQ doorbell value: the control segment's first two words. */
    public static long sqDoorbell(byte[] b, int ctrlOff) {
        return BigEndian.i64(b, ctrlOff);
    }

    public static int sqDoorbellWqeIndex(long value) {
        return (int) (value >>> 40) & 0xffff;
    }

    public static int sqDoorbellOpcode(long value) {
        return (int) (value >>> 32) & 0xff;
    }

    public static int sqDoorbellQpn(long value) {
        return (int) (value >>> 8) & CI_MASK;
    }

    public static int sqDoorbellDs(long value) {
        return (int) value & ControlSegment.DS_MASK;
    }

    public static void putCqConsumerIndex(byte[] b, int recordOff, int consumerIndex) {
        BigEndian.putI32(b, recordOff + OFF_CQ_SET_CI, consumerIndex & CI_MASK);
    }

    public static int cqConsumerIndex(byte[] b, int recordOff) {
        return BigEndian.i32(b, recordOff + OFF_CQ_SET_CI) & CI_MASK;
    }

    public static void putCqArmWord(byte[] b, int recordOff, int armWord) {
        BigEndian.putI32(b, recordOff + OFF_CQ_ARM, armWord);
    }

    public static int cqArmWord(byte[] b, int recordOff) {
        return BigEndian.i32(b, recordOff + OFF_CQ_ARM);
    }

    public static int armWord(int sequence, int cmd, int consumerIndex) {
        return (sequence & 3) << 28 | (cmd & 7) << 24 | (consumerIndex & CI_MASK);
    }

    public static int armSequence(int armWord) {
        return (armWord >>> 28) & 3;
    }

    public static int armCmd(int armWord) {
        return (armWord >>> 24) & 7;
    }

    public static int armConsumerIndex(int armWord) {
        return armWord & CI_MASK;
    }

    /** The 8-byte CQ arm MMIO value. */
    public static long cqArmDoorbell(int armWord, int cqn) {
        return (long) armWord << 32 | (cqn & CI_MASK);
    }

    public static int cqArmDoorbellWord(long value) {
        return (int) (value >>> 32);
    }

    public static int cqArmDoorbellCqn(long value) {
        return (int) value & CI_MASK;
    }
}
