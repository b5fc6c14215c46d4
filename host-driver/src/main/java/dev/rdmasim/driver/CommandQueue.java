package dev.rdmasim.driver;

import static dev.rdmasim.adapter.format.Command.*;

import dev.rdmasim.adapter.format.BigEndian;
import dev.rdmasim.adapter.format.Command;
import dev.rdmasim.adapter.format.CqContext;
import dev.rdmasim.adapter.format.Doorbells;
import dev.rdmasim.adapter.format.MkeyContext;
import dev.rdmasim.adapter.format.QpContext;
import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.Histogram;
import java.util.Arrays;

/**
 * The driver's side of the firmware command interface (see {@code docs/commands.md}): a ring of
 * {@link #ENTRIES} 64-byte command entries in host memory, one input mailbox buffer per entry, and the
 * command doorbell. {@link #submit} has the host CPU store the mailbox and entry (costing
 * {@code host.wqeBuildTime} per 64-byte line, like a WQE) and the 8-byte doorbell
 * ({@code host.mmioStoreTime}); the adapter answers each entry in order and raises a COMMAND event,
 * on whose interrupt the driver reads the entry back (a poll, {@code host.pollTime}) and calls the
 * command's callback inside the simulation.
 *
 * <p>The object methods ({@link #createCq}, {@link #createQp}, {@link #registerMemory},
 * {@link #connect}, ...) allocate what the driver owns (rings, doorbell records, translation tables),
 * post the command, and give the new object to the callback with status {@code Command.STATUS_OK};
 * on any other status the object is null and the adapter's state is unchanged. Every method returns
 * false, posting nothing, when the ring (or the CPU's work queue) has no room for its entries.
 */
public final class CommandQueue {
    /** Entries in the ring (mlx5 has 32 command slots). */
    public static final int LOG_ENTRIES = 5;
    public static final int ENTRIES = 1 << LOG_ENTRIES;

    /** The raw answer of one command. */
    @FunctionalInterface
    public interface Answer {
        void done(int status, int out0, int out1);
    }

    /** The answer of an object command: {@code value} is null unless {@code status} is {@code STATUS_OK}. */
    @FunctionalInterface
    public interface Result<T> {
        void done(int status, T value);
    }

    private final HostDriver driver;
    private final HostMemory memory;
    private final HostCpu cpu;
    private final long ring;
    private final long mailboxes;
    private final byte[][] entries = new byte[ENTRIES][ENTRY_SIZE];
    private final byte[][] mailboxBufs = new byte[ENTRIES][MAX_MAILBOX];
    private final Answer[] answers = new Answer[ENTRIES];
    private final long[] postedPs = new long[ENTRIES];
    private final byte[] readBack = new byte[ENTRY_SIZE];
    private int producer;
    private int consumer;
    private int keyCounter;
    private final Counter posted;
    private final Counter answered;
    private final Counter failed;
    private final Histogram latency;

    CommandQueue(HostDriver driver) {
        this.driver = driver;
        this.memory = driver.memory();
        this.cpu = driver.cpu();
        ring = memory.allocate((long) ENTRY_SIZE * ENTRIES, HostDriver.PAGE);
        mailboxes = memory.allocate((long) MAX_MAILBOX * ENTRIES, HostDriver.PAGE);
        driver.nic().createCommandQueue(ring, LOG_ENTRIES);
        var s = driver.stats();
        posted = s.counter("commandsPosted", "commands", "firmware commands posted to the command queue");
        answered = s.counter("commandsAnswered", "commands", "firmware commands whose answer the driver read");
        failed = s.counter("commandsFailed", "commands", "firmware commands answered with a status other than OK");
        latency = s.histogram("commandLatency", "ns", "command posted to its answer handled on the interrupt",
                10_000_000_000L);
    }

    /** Commands posted and not yet answered. */
    public int outstanding() {
        return producer - consumer;
    }

    /** Whether {@code n} more entries can be posted now. */
    public boolean hasRoom(int n) {
        return ENTRIES - outstanding() >= n && cpu.hasRoom(2 * n + 1);
    }

    /**
     * Posts one command: {@code mailbox} (null for none) holds its input mailbox, exactly as many bytes as
     * the opcode takes; {@code answer} is called with the status and outputs inside the simulation. Returns
     * false if there is no room.
     */
    public boolean submit(int opcode, int opMod, int arg0, int arg1, int arg2, byte[] mailbox, Answer answer) {
        if (!hasRoom(1)) {
            cpu.refused();
            return false;
        }
        post(opcode, opMod, arg0, arg1, arg2, mailbox, answer);
        ringDoorbell();
        return true;
    }

    private void post(int opcode, int opMod, int arg0, int arg1, int arg2, byte[] mailbox, Answer answer) {
        int slot = producer & (ENTRIES - 1);
        long mailboxAddr = 0;
        int mailboxLen = 0;
        if (mailbox != null) {
            if (mailbox.length > MAX_MAILBOX) {
                throw new IllegalArgumentException("command mailbox of " + mailbox.length + " B: at most " + MAX_MAILBOX);
            }
            mailboxLen = mailbox.length;
            mailboxAddr = mailboxes + (long) slot * MAX_MAILBOX;
            System.arraycopy(mailbox, 0, mailboxBufs[slot], 0, mailboxLen);
            cpu.storeBytes(mailboxAddr, mailboxBufs[slot], 0, mailboxLen, lines(mailboxLen) * driver.wqeBuildPs);
        }
        Command.writeEntry(entries[slot], 0, opcode, opMod, arg0, arg1, arg2, mailboxAddr, mailboxLen, slot);
        cpu.storeBytes(ring + (long) slot * ENTRY_SIZE, entries[slot], 0, ENTRY_SIZE, driver.wqeBuildPs);
        answers[slot] = answer;
        postedPs[slot] = driver.now();
        producer++;
        posted.inc();
    }

    private static long lines(int bytes) {
        return (bytes + 63) / 64;
    }

    private void ringDoorbell() {
        byte[] mmio = cpu.mmio(DOORBELL_OFFSET, Doorbells.MMIO_DOORBELL_SIZE, driver.mmioStorePs);
        BigEndian.putI64(mmio, 0, Command.doorbell(producer));
        cpu.kick();
    }

    /** A COMMAND event arrived: read back every answered entry, in order, and call its callback. */
    void completed() {
        while (consumer != producer) {
            int slot = consumer & (ENTRIES - 1);
            cpu.charge(driver.pollPs);
            memory.read(ring + (long) slot * ENTRY_SIZE, readBack, 0, ENTRY_SIZE);
            if (adapterOwned(readBack, 0)) {
                return;
            }
            Answer a = answers[slot];
            answers[slot] = null;
            consumer++;
            answered.inc();
            int status = status(readBack, 0);
            if (status != STATUS_OK) {
                failed.inc();
            }
            latency.record((driver.now() - postedPs[slot]) / 1000);
            a.done(status, out0(readBack, 0), out1(readBack, 0));
        }
    }

    // ---------------------------------------------------------------- object commands

    /** ALLOC_PD: the callback gets the new protection domain's number. */
    public boolean allocatePd(Result<Integer> done) {
        return submit(OP_ALLOC_PD, 0, 0, 0, 0, null, (s, o0, o1) -> done.done(s, s == STATUS_OK ? o0 : null));
    }

    public boolean deallocatePd(int pd, Result<Void> done) {
        return submit(OP_DEALLOC_PD, 0, pd, 0, 0, null, (s, o0, o1) -> done.done(s, null));
    }

    /** CREATE_CQ of {@code 2^logSize} entries: the driver allocates and initializes the ring and doorbell record. */
    public boolean createCq(int logSize, Result<CompletionQueue> done) {
        if (!hasRoom(1)) {
            cpu.refused();
            return false;
        }
        long ringAddr = driver.allocateCqRing(logSize);
        long db = memory.allocate(Doorbells.CQ_RECORD_SIZE, 64);
        byte[] m = new byte[CqContext.SIZE];
        m[CqContext.OFF_LOG_SIZE] = (byte) logSize;
        BigEndian.putI64(m, CqContext.OFF_RING_BASE, ringAddr);
        BigEndian.putI64(m, CqContext.OFF_DOORBELL_RECORD, db);
        return submit(OP_CREATE_CQ, 0, 0, 0, 0, m, (s, cqn, o1) -> {
            CompletionQueue cq = null;
            if (s == STATUS_OK) {
                cq = new CompletionQueue(driver, cqn, ringAddr, logSize, db);
                driver.addCq(cq);
            }
            done.done(s, cq);
        });
    }

    /**
     * MODIFY_CQ (resize) to a new ring of {@code 2^logSize} entries. CQEs issued before the adapter executes
     * it stay in the old ring and are polled from there first; a landed-listener may fire for the new ring
     * before the answer, when a poll still finds nothing: poll again from the callback.
     */
    public boolean resizeCq(CompletionQueue cq, int logSize, Result<CompletionQueue> done) {
        if (!hasRoom(1)) {
            cpu.refused();
            return false;
        }
        if (!cq.canResize()) {
            throw new IllegalStateException("CQ " + cq.cqn() + ": a resize is pending or its old ring still holds CQEs");
        }
        long ringAddr = driver.allocateCqRing(logSize);
        byte[] m = new byte[CqContext.SIZE];
        m[CqContext.OFF_LOG_SIZE] = (byte) logSize;
        BigEndian.putI64(m, CqContext.OFF_RING_BASE, ringAddr);
        cq.resizing(ringAddr, logSize);
        return submit(OP_MODIFY_CQ, CQ_RESIZE, cq.cqn(), 0, 0, m, (s, lo, hi) -> {
            cq.resized(s == STATUS_OK ? (long) hi << 32 | (lo & 0xFFFF_FFFFL) : -1);
            done.done(s, s == STATUS_OK ? cq : null);
        });
    }

    /** MODIFY_CQ (moderation): an event after {@code count} CQEs or {@code periodPs} (whole ns), whichever first. */
    public boolean moderateCq(CompletionQueue cq, int count, long periodPs, Result<CompletionQueue> done) {
        int ns = (int) Math.min(periodPs / 1000, 0xFFFF_FFFFL);
        return submit(OP_MODIFY_CQ, CQ_MODERATION, cq.cqn(), count, ns, null,
                (s, o0, o1) -> done.done(s, s == STATUS_OK ? cq : null));
    }

    /** DESTROY_CQ; refused with RESOURCE_BUSY while a QP uses the CQ. */
    public boolean destroyCq(CompletionQueue cq, Result<Void> done) {
        return submit(OP_DESTROY_CQ, 0, cq.cqn(), 0, 0, null, (s, o0, o1) -> {
            if (s == STATUS_OK) {
                driver.removeCq(cq);
            }
            done.done(s, null);
        });
    }

    /** CREATE_MKEY: the driver writes the translation table first; the callback gets the region with its key. */
    public boolean registerMemory(int pd, long address, long length, int access, Result<MemoryRegion> done) {
        if (!hasRoom(1)) {
            cpu.refused();
            return false;
        }
        HostDriver.Translation t = driver.writeTranslation(address, length);
        byte[] m = new byte[MkeyContext.SIZE];
        new MkeyContext(MkeyContext.STATE_VALID, access, driver.logPage(), MkeyContext.TYPE_MR, 0, pd, 0, address,
                length, t.table(), (int) Math.min(t.pages(), Integer.MAX_VALUE)).encode(m, 0);
        int variant = HostDriver.variant(++keyCounter);
        return submit(OP_CREATE_MKEY, 0, variant, 0, 0, m, (s, key, o1) ->
                done.done(s, s == STATUS_OK ? new MemoryRegion(address, length, pd, access, key, t.table()) : null));
    }

    public boolean deregisterMemory(MemoryRegion mr, Result<Void> done) {
        return submit(OP_DESTROY_MKEY, 0, mr.key(), 0, 0, null, (s, o0, o1) -> done.done(s, null));
    }

    /** CREATE_QP with its rings and limits; the QP starts in INIT. */
    public boolean createQp(QpOptions o, Result<QueuePair> done) {
        if (!hasRoom(1)) {
            cpu.refused();
            return false;
        }
        HostDriver.QpRings r = driver.allocateQpRings(o);
        byte[] m = new byte[QpContext.SIZE];
        BigEndian.putI32(m, QpContext.OFF_PD, o.pd());
        BigEndian.putI32(m, QpContext.OFF_SEND_CQN, o.sendCq().cqn());
        BigEndian.putI32(m, QpContext.OFF_RECV_CQN, o.recvCq().cqn());
        BigEndian.putI64(m, QpContext.OFF_SQ_BASE, r.sq());
        m[QpContext.OFF_SQ_LOG_BBS] = (byte) o.sqLogBbs();
        m[QpContext.OFF_SQ_MAX_SGE] = (byte) o.maxSendSge();
        BigEndian.putU16(m, QpContext.OFF_MAX_INLINE, o.maxInline());
        BigEndian.putI64(m, QpContext.OFF_RQ_BASE, r.rq());
        m[QpContext.OFF_RQ_LOG_SIZE] = (byte) o.rqLogSize();
        m[QpContext.OFF_RQ_LOG_STRIDE] = (byte) r.logStride();
        m[QpContext.OFF_RQ_MAX_SGE] = (byte) o.maxRecvSge();
        BigEndian.putI64(m, QpContext.OFF_DOORBELL_RECORD, r.db());
        m[QpContext.OFF_REMOTE_ACCESS] = (byte) o.access();
        return submit(OP_CREATE_QP, 0, 0, 0, 0, m,
                (s, qpn, o1) -> done.done(s, s == STATUS_OK ? driver.addQp(qpn, o, r) : null));
    }

    /**
     * Connects a QP: INIT2RTR (peer QP number, MAC, IPv4 address, first PSN expected) and RTR2RTS (first PSN
     * sent, the profile's retry counts), posted together behind one doorbell. The callback comes with the
     * second answer and carries the first status that was not OK.
     */
    public boolean connect(QueuePair qp, int remoteQpn, long peerMac, int peerIp, int sendPsn, int expectedPsn,
            Result<QueuePair> done) {
        if (!hasRoom(2)) {
            cpu.refused();
            return false;
        }
        int[] first = {STATUS_OK};
        post(OP_INIT2RTR_QP, 0, qp.qpn(), 0, 0, rtrMailbox(remoteQpn, peerMac, peerIp, expectedPsn, -1),
                (s, o0, o1) -> first[0] = s);
        post(OP_RTR2RTS_QP, 0, qp.qpn(), 0, 0, rtsMailbox(sendPsn, -1, -1, -1), (s, o0, o1) -> {
            int status = first[0] != STATUS_OK ? first[0] : s;
            done.done(status, status == STATUS_OK ? qp : null);
        });
        ringDoorbell();
        return true;
    }

    /**
     * INIT2RTR alone: who the peer is, the first PSN expected from it and how many inbound READs this QP
     * answers at once ({@code maxReadsIn}, the responder resources; -1 for the adapter's default).
     */
    public boolean readyToReceive(QueuePair qp, int remoteQpn, long peerMac, int peerIp, int expectedPsn,
            int maxReadsIn, Result<QueuePair> done) {
        return submit(OP_INIT2RTR_QP, 0, qp.qpn(), 0, 0, rtrMailbox(remoteQpn, peerMac, peerIp, expectedPsn, maxReadsIn),
                (s, o0, o1) -> done.done(s, s == STATUS_OK ? qp : null));
    }

    /**
     * RTR2RTS alone: the first PSN sent, the retry counts the connection agreed on ({@code retryCount} for
     * timeouts, {@code rnrRetry} for RNR NAKs, 7 = forever) and the READs this QP may have outstanding
     * ({@code maxReadsOut}, the initiator depth); -1 for the adapter's default.
     */
    public boolean readyToSend(QueuePair qp, int sendPsn, int retryCount, int rnrRetry, int maxReadsOut,
            Result<QueuePair> done) {
        return submit(OP_RTR2RTS_QP, 0, qp.qpn(), 0, 0, rtsMailbox(sendPsn, retryCount, rnrRetry, maxReadsOut),
                (s, o0, o1) -> done.done(s, s == STATUS_OK ? qp : null));
    }

    private static byte[] rtrMailbox(int remoteQpn, long peerMac, int peerIp, int expectedPsn, int maxReadsIn) {
        byte[] m = new byte[QpContext.SIZE];
        BigEndian.putI32(m, QpContext.OFF_REMOTE_QPN, remoteQpn & 0xFF_FFFF);
        Command.putPeerMac(m, 0, peerMac);
        Command.putPeerIpv4(m, 0, peerIp);
        QpContext.putExpectedPsn(m, 0, expectedPsn);
        m[QpContext.OFF_RETRY_COUNT] = (byte) QpContext.RETRY_DEFAULT;
        m[QpContext.OFF_RNR_RETRY] = (byte) QpContext.RETRY_DEFAULT;
        m[QpContext.OFF_MAX_READS_IN] = (byte) limit(maxReadsIn);
        m[QpContext.OFF_MAX_READS_OUT] = (byte) QpContext.RETRY_DEFAULT;
        return m;
    }

    /** A read limit for a mailbox byte: 0..254, or the default marker for -1. */
    private static int limit(int reads) {
        if (reads < -1 || reads > 254) {
            throw new IllegalArgumentException("read limits are 0..254 or -1, got " + reads);
        }
        return reads < 0 ? QpContext.RETRY_DEFAULT : reads;
    }

    private static byte[] rtsMailbox(int sendPsn, int retryCount, int rnrRetry, int maxReadsOut) {
        if (retryCount < -1 || retryCount > 7 || rnrRetry < -1 || rnrRetry > 7) {
            throw new IllegalArgumentException("retry counts are 0..7 or -1, got " + retryCount + " and " + rnrRetry);
        }
        byte[] m = new byte[QpContext.SIZE];
        QpContext.putNextSendPsn(m, 0, sendPsn);
        m[QpContext.OFF_RETRY_COUNT] = (byte) (retryCount < 0 ? QpContext.RETRY_DEFAULT : retryCount);
        m[QpContext.OFF_RNR_RETRY] = (byte) (rnrRetry < 0 ? QpContext.RETRY_DEFAULT : rnrRetry);
        m[QpContext.OFF_MAX_READS_IN] = (byte) QpContext.RETRY_DEFAULT;
        m[QpContext.OFF_MAX_READS_OUT] = (byte) limit(maxReadsOut);
        return m;
    }

    /** One QP transition without attributes: {@code opcode} is OP_2ERR_QP, OP_2RST_QP, OP_RST2INIT_QP, ... */
    public boolean modifyQp(QueuePair qp, int opcode, Result<QueuePair> done) {
        if (Command.mailboxBytes(opcode, 0) != 0 || opcode < OP_CREATE_QP || opcode > OP_INIT2INIT_QP
                || opcode == OP_DESTROY_QP) {
            throw new IllegalArgumentException("opcode 0x" + Integer.toHexString(opcode) + " is not a QP transition without attributes");
        }
        return submit(opcode, 0, qp.qpn(), 0, 0, null, (s, o0, o1) -> done.done(s, s == STATUS_OK ? qp : null));
    }

    /** DESTROY_QP; refused with RESOURCE_BUSY while the QP has work in flight (move it to ERROR and drain first). */
    public boolean destroyQp(QueuePair qp, Result<Void> done) {
        return submit(OP_DESTROY_QP, 0, qp.qpn(), 0, 0, null, (s, o0, o1) -> {
            if (s == STATUS_OK) {
                driver.removeQp(qp.qpn());
            }
            done.done(s, null);
        });
    }
}
