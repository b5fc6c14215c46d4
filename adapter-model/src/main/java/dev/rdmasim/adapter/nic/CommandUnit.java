package dev.rdmasim.adapter.nic;

import static dev.rdmasim.adapter.format.Command.*;

import dev.rdmasim.adapter.format.BigEndian;
import dev.rdmasim.adapter.format.CqContext;
import dev.rdmasim.adapter.format.MkeyContext;
import dev.rdmasim.adapter.format.QpContext;
import dev.rdmasim.adapter.pcie.DmaCallback;
import dev.rdmasim.adapter.pcie.DmaPort;
import dev.rdmasim.adapter.pcie.DmaRequest;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.Histogram;
import dev.rdmasim.kernel.stats.TimeAverage;
import dev.rdmasim.kernel.wave.Signal;

/**
 * The adapter's firmware command unit. The driver posts 64-byte entries (and input mailboxes) into
 * the command ring in host memory and writes the new producer counter to the command doorbell; the
 * unit then works through the entries one at a time, in order: DMA-read the entry, DMA-read its
 * mailbox, spend {@code nic.firmwareCommandLatency} of firmware time, apply the effect through the
 * adapter's try* methods (the same ones the time-zero setup path uses), DMA-write the status and
 * outputs back into the entry with the ownership bit cleared, then an EQE of type COMMAND and the
 * MSI-X message, all three on one DMA channel so PCIe ordering keeps the EQE behind the outputs and
 * the interrupt behind the EQE. The next entry is fetched once the interrupt has left the device.
 *
 * <p>Effects happen at the end of the firmware time, so a command sees every earlier one done.
 */
final class CommandUnit extends Module implements DmaCallback {
    private static final long ENTRY = 0;
    private static final long MAILBOX = 1;
    private static final long OUTPUT = 2;
    private static final long MAX_LATENCY_NS = 10_000_000_000L;

    private final FirmwareTables fw;
    private final EventQueueUnit eq;
    private final long ring;
    private final int mask;
    private final long latencyPs;
    private final DmaPort port;
    /** The command's interrupt has left: the entry's buffers are free for the next command. */
    private final EventQueueUnit.Listener answered = interrupt -> {
        if (interrupt) {
            answered();
        }
    };
    private final DmaRequest entryRead = new DmaRequest();
    private final DmaRequest mailboxRead = new DmaRequest();
    private final DmaRequest outputWrite = new DmaRequest();
    private final byte[] entry = new byte[ENTRY_SIZE];
    private final byte[] mailbox = new byte[MAX_MAILBOX];
    private final Event execute;
    /** Producer counter from the last doorbell, and entries finished (the next to fetch). */
    private int producer;
    private int consumer;
    /** An entry is being fetched, executed or answered. */
    private boolean active;
    private long startPs;
    private int out0;
    private int out1;

    private final Counter doorbells;
    private final Counter commands;
    private final Counter failed;
    private final Counter firmwareTime;
    private final Histogram latency;
    private final TimeAverage queued;
    private final Signal busySignal;
    private final Signal queuedSignal;

    CommandUnit(Module parent, FirmwareTables fw, EventQueueUnit eq, DmaPort port, long ring, int logSize, long latencyPs) {
        super(parent, "cmd");
        if (logSize < 0 || logSize > 12) {
            throw new IllegalArgumentException("command queue of 2^" + logSize + " entries: expected 2^0..2^12");
        }
        if ((ring & (ENTRY_SIZE - 1)) != 0) {
            throw new IllegalArgumentException("command queue ring 0x" + Long.toHexString(ring) + " is not 64-byte aligned");
        }
        if (latencyPs < 0) {
            throw new IllegalArgumentException("firmware command latency must be >= 0 ps, got " + latencyPs);
        }
        this.fw = fw;
        this.eq = eq;
        this.ring = ring;
        this.mask = (1 << logSize) - 1;
        this.latencyPs = latencyPs;
        this.port = port;
        execute = sim().event(fullName() + ".execute", this::execute);
        doorbells = stats().counter("doorbells", "MMIOs", "command doorbells received");
        commands = stats().counter("commands", "commands", "commands executed");
        failed = stats().counter("failed", "commands", "commands answered with a status other than OK");
        firmwareTime = stats().counter("firmwareTime", "ps", "time the firmware spent executing commands");
        latency = stats().histogram("latency", "ns", "entry fetch to outputs written back, per command", MAX_LATENCY_NS);
        queued = stats().timeAverage("queued", "entries", "entries posted and not yet answered");
        busySignal = signal("busy", 1);
        queuedSignal = signal("queued", 16);
    }

    /** The driver wrote the command doorbell: entries up to {@code newProducer} are posted. */
    void doorbell(int newProducer) {
        doorbells.inc();
        int pending = newProducer - consumer;
        if (pending < 0 || pending > mask + 1) {
            // A producer behind the consumer or more than a ring ahead cannot come from a correct driver.
            throw new InvariantViolation(fullName() + ": doorbell producer " + newProducer + " with consumer " + consumer
                    + " and a ring of " + (mask + 1));
        }
        producer = newProducer;
        showQueued();
        fetchNext();
    }

    private void showQueued() {
        queued.set(producer - consumer);
        queuedSignal.set(producer - consumer);
    }

    private long entryAddress(int index) {
        return ring + (long) (index & mask) * ENTRY_SIZE;
    }

    private void fetchNext() {
        if (active || consumer == producer) {
            return;
        }
        active = true;
        busySignal.set(1);
        startPs = now();
        port.send(entryRead.read(entryAddress(consumer), entry, 0, ENTRY_SIZE, this, ENTRY));
    }

    @Override
    public void readDone(DmaRequest r) {
        if (r.cookie() == ENTRY) {
            int bytes = inputLength(entry, 0) - INLINE_INPUT;
            int expected = mailboxBytes(opcode(entry, 0), opMod(entry, 0));
            if (bytes > 0 && bytes == expected && bytes <= MAX_MAILBOX) {
                port.send(mailboxRead.read(inputMailbox(entry, 0), mailbox, 0, bytes, this, MAILBOX));
                return;
            }
        }
        // Inputs are on chip (or malformed, which the firmware finds out as it starts): run the command.
        execute.schedule(now() + latencyPs);
    }

    private void execute() {
        firmwareTime.add(latencyPs);
        int status = run();
        commands.inc();
        if (status != STATUS_OK) {
            failed.inc();
        }
        writeOutput(entry, 0, status, 0, out0, out1);
        long at = entryAddress(consumer);
        outputWrite.write(at + OUTPUT_START, entry, OUTPUT_START, ENTRY_SIZE - OUTPUT_START, this, OUTPUT, false);
        // One command at a time, and at most three requests of it at once: the channel always has room.
        port.send(outputWrite);
        eq.command(port, consumer, token(entry, 0), answered);
        latency.record((now() - startPs) / 1000);
    }

    @Override
    public void writeSent(DmaRequest r) {
        // The outputs have left; the entry is answered when the interrupt behind them has.
    }

    private void answered() {
        consumer++;
        active = false;
        busySignal.set(0);
        showQueued();
        fetchNext();
    }

    /** Checks and applies the command in {@link #entry} (and {@link #mailbox}); returns its status. */
    private int run() {
        out0 = 0;
        out1 = 0;
        int op = opcode(entry, 0);
        int mod = opMod(entry, 0);
        int expected = mailboxBytes(op, mod);
        if (expected < 0 || (op == OP_MODIFY_CQ && mod != CQ_MODERATION && mod != CQ_RESIZE)) {
            return STATUS_BAD_OPCODE;
        }
        if (inputLength(entry, 0) != INLINE_INPUT + expected) {
            return STATUS_BAD_INPUT_LENGTH;
        }
        int a0 = arg0(entry, 0);
        return switch (op) {
            case OP_ALLOC_PD -> {
                out0 = fw.freePd();
                yield fw.tryAllocatePd(out0);
            }
            case OP_DEALLOC_PD -> fw.tryDeallocatePd(a0);
            case OP_CREATE_CQ -> {
                out0 = fw.freeCqn();
                yield fw.tryCreateCq(out0, BigEndian.i64(mailbox, CqContext.OFF_RING_BASE),
                        BigEndian.u8(mailbox, CqContext.OFF_LOG_SIZE), BigEndian.i64(mailbox, CqContext.OFF_DOORBELL_RECORD));
            }
            case OP_MODIFY_CQ -> modifyCq(a0, mod);
            case OP_DESTROY_CQ -> fw.tryDestroyCq(a0);
            case OP_CREATE_MKEY -> createMkey(a0);
            case OP_DESTROY_MKEY -> fw.tryDeregisterMemory(a0);
            case OP_CREATE_QP -> createQp();
            case OP_DESTROY_QP -> fw.tryDestroyQp(a0);
            default -> modifyQp(op, a0);
        };
    }

    private int modifyCq(int cqn, int mod) {
        if (mod == CQ_MODERATION) {
            // arg1: count, arg2: period in ns (unsigned).
            return fw.tryModerateCq(cqn, arg1(entry, 0), (arg2(entry, 0) & 0xFFFF_FFFFL) * 1000);
        }
        int s = fw.tryResizeCq(cqn, BigEndian.i64(mailbox, CqContext.OFF_RING_BASE), BigEndian.u8(mailbox, CqContext.OFF_LOG_SIZE));
        if (s == STATUS_OK) {
            // Where the old ring ends: CQEs with a lower running index are in it, the rest in the new one.
            long p = fw.cqProducer(cqn);
            out0 = (int) p;
            out1 = (int) (p >>> 32);
        }
        return s;
    }

    private int createMkey(int variant) {
        int index = fw.freeKeyIndex();
        int pd = MkeyContext.pd(mailbox, 0);
        if (index >= 0 && !fw.pdAllocated(pd)) {
            return STATUS_BAD_RESOURCE;
        }
        int logPage = MkeyContext.logPageSize(mailbox, 0);
        long start = MkeyContext.start(mailbox, 0);
        long length = MkeyContext.length(mailbox, 0);
        // The translation table must cover every page the region touches.
        long pages = length <= 0 ? 0 : ((start + length - 1) >>> logPage) - (start >>> logPage) + 1;
        long entries = BigEndian.u32(mailbox, MkeyContext.OFF_TRANSLATION_COUNT);
        if (index >= 0 && (pages == 0 || entries < pages || (MkeyContext.translationTable(mailbox, 0) & 7) != 0)) {
            return STATUS_BAD_PARAM;
        }
        int key = index < 0 ? -1 : index << 8 | (variant & 0xFF);
        int s = fw.tryRegisterMemory(key, pd, MkeyContext.access(mailbox, 0), logPage, start, length,
                MkeyContext.translationTable(mailbox, 0));
        out0 = s == STATUS_OK ? key : 0;
        return s;
    }

    private int createQp() {
        int qpn = fw.freeQpn();
        int pd = BigEndian.i32(mailbox, QpContext.OFF_PD) & 0xFF_FFFF;
        if (qpn >= 0 && !fw.pdAllocated(pd)) {
            return STATUS_BAD_RESOURCE;
        }
        QpConfig cfg;
        try {
            cfg = new QpConfig(pd, QpContext.sendCqn(mailbox, 0), QpContext.recvCqn(mailbox, 0),
                    BigEndian.i64(mailbox, QpContext.OFF_SQ_BASE), BigEndian.u8(mailbox, QpContext.OFF_SQ_LOG_BBS),
                    BigEndian.i64(mailbox, QpContext.OFF_RQ_BASE), BigEndian.u8(mailbox, QpContext.OFF_RQ_LOG_SIZE),
                    BigEndian.u8(mailbox, QpContext.OFF_RQ_LOG_STRIDE), BigEndian.i64(mailbox, QpContext.OFF_DOORBELL_RECORD),
                    BigEndian.u8(mailbox, QpContext.OFF_SQ_MAX_SGE), BigEndian.u8(mailbox, QpContext.OFF_RQ_MAX_SGE),
                    BigEndian.u16(mailbox, QpContext.OFF_MAX_INLINE), QpContext.remoteAccess(mailbox, 0));
        } catch (IllegalArgumentException e) {
            return STATUS_BAD_PARAM;
        }
        int s = fw.tryCreateQp(qpn, cfg);
        out0 = s == STATUS_OK ? qpn : 0;
        return s;
    }

    /** The QP transitions: each opcode names its source state (any, for 2ERR and 2RST) and its target. */
    private int modifyQp(int op, int qpn) {
        QpState from;
        QpState to;
        switch (op) {
            case OP_RST2INIT_QP -> { from = QpState.RESET; to = QpState.INIT; }
            case OP_INIT2INIT_QP -> { from = QpState.INIT; to = QpState.INIT; }
            case OP_INIT2RTR_QP -> { from = QpState.INIT; to = QpState.READY_TO_RECEIVE; }
            case OP_RTR2RTS_QP -> { from = QpState.READY_TO_RECEIVE; to = QpState.READY_TO_SEND; }
            case OP_RTS2RTS_QP -> { from = QpState.READY_TO_SEND; to = QpState.READY_TO_SEND; }
            case OP_2ERR_QP -> { from = null; to = QpState.ERROR; }
            case OP_2RST_QP -> { from = null; to = QpState.RESET; }
            default -> throw new InvariantViolation(fullName() + ": opcode 0x" + Integer.toHexString(op) + " has a mailbox size but no handler");
        }
        if (!fw.qpExists(qpn)) {
            return STATUS_BAD_RESOURCE;
        }
        if (from != null && fw.qpState(qpn) != from) {
            return STATUS_BAD_RESOURCE_STATE;
        }
        QpPeer peer = null;
        if (op == OP_INIT2RTR_QP || op == OP_RTR2RTS_QP) {
            peer = new QpPeer(BigEndian.i32(mailbox, QpContext.OFF_REMOTE_QPN) & 0xFF_FFFF, peerMac(mailbox, 0),
                    peerIpv4(mailbox, 0), QpContext.nextSendPsn(mailbox, 0), QpContext.expectedPsn(mailbox, 0),
                    retryField(mailbox[QpContext.OFF_RETRY_COUNT]), retryField(mailbox[QpContext.OFF_RNR_RETRY]),
                    limitField(mailbox[QpContext.OFF_MAX_READS_IN]), limitField(mailbox[QpContext.OFF_MAX_READS_OUT]));
        }
        return fw.tryModifyQp(qpn, to, peer);
    }

    /** A 3-bit retry count of a modify mailbox; {@code QpContext.RETRY_DEFAULT} (0xFF) for the profile's. */
    private static int retryField(byte b) {
        int v = b & 0xFF;
        return v == QpContext.RETRY_DEFAULT ? -1 : v & 7;
    }

    /** A read limit of a modify mailbox; 0xFF for the profile's. */
    private static int limitField(byte b) {
        int v = b & 0xFF;
        return v == QpContext.RETRY_DEFAULT ? -1 : v;
    }
}
