package dev.rdmasim.adapter.wire;

import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.StatsGroup;
import dev.rdmasim.kernel.stats.TimeAverage;
import dev.rdmasim.kernel.wave.Signal;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * One direction of an {@link EthernetLink}: a transmit queue, a serial line and the frames in flight.
 *
 * <p>Timing. A frame of n bytes (no FCS) occupies the line for {@link RoceLayout#wireBytes(int)}
 * byte times (preamble/SFD 8 + max(n, 60) + FCS 4 + inter-frame gap 12) and reaches the far end's MAC when
 * its slot ends, rounded up to the end of the FEC codeword that carries its last bit (codewords follow each other
 * from time zero, {@link EthernetLink.Fec}), plus the transmit PHY latency, the propagation delay and the receive
 * PHY latency ({@link EthernetLink.Phy}): a pipeline that delays every frame alike and never limits the rate.
 * It starts at the latest of the instant it is ready (see
 * {@link LinkEndpoint#send(Frame, long)}), the end of the previous slot and the end of the last stall.
 * Back-to-back frames share an epoch: each slot end is
 * {@code epoch + floor(bytesSinceEpoch * 8000 / rateGbps)} ps, so rounding never accumulates however
 * long the run.
 *
 * <p>Lazy timing. Those rules fix a frame's start, end and arrival as soon as the frames before it are
 * on the line, so no event marks a slot's end. A frame is <em>committed</em> (taken off the queue, given
 * its times, fault draw, counters and taps) whenever the model touches the direction at or after its
 * start: a send, an arrival, a retry. The one event per frame is its arrival, scheduled for the first
 * frame in flight or, if none, for the queue head's would-be arrival, which commits it then. Commits run
 * in start order, so the fault stream is drawn in the same order as if each start had been an event.
 * The time averages ({@code busy}, {@code txQueue}) are fed the level changes at the instants they
 * happened, through the link's statistics clock ({@link LinkClock}); hence its statistics group is
 * registered here and {@link #stats()} must not be called on a direction. Only when a tap is attached or a waveform signal
 * is traced does an observation event follow the line's changes as they happen, so that taps see frames
 * in time order and signals change at the right instants.
 *
 * <p>Lossless backpressure. If the receiver refuses a frame, it is parked at the end of the line and
 * the direction stalls: nothing more is delivered and no new frame starts (a frame already on the line,
 * one whose start is no later than the refusal, finishes and lands behind the parked one), as a PFC
 * pause would do. The receiver's {@link LinkEndpoint#retryDelivery()} repeats the offer in a new event
 * and, once taken, the direction resumes. Nothing is lost and order is kept.
 *
 * <p>Faults. With {@link #setFaults} a frame is dropped or has one bit flipped with the given
 * probabilities, drawn from this direction's seeded stream in start order. The flipped bit lies
 * in the bytes the ICRC covers and cannot mask (BTH through ICRC, except BTH byte 4), so
 * {@link RoceReader} rejects the frame. Taps see the frame as sent.
 */
public final class LinkDirection extends Module {
    private static final long NEVER = Long.MAX_VALUE;

    private final EthernetLink link;
    private final LinkEndpoint from;
    private final LinkEndpoint to;
    private final int rate;
    /** Picoseconds per byte when whole (8000 / rate, e.g. 80 at 100 Gb/s): every slot then ends exactly, no division needed. */
    private final long psPerByte;
    /** Transmit PHY + propagation + receive PHY: the fixed part from the codeword's end to the far MAC. */
    private final long flight;
    /** FEC codeword period in ps (0 without FEC): a frame waits for the end of the codeword holding its last bit. */
    private final long codewordPs;
    // Frames sent and not yet on the line, in ready-time order (ties in send order); the first
    // readyCount of them are ready: that count is the txQueue level.
    private final Frame[] txQueue;
    private int txHead;
    private int txCount;
    private int readyCount;
    private final Frame[] inFlight;
    private int flightHead;
    private int flightCount;
    private Frame parked;
    /** End of the last committed slot; the line is busy before it. */
    private long lineFreeAt = -1;
    private long epochPs;
    private long epochBytes;
    /** No frame starts before the end of the last stall. */
    private long resumeAt;
    private long nextSequence;
    private long stallStartPs;
    /** The busy level as last fed to the statistics. */
    private boolean busyLevel;
    private double dropProbability;
    private double corruptProbability;
    private final SplittableRandom faults;

    private final Event arrival;
    private final Event retryEvent;
    private final Event observe;
    /** Whether the waveform traces busy or txQueue, which then change at their own instants. */
    private final boolean tracing;
    private final LinkClock clock;
    private boolean advancing;
    private boolean delivering;

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
        this.rate = link.rateGbps();
        this.psPerByte = 8000 % rate == 0 ? 8000 / rate : 0;
        EthernetLink.Phy phy = link.phy();
        this.flight = phy.txLatencyPs() + link.propagationPs() + phy.rxLatencyPs();
        this.codewordPs = (long) phy.fec().dataBits() * 1000 / rate;
        this.txQueue = new Frame[from.bufferCount()];
        this.inFlight = new Frame[from.bufferCount()];
        this.faults = random();
        this.arrival = sim().event(fullName() + ".arrival", this::onArrival);
        this.retryEvent = sim().event(fullName() + ".retry", this::onRetry);
        this.observe = sim().event(fullName() + ".observe", this::onObserve);
        // The same path and order as Module.stats() would give, with the link's clock that can stamp past instants.
        this.clock = link.clock();
        StatsGroup stats = sim().stats().register(new StatsGroup(fullName(), clock));
        this.framesSent = stats.counter("framesSent", "frames", "frames put on the line");
        this.bytesSent = stats.counter("bytesSent", "bytes", "frame bytes put on the line (Ethernet header to ICRC and padding, no FCS)");
        this.wireBytes = stats.counter("wireBytes", "bytes", "line byte times used, with preamble/SFD, minimum-size padding, FCS and inter-frame gap");
        this.framesDelivered = stats.counter("framesDelivered", "frames", "frames accepted by the far receiver");
        this.framesDropped = stats.counter("framesDropped", "frames", "frames lost by fault injection");
        this.framesCorrupted = stats.counter("framesCorrupted", "frames", "frames delivered with one bit flipped by fault injection");
        this.refusals = stats.counter("refusals", "offers", "deliveries the receiver refused (each stalls the direction)");
        this.stalledPs = stats.counter("stalledTime", "ps", "time the direction spent stalled by a refusing receiver (counted when it resumes)");
        this.busy = stats.timeAverage("busy", "fraction", "fraction of time the line carried a frame slot (time average of 0/1)");
        this.queued = stats.timeAverage("txQueue", "frames", "frames waiting to start on the line");
        this.busySignal = signal("busy", 1);
        this.queuedSignal = signal("txQueue", 16);
        this.stalledSignal = signal("stalled", 1);
        this.tracing = busySignal.enabled() || queuedSignal.enabled();
    }

    /** Per-frame probabilities of losing it and of flipping one bit; their sum must not exceed 1. */
    public void setFaults(double drop, double corrupt) {
        if (!(drop >= 0 && drop <= 1)) {
            throw new IllegalArgumentException("drop probability must be in [0, 1], got " + drop);
        }
        if (!(corrupt >= 0 && corrupt <= 1) || drop + corrupt > 1) {
            throw new IllegalArgumentException("corrupt probability must be in [0, 1 - drop], got " + corrupt + " with drop " + drop);
        }
        // Frames that started before now drew their fate under the old probabilities.
        advanceTo(now());
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
        advanceTo(now());
        return framesSent.value();
    }

    public long bytesSent() {
        advanceTo(now());
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

    /** Queues {@code f}, which may not start before {@code readyPs} (at least now). */
    void enqueue(Frame f, long readyPs) {
        if (txCount == txQueue.length) {
            throw new InvariantViolation(fullName() + ": transmit queue overflow");
        }
        f.moveTo(Frame.HELD_BY_SENDER, Frame.QUEUED);
        f.readyPs = readyPs;
        long now = now();
        advanceTo(now); // the line's own changes at this instant come before the send
        // After every frame ready no later. Frames already counted ready are ready by now <= readyPs,
        // so the ready ones stay a prefix of the queue.
        int i = txCount;
        while (i > 0) {
            Frame before = txQueue[slot(i - 1)];
            if (before.readyPs <= readyPs) {
                break;
            }
            txQueue[slot(i)] = before;
            i--;
        }
        txQueue[slot(i)] = f;
        txCount++;
        advanceTo(now);
        afterTouch();
    }

    private int slot(int i) {
        int s = txHead + i;
        return s < txQueue.length ? s : s - txQueue.length;
    }

    /** When the queue head would start: ready, line free, and not before the last stall ended. */
    private long headStart() {
        return Math.max(Math.max(txQueue[txHead].readyPs, lineFreeAt), resumeAt);
    }

    /**
     * A frame starting at {@code start} opens a new epoch after idle time, or where the running total lands
     * on a whole picosecond anyway (always, when a byte time is whole).
     */
    private boolean opensEpoch(long start) {
        return psPerByte != 0 || start != lineFreeAt || epochBytes * 8000 % rate == 0;
    }

    private long headArrival() {
        long start = headStart();
        int onWire = RoceLayout.wireBytes(txQueue[txHead].length());
        long end;
        if (psPerByte != 0) {
            end = start + onWire * psPerByte;
        } else if (opensEpoch(start)) {
            end = start + onWire * 8000L / rate;
        } else {
            end = epochPs + Math.multiplyExact(epochBytes + onWire, 8000L) / rate;
        }
        return arrivalAfter(end);
    }

    /** When a frame whose line slot ends at {@code end} is usable at the far MAC. */
    private long arrivalAfter(long end) {
        long decodable = codewordPs == 0 ? end : (end + codewordPs - 1) / codewordPs * codewordPs;
        return decodable + flight;
    }

    /**
     * When the busy line goes idle, given its head's start {@code s}: at the end of its slot, unless the head
     * starts right then having been ready before (a frame becoming ready at that very instant comes after the
     * line's own change, so the line is idle for no time).
     */
    private long idleAt(long s) {
        if (!busyLevel || (s == lineFreeAt && txQueue[txHead].readyPs < lineFreeAt)) {
            return NEVER;
        }
        return lineFreeAt;
    }

    /**
     * Brings the direction up to time {@code t}: commits every frame whose start is no later, and feeds
     * the statistics every level change, in time order. At one instant the line goes first (a slot
     * ending, then the head starting, its own readiness before its start), then other frames becoming ready.
     */
    void advanceTo(long t) {
        if (advancing) {
            return; // a tap or a statistics read from inside a commit
        }
        advancing = true;
        try {
            for (;;) {
                long s = parked == null && txCount > 0 ? headStart() : NEVER;
                long r = readyCount < txCount ? txQueue[slot(readyCount)].readyPs : NEVER;
                long e = idleAt(s);
                long x = Math.min(Math.min(s, r), e);
                if (x > t) {
                    return;
                }
                if (e == x) {
                    setBusy(false, x);
                } else if (s == x && readyCount > 0) {
                    setQueued(x, -1);
                    commitHead(x);
                } else if (s == x && !tracing && queued.max() > 0) {
                    // The head becomes ready and starts at once: txQueue holds 1 for no time, which only
                    // its maximum could see, and that is already at least 1.
                    commitHead(x);
                } else {
                    setQueued(x, +1);
                }
            }
        } finally {
            advancing = false;
        }
    }

    private void commitHead(long start) {
        Frame f = txQueue[txHead];
        txQueue[txHead] = null;
        txHead = txHead + 1 == txQueue.length ? 0 : txHead + 1;
        txCount--;
        f.moveTo(Frame.QUEUED, Frame.ON_WIRE);
        if (opensEpoch(start)) {
            epochPs = start;
            epochBytes = 0;
        }
        int len = f.length();
        int onWire = RoceLayout.wireBytes(len);
        epochBytes += onWire;
        long end = psPerByte != 0 ? start + onWire * psPerByte : epochPs + Math.multiplyExact(epochBytes, 8000L) / rate;
        f.txStartPs = start;
        f.arrivalPs = arrivalAfter(end);
        f.sequence = nextSequence++;
        drawFault(f);
        lineFreeAt = end;
        if (!busyLevel) {
            setBusy(true, start);
        }
        framesSent.inc();
        bytesSent.add(len);
        wireBytes.add(onWire);
        link.tap(start, f.data(), len);
        if (flightCount == inFlight.length) {
            throw new InvariantViolation(fullName() + ": in-flight ring overflow");
        }
        int slot = flightHead + flightCount++;
        inFlight[slot < inFlight.length ? slot : slot - inFlight.length] = f;
    }

    private void setBusy(boolean on, long at) {
        busyLevel = on;
        clock.stamp(at);
        busy.set(on ? 1 : 0);
        clock.release();
        if (tracing) {
            busySignal.set(on ? 1 : 0); // at == now: the observation event keeps traced levels on time
        }
    }

    private void setQueued(long at, int change) {
        readyCount += change;
        clock.stamp(at);
        queued.set(readyCount);
        clock.release();
        if (tracing) {
            queuedSignal.set(readyCount);
        }
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

    /**
     * Re-arms the events after the direction changed: the arrival of the first frame in flight (or the
     * queue head's would-be arrival), and, when observed, the next instant something observable changes.
     */
    private void afterTouch() {
        if (delivering) {
            return; // the delivery loop re-arms once it is done
        }
        long a = NEVER;
        if (parked == null) {
            if (flightCount > 0) {
                a = Math.max(now(), inFlight[flightHead].arrivalPs);
            } else if (txCount > 0) {
                a = headArrival();
            }
        }
        arm(arrival, a);
        if (tracing || link.hasTaps()) {
            armObserve();
        }
    }

    private void armObserve() {
        long s = parked == null && txCount > 0 ? headStart() : NEVER;
        long next = s; // taps see each frame at its start
        if (tracing) {
            if (readyCount < txCount) {
                next = Math.min(next, txQueue[slot(readyCount)].readyPs);
            }
            next = Math.min(next, idleAt(s));
        }
        arm(observe, next);
    }

    private static void arm(Event e, long at) {
        if (at == NEVER) {
            e.cancel();
        } else if (!e.scheduled()) {
            e.schedule(at);
        } else if (e.time() != at) {
            e.reschedule(at);
        }
    }

    /** A tap was added: commits then follow the line's starts. */
    void tapsChanged() {
        afterTouch();
    }

    private void onArrival() {
        advanceTo(now());
        deliverArrived();
        afterTouch();
    }

    private void onObserve() {
        advanceTo(now());
        afterTouch();
    }

    private void deliverArrived() {
        long now = now();
        delivering = true;
        try {
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
                    f.icrcSealed = false;
                    f.fault = Frame.FAULT_NONE;
                    framesCorrupted.inc();
                }
                offer(f);
            }
        } finally {
            delivering = false;
        }
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
        long now = now();
        advanceTo(now); // while stalled: only frames becoming ready and the line going idle
        Frame f = parked;
        parked = null;
        stalledPs.add(now - stallStartPs);
        stalledSignal.set(0);
        resumeAt = now;
        offer(f);
        if (parked == null) {
            // What landed during the stall goes first; the line restarts after it, unless it stalls again.
            deliverArrived();
        }
        advanceTo(now);
        afterTouch();
    }

    @Override
    protected void onReset() {
        advanceTo(now()); // frames that started before the reset stay counted and tapped
        arrival.cancel();
        retryEvent.cancel();
        observe.cancel();
        Arrays.fill(txQueue, null);
        Arrays.fill(inFlight, null);
        txHead = txCount = readyCount = flightHead = flightCount = 0;
        parked = null;
        lineFreeAt = -1;
        epochPs = 0;
        epochBytes = 0;
        resumeAt = 0;
        nextSequence = 0;
        long now = now();
        setBusy(false, now);
        setQueued(now, 0);
        stalledSignal.set(0);
    }
}
