package dev.rdmasim.adapter.wire;

import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.Mailbox;
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
 * <p>With priority flow control ({@link EthernetLink.Pfc}) the port's buffers are those of a real Ethernet port
 * instead: {@code poolSize} transmit buffers, each busy from {@link #acquire()} until its frame's slot on the line
 * has ended (the MAC has sent it), and as many receive buffers, each taken when a frame is delivered to this end's
 * receiver and given back by its {@link Frame#release()}. A frame that finds every receive buffer taken waits in the
 * MAC's FIFO like a refused one. Nothing then passes between the two ends of the cable but frames: a release at the
 * far end does not free a buffer here. The {@link Frame} objects themselves are only carriers, made as needed.
 *
 * <p>Its statistics group is registered here, with a clock that first brings the link's lazily timed
 * lines up to date (see {@link LinkDirection}), so a dump or reset of the statistics sees every frame
 * that has started; {@link #stats()} must not be called on an endpoint.
 */
public final class LinkEndpoint extends Module {
    private final LinkClock clock;
    private Frame[] all;
    private Frame[] free;
    private int freeCount;
    private int allCount;
    private final int poolSize;
    /** Real port buffers ({@link EthernetLink.Pfc} on): transmit slots and receive buffers counted apart. */
    private final boolean portBuffers;
    /** Transmit buffers taken, and the instants the committed frames among them leave the line, in order. */
    private int txBusy;
    private long[] slotFreePs = new long[16];
    private int slotHead;
    private int slotCount;
    /** Receive buffers held by frames delivered to this end's receiver. */
    private int rxHeld;
    private TimeAverage rxInUse;
    private Bound rxFull;
    private final Event bufferRetryEvent;
    /** With real port buffers and the buffersInUse signal traced: the instant the next transmit buffer frees. */
    private final Event slotEvent;
    private final Counter acquireRefusals;
    private final TimeAverage inUse;
    private final Bound full;
    private final Signal inUseSignal;
    private Runnable bufferRetry;
    private boolean senderWaiting;
    private Acceptor<Frame> receiver;
    /** The port's MAC address, the source of the pause frames it sends (0 until an adapter attaches). */
    private long mac;
    LinkDirection outgoing;
    LinkDirection incoming;

    /** Of a split link ({@link EthernetLink#split}): frames the far end released come back by this mailbox; else null. */
    private Mailbox<Frame> farReturns;

    LinkEndpoint(EthernetLink link, Module parent, String name, int poolSize, LinkClock clock) {
        super(parent, name);
        this.poolSize = poolSize;
        this.portBuffers = link.flowControl().enabled();
        this.all = new Frame[poolSize];
        this.free = new Frame[poolSize];
        for (int i = poolSize - 1; i >= 0; i--) {
            all[i] = new Frame(this, i);
            free[freeCount++] = all[i];
        }
        allCount = poolSize;
        this.bufferRetryEvent = sim().event(fullName() + ".bufferRetry", this::fireBufferRetry);
        this.slotEvent = sim().event(fullName() + ".slotFree", this::onSlotEvent);
        // The same path and order as Module.stats() would give, with the clock of its end of the link.
        this.clock = clock;
        StatsGroup stats = sim().stats().register(new StatsGroup(fullName(), clock));
        this.acquireRefusals = stats.counter("acquireRefusals", "calls", "acquire() calls refused because every frame buffer was busy");
        this.inUse = stats.timeAverage("buffersInUse", "frames", "frame buffers acquired and not yet released");
        this.inUseSignal = signal("buffersInUse", 16);
        // A dump first brings the lines up to date (transmit buffers free lazily), so that folding the time at the
        // limit into its counter is not itself interrupted by the buffers freeing.
        stats.setRefresh(clock::nowPs);
        if (portBuffers) {
            this.full = stats.bound("buffers", "transmit buffers", "every transmit buffer filled, queued or on the line",
                    "link.rxBufferFrames");
            this.rxInUse = stats.timeAverage("rxBuffersInUse", "frames", "receive buffers holding frames delivered to this end");
            this.rxFull = stats.bound("rxBuffers", "receive buffers", "every receive buffer holds a delivered frame",
                    "link.rxBufferFrames");
        } else {
            this.full = stats.bound("buffers", "frame buffers", "every buffer queued, on the wire or held by the far"
                    + " receiver", "link.rxBufferFrames");
        }
    }

    /** A free frame buffer (length 0) for the sender, or null when all are busy (then {@link #onBufferFree} will fire). */
    public Frame acquire() {
        if (portBuffers) {
            catchUpSlots();
            if (txBusy == poolSize) {
                senderWaiting = true;
                acquireRefusals.inc();
                armSlotRetry();
                return null;
            }
            txBusy++;
            if (freeCount == 0) {
                newCarrier();
            }
        } else if (freeCount == 0) {
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
        if (portBuffers && senderWaiting) {
            // A frame ready sooner than the queue's head goes ahead of it, and its buffer then frees first.
            armSlotRetry();
        }
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

    /** Sets the port's MAC address (48 bits), which its pause frames carry as their source. */
    public void macAddress(long address) {
        if (address < 0 || address >>> 48 != 0) {
            throw new IllegalArgumentException("a MAC address has 48 bits, got 0x" + Long.toHexString(address));
        }
        this.mac = address;
    }

    public long macAddress() {
        return mac;
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

    /** Buffers free for {@link #acquire()}: transmit buffers, with {@link EthernetLink.Pfc}. */
    public int freeBuffers() {
        if (portBuffers) {
            catchUpSlots();
            return poolSize - txBusy;
        }
        return freeCount;
    }

    /** Receive buffers held by delivered frames (with {@link EthernetLink.Pfc}; 0 otherwise). */
    public int heldReceiveBuffers() {
        return rxHeld;
    }

    /** Whether a frame arriving now would find a receive buffer (always, without {@link EthernetLink.Pfc}). */
    boolean hasReceiveBuffer() {
        return !portBuffers || rxHeld < poolSize;
    }

    /** {@code f} is being delivered to this end's receiver: it holds a receive buffer until released. */
    void takeReceiveBuffer(Frame f) {
        if (portBuffers) {
            f.holdsReceiveBuffer = true;
            rxHeld++;
            rxLevelChanged();
        }
    }

    /** The receiver refused {@code f}: its receive buffer is free again. */
    void returnReceiveBuffer(Frame f) {
        if (portBuffers) {
            f.holdsReceiveBuffer = false;
            rxHeld--;
            rxLevelChanged();
        }
    }

    private void rxLevelChanged() {
        clock.stamp(now());
        rxInUse.set(rxHeld);
        rxFull.set(rxHeld == poolSize);
        clock.release();
    }

    /** A frame from this end was committed to the line: its transmit buffer frees when its slot ends. */
    void slotCommitted(long endPs) {
        if (!portBuffers) {
            return;
        }
        if (slotCount == slotFreePs.length) {
            slotFreePs = growRing(slotFreePs, slotHead, slotCount);
            slotHead = 0;
        }
        int i = slotHead + slotCount++;
        slotFreePs[i < slotFreePs.length ? i : i - slotFreePs.length] = endPs;
        if (senderWaiting) {
            armSlotRetry();
        }
        if (inUseSignal.enabled() && !slotEvent.scheduled()) {
            slotEvent.schedule(Math.max(now(), slotFreePs[slotHead])); // a traced level changes at its own instant
        }
    }

    /** The outgoing line's pause windows changed: a waiting sender's retry may come sooner. */
    void pauseMoved() {
        if (portBuffers && senderWaiting) {
            armSlotRetry();
        }
    }

    private void onSlotEvent() {
        catchUpSlots(); // may commit frames, whose slotCommitted arms this event again
        if (slotCount > 0 && !slotEvent.scheduled()) {
            slotEvent.schedule(Math.max(now(), slotFreePs[slotHead]));
        }
    }

    private static long[] growRing(long[] ring, int head, int count) {
        long[] bigger = new long[ring.length * 2];
        for (int k = 0; k < count; k++) {
            int i = head + k;
            bigger[k] = ring[i < ring.length ? i : i - ring.length];
        }
        return bigger;
    }

    /** Frees the transmit buffers whose frames have left the line by now, each at its own instant. */
    void catchUpSlots() {
        if (!portBuffers) {
            return;
        }
        long now = now();
        if (outgoing != null) {
            outgoing.advanceTo(now); // frames that started by now are committed, so their ends are known
        }
        while (slotCount > 0 && slotFreePs[slotHead] <= now) {
            long at = slotFreePs[slotHead];
            slotHead = slotHead + 1 == slotFreePs.length ? 0 : slotHead + 1;
            slotCount--;
            txBusy--;
            levelChangedAt(at);
        }
    }

    /**
     * A sender waits for a transmit buffer: the retry comes when the first committed frame leaves the line, or,
     * if none is committed, when the first queued one would (early if a pause delays it: it then looks again).
     */
    private void armSlotRetry() {
        if (bufferRetry == null) {
            return;
        }
        long at = slotCount > 0 ? slotFreePs[slotHead] : outgoing.headSlotEndPs();
        if (at == Long.MAX_VALUE) {
            return; // every buffer is held by the sender itself: it sends one first
        }
        at = Math.max(at, now());
        if (!bufferRetryEvent.scheduled()) {
            bufferRetryEvent.schedule(at);
        } else if (bufferRetryEvent.time() > at) {
            bufferRetryEvent.reschedule(at);
        }
    }

    private void newCarrier() {
        if (allCount == all.length) {
            all = java.util.Arrays.copyOf(all, all.length * 2);
        }
        Frame f = new Frame(this, allCount);
        all[allCount++] = f;
        pushFree(f);
    }

    boolean offer(Frame f) {
        if (receiver == null) {
            throw new IllegalStateException("frame arrived at " + fullName() + " which has no receiver; call connectReceiver()");
        }
        return receiver.accept(f);
    }

    void recycle(Frame f) {
        int was = f.state;
        if (farReturns != null && was != Frame.HELD_BY_SENDER) {
            // Released by the far end's receiver, on its partition's thread: its receive buffer frees now, bytes still
            // lent to its DMA writes stay there (the far end's spares give the frame others), and the carrier comes
            // home by the mailbox between windows.
            f.keepLentBytes(outgoing.to());
            releaseFarReceiveBuffer(f);
            f.state = Frame.FREE;
            farReturns.post(f);
            return;
        }
        f.keepLentBytes();
        f.state = Frame.FREE;
        pushFree(f);
        if (portBuffers) {
            // The carrier comes back; the buffer freed is the far receiver's, the sender's own if never sent, or
            // none (a frame lost on the way).
            if (f.holdsReceiveBuffer) {
                releaseFarReceiveBuffer(f);
            } else if (was == Frame.HELD_BY_SENDER) {
                catchUpSlots();
                txBusy--;
                levelChanged();
                wakeSender();
            }
            return;
        }
        levelChanged();
        wakeSender();
    }

    private void pushFree(Frame f) {
        if (freeCount == free.length) {
            free = java.util.Arrays.copyOf(free, free.length * 2);
        }
        free[freeCount++] = f;
    }

    /** A sender refused a buffer gets its retry, in an event of its own. */
    private void wakeSender() {
        if (senderWaiting && bufferRetry != null && !bufferRetryEvent.scheduled()) {
            bufferRetryEvent.scheduleIn(0);
        }
    }

    /** {@code f}, delivered to the far end, gives back the receive buffer it held there. */
    private void releaseFarReceiveBuffer(Frame f) {
        if (f.holdsReceiveBuffer) {
            f.holdsReceiveBuffer = false;
            outgoing.to().releaseReceiveBuffer();
        }
    }

    void returnsFromFar(Mailbox<Frame> mailbox) {
        this.farReturns = mailbox;
    }

    /** Of a split link, between windows: a carrier the far end released joins the free ones. */
    void takeBack(Frame f) {
        f.keepLentBytes();
        pushFree(f);
    }

    /** A delivered frame was released: its receive buffer frees, and a frame waiting for one is offered again. */
    private void releaseReceiveBuffer() {
        rxHeld--;
        rxLevelChanged();
        incoming.receiveBufferFreed();
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
        if (portBuffers) {
            catchUpSlots();
            if (txBusy == poolSize) {
                armSlotRetry(); // the frame it waited for was delayed by a pause
                return;
            }
        }
        senderWaiting = false;
        bufferRetry.run();
    }

    private void levelChanged() {
        levelChangedAt(now()); // its own change, at now: no need to bring the lines up to date first
    }

    private void levelChangedAt(long at) {
        int used = portBuffers ? txBusy : poolSize - freeCount;
        clock.stamp(at);
        inUse.set(used);
        full.set(used == poolSize);
        clock.release();
        inUseSignal.set(used);
    }

    /** Every buffer back to the pool, including frames a receiver still held. */
    @Override
    protected void onReset() {
        bufferRetryEvent.cancel();
        slotEvent.cancel();
        senderWaiting = false;
        freeCount = 0;
        for (int i = allCount - 1; i >= 0; i--) {
            all[i].holdsReceiveBuffer = false;
            all[i].keepLentBytes();
            all[i].state = Frame.FREE;
            free[freeCount++] = all[i];
        }
        if (portBuffers) {
            txBusy = 0;
            slotCount = 0;
            rxHeld = 0;
            rxLevelChanged();
        }
        levelChanged();
    }
}
