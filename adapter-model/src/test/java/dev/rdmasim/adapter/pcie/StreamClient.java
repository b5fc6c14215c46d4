package dev.rdmasim.adapter.pcie;

import dev.rdmasim.kernel.Simulator;

/**
 * Test client that keeps a channel full of same-sized reads or writes to 4 KiB-aligned slots and measures data
 * throughput in simulated time between the {@code warm}-th and the {@code warm + measured}-th completion.
 */
final class StreamClient implements DmaCallback {
    private final Simulator sim;
    private final DmaChannel channel;
    private final boolean read;
    private final int size;
    private final long base;
    private final long stride;
    private final int slots;
    private final int warm;
    private final int measured;
    private final byte[] buffer;
    private long nextSeq;
    private long done;
    private long t0;
    private long t1;

    StreamClient(Simulator sim, DmaChannel channel, boolean read, int size, long base, int warm, int measured) {
        this.sim = sim;
        this.channel = channel;
        this.read = read;
        this.size = size;
        this.base = base;
        this.stride = (size + 4095L) / 4096 * 4096;
        this.slots = 64;
        this.warm = warm;
        this.measured = measured;
        this.buffer = new byte[size * channel.depth()];
    }

    /** Fills the channel; every completion resubmits its request. */
    void start() {
        for (int i = 0; i < channel.depth(); i++) {
            DmaRequest r = new DmaRequest();
            if (!channel.submit(prepare(r, i))) {
                throw new AssertionError("a fresh channel refused request " + i);
            }
        }
    }

    private DmaRequest prepare(DmaRequest r, int index) {
        long addr = base + (nextSeq++ % slots) * stride;
        return read ? r.read(addr, buffer, index * size, size, this, index)
                : r.write(addr, buffer, index * size, size, this, index, false);
    }

    private void completed(DmaRequest r) {
        done++;
        if (done == warm) {
            t0 = sim.now();
        } else if (done == warm + measured) {
            t1 = sim.now();
            sim.stop();
            return;
        }
        if (!channel.submit(prepare(r, (int) r.cookie()))) {
            throw new AssertionError("channel refused a resubmission");
        }
    }

    @Override
    public void readDone(DmaRequest r) {
        completed(r);
    }

    @Override
    public void writeSent(DmaRequest r) {
        completed(r);
    }

    /** Data throughput over the measurement window in Gb/s (bits per ns). */
    double gbps() {
        if (t1 == 0) {
            throw new AssertionError("the stream did not finish its measurement window");
        }
        return (double) measured * size * 8 * 1000 / (t1 - t0);
    }

    long windowStartPs() {
        return t0;
    }

    long windowEndPs() {
        return t1;
    }
}
