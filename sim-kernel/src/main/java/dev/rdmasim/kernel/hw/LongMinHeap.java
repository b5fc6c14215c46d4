package dev.rdmasim.kernel.hw;

import java.util.Arrays;

/** A binary min-heap of primitive longs; holds a clock domain's future wake-ups without boxing. */
final class LongMinHeap {
    private long[] heap = new long[16];
    private int size;

    void add(long v) {
        if (size == heap.length) {
            heap = Arrays.copyOf(heap, size * 2);
        }
        int i = size++;
        while (i > 0) {
            int p = (i - 1) >>> 1;
            if (heap[p] <= v) {
                break;
            }
            heap[i] = heap[p];
            i = p;
        }
        heap[i] = v;
    }

    long peek() {
        return heap[0];
    }

    long poll() {
        long top = heap[0];
        long v = heap[--size];
        int i = 0;
        int half = size >>> 1;
        while (i < half) {
            int c = 2 * i + 1;
            if (c + 1 < size && heap[c + 1] < heap[c]) {
                c++;
            }
            if (v <= heap[c]) {
                break;
            }
            heap[i] = heap[c];
            i = c;
        }
        if (size > 0) {
            heap[i] = v;
        }
        return top;
    }

    boolean isEmpty() {
        return size == 0;
    }
}
