package dev.rdmasim.driver;

import dev.rdmasim.adapter.format.BlueFlame;
import dev.rdmasim.adapter.format.ControlSegment;
import dev.rdmasim.adapter.format.Doorbells;
import dev.rdmasim.adapter.format.SendWqeBuilder;
import dev.rdmasim.adapter.format.WqeOpcode;
import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.kernel.InvariantViolation;

/**
 * The send side of a QP: builds WQEs with {@link SendWqeBuilder} into a mirror of the send ring,
 * has the CPU store the new basic blocks and the send counter of the doorbell record into host
 * memory, and then rings the doorbell. A doorbell is either the 8-byte MMIO (the first 8 bytes of
 * the last WQE's control segment) or, when exactly one WQE is waiting and it fits a BlueFlame half,
 * the whole WQE in 64-byte write-combined chunks. Posts with {@link #DEFER} only queue their WQE;
 * the next post without it (or {@link #ringDoorbell()}) rings one doorbell for the whole batch.
 *
 * <p>The queue tracks which WQEs are outstanding: a requester CQE names a WQE by its counter and
 * retires it together with every earlier unsignaled WQE ({@link CompletionQueue#poll()}).
 */
public final class SendQueue {
    /** Write a CQE on success (CQ_UPDATE). Without it the WQE completes silently unless it fails. */
    public static final int SIGNALED = 1;
    /** The responder's receive CQE carries the solicited bit. */
    public static final int SOLICITED = 2;
    /** Start only after earlier RDMA READs of this QP have completed (fence READ). */
    public static final int FENCE = 4;
    /** Copy the payload into the WQE instead of pointing at it. */
    public static final int INLINE = 8;
    /** Do not ring the doorbell yet: a later post or {@link #ringDoorbell()} rings once for the batch. */
    public static final int DEFER = 16;

    private final HostDriver driver;
    private final HostCpu cpu;
    private final HostMemory memory;
    private final int qpn;
    private final long ringBase;
    private final int logBbs;
    private final int ringBbs;
    private final byte[] mirror;
    private final SendWqeBuilder builder;
    private final BlueFlame blueFlame;
    private final long dbRecord;
    private final long doorbellPage;
    private final int maxSge;
    private final int maxInline;
    private final byte[] inlineScratch;
    private final long[] wrIds;
    private final int[] wqeBbs;
    private boolean useBlueFlame = true;
    private int producer;
    private int consumer;
    private int pendingWqes;
    private int lastCtrl;
    private int lastIndex;
    private int lastBbs;
    private int lastRetired;

    SendQueue(HostDriver driver, HostCpu core, int qpn, long ringBase, int logBbs, long dbRecord, int maxSge,
            int maxInline, int bfBytes) {
        this.driver = driver;
        this.cpu = core;
        this.memory = driver.memory();
        this.qpn = qpn;
        this.ringBase = ringBase;
        this.logBbs = logBbs;
        this.ringBbs = 1 << logBbs;
        this.dbRecord = dbRecord;
        this.maxSge = maxSge;
        this.maxInline = maxInline;
        mirror = new byte[ringBbs * SendWqeBuilder.BB];
        builder = new SendWqeBuilder(mirror, 0, logBbs);
        blueFlame = new BlueFlame(bfBytes);
        doorbellPage = Doorbells.sqDoorbellOffset(qpn);
        inlineScratch = new byte[maxInline];
        wrIds = new long[ringBbs];
        wqeBbs = new int[ringBbs];
    }

    public int qpn() {
        return qpn;
    }

    /** The host core this queue's posts run on. */
    public HostCpu core() {
        return cpu;
    }

    /** Whether single-WQE doorbells may use BlueFlame (default true). */
    public void setBlueFlame(boolean enabled) {
        useBlueFlame = enabled;
    }

    /** Basic blocks of the ring not held by outstanding WQEs. */
    public int freeBbs() {
        return ringBbs - (producer - consumer);
    }

    public int ringBbs() {
        return ringBbs;
    }

    /** WQEs posted but not yet rung (deferred). */
    public int pendingWqes() {
        return pendingWqes;
    }

    /** Running producer counter in basic blocks. */
    public int producer() {
        return producer;
    }

    /** Running counter of retired basic blocks. */
    public int consumer() {
        return consumer;
    }

    /**
     * Posts one WQE whose payload is described by {@code sges} (or is gathered into the WQE when
     * {@code flags} has {@link #INLINE}).
     *
     * @param opcode    {@code WqeOpcode}: RDMA_WRITE, RDMA_WRITE_IMM, SEND, SEND_IMM or RDMA_READ
     * @param flags     {@link #SIGNALED}, {@link #SOLICITED}, {@link #FENCE}, {@link #INLINE}, {@link #DEFER}
     * @param immediate immediate data for the _IMM opcodes
     * @param remoteAddress target address for WRITE and READ (ignored for SEND)
     * @param rkey      remote key for WRITE and READ
     * @param sges      local buffers; null or empty for a zero-length message
     * @return false when the ring or the CPU's work queue has no room (nothing was posted)
     */
    public boolean post(long wrId, int opcode, int flags, int immediate, long remoteAddress, int rkey, SgeList sges) {
        int n = sges == null ? 0 : sges.count();
        checkOpcode(opcode, flags);
        if ((flags & INLINE) != 0) {
            long total = n == 0 ? 0 : sges.totalLength();
            if (total > maxInline) {
                throw new IllegalArgumentException("inline payload of " + total + " B exceeds the QP's maxInline " + maxInline);
            }
            // The CPU gathers the payload from its buffers into the WQE.
            int len = 0;
            for (int i = 0; i < n; i++) {
                memory.read(sges.address(i), inlineScratch, len, sges.length(i));
                len += sges.length(i);
            }
            return postInline(wrId, opcode, flags, immediate, remoteAddress, rkey, inlineScratch, 0, len);
        }
        if (n > maxSge) {
            throw new IllegalArgumentException(n + " SGEs exceed the QP's maxSendSge " + maxSge);
        }
        if (!reserve((SendWqeBuilder.wqeBytes(opcode, n) + SendWqeBuilder.BB - 1) / SendWqeBuilder.BB, flags)) {
            return false;
        }
        begin(opcode, flags, immediate, remoteAddress, rkey);
        for (int i = 0; i < n; i++) {
            builder.data(sges.address(i), sges.length(i), sges.key(i));
        }
        commit(wrId, flags);
        return true;
    }

    /** Posts one WQE carrying {@code data[off, off + len)} inline. Same rules as {@link #post}. */
    public boolean postInline(long wrId, int opcode, int flags, int immediate, long remoteAddress, int rkey,
            byte[] data, int off, int len) {
        checkOpcode(opcode, flags | INLINE);
        if (len > maxInline) {
            throw new IllegalArgumentException("inline payload of " + len + " B exceeds the QP's maxInline " + maxInline);
        }
        int bbs = (SendWqeBuilder.inlineWqeBytes(opcode, len) + SendWqeBuilder.BB - 1) / SendWqeBuilder.BB;
        if (!reserve(bbs, flags)) {
            return false;
        }
        begin(opcode, flags, immediate, remoteAddress, rkey);
        builder.inlineData(data, off, len);
        commit(wrId, flags);
        return true;
    }

    /**
     * Rings the doorbell for the deferred WQEs (no-op without any). Returns false if the CPU's work
     * queue has no room for the MMIO (the WQEs stay deferred).
     */
    public boolean ringDoorbell() {
        if (pendingWqes == 0) {
            return true;
        }
        if (!cpu.hasRoom(Math.max(1, lastBbs))) {
            cpu.refused();
            return false;
        }
        long bar = doorbellPage + blueFlame.currentOffset();
        if (pendingWqes == 1 && useBlueFlame && blueFlame.fits(lastBbs)) {
            // Whole WQE through the write-combining buffer, a 64-byte chunk at a time; the store fence after
            // the last one waits for the buffer to drain, so it costs the core once per doorbell.
            for (int k = 0; k < lastBbs; k++) {
                byte[] chunk = cpu.mmio(bar + (long) k * BlueFlame.CHUNK, BlueFlame.CHUNK,
                        driver.wcFlushPs + (k == lastBbs - 1 ? driver.wcBarrierPs : 0));
                BlueFlame.copyChunk(mirror, 0, logBbs, lastIndex, k, chunk, 0);
            }
            driver.blueflameWqes.inc();
            driver.blueflameChunks.add(lastBbs);
        } else {
            byte[] db = cpu.mmio(bar, Doorbells.MMIO_DOORBELL_SIZE, driver.mmioStorePs);
            System.arraycopy(mirror, lastCtrl, db, 0, Doorbells.MMIO_DOORBELL_SIZE);
            driver.doorbells.inc();
        }
        driver.doorbellBatch.record(pendingWqes);
        blueFlame.toggle();
        pendingWqes = 0;
        cpu.kick();
        return true;
    }

    private static void checkOpcode(int opcode, int flags) {
        switch (opcode) {
            case WqeOpcode.RDMA_WRITE, WqeOpcode.RDMA_WRITE_IMM, WqeOpcode.SEND, WqeOpcode.SEND_IMM -> { }
            case WqeOpcode.RDMA_READ -> {
                if ((flags & INLINE) != 0) {
                    throw new IllegalArgumentException("RDMA READ cannot carry inline data");
                }
            }
            default -> throw new IllegalArgumentException("opcode " + WqeOpcode.name(opcode) + " is not a posting opcode");
        }
    }

    private boolean reserve(int bbs, int flags) {
        if (bbs > freeBbs()) {
            driver.sqFull.inc();
            return false;
        }
        // One store item, plus the doorbell MMIO or up to one chunk per BB for BlueFlame.
        if (!cpu.hasRoom(1 + ((flags & DEFER) != 0 ? 0 : bbs))) {
            cpu.refused();
            return false;
        }
        return true;
    }

    private void begin(int opcode, int flags, int immediate, long remoteAddress, int rkey) {
        int hw = ((flags & SIGNALED) != 0 ? ControlSegment.FLAG_CQ_UPDATE : 0)
                | ((flags & SOLICITED) != 0 ? ControlSegment.FLAG_SOLICITED : 0)
                | ((flags & FENCE) != 0 ? ControlSegment.FENCE_READ : 0);
        builder.begin(producer & 0xFFFF, opcode, qpn, hw, immediate);
        if (WqeOpcode.hasRemoteAddress(opcode)) {
            builder.remoteAddress(remoteAddress, rkey);
        }
    }

    private void commit(long wrId, int flags) {
        int bbs = builder.finish();
        int slot = producer & (ringBbs - 1);
        wrIds[slot] = wrId;
        wqeBbs[slot] = bbs;
        int first = producer;
        producer += bbs;
        cpu.storeRing(HostCpu.STORE_SQ, this, first, bbs, producer, driver.wqeBuildPs);
        driver.wqesPosted.inc();
        pendingWqes++;
        lastCtrl = builder.lastCtrlOffset();
        lastIndex = first & 0xFFFF;
        lastBbs = bbs;
        if ((flags & DEFER) == 0) {
            ringDoorbell();
        }
        cpu.kick();
    }

    /** CPU work item: the new basic blocks and then the send counter reach host memory. */
    void store(int first, int n, int counter) {
        int slot = first & (ringBbs - 1);
        int run = Math.min(n, ringBbs - slot);
        memory.write(ringBase + (long) slot * SendWqeBuilder.BB, mirror, slot * SendWqeBuilder.BB, run * SendWqeBuilder.BB);
        if (run < n) {
            memory.write(ringBase, mirror, 0, (n - run) * SendWqeBuilder.BB);
        }
        memory.putIntBE(dbRecord + Doorbells.OFF_SEND_COUNTER, counter & 0xFFFF);
    }

    /**
     * Retires every outstanding WQE up to and including the one at 16-bit counter {@code wqeCounter};
     * returns that WQE's wrId. {@link #lastRetired()} tells how many WQEs this retired.
     */
    long retire(int wqeCounter) {
        int retired = 0;
        while (true) {
            if (consumer == producer) {
                throw new InvariantViolation("QP " + qpn + ": CQE names WQE counter " + wqeCounter + " which is not outstanding");
            }
            int slot = consumer & (ringBbs - 1);
            int bbs = wqeBbs[slot];
            boolean named = (consumer & 0xFFFF) == wqeCounter;
            consumer += bbs;
            retired++;
            if (named) {
                lastRetired = retired;
                return wrIds[slot];
            }
        }
    }

    int lastRetired() {
        return lastRetired;
    }
}
