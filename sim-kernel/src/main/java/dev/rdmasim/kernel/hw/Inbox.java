package dev.rdmasim.kernel.hw;

import dev.rdmasim.kernel.tlm.RxPort;

/**
 * A bounded input buffer through which transaction-level traffic enters a clocked module, like the
 * input flops of a block. An item delivered at time {@code t} is visible to the owner from its first
 * edge strictly after {@code t}, whatever the order of events at {@code t}. The owner takes items in
 * {@code evaluate()}; they leave at commit, and a refused sender is then told to retry.
 */
public final class Inbox<T> extends Register {
    private final int capacity;
    private final Object[] items;
    private final long[] arrivals;
    private int head;
    private int count;
    private int taken;

    /** The receiving end to connect a {@link dev.rdmasim.kernel.tlm.TxPort} to. */
    public final RxPort<T> rx;

    public Inbox(ClockedModule owner, String name, int capacity) {
        super(owner, name);
        if (capacity < 1) {
            throw new IllegalArgumentException("inbox '" + owner.fullName() + "." + name + "': capacity must be at least 1");
        }
        this.capacity = capacity;
        this.items = new Object[capacity];
        this.arrivals = new long[capacity];
        this.rx = new RxPort<>(owner.fullName() + "." + name, this::deliver);
    }

    private boolean deliver(T item) {
        if (count == capacity) {
            return false;
        }
        int tail = (head + count) % capacity;
        items[tail] = item;
        arrivals[tail] = owner.now();
        count++;
        owner.wake();
        return true;
    }

    public int capacity() {
        return capacity;
    }

    /** Items held, including ones not yet visible. */
    public int size() {
        return count;
    }

    private boolean visible(int offset) {
        if (offset >= count) {
            return false;
        }
        long edge = owner.clock().edgeTime(owner.cycle());
        return arrivals[(head + offset) % capacity] < edge;
    }

    /** The next visible item not yet taken this cycle, or null. */
    @SuppressWarnings("unchecked")
    public T peek() {
        return visible(taken) ? (T) items[(head + taken) % capacity] : null;
    }

    /** Takes the next visible item (it leaves the inbox at commit). Only in {@code evaluate()}. */
    @SuppressWarnings("unchecked")
    public T take() {
        checkWritable();
        if (!visible(taken)) {
            throw new IllegalStateException("inbox '" + name + "' of '" + owner.fullName() + "' has no visible item to take");
        }
        return (T) items[(head + taken++) % capacity];
    }

    @Override
    void commit() {
        if (taken == 0) {
            // Untaken items stay; delivery already woke the owner once for each of them.
            return;
        }
        for (int i = 0; i < taken; i++) {
            items[head] = null;
            head = (head + 1) % capacity;
        }
        count -= taken;
        taken = 0;
        if (count > 0) {
            owner.wake();
        }
        rx.sendRetry();
    }

    @Override
    void reset() {
        java.util.Arrays.fill(items, null);
        head = 0;
        count = 0;
        taken = 0;
    }
}
