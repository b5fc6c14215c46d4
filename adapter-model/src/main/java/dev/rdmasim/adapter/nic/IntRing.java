package dev.rdmasim.adapter.nic;

import dev.rdmasim.kernel.InvariantViolation;

/**
 * A FIFO of ints (QP numbers, slot indices). Callers keep membership unique with a flag per
 * entry, so its size is bounded by the number of QPs or slots; it grows (doubling) only when more
 * of them exist than ever before, never in steady state.
 */
final class IntRing {
    private int[] items;
    private int head;
    private int size;

    IntRing(int initialCapacity) {
        items = new int[Math.max(1, initialCapacity)];
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
        if (size == items.length) {
            int[] bigger = new int[items.length * 2];
            for (int i = 0; i < size; i++) {
                bigger[i] = items[(head + i) % items.length];
            }
            items = bigger;
            head = 0;
        }
        int tail = head + size;
        items[tail < items.length ? tail : tail - items.length] = v;
        size++;
    }

    int peek() {
        if (size <= 0) {
            throw new InvariantViolation("peek of an empty ring");
        }
        return items[head];
    }

    int poll() {
        int v = peek();
        head = head + 1 == items.length ? 0 : head + 1;
        size--;
        return v;
    }

    void clear() {
        head = 0;
        size = 0;
    }
}
