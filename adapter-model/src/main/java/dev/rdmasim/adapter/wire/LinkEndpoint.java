package dev.rdmasim.adapter.wire;

import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.stats.Bound;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.StatsGroup;
import dev.rdmasim.kernel.stats.TimeAverage;
import dev.rdmasim.kernel.tlm.Acceptor;
import dev.rdmasim.kernel.wave.Signal;
import java.util.Objects;

/**
 * One end of an {@link EthernetLink}, where an adapter's MAC attaches. It owns the pool of frame
 * buffers this end sends from: a buffer is busy from {@link #acquire()} until the far receiver
 * {@link Frame#release() releases} it, so the pool bounds this end's queued, in-flight and
 * not-yet-consumed frames together. An empty pool is visible backpressure: {@link #acquire()} returns
 * null and the callback given to {@link #onBufferFree} runs (in its own event) once a buffer returns.
 *
 * <p>Received frames go to the {@link Acceptor} given to {@link #connectReceiver}. A receiver that
 * refuses a frame owes a {@link #retryDelivery()}; until then the frame waits at the end of the line
 * and the whole incoming direction stalls (see {@link LinkDirection}).
 *
 * <p>Its statistics group is registered here, with a clock that first brings the link's lazily timed
 * lines up to date (see {@link LinkDirection}), so a dump or reset of the statistics sees every frame
 * that has started; {@link #stats()} must not be called on an endpoint.
 */
public final class LinkEndpoint extends Module {
    private final LinkClock clock;
    private final Frame[] all;
    private final Frame[] free;
    private int freeCount;
    private final int poolSize;
    private final Event bufferRetryEvent;
    private final Counter acquireRefusals;
    private final TimeAverage inUse;
    private final Bound full;
    private final Signal inUseSignal;
    private Runnable bufferRetry;
    private boolean senderWaiting;
    private Acceptor<Frame> receiver;
    LinkDirection outgoing;
    LinkDirection incoming;

    LinkEndpoint(EthernetLink link, String name, int poolSize) {
        super(link, name);
        this.poolSize = poolSize;
        this.all = new Frame[poolSize];
        this.free = new Frame[poolSize];
        for (int i = poolSize - 1; i >= 0; i--) {
            all[i] = new Frame(this, i);
            free[freeCount++] = all[i];
        }
        this.bufferRetryEvent = sim().event(fullName() + ".bufferRetry", this::fireBufferRetry);
        // The same path and order as Module.stats() would give, with the link's clock.
        this.clock = link.clock();
        StatsGroup stats = sim().stats().register(new StatsGroup(fullName(), clock));
        this.acquireRefusals = stats.counter("acquireRefusals", "calls", "acquire() calls refused because every frame buffer was busy");
        this.inUse = stats.timeAverage("buffersInUse", "frames", "frame buffers acquired and not yet released");
        this.inUseSignal = signal("buffersInUse", 16);
        this.full = stats.bound("buffers", "frame buffers", "every buffer queued, on the wire or held by the far"
                + " receiver", "link.rxBufferFrames");
    }

    /** A free frame buffer (length 0) for the sender, or null when all are busy (then {@link #onBufferFree} will fire). */
    public Frame acquire() {
        if (freeCount == 0) {
            senderWaiting = true;
            acquireRefusals.inc();
            return null;
        }
        Frame f = free[--freeCount];
        free[freeCount] = null;
        f.moveTo(Frame.FREE, Frame.HELD_BY_SENDER);
        f.clearForSender();
        levelChanged();
        return f;
    }

    /** Queues a filled frame for transmission now; the frame must come from this endpoint's {@link #acquire()}. */
    public void send(Frame f) {
        send(f, now());
    }

    /**
     * Queues a filled frame that may not start on the line before {@code readyPs} (at least now), e.g. the
     * instant a transmit pipeline would have finished it: the sender hands it over as soon as its bytes are
     * known instead of keeping an event of its own for the delay. The transmit queue is kept in ready-time
     * order, ties in send order, so a frame ready sooner overtakes one sent earlier but ready later.
     */
    public void send(Frame f, long readyPs) {
        if (f.pool != this) {
            throw new IllegalArgumentException("frame " + f + " belongs to " + f.pool.fullName() + ", not " + fullName());
        }
        if (f.state != Frame.HELD_BY_SENDER) {
            throw new IllegalStateException("frame " + f + " sent while " + f.stateName());
        }
        if (f.length() < RoceLayout.ETH_HEADER) {
            throw new IllegalStateException("frame " + f + " sent with length " + f.length() + "; set length() first");
        }
        if (readyPs < now()) {
            throw new IllegalArgumentException("readyPs " + readyPs + " of frame " + f + " is before now (" + now() + " ps)");
        }
        outgoing.enqueue(f, readyPs);
    }

    /** Sets the sender's retry: run, from its own event, when a buffer frees up after a refused {@link #acquire()}. */
    public void onBufferFree(Runnable retry) {
        this.bufferRetry = Objects.requireNonNull(retry, "retry");
    }

    /** Sets who receives the frames arriving at this end; it returns false to refuse (stall) a frame. */
    public void connectReceiver(Acceptor<Frame> acceptor) {
        if (receiver != null) {
            throw new IllegalStateException(fullName() + " already has a receiver");
        }
        this.receiver = Objects.requireNonNull(acceptor, "acceptor");
    }

    /** Called by a receiver that refused a frame and can now take it; the offer is repeated in a new event. */
    public void retryDelivery() {
        incoming.retry();
    }

    /** Frames sent from this end travel on this direction. */
    public LinkDirection outgoing() {
        return outgoing;
    }

    /** Frames received at this end travel on this direction. */
    public LinkDirection incoming() {
        return incoming;
    }

    public int bufferCount() {
        return poolSize;
    }

    public int freeBuffers() {
        return freeCount;
    }

    boolean offer(Frame f) {
        if (receiver == null) {
            throw new IllegalStateException("frame arrived at " + fullName() + " which has no receiver; call connectReceiver()");
        }
        return receiver.accept(f);
    }

    void recycle(Frame f) {
        f.keepLentBytes();
        f.state = Frame.FREE;
        free[freeCount++] = f;
        levelChanged();
        if (senderWaiting && bufferRetry != null && !bufferRetryEvent.scheduled()) {
            bufferRetryEvent.scheduleIn(0);
        }
    }

    /**
     * Arrays of frame bytes not in any buffer: given back by DMA writes that read them after their buffer was
     * recycled, and taken by buffers recycled while theirs are still read. Few are ever needed: as many as buffers
     * recycled within one host write latency.
     */
    private Frame.Bytes[] spares = new Frame.Bytes[4];
    private int spareCount;
    private int extraBytes;

    /**
     * Arrays of frame bytes made beyond one per buffer, for buffers recycled while DMA writes still read their bytes
     * (a simulation detail, not a statistic of the link).
     */
    public int extraByteArrays() {
        return extraBytes;
    }

    void spareBytes(Frame.Bytes b) {
        if (spareCount == spares.length) {
            spares = java.util.Arrays.copyOf(spares, spareCount * 2);
        }
        spares[spareCount++] = b;
    }

    Frame.Bytes takeSpareBytes() {
        if (spareCount == 0) {
            extraBytes++;
            return new Frame.Bytes(this); // only while the first writes are in flight: the spares then suffice
        }
        Frame.Bytes b = spares[--spareCount];
        spares[spareCount] = null;
        return b;
    }

    private void fireBufferRetry() {
        senderWaiting = false;
        bufferRetry.run();
    }

    private void levelChanged() {
        int used = poolSize - freeCount;
        clock.stamp(now()); // its own change, at now: no need to bring the lines up to date first
        inUse.set(used);
        full.set(freeCount == 0);
        clock.release();
        inUseSignal.set(used);
    }

    /** Every buffer back to the pool, including frames a receiver still held. */
    @Override
    protected void onReset() {
        bufferRetryEvent.cancel();
        senderWaiting = false;
        freeCount = 0;
        for (int i = poolSize - 1; i >= 0; i--) {
            all[i].keepLentBytes();
            all[i].state = Frame.FREE;
            free[freeCount++] = all[i];
        }
        levelChanged();
    }
}
