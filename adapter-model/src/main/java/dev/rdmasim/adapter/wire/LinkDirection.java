package dev.rdmasim.adapter.wire;

import dev.rdmasim.kernel.Crossing;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.Simulator;
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
 * <p>Priority flow control ({@link EthernetLink.Pfc}, instead of the stall). A refused frame is parked the same way,
 * but the transmitter goes on: frames arriving behind it wait in the receiving MAC's FIFO, counted at their own
 * arrival instants (an arrival event each while the FIFO is not empty). When the FIFO's bytes reach the XOFF
 * threshold the receiving port sends a pause frame on the {@link #reverse} line, at its first frame boundary and
 * ahead of any frame queued there (a MAC control frame is not itself paused); from the instant that frame arrives,
 * no frame starts on this line until its pause time has passed, a refresh extends it, or an XON, sent once the FIFO
 * has drained to the XON threshold, ends it where it arrives. A frame already on the line finishes. Both instants
 * are known when the pause frame is put on the line (nothing can go ahead of it), so the pause is placed on this
 * line at once and frames are committed around it as before; the pause frame's own slot, counters and tap go on the
 * reverse line. Pause frames draw no faults.
 *
 * <p>Split links ({@link EthernetLink#split}). The transmitter's half (queue, line timing, pause windows, the
 * observation event, which then fires at every frame start) runs in the sending end's partition, the receiver's
 * half (frames in flight, FIFO, refusals, XOFF and XON, their events) in the receiving end's. A frame is committed at
 * its start and crosses to the receiver then; a pause frame crosses on the reverse line and opens or ends this
 * line's pause window where it arrives.
 *
 * <p>Faults. With {@link #setFaults} a frame is dropped or has one bit flipped with the given
 * probabilities, drawn from this direction's seeded stream in start order. The flipped bit lies
 * in the bytes the ICRC covers and cannot mask (BTH through ICRC, except BTH byte 4), so
 * {@link RoceReader} rejects the frame. Taps see the frame as sent.
 */
public final class LinkDirection extends Module {
    private static final long NEVER = Long.MAX_VALUE;
    /** Pause windows (and untapped pause frames) one direction can have ahead; a power of two. */
    private static final int PAUSE_WINDOWS = 16;

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
    private Frame[] inFlight;
    private int flightHead;
    private int flightCount;
    private Frame parked;
    /** The parked frame found every receive buffer taken (it waits for a release, not for the receiver's retry). */
    private boolean waitsForBuffer;
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

    /** The simulator of the receiving end: the transmitter's own, unless the link is split over two partitions. */
    private final Simulator rxSim;
    /** The link is split ({@link EthernetLink#split}): frames and pause frames reach the far end by {@link #crossing}. */
    private final boolean split;
    private final Crossing<Object> crossing;
    private final LinkClock rxClock;
    private final Event arrival;
    private final Event retryEvent;
    private final Event observe;
    /** Whether the waveform traces busy or txQueue, which then change at their own instants. */
    private final boolean tracing;
    private final LinkClock clock;
    private boolean advancing;
    private boolean delivering;

    /** Priority flow control, or null for the instant stall. */
    private final EthernetLink.Pfc pfc;
    /** The line that carries this direction's pause frames back to its sender (itself for a loopback). */
    LinkDirection reverse;
    /** Picoseconds an XOFF's pause lasts. */
    private final long pausePs;
    // The receiving MAC's FIFO while a frame is parked: the first fifoFrames of inFlight have arrived behind it.
    private int fifoFrames;
    private long fifoBytes;
    /** An XOFF was sent and no XON since. */
    private boolean xoffActive;
    private final Event pauseRefresh;
    /**
     * Pause windows of this line's transmitter, in time order: no frame starts in [pauseFrom, pauseUntil). Each
     * opens where an XOFF arrives; a refresh or an XON moves the last one's end.
     */
    private final long[] pauseFrom = new long[PAUSE_WINDOWS];
    private final long[] pauseUntil = new long[PAUSE_WINDOWS];
    private int pauseHead;
    private int pauseCount;
    /** Pause frames on this line not yet shown to the taps (their start is later than when they were placed). */
    private final long[] controlTapPs = new long[PAUSE_WINDOWS];
    private final int[] controlTapQuanta = new int[PAUSE_WINDOWS];
    private int controlTapHead;
    private int controlTapCount;
    private final byte[] controlBytes = new byte[PauseFrame.LENGTH];
    /** The end of the slot of the last pause frame put on this line. */
    private long lastPauseEndPs;
    private Counter xoffSent;
    private Counter xonSent;
    private Counter pausedTime;
    private Counter pauseFramesCarried;
    private Counter fifoOverflows;
    private TimeAverage fifoLevel;

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

    LinkDirection(EthernetLink link, Module parent, String name, LinkEndpoint from, LinkEndpoint to) {
        super(parent, name);
        this.link = link;
        this.from = from;
        this.to = to;
        this.rxSim = to.sim();
        this.split = link.isSplit();
        this.rate = link.rateGbps();
        this.psPerByte = 8000 % rate == 0 ? 8000 / rate : 0;
        EthernetLink.Phy phy = link.phy();
        this.flight = phy.txLatencyPs() + link.propagationPs() + phy.rxLatencyPs();
        this.codewordPs = (long) phy.fec().dataBits() * 1000 / rate;
        this.txQueue = new Frame[from.bufferCount()];
        this.inFlight = new Frame[from.bufferCount()];
        this.faults = random();
        this.arrival = rxSim.event(fullName() + ".arrival", this::onArrival);
        this.retryEvent = rxSim.event(fullName() + ".retry", this::onRetry);
        this.observe = sim().event(fullName() + ".observe", this::onObserve);
        // The same path and order as Module.stats() would give, with the link's clock that can stamp past instants.
        this.clock = link.clock(from);
        this.rxClock = link.clock(to);
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
        EthernetLink.Pfc fc = link.flowControl();
        this.pfc = fc.enabled() ? fc : null;
        this.pausePs = PauseFrame.quantaPs(fc.quanta(), rate);
        this.pauseRefresh = rxSim.event(fullName() + ".pauseRefresh", this::onPauseRefresh);
        if (pfc != null) {
            // Registered only with PFC, so that the statistics of a stalling link stay as they were.
            xoffSent = stats.counter("xoffSent", "frames", "XOFF pause frames the receiving port sent for this direction (refreshes included)");
            xonSent = stats.counter("xonSent", "frames", "XON frames the receiving port sent for this direction");
            pausedTime = stats.counter("pausedTime", "ps", "time the transmitter was paused by PFC (counted when each pause ends)");
            pauseFramesCarried = stats.counter("pauseFramesCarried", "frames", "pause frames put on this line for the reverse direction");
            fifoLevel = stats.timeAverage("rxFifo", "bytes", "frame bytes waiting in the receiving MAC behind a refused frame",
                    rxClock);
            fifoOverflows = stats.counter("fifoOverflows", "frames", "frames lost arriving at a full receive FIFO");
        }
        // A frame's least flight from its start to the far MAC: the shortest slot (84 byte times) and the PHYs and
        // cable. Its deliveries come first at their instant, as an XOFF is known before a frame due then starts.
        this.crossing = split ? link.partitions().crossing(fullName(), from.sim(), rxSim,
                RoceLayout.wireBytes(0) * 8000L / rate + flight, Event.MIN_PRIORITY, this::fromCable) : null;
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

    /** When the queue head would start: ready, line free, not before the last stall ended nor inside a pause. */
    private long headStart() {
        long s = Math.max(Math.max(txQueue[txHead].readyPs, lineFreeAt), resumeAt);
        return pauseCount == 0 ? s : afterPauses(s);
    }

    /** The first instant at or after {@code s} outside every pause window (they are in time order). */
    private long afterPauses(long s) {
        for (int i = 0; i < pauseCount; i++) {
            int k = (pauseHead + i) & (PAUSE_WINDOWS - 1);
            if (s < pauseFrom[k]) {
                break;
            }
            if (s < pauseUntil[k]) {
                s = pauseUntil[k];
            }
        }
        return s;
    }

    /** Whether the transmitter may start frames: always with PFC (pauses are windows), never while stalled. */
    private boolean transmitting() {
        return parked == null || pfc != null;
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
        return arrivalAfter(slotEnd(start, RoceLayout.wireBytes(txQueue[txHead].length())));
    }

    /** The end of a slot of {@code onWire} byte times started at {@code start}, the next one on the line. */
    private long slotEnd(long start, int onWire) {
        if (psPerByte != 0) {
            return start + onWire * psPerByte;
        } else if (opensEpoch(start)) {
            return start + onWire * 8000L / rate;
        }
        return epochPs + Math.multiplyExact(epochBytes + onWire, 8000L) / rate;
    }

    /** Puts a slot of {@code onWire} byte times on the line at {@code start}, the next one on it; returns its end. */
    private long placeSlot(long start, int onWire) {
        if (opensEpoch(start)) {
            epochPs = start;
            epochBytes = 0;
        }
        epochBytes += onWire;
        long end = psPerByte != 0 ? start + onWire * psPerByte : epochPs + Math.multiplyExact(epochBytes, 8000L) / rate;
        lineFreeAt = end;
        return end;
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
                long s = transmitting() && txCount > 0 ? headStart() : NEVER;
                long r = readyCount < txCount ? txQueue[slot(readyCount)].readyPs : NEVER;
                long e = idleAt(s);
                long x = Math.min(Math.min(s, r), e);
                if (controlTapCount > 0 && controlTapPs[controlTapHead] <= Math.min(x, t)) {
                    // A pause frame placed earlier starts before anything else changes: the taps see it first.
                    tapControl();
                    continue;
                }
                if (x > t) {
                    if (pauseCount > 0) {
                        prunePauses();
                    }
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
        int len = f.length();
        int onWire = RoceLayout.wireBytes(len);
        long end = placeSlot(start, onWire);
        f.txStartPs = start;
        f.arrivalPs = arrivalAfter(end);
        f.sequence = nextSequence++;
        drawFault(f);
        from.slotCommitted(end); // with real port buffers, its transmit buffer frees as it leaves the line
        if (!busyLevel) {
            setBusy(true, start);
        }
        framesSent.inc();
        bytesSent.add(len);
        wireBytes.add(onWire);
        link.tap(start, f.data(), len);
        if (split) {
            if (start != now()) {
                throw new InvariantViolation(fullName() + ": frame starting at " + start + " ps committed at " + now()
                        + " ps; a split line commits each frame at its start");
            }
            crossing.send(f, start, f.arrivalPs); // committed at its start: it arrives at least a flight later
            return;
        }
        landInFlight(f);
    }

    /** The frame is on its way to the receiving MAC: behind the others in flight. */
    private void landInFlight(Frame f) {
        if (flightCount == inFlight.length) {
            if (pfc == null) {
                throw new InvariantViolation(fullName() + ": in-flight ring overflow");
            }
            // Sent frames free their transmit buffers: the line and the FIFO can hold more frames than the pool.
            Frame[] bigger = new Frame[inFlight.length * 2];
            for (int k = 0; k < flightCount; k++) {
                int j = flightHead + k;
                bigger[k] = inFlight[j < inFlight.length ? j : j - inFlight.length];
            }
            inFlight = bigger;
            flightHead = 0;
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
        if (split) {
            armObserve(); // the transmitter's half: every start is an event, as frames cross when committed
            return;
        }
        if (delivering) {
            return; // the delivery loop re-arms once it is done
        }
        long a = NEVER;
        if (parked == null || pfc != null) {
            // While parked with PFC, the next frame to arrive into the FIFO behind it.
            int k = parked == null ? 0 : fifoFrames;
            if (flightCount > k) {
                int i = flightHead + k;
                a = Math.max(now(), inFlight[i < inFlight.length ? i : i - inFlight.length].arrivalPs);
            } else if (txCount > 0) {
                a = headArrival();
            }
        }
        arm(arrival, a);
        if (tracing || link.hasTaps()) {
            armObserve();
        }
    }

    /** After the receiving half changed: an unsplit direction re-arms both halves; a split one has nothing to arm. */
    private void afterRxTouch() {
        if (!split) {
            afterTouch();
        }
    }

    private long rxNow() {
        return rxSim.now();
    }

    /**
     * Of a split link, at the arrival instant: a frame reaching the receiving MAC, or a pause frame for the reverse
     * line's transmitter (this line carries the pause frames of the reverse direction).
     */
    private void fromCable(Object m) {
        if (m instanceof Frame f) {
            landInFlight(f);
            framesArrived();
        } else {
            reverse.pauseArrived((PauseNotice) m);
        }
    }

    /** A pause frame for this line's transmitter, sent by the far receiver over the reverse line (split links). */
    private record PauseNotice(boolean xoff, long untilPs) {
    }

    private void pauseArrived(PauseNotice p) {
        // Every frame that started before now is committed (each start is an event); one due now is not yet, and
        // waits, as the crossing's deliveries come first at their instant.
        if (p.xoff()) {
            openPause(now(), p.untilPs());
        } else {
            endPause(now());
        }
        pauseMoved();
    }

    private void armObserve() {
        long s = transmitting() && txCount > 0 ? headStart() : NEVER;
        long next = s; // taps see each frame at its start
        if (controlTapCount > 0) {
            next = Math.min(next, controlTapPs[controlTapHead]);
        }
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
        framesArrived();
        afterTouch();
    }

    /** Frames have reached the receiving MAC: delivered, or (with PFC, behind a parked one) counted into the FIFO. */
    private void framesArrived() {
        if (parked == null) {
            deliverArrived();
        } else {
            countArrivals();
        }
        if (pfc != null) {
            checkPause();
        }
    }

    private void onObserve() {
        advanceTo(now());
        afterTouch();
    }

    private void deliverArrived() {
        long now = rxNow();
        delivering = true;
        try {
            while (parked == null && flightCount > 0 && inFlight[flightHead].arrivalPs <= now) {
                Frame f = inFlight[flightHead];
                inFlight[flightHead] = null;
                flightHead = flightHead + 1 == inFlight.length ? 0 : flightHead + 1;
                flightCount--;
                if (fifoFrames > 0) {
                    // It waited in the FIFO: it leaves it now, taken or dropped.
                    fifoFrames--;
                    if (f.fault != Frame.FAULT_DROP) {
                        fifoBytes -= f.length();
                    }
                }
                if (f.fault == Frame.FAULT_DROP) {
                    if (f.overflowed) {
                        f.overflowed = false;
                    } else {
                        framesDropped.inc();
                    }
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
        if (parked != null) {
            countArrivals(); // refused: the frames that have arrived behind it wait in the FIFO
        }
    }

    /** With PFC, while a frame is parked: counts the frames that have arrived behind it into the FIFO. */
    private void countArrivals() {
        if (pfc == null || parked == null) {
            return;
        }
        long now = rxNow();
        long before = fifoBytes;
        while (fifoFrames < flightCount) {
            int i = flightHead + fifoFrames;
            Frame f = inFlight[i < inFlight.length ? i : i - inFlight.length];
            if (f.arrivalPs > now) {
                break;
            }
            fifoFrames++;
            if (f.fault == Frame.FAULT_DROP) {
                continue; // a frame lost on the line never reaches the MAC
            }
            if (fifoBytes + f.length() > pfc.fifoBytes()) {
                f.fault = Frame.FAULT_DROP; // no room: lost at the MAC, counted apart from the line's losses
                f.overflowed = true;
                fifoOverflows.inc();
                continue;
            }
            fifoBytes += f.length();
        }
        if (fifoBytes != before) {
            setFifo();
        }
    }

    private void setFifo() {
        rxClock.stamp(rxNow());
        fifoLevel.set(fifoBytes);
        rxClock.release();
    }

    /** With PFC: XOFF once the FIFO reaches its threshold, XON once it has drained to the lower one. */
    private void checkPause() {
        if (!xoffActive && fifoBytes >= pfc.xoffBytes()) {
            sendPause(true);
        } else if (xoffActive && fifoBytes <= pfc.xonBytes()) {
            sendPause(false);
        }
    }

    /**
     * The receiving port sends XOFF (or XON) on the reverse line; this line's transmitter is paused from the instant
     * it arrives (or the pause ends there). This line is up to date (no frame starting after now is committed), so
     * every frame the pause holds back is still to be placed.
     */
    private void sendPause(boolean xoff) {
        long arrive = reverse.putPause(xoff ? pfc.quanta() : 0);
        if (split) {
            // The transmitter is in the other partition: the pause reaches it on the reverse line, in order with the
            // frames there, and opens (or ends) its window where it arrives.
            reverse.crossing.send(new PauseNotice(xoff, arrive + pausePs), rxNow(), arrive);
        }
        if (xoff) {
            xoffActive = true;
            xoffSent.inc();
            if (!split) {
                openPause(arrive, arrive + pausePs);
            }
            // Refreshed while the FIFO stays above XON, half way through the pause; never while the last pause
            // frame is still on the line (a short pause is then refreshed back to back, and may lapse in between).
            pauseRefresh.cancel();
            pauseRefresh.schedule(Math.max(rxNow() + Math.max(1, pausePs / 2), reverse.lastPauseEndPs));
        } else {
            xoffActive = false;
            xonSent.inc();
            if (!split) {
                endPause(arrive);
            }
            pauseRefresh.cancel();
        }
        reverse.afterTouch(); // its next frame now starts after the pause frame
        if (!split) {
            pauseMoved();
        }
    }

    /**
     * This line's pause windows changed (an XOFF opened or extended one, an XON cut one short): its head may start at
     * another instant, so its events are armed again, and so is the retry of a sender waiting for a transmit buffer
     * that the head's slot would free (an XON frees it sooner than the pause's full time said).
     */
    private void pauseMoved() {
        afterTouch();
        from.pauseMoved();
    }

    private void onPauseRefresh() {
        if (!split) {
            advanceTo(now());
        }
        if (xoffActive) {
            countArrivals();
            sendPause(true);
        }
        afterRxTouch();
    }

    /** A pause arriving at {@code from}: extends the last window if it is still running then, else opens one. */
    private void openPause(long from, long until) {
        prunePauses();
        if (pauseCount > 0) {
            int last = (pauseHead + pauseCount - 1) & (PAUSE_WINDOWS - 1);
            if (from <= pauseUntil[last]) {
                pauseUntil[last] = Math.max(pauseUntil[last], until);
                return;
            }
        }
        if (pauseCount == PAUSE_WINDOWS) {
            throw new InvariantViolation(fullName() + ": more than " + PAUSE_WINDOWS + " pause windows ahead");
        }
        int k = (pauseHead + pauseCount++) & (PAUSE_WINDOWS - 1);
        pauseFrom[k] = from;
        pauseUntil[k] = until;
    }

    /** An XON arriving at {@code at} ends the last pause there, if it is still running then. */
    private void endPause(long at) {
        if (pauseCount > 0) {
            int last = (pauseHead + pauseCount - 1) & (PAUSE_WINDOWS - 1);
            if (at < pauseUntil[last]) {
                pauseUntil[last] = Math.max(pauseFrom[last], at);
            }
        }
        // Not pruned here: a frame held by the pause starts where it ends, which a split line's XON reaches at that
        // very instant; the next advance prunes it.
    }

    /** Forgets pauses that ended by now (no frame still to be placed can start before now), counting their time. */
    private void prunePauses() {
        long now = now();
        while (pauseCount > 0 && pauseUntil[pauseHead] <= now) {
            pausedTime.add(pauseUntil[pauseHead] - pauseFrom[pauseHead]);
            pauseHead = (pauseHead + 1) & (PAUSE_WINDOWS - 1);
            pauseCount--;
        }
    }

    /**
     * Puts a pause frame asking for {@code quanta} on this line at its first frame boundary from now, ahead of every
     * frame queued (a MAC control frame), and returns when it arrives at the far MAC. Its slot is placed at once; the
     * taps see it at its start.
     */
    long putPause(int quanta) {
        long now = now();
        advanceTo(now);
        long start = Math.max(now, lineFreeAt);
        int onWire = RoceLayout.wireBytes(PauseFrame.LENGTH);
        long end = placeSlot(start, onWire);
        lastPauseEndPs = end;
        if (!busyLevel) {
            setBusy(true, start); // an idle line: it starts now
        }
        wireBytes.add(onWire);
        pauseFramesCarried.inc();
        if (link.hasTaps()) {
            if (controlTapCount == PAUSE_WINDOWS) {
                throw new InvariantViolation(fullName() + ": more than " + PAUSE_WINDOWS + " pause frames waiting to start");
            }
            int k = (controlTapHead + controlTapCount++) & (PAUSE_WINDOWS - 1);
            controlTapPs[k] = start;
            controlTapQuanta[k] = quanta;
            if (start == now && !advancing) {
                advanceTo(now); // shows it now, in order with this line's frames
            }
        }
        return arrivalAfter(end);
    }

    private void tapControl() {
        int k = controlTapHead;
        PauseFrame.write(controlBytes, from.macAddress(), controlTapQuanta[k]);
        link.tap(controlTapPs[k], controlBytes, PauseFrame.LENGTH);
        controlTapHead = (k + 1) & (PAUSE_WINDOWS - 1);
        controlTapCount--;
    }

    private void offer(Frame f) {
        if (to.hasReceiveBuffer()) {
            f.moveTo(Frame.ON_WIRE, Frame.HELD_BY_RECEIVER);
            to.takeReceiveBuffer(f);
            if (to.offer(f)) {
                framesDelivered.inc();
                return;
            }
            if (f.state == Frame.HELD_BY_RECEIVER) {
                f.state = Frame.ON_WIRE;
            } else {
                throw new IllegalStateException("receiver at " + to.fullName() + " refused " + f + " but released it");
            }
            to.returnReceiveBuffer(f);
            waitsForBuffer = false;
        } else {
            waitsForBuffer = true; // every receive buffer is held: the MAC keeps it until a release
        }
        parked = f;
        refusals.inc();
        stallStartPs = rxNow();
        stalledSignal.set(1);
        if (pfc != null) {
            fifoBytes += f.length();
            setFifo();
        }
    }

    void retry() {
        if (parked != null && !retryEvent.scheduled()) {
            retryEvent.scheduleIn(0);
        }
    }

    /** A receive buffer at the far end was freed: a frame parked for want of one is offered again. */
    void receiveBufferFreed() {
        if (waitsForBuffer) {
            retry();
        }
    }

    /** When the queue head's slot would end if it started as things stand (NEVER with nothing queued). */
    long headSlotEndPs() {
        if (txCount == 0) {
            return NEVER;
        }
        advanceTo(now());
        return txCount == 0 ? NEVER : slotEnd(headStart(), RoceLayout.wireBytes(txQueue[txHead].length()));
    }

    private void onRetry() {
        if (parked == null) {
            return;
        }
        long now = rxNow();
        if (!split) {
            advanceTo(now); // while stalled: only frames becoming ready and the line going idle
        }
        Frame f = parked;
        parked = null;
        stalledPs.add(now - stallStartPs);
        stalledSignal.set(0);
        if (pfc == null) {
            resumeAt = now;
        } else {
            fifoBytes -= f.length(); // offered again: it leaves the FIFO, or is parked (and counted) again
        }
        offer(f);
        if (parked == null) {
            // What landed during the stall goes first; the line restarts after it, unless it stalls again.
            deliverArrived();
        }
        if (pfc != null) {
            setFifo();
            checkPause();
        }
        if (!split) {
            advanceTo(now);
        }
        afterRxTouch();
    }

    @Override
    protected void onReset() {
        advanceTo(now()); // frames that started before the reset stay counted and tapped
        arrival.cancel();
        retryEvent.cancel();
        observe.cancel();
        pauseRefresh.cancel();
        controlTapCount = 0; // those that started were shown by the advance above; a later start is not reached
        if (pfc != null) {
            prunePauses();
            pauseCount = 0;
            fifoFrames = 0;
            fifoBytes = 0;
            xoffActive = false;
            setFifo();
        }
        Arrays.fill(txQueue, null);
        Arrays.fill(inFlight, null);
        txHead = txCount = readyCount = flightHead = flightCount = 0;
        parked = null;
        waitsForBuffer = false;
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
