package dev.rdmasim.adapter.nic;

import dev.rdmasim.kernel.InvariantViolation;

/** A bounded FIFO of ints (QP numbers, slot indices) with no allocation after construction. */
final class IntRing {
    private final int[] items;
    private int head;
    private int size;

    IntRing(int capacity) {
        items = new int[capacity];
    }

    boolean isEmpty() {
        return size == 0;
    }

    boolean isFull() {
        return size == items.length;
    }

    int size() {
        return size;
    }

    void add(int v) {
        InvariantViolation.check(size < items.length, "ring of " + items.length + " overflowed");
        items[(head + size) % items.length] = v;
        size++;
    }

    int peek() {
        InvariantViolation.check(size > 0, "peek of an empty ring");
        return items[head];
    }

    int poll() {
        int v = peek();
        head = (head + 1) % items.length;
        size--;
        return v;
    }

    void clear() {
        head = 0;
        size = 0;
    }
}
