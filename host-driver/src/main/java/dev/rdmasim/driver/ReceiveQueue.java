package dev.rdmasim.driver;

import dev.rdmasim.adapter.format.Doorbells;
import dev.rdmasim.adapter.format.RecvWqe;
import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.kernel.InvariantViolation;

/**
 * The receive side of a QP: receive WQEs (data segments, terminator when shorter than the stride)
 * in a ring of fixed strides. Posting rings no MMIO doorbell: the CPU stores the WQE and then the
 * receive counter of the doorbell record, which the adapter re-reads by DMA when it runs out of
 * known receive WQEs.
 */
public final class ReceiveQueue {
    private final HostDriver driver;
    private final HostCpu cpu;
    private final HostMemory memory;
    private final int qpn;
    private final long ringBase;
    private final int size;
    private final int strideSegs;
    private final int strideBytes;
    private final long dbRecord;
    private final int maxSge;
    private final byte[] mirror;
    private final long[] wrIds;
    private int producer;
    private int consumer;

    ReceiveQueue(HostDriver driver, HostCpu core, int qpn, long ringBase, int logSize, int logStride, long dbRecord,
            int maxSge) {
        this.driver = driver;
        this.cpu = core;
        this.memory = driver.memory();
        this.qpn = qpn;
        this.ringBase = ringBase;
        this.size = 1 << logSize;
        this.strideSegs = 1 << logStride;
        this.strideBytes = RecvWqe.strideBytes(logStride);
        this.dbRecord = dbRecord;
        this.maxSge = maxSge;
        mirror = new byte[size * strideBytes];
        wrIds = new long[size];
    }

    public int qpn() {
        return qpn;
    }

    /** Receive WQEs posted and not yet consumed. */
    public int outstanding() {
        return producer - consumer;
    }

    public int size() {
        return size;
    }

    /**
     * Posts one receive WQE scattering into {@code sges} (null or empty: a zero-length receive).
     * Returns false when the ring or the CPU's work queue is full.
     */
    public boolean post(long wrId, SgeList sges) {
        int n = sges == null ? 0 : sges.count();
        if (n > maxSge) {
            throw new IllegalArgumentException(n + " SGEs exceed the QP's maxRecvSge " + maxSge);
        }
        if (producer - consumer == size) {
            driver.rqFull.inc();
            return false;
        }
        if (!cpu.hasRoom(1)) {
            cpu.refused();
            return false;
        }
        int slot = producer & (size - 1);
        int off = slot * strideBytes;
        for (int i = 0; i < n; i++) {
            RecvWqe.writeSge(mirror, off, i, sges.address(i), sges.length(i), sges.key(i));
        }
        RecvWqe.terminate(mirror, off, n, strideSegs);
        wrIds[slot] = wrId;
        int first = producer;
        producer++;
        cpu.storeRing(HostCpu.STORE_RQ, this, first, 1, producer, driver.wqeBuildPs);
        cpu.kick();
        driver.recvsPosted.inc();
        return true;
    }

    /** CPU work item: the receive WQEs, then the receive counter of the doorbell record. */
    void store(int first, int n, int counter) {
        int slot = first & (size - 1);
        int run = Math.min(n, size - slot);
        memory.write(ringBase + (long) slot * strideBytes, mirror, slot * strideBytes, run * strideBytes);
        if (run < n) {
            memory.write(ringBase, mirror, 0, (n - run) * strideBytes);
        }
        memory.putIntBE(dbRecord + Doorbells.OFF_RECV_COUNTER, counter & 0xFFFF);
    }

    /** Retires the receive WQE a responder CQE names by its 16-bit counter; returns its wrId. */
    long retire(int wqeCounter) {
        if (consumer == producer || (consumer & 0xFFFF) != wqeCounter) {
            throw new InvariantViolation("QP " + qpn + ": receive CQE names WQE " + wqeCounter + ", expected "
                    + (consumer & 0xFFFF) + " with " + (producer - consumer) + " outstanding");
        }
        long id = wrIds[consumer & (size - 1)];
        consumer++;
        return id;
    }
}
