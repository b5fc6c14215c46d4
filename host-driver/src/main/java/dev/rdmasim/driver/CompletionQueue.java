package dev.rdmasim.driver;

import dev.rdmasim.adapter.format.BigEndian;
import dev.rdmasim.adapter.format.Cqe;
import dev.rdmasim.adapter.format.Doorbells;
import dev.rdmasim.adapter.host.HostMemory;

/**
 * A CQ: a ring of 64-byte CQEs in host memory that the adapter fills, read by the owner-bit rule,
 * and its doorbell record (consumer index, arm word). Each {@link #poll()} costs the CPU
 * {@code host.pollTime}; a successful one writes the new consumer index to the doorbell record (so
 * the adapter sees the freed space) and retires the named WQE on its send or receive queue.
 */
public final class CompletionQueue {
    private final HostDriver driver;
    private final HostMemory memory;
    /** The core whose thread polls this CQ (its polls and arms are charged there). */
    private HostCpu cpu;
    /** Whether {@link #cpu} was chosen (explicitly or by the first QP created on this CQ). */
    private boolean placed;
    private final long pollPs;
    private final int cqn;
    private long ring;
    private int logSize;
    private final long dbRecord;
    // A resize in progress: the new ring (CQEs may land there before the command's answer arrives), and once it
    // has, the running index from which CQEs are in it; older ones are read from the old ring.
    private long newRing = -1;
    private int newLogSize;
    private long oldRing;
    private int oldLogSize;
    private long switchAt = -1;
    private final byte[] entry = new byte[Cqe.SIZE];
    private final Completion view = new Completion();
    private long consumerIndex;
    private int armSequence;
    private Runnable landedListener;
    private Runnable eventHandler;
    private Runnable overrunHandler;

    CompletionQueue(HostDriver driver, int cqn, long ring, int logSize, long dbRecord) {
        this.driver = driver;
        this.memory = driver.memory();
        this.cpu = driver.cpu();
        this.pollPs = driver.pollPs;
        this.cqn = cqn;
        this.ring = ring;
        this.logSize = logSize;
        this.dbRecord = dbRecord;
    }

    HostDriver driver() {
        return driver;
    }

    public int cqn() {
        return cqn;
    }

    /** The host core that polls this CQ. */
    public HostCpu core() {
        return cpu;
    }

    /**
     * Polls this CQ on core {@code core} from now on (0 .. {@code host.cores} - 1). Without this call, the CQ
     * is polled on the core of the first QP created on it (on the first core until then).
     */
    public void setCore(int core) {
        cpu = driver.core(core);
        placed = true;
    }

    /** A QP on {@code core} is created on this CQ: the CQ follows it unless its core was already chosen. */
    void follow(HostCpu core) {
        if (!placed) {
            cpu = core;
            placed = true;
        }
    }

    /** Entries of the ring new CQEs go to (the new one once a resize has been answered). */
    public int size() {
        return 1 << logSize;
    }

    /** Running count of CQEs polled. */
    public long consumerIndex() {
        return consumerIndex;
    }

    /**
     * The next CQE if software owns it, else null. The returned view is reused by the next poll. CQEs of a
     * QP destroyed since are consumed and skipped, as a driver drops them.
     */
    public Completion poll() {
        while (true) {
            boolean old = consumerIndex < switchAt;
            int log = old ? oldLogSize : logSize;
            long addr = (old ? oldRing : ring) + Cqe.entryOffset(consumerIndex, log);
            if (ownedOpOwn(addr, consumerIndex, log) < 0) {
                driver.emptyPolls.inc();
                return null;
            }
            memory.read(addr, entry, 0, Cqe.SIZE);
            view.parse(entry, 0);
            consumerIndex++;
            memory.putIntBE(dbRecord + Doorbells.OFF_CQ_SET_CI, (int) (consumerIndex & 0xFF_FFFF));
            if (view.isRequester()) {
                SendQueue sq = driver.sendQueueOrNull(view.qpn);
                if (sq == null) {
                    driver.orphanCqes.inc(); // its QP was destroyed after the CQE was written
                    continue;
                }
                view.wrId = sq.retire(view.wqeCounter);
                view.retired = sq.lastRetired();
            } else {
                ReceiveQueue rq = driver.receiveQueueOrNull(view.qpn);
                if (rq == null) {
                    driver.orphanCqes.inc();
                    continue;
                }
                view.wrId = rq.retire(view.wqeCounter);
                view.retired = 1;
            }
            driver.cqesPolled.inc();
            return view;
        }
    }

    /** CPU time one poll that finds nothing costs its core: {@code host.pollTime}. */
    public long emptyPollPs() {
        return pollPs;
    }

    /**
     * {@code n} polls that found nothing, made one after the other on this CQ's core by a thread that slept through
     * them, the last started by now: counted and charged as {@link #poll} would have, one by one, had it made them.
     */
    public void skippedEmptyPolls(long n) {
        cpu.chargeSkippedEmptyPolls(n, pollPs);
        driver.emptyPolls.add(n);
    }

    /**
     * Requests one completion event: for the next CQE ({@code solicitedOnly} false) or the next
     * solicited or error CQE. Writes the arm word into the doorbell record, then the 8-byte arm
     * MMIO. The adapter raises the event at once if CQEs the driver has not consumed are already
     * there (any, or a solicited or error one), so nothing that landed before the arm is missed.
     * Returns false if the CPU's work queue has no room.
     */
    public boolean arm(boolean solicitedOnly) {
        return arm(solicitedOnly, consumerIndex);
    }

    /**
     * As {@link #arm(boolean)}, telling the adapter that the entries before running index
     * {@code armIndex} (at or after the consumer index) need no event: a driver that has looked at them
     * already and only waits for later ones.
     */
    public boolean arm(boolean solicitedOnly, long armIndex) {
        if (armIndex < consumerIndex) {
            throw new IllegalArgumentException("arm index " + armIndex + " is before the consumer index " + consumerIndex);
        }
        if (!cpu.hasRoom(2)) {
            cpu.refused();
            return false;
        }
        int cmd = solicitedOnly ? Doorbells.ARM_CMD_SOLICITED : Doorbells.ARM_CMD_ANY;
        int word = Doorbells.armWord(armSequence & 3, cmd, (int) (armIndex & 0xFF_FFFF));
        armSequence++;
        cpu.storeWord(dbRecord + Doorbells.OFF_CQ_ARM, word, 0);
        byte[] mmio = cpu.mmio(Doorbells.cqArmOffset(0), Doorbells.MMIO_DOORBELL_SIZE, driver.mmioStorePs);
        BigEndian.putI64(mmio, 0, Doorbells.cqArmDoorbell(word, cqn));
        cpu.kick();
        driver.arms.inc();
        return true;
    }

    /**
     * Looks at the entry with running index {@code index} (at or after the consumer index) without
     * consuming it: its CQE opcode ({@code Cqe.REQ}, {@code Cqe.RESP_ERR}, ...) if software owns it, else -1.
     * Costs a poll of CPU time.
     */
    public int peek(long index) {
        if (index < consumerIndex) {
            throw new IllegalArgumentException("peek at " + index + ", before the consumer index " + consumerIndex);
        }
        int opOwn = ownedOpOwn(ring + Cqe.entryOffset(index, logSize), index, logSize);
        return opOwn < 0 ? -1 : opOwn >>> 4;
    }

    /**
     * The op_own byte of the entry at {@code addr} (running index {@code index} of a ring of 2^{@code log}) if
     * software owns it, else -1; charges the CPU a poll, as waiting when the entry is not there. A CPU reads
     * op_own before the rest of the entry.
     */
    private int ownedOpOwn(long addr, long index, int log) {
        int opOwn = memory.getByte(addr + Cqe.OFF_OP_OWN) & 0xFF;
        if ((opOwn >>> 4) == Cqe.INVALID || (opOwn & Cqe.OWNER_BIT) != Cqe.ownerBit(index, log)) {
            cpu.chargeEmptyPoll(pollPs);
            return -1;
        }
        // The adapter's write of this entry invalidated the line the core had polled: this read misses.
        cpu.charge(pollPs + driver.pollMissPs);
        return opOwn;
    }

    /**
     * Called (inside the simulator) whenever a CQE lands in this ring: what a busy-polling thread
     * would notice. The listener usually polls.
     */
    public void setLandedListener(Runnable listener) {
        this.landedListener = listener;
    }

    /** Called when the event queue reports a completion event for this CQ (after an arm). */
    public void setEventHandler(Runnable handler) {
        this.eventHandler = handler;
    }

    /**
     * Called when the event queue reports that this CQ overran (a CQE found no room): the adapter has
     * put the CQ and its QPs in error.
     */
    public void setOverrunHandler(Runnable handler) {
        this.overrunHandler = handler;
    }

    boolean contains(long address) {
        return within(address, ring, logSize) || (switchAt > consumerIndex && within(address, oldRing, oldLogSize))
                || (newRing >= 0 && within(address, newRing, newLogSize));
    }

    /**
     * Writes the address ranges CQEs of this CQ may land in (its ring, the old one while a resize's switch point is
     * set, the new one while a resize is pending) into {@code start}/{@code end} from index {@code n}; returns the
     * index after the last written. A superset of what {@link #contains} accepts, as long as rings only change
     * through {@link #resizing} and {@link #resized}.
     */
    int rings(long[] start, long[] end, int n) {
        start[n] = ring;
        end[n++] = ring + ((long) Cqe.SIZE << logSize);
        if (switchAt >= 0) {
            start[n] = oldRing;
            end[n++] = oldRing + ((long) Cqe.SIZE << oldLogSize);
        }
        if (newRing >= 0) {
            start[n] = newRing;
            end[n++] = newRing + ((long) Cqe.SIZE << newLogSize);
        }
        return n;
    }

    private static boolean within(long address, long base, int log) {
        return address >= base && address < base + ((long) Cqe.SIZE << log);
    }

    /** Running index of the first CQE in the ring of the last resize (-1: never resized). */
    long switchIndex() {
        return switchAt;
    }

    /** No resize is pending and the ring of the last one has been read to its end. */
    public boolean canResize() {
        return newRing < 0 && consumerIndex >= switchAt;
    }

    /** A resize to {@code ring} was posted: CQEs may land there from when the adapter executes it. */
    void resizing(long ringAddress, int log) {
        newRing = ringAddress;
        newLogSize = log;
        driver.cqRingsChanged();
    }

    /**
     * The resize was answered: CQEs from running index {@code at} on are in the new ring. A failed resize
     * passes {@code at} < 0 and leaves the CQ as it was.
     */
    void resized(long at) {
        if (at >= 0) {
            oldRing = ring;
            oldLogSize = logSize;
            switchAt = at;
            ring = newRing;
            logSize = newLogSize;
        }
        newRing = -1;
        driver.cqRingsChanged();
    }

    void landed() {
        if (landedListener != null) {
            landedListener.run();
        }
    }

    void event() {
        if (eventHandler != null) {
            eventHandler.run();
        }
    }

    void overrun() {
        if (overrunHandler != null) {
            overrunHandler.run();
        }
    }
}
