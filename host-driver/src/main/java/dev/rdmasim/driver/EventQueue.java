package dev.rdmasim.driver;

import dev.rdmasim.adapter.format.Eqe;
import dev.rdmasim.adapter.host.HostMemory;

/**
 * The adapter's event queue 0: a ring of 64-byte EQEs in host memory, read by the owner-bit rule.
 * {@link #poll()} returns whether an entry was taken; its fields are then available until the
 * next poll.
 */
public final class EventQueue {
    private final HostDriver driver;
    private final HostMemory memory;
    private final long ring;
    private final int logSize;
    private final byte[] entry = new byte[Eqe.SIZE];
    private long consumerIndex;

    EventQueue(HostDriver driver, long ring, int logSize) {
        this.driver = driver;
        this.memory = driver.memory();
        this.ring = ring;
        this.logSize = logSize;
    }

    /** Takes the next EQE if software owns it. */
    public boolean poll() {
        driver.cpu().charge(driver.pollPs);
        long addr = ring + ((consumerIndex & ((1L << logSize) - 1)) * Eqe.SIZE);
        memory.read(addr, entry, 0, Eqe.SIZE);
        if (!Eqe.isSoftwareOwned(entry, 0, consumerIndex, logSize)) {
            return false;
        }
        driver.cpu().charge(driver.pollMissPs); // a new entry: its line was invalidated by the adapter's write
        consumerIndex++;
        driver.eqesPolled.inc();
        return true;
    }

    /** {@code Eqe.TYPE_*} of the last polled entry. */
    public int type() {
        return Eqe.type(entry, 0);
    }

    /** CQ number of the last polled COMPLETION or CQ_ERROR entry. */
    public int cqn() {
        return type() == Eqe.TYPE_CQ_ERROR ? Eqe.cqErrorCqn(entry, 0) : Eqe.resource(entry, 0);
    }

    /** QP number of the last polled QP event. */
    public int qpn() {
        return Eqe.resource(entry, 0);
    }

    public long consumerIndex() {
        return consumerIndex;
    }
}
