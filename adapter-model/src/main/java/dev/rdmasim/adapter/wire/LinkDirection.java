package dev.rdmasim.adapter.wire;

import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.TimeAverage;
import dev.rdmasim.kernel.wave.Signal;
import java.util.SplittableRandom;

/**
 * One direction of an {@link EthernetLink}: a transmit queue, a serial line and the frames in flight.
 *
 * <p>Timing. A frame of n bytes (no FCS) occupies the line for {@link RoceLayout#wireBytes(int)}
 * byte times (preamble/SFD 8 + max(n, 60) + FCS 4 + inter-frame gap 12) and reaches the far end when
 * its slot ends plus the propagation delay. Back-to-back frames share an epoch: each slot end is
 * {@code epoch + floor(bytesSinceEpoch * 8000 / rateGbps)} ps, so rounding never accumulates however
 * long the run.
 *
 * <p>Lossless backpressure. If the receiver refuses a frame, it is parked at the end of the line and
 * the direction stalls: nothing more is delivered and no new frame starts (a frame already on the line
 * finishes and lands behind the parked one), as a PFC pause would do. The receiver's
 * {@link LinkEndpoint#retryDelivery()} repeats the offer in a new event and, once taken, the direction
 * resumes. Nothing is lost and order is kept.
 *
 * <p>Faults. With {@link #setFaults} a frame is dropped or has one bit flipped with the given
 * probabilities, drawn from this direction's seeded stream when the frame starts. The flipped bit lies
 * in the bytes the ICRC covers and cannot mask (BTH through ICRC, except BTH byte 4), so
 * {@link RoceReader} rejects the frame. Taps see the frame as sent.
 */
public final class LinkDirection extends Module {
    private final EthernetLink link;
    private final LinkEndpoint from;
    private final LinkEndpoint to;
    private final Frame[] txQueue;
    private int txHead;
    private int txCount;
    private final Frame[] inFlight;
    private int flightHead;
    private int flightCount;
    private Frame parked;
    private boolean transmitting;
    private long lineFreeAt = -1;
    private long epochPs;
    private long epochBytes;
    private long nextSequence;
    private long stallStartPs;
    private double dropProbability;
    private double corruptProbability;
    private final SplittableRandom faults;

    private final Event slotEnd;
    private final Event arrival;
    private final Event retryEvent;

    private final Counter framesSent;
    private final Counter bytesSent;
    private final Counter wireBytes;
    private final Counter framesDelivered;
    private final Counter framesDropped;
    private final Counter framesCorrupted;
    private final Counter refusals;
    private final Counter stalledPs;
    private final TimeAverage busy;
    private final TimeAverage queued;
    private final Signal busySignal;
    private final Signal queuedSignal;
    private final Signal stalledSignal;

    LinkDirection(EthernetLink link, String name, LinkEndpoint from, LinkEndpoint to) {
        super(link, name);
        this.link = link;
        this.from = from;
        this.to = to;
        this.txQueue = new Frame[from.bufferCount()];
        this.inFlight = new Frame[from.bufferCount()];
        this.faults = random();
        this.slotEnd = sim().event(fullName() + ".slotEnd", this::onSlotEnd);
        this.arrival = sim().event(fullName() + ".arrival", this::deliverArrived);
        this.retryEvent = sim().event(fullName() + ".retry", this::onRetry);
        this.framesSent = stats().counter("framesSent", "frames", "frames put on the line");
        this.bytesSent = stats().counter("bytesSent", "bytes", "frame bytes put on the line (Ethernet header to ICRC and padding, no FCS)");
        this.wireBytes = stats().counter("wireBytes", "bytes", "line byte times used, with preamble/SFD, minimum-size padding, FCS and inter-frame gap");
        this.framesDelivered = stats().counter("framesDelivered", "frames", "frames accepted by the far receiver");
        this.framesDropped = stats().counter("framesDropped", "frames", "frames lost by fault injection");
        this.framesCorrupted = stats().counter("framesCorrupted", "frames", "frames delivered with one bit flipped by fault injection");
        this.refusals = stats().counter("refusals", "offers", "deliveries the receiver refused (each stalls the direction)");
        this.stalledPs = stats().counter("stalledTime", "ps", "time the direction spent stalled by a refusing receiver (counted when it resumes)");
        this.busy = stats().timeAverage("busy", "fraction", "fraction of time the line carried a frame slot (time average of 0/1)");
        this.queued = stats().timeAverage("txQueue", "frames", "frames waiting to start on the line");
        this.busySignal = signal("busy", 1);
        this.queuedSignal = signal("txQueue", 16);
        this.stalledSignal = signal("stalled", 1);
    }

    /** Per-frame probabilities of losing it and of flipping one bit; their sum must not exceed 1. */
    public void setFaults(double drop, double corrupt) {
        if (!(drop >= 0 && drop <= 1)) {
            throw new IllegalArgumentException("drop probability must be in [0, 1], got " + drop);
        }
        if (!(corrupt >= 0 && corrupt <= 1) || drop + corrupt > 1) {
            throw new IllegalArgumentException("corrupt probability must be in [0, 1 - drop], got " + corrupt + " with drop " + drop);
        }
        this.dropProbability = drop;
        this.corruptProbability = corrupt;
    }

    public LinkEndpoint from() {
        return from;
    }

    public LinkEndpoint to() {
        return to;
    }

    /** True while a refused frame waits for the receiver's retry. */
    public boolean stalled() {
        return parked != null;
    }

    public long framesSent() {
        return framesSent.value();
    }

    public long bytesSent() {
        return bytesSent.value();
    }

    public long framesDelivered() {
        return framesDelivered.value();
    }

    public long framesDropped() {
        return framesDropped.value();
    }

    public long framesCorrupted() {
        return framesCorrupted.value();
    }

    public long refusals() {
        return refusals.value();
    }

    /** Time-averaged fraction of time the line was busy, since creation or the last statistics reset. */
    public double busyFraction() {
        return busy.average();
    }

    void enqueue(Frame f) {
        if (txCount == txQueue.length) {
            throw new InvariantViolation(fullName() + ": transmit queue overflow");
        }
        f.moveTo(Frame.HELD_BY_SENDER, Frame.QUEUED);
        int tail = txHead + txCount++;
        txQueue[tail < txQueue.length ? tail : tail - txQueue.length] = f;
        queueChanged();
        tryStart();
    }

    private void tryStart() {
        if (transmitting || parked != null || txCount == 0) {
            return;
        }
        Frame f = txQueue[txHead];
        txQueue[txHead] = null;
        txHead = txHead + 1 == txQueue.length ? 0 : txHead + 1;
        txCount--;
        queueChanged();
        f.moveTo(Frame.QUEUED, Frame.ON_WIRE);

        long now = now();
        int rate = link.rateGbps();
        // A new epoch after idle time, or where the running total lands on a whole picosecond anyway.
        if (now != lineFreeAt || epochBytes * 8000 % rate == 0) {
            epochPs = now;
            epochBytes = 0;
        }
        int len = f.length();
        int onWire = RoceLayout.wireBytes(len);
        epochBytes += onWire;
        long end = epochPs + Math.multiplyExact(epochBytes, 8000L) / rate;
        f.txStartPs = now;
        f.arrivalPs = end + link.propagationPs();
        f.sequence = nextSequence++;
        drawFault(f);
        transmitting = true;
        busy.set(1);
        busySignal.set(1);
        framesSent.inc();
        bytesSent.add(len);
        wireBytes.add(onWire);
        link.tap(now, f.data(), len);
        if (flightCount == inFlight.length) {
            throw new InvariantViolation(fullName() + ": in-flight ring overflow");
        }
        int slot = flightHead + flightCount++;
        inFlight[slot < inFlight.length ? slot : slot - inFlight.length] = f;
        slotEnd.schedule(end);
        armArrival();
    }

    private void drawFault(Frame f) {
        f.fault = Frame.FAULT_NONE;
        if (dropProbability == 0 && corruptProbability == 0) {
            return;
        }
        double u = faults.nextDouble();
        if (u < dropProbability) {
            f.fault = Frame.FAULT_DROP;
        } else if (u < dropProbability + corruptProbability) {
            f.fault = Frame.FAULT_CORRUPT;
            f.corruptBit = corruptibleBit(f);
        }
    }

    /** A bit the receiver must notice: BTH to end of ICRC minus BTH byte 4, or anywhere in a non-IPv4 frame. */
    private int corruptibleBit(Frame f) {
        byte[] d = f.data();
        int len = f.length();
        if (len >= RoceLayout.MIN_ROCE_FRAME && RoceLayout.u16(d, RoceLayout.ETH_TYPE) == RoceLayout.ETHERTYPE_IPV4) {
            int end = Math.min(len, RoceLayout.IP_OFFSET + RoceLayout.u16(d, RoceLayout.IP_OFFSET + 2));
            int bits = (end - RoceLayout.BTH_OFFSET - 1) * 8;
            if (bits > 0) {
                int bit = RoceLayout.BTH_OFFSET * 8 + faults.nextInt(bits);
                return bit >= (RoceLayout.BTH_OFFSET + 4) * 8 ? bit + 8 : bit;
            }
        }
        return faults.nextInt(len * 8);
    }

    private void onSlotEnd() {
        transmitting = false;
        lineFreeAt = now();
        tryStart();
        if (!transmitting) {
            busy.set(0);
            busySignal.set(0);
        }
    }

    private void armArrival() {
        if (parked == null && flightCount > 0 && !arrival.scheduled()) {
            arrival.schedule(Math.max(now(), inFlight[flightHead].arrivalPs));
        }
    }

    private void deliverArrived() {
        long now = now();
        while (parked == null && flightCount > 0 && inFlight[flightHead].arrivalPs <= now) {
            Frame f = inFlight[flightHead];
            inFlight[flightHead] = null;
            flightHead = flightHead + 1 == inFlight.length ? 0 : flightHead + 1;
            flightCount--;
            if (f.fault == Frame.FAULT_DROP) {
                framesDropped.inc();
                f.moveTo(Frame.ON_WIRE, Frame.HELD_BY_RECEIVER);
                f.release();
                continue;
            }
            if (f.fault == Frame.FAULT_CORRUPT) {
                f.data()[f.corruptBit >>> 3] ^= (byte) (1 << (f.corruptBit & 7));
                f.fault = Frame.FAULT_NONE;
                framesCorrupted.inc();
            }
            offer(f);
        }
        armArrival();
    }

    private void offer(Frame f) {
        f.moveTo(Frame.ON_WIRE, Frame.HELD_BY_RECEIVER);
        if (to.offer(f)) {
            framesDelivered.inc();
            return;
        }
        if (f.state == Frame.HELD_BY_RECEIVER) {
            f.state = Frame.ON_WIRE;
        } else {
            throw new IllegalStateException("receiver at " + to.fullName() + " refused " + f + " but released it");
        }
        parked = f;
        refusals.inc();
        stallStartPs = now();
        stalledSignal.set(1);
    }

    void retry() {
        if (parked != null && !retryEvent.scheduled()) {
            retryEvent.scheduleIn(0);
        }
    }

    private void onRetry() {
        if (parked == null) {
            return;
        }
        Frame f = parked;
        parked = null;
        stalledPs.add(now() - stallStartPs);
        stalledSignal.set(0);
        offer(f);
        if (parked == null) {
            deliverArrived();
            tryStart();
        }
    }

    private void queueChanged() {
        queued.set(txCount);
        queuedSignal.set(txCount);
    }

    @Override
    protected void onReset() {
        slotEnd.cancel();
        arrival.cancel();
        retryEvent.cancel();
        java.util.Arrays.fill(txQueue, null);
        java.util.Arrays.fill(inFlight, null);
        txHead = txCount = flightHead = flightCount = 0;
        parked = null;
        transmitting = false;
        lineFreeAt = -1;
        epochBytes = 0;
        nextSequence = 0;
        busy.set(0);
        busySignal.set(0);
        stalledSignal.set(0);
        queueChanged();
    }
}
