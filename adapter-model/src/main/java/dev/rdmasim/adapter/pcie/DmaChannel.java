package dev.rdmasim.adapter.pcie;

import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.stats.Bound;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.TimeAverage;
import dev.rdmasim.kernel.wave.Signal;

/**
 * One client's bounded submission queue into the {@link DmaEngine}. Requests of a channel are turned into TLPs in
 * submission order and their ready times never decrease, so they also leave on the link in that order; channels share
 * the link by round-robin, one TLP at a time. A full queue refuses the request and later calls the channel's retry
 * callback once a slot has freed.
 */
public final class DmaChannel {
    private final DmaEngine engine;
    private final String name;
    private final DmaRequest[] ring;
    /** This channel's bit in the engine's set of channels with requests queued. */
    private final long bit;
    private int head;
    private int count;
    private Runnable retry;
    private boolean refused;
    private final Event retryEvent;
    /** Ready time of the last request accepted. */
    private long lastReadyPs;

    final Counter submitted;
    final Counter refusals;
    private final TimeAverage occupancy;
    private final Bound full;
    private final Signal occupancySignal;

    DmaChannel(DmaEngine engine, String name, int depth, String depthParameter, int index) {
        this.engine = engine;
        this.bit = 1L << index;
        this.name = name;
        this.ring = new DmaRequest[depth];
        this.retryEvent = engine.sim().event(engine.fullName() + "." + name + ".retry", this::onRetry);
        var s = engine.stats();
        submitted = s.counter(name + "_submitted", "requests", "requests accepted on channel " + name);
        refusals = s.counter(name + "_refused", "requests", "requests refused on channel " + name + " (queue full)");
        occupancy = s.timeAverage(name + "_queued", "requests", "requests waiting on channel " + name);
        occupancySignal = engine.signalFor(name + "_queued", 16);
        full = s.bound(name + "_queue", "DMA queue of channel " + name, "every entry holds a request", depthParameter);
    }

    public String name() {
        return name;
    }

    public int depth() {
        return ring.length;
    }

    /** Requests waiting to be turned into TLPs, including the one in progress. */
    public int queued() {
        return count;
    }

    /** Called, in its own event, after a refused {@link #submit} once the queue has room. */
    public void setRetry(Runnable retry) {
        this.retry = retry;
    }

    /**
     * Accepts the request or, if the queue is full, refuses it (false) and owes the client a retry.
     *
     * <p>An accepted request is ready (its TLPs may start) at the later of now and its {@link DmaRequest#notBefore};
     * without one, at the later of now and the ready time of the channel's previous request, behind which it waits.
     * Ready times of a channel never decrease, which keeps its requests in order on the link: a request whose own
     * ready time lies before the previous request's is an {@link InvariantViolation}.
     */
    public boolean submit(DmaRequest r) {
        if (r.kind == null) {
            throw new IllegalArgumentException("DMA request submitted before read(...) or write(...) set it up");
        }
        if (r.inEngine) {
            throw new IllegalStateException("DMA request " + r + " submitted twice");
        }
        long now = engine.now();
        long ready = Math.max(now, r.notBeforePs == DmaRequest.NOW ? lastReadyPs : r.notBeforePs);
        if (ready < lastReadyPs) {
            throw new InvariantViolation(this + ": " + r + " ready at " + ready + " ps would overtake the channel's"
                    + " previous request, ready at " + lastReadyPs + " ps (ready times of a channel must not decrease)");
        }
        if (count == ring.length) {
            refused = true;
            refusals.inc();
            return false;
        }
        lastReadyPs = ready;
        r.readyPs = ready;
        r.engine = engine;
        r.inEngine = true;
        r.issued = 0;
        r.outstanding = r.length;
        r.sentSeen = false;
        r.appliedSeen = false;
        r.submitPs = now;
        int tail = head + count;
        ring[tail < ring.length ? tail : tail - ring.length] = r;
        if (count++ == 0) {
            engine.nonEmpty |= bit;
        }
        if (count == ring.length) {
            full.set(true);
        }
        submitted.inc();
        occupancy.set(count);
        occupancySignal.set(count);
        engine.wake();
        return true;
    }

    DmaRequest head() {
        return count == 0 ? null : ring[head];
    }

    /** The head request has been fully turned into TLPs. */
    void pop() {
        ring[head] = null;
        head = head + 1 == ring.length ? 0 : head + 1;
        if (count-- == ring.length) {
            full.set(false);
        }
        if (count == 0) {
            engine.nonEmpty &= ~bit;
        }
        occupancy.set(count);
        occupancySignal.set(count);
        if (refused && retry != null && !retryEvent.scheduled()) {
            retryEvent.scheduleIn(0);
        }
    }

    private void onRetry() {
        refused = false;
        retry.run();
    }

    @Override
    public String toString() {
        return engine.fullName() + "." + name;
    }
}
