package dev.rdmasim.adapter.pcie;

import dev.rdmasim.kernel.DeferredWork;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.stats.Bound;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.TimeAverage;
import dev.rdmasim.kernel.wave.Signal;

/**
 * One direction of the link: a transmit queue, the serializer that puts TLPs and data-link overhead on the wire
 * at the raw rate, and the wire itself (a fixed pipeline latency) up to the receiver.
 *
 * <p>The queue is served in order of the time each TLP becomes ready (its enqueue time, or later for a completion
 * waiting for host memory), ties in enqueue order. That satisfies every PCIe ordering rule: posted writes never pass
 * each other, and a completion never passes a posted write queued before it was ready. Each traffic class (posted,
 * non-posted, completion) has its own limit, so a full class is refused without blocking the others from being
 * accepted. A TLP holds its class slot from enqueue until it starts on the wire, even while it waits for its ready
 * time; it counts as queued only from its ready time.
 *
 * <p>Data-link overhead is real bytes in the same stream: after the TLP that completes each {@code ackLimit} bytes
 * of link traffic an 8 B Ack DLLP follows, likewise an 8 B flow-control update every {@code fcUpdateLimit} bytes and
 * a 4 B SKIP every 1538 bytes. Time is derived from the cumulative byte count since the link last went idle, so no
 * rounding accumulates.
 *
 * <p>Timing is computed, not stepped: since the queue is served in order, a TLP's start is the later of its ready
 * time and the end of the bytes before it, so its start, end and arrival are fixed as soon as no TLP can be queued
 * ahead of it any more, which is when its ready time has come (it is "committed" then, normally at enqueue). The
 * only events are the delivery of the oldest TLP on the wire that the receiver does not take late
 * ({@link LinkEnd#takesLate}: handed over, in wire order, the next time the link is brought up to date after its
 * arrival, and by the end of the run through the simulator's deferred work), {@link LinkEnd#sent} for TLPs marked
 * {@link Tlp#notifySent}, a wake-up for a sender that was refused (at the instant its class has room again) and,
 * only while a signal of this link is traced, the instants the signals change. Everything else (class slots freed,
 * statistics, counters) is brought up to the current time whenever the link is touched, by {@link #advance}.
 */
public final class LinkTransmitter extends Module {
    private static final int CLASSES = 3;
    private static final long NEVER = Long.MAX_VALUE;

    private final long linkLatencyPs;
    private final long psNum;
    private final long psDen;
    /** log2 of psDen: with power-of-two lane counts psDen is always a power of two, so shifts replace divisions. */
    private final int psDenShift;
    private final int ackLimit;
    private final int fcLimit;
    private final int wireCapacity;

    private final int[] classLimit = new int[CLASSES];
    /** TLPs of each class accepted and not yet started (as of the last {@link #advance}). */
    private final int[] classCount = new int[CLASSES];
    /** Time each class with a limit spends with every slot taken (null for a class the link never carries). */
    private final Bound[] classFull = new Bound[CLASSES];

    /**
     * Committed, undelivered TLPs in wire order, indexed by sequence number (masked). Delivered below dSeq; started
     * below sSeq (observed); committed below cSeq. While the onWire signal is traced, the last byte of those below
     * eSeq has been observed to leave.
     */
    private final Tlp[] ring;
    private final int ringMask;
    private long dSeq;
    private long eSeq;
    private long sSeq;
    private long cSeq;
    /**
     * The first committed, undelivered TLP that is not {@link Tlp#late} (cSeq if there is none): every TLP from dSeq up
     * to it is late, and only it needs the delivery event. Equal to dSeq while nothing is late.
     */
    private long eagerSeq;
    /** Pending TLPs that are not late. */
    private int eagerPending;
    /** Whether receivers may take TLPs late ({@link #setLateHandover}). */
    private boolean lateHandover;
    /** Late TLPs committed and not yet handed over, and the arrival of the last late one committed. */
    private int lateCommitted;
    private long lastLateArrivePs;

    /** TLPs not yet ready, in ready order (ties in enqueue order): a later enqueue may still go ahead of them. */
    private final Tlp[] pend;
    private final int pendMask;
    private int pHead;
    private int pCount;

    /** Sequence numbers of committed TLPs marked notifySent whose end has not been reported, in order. */
    private final long[] notify;
    private long nHead;
    private long nTail;

    /** Classes whose sender was refused and waits for a slot, one bit per class. */
    private int waiting;
    /** The earliest instant at which {@link #advance} has something to do. */
    private long nextChangePs = NEVER;

    private LinkEnd sender;
    private LinkEnd receiver;
    /** The ends that bracket this link's events ({@link LinkEnd#bracketsLinkEvents}), or null. */
    private LinkEnd bracketSender;
    private LinkEnd bracketReceiver;

    /** Serializer state after the last committed TLP. */
    private final ByteClock clock = new ByteClock();
    /** A copy of {@link #clock} that places pending TLPs to find their provisional start and end. */
    private final ByteClock probe = new ByteClock();
    /** Pending TLPs marked notifySent. */
    private int pendNotify;
    /**
     * The ready time of the pending TLP the sent event, or the delivery event, is armed for at its provisional end
     * or arrival; NEVER while it is armed for a committed one or not at all (once that pending TLP is committed the
     * value stays until the event is next armed, but is not read: a committed one is then armed). Only a TLP queued
     * ahead of that one, ready earlier, moves it; so a TLP queued behind it need not place every pending TLP again.
     */
    private long sentArmedReadyPs = NEVER;
    private long deliveryArmedReadyPs = NEVER;

    /**
     * The queue length's statistic, kept by {@link #refreshStats}: the summed waits of the TLPs started since the last
     * refresh, the part of the waits of those queued at the last refresh that it counted, and the longest queue since.
     */
    private long queuedWaitPs;
    private long queuedCreditPs;
    private long queuedPeak;

    // Observed state (as of the last advance): bytes that have started, and the busy level last reported.
    private long startedBytes;
    private boolean busyOn;
    /** Serializer free after the last started TLP and its DLLPs; busy drops then unless the next TLP follows. */
    private long busyOffPs;

    private final Event deliver;
    private final Event sentEvent;
    private final Event wake;
    /** Registered with the simulator once late hand-over is first switched on. */
    private boolean deferredRegistered;
    /** Signal changes; scheduled only while a signal of this link is traced. */
    private final Event trace;
    private final boolean tracing;

    private final Counter tlpsMwr;
    private final Counter tlpsMrd;
    private final Counter tlpsCpld;
    private final Counter bytesMwr;
    private final Counter bytesMrd;
    private final Counter bytesCpld;
    private final Counter payloadBytes;
    private final Counter bytesAck;
    private final Counter bytesFc;
    private final Counter bytesSkip;
    private final TimeAverage busy;
    private final TimeAverage queued;
    private final Signal busySignal;
    private final Signal queueSignal;
    private final Signal flightSignal;

    LinkTransmitter(Module parent, String name, PcieConfig cfg, int postedLimit, int nonPostedLimit,
                    int completionLimit) {
        super(parent, name);
        this.linkLatencyPs = cfg.linkLatencyPs();
        boolean eightTen = cfg.gen() <= 2;
        // ps per byte = 8 bits x (1000 / GT/s) ps per transfer x encoding overhead / lanes.
        long num = 8L * 2000 * (eightTen ? 10 : 130);
        long den = (long) cfg.halfGigaTransfers() * (eightTen ? 8 : 128) * cfg.lanes();
        long g = gcd(num, den);
        this.psNum = num / g;
        this.psDen = den / g;
        if (Long.bitCount(psDen) != 1) {
            throw new InvariantViolation(fullName() + ": ps per byte " + psNum + "/" + psDen
                    + " has a denominator that is not a power of two (lanes " + cfg.lanes() + ")");
        }
        this.psDenShift = Long.numberOfTrailingZeros(psDen);
        this.ackLimit = cfg.effectiveAckLimit();
        this.fcLimit = cfg.effectiveFcUpdateLimit();
        clock.startIntervals();
        classLimit[TlpKind.MWR.ordinal()] = postedLimit;
        classLimit[TlpKind.MRD.ordinal()] = nonPostedLimit;
        classLimit[TlpKind.CPLD.ordinal()] = completionLimit;
        int queueCap = Math.max(1, postedLimit + nonPostedLimit + completionLimit);
        // TLPs leave at least one minimal TLP time apart, so the wire holds a bounded number of them.
        int minTlp = Math.min(cfg.completionOverheadBytes(), cfg.requestOverheadBytes());
        this.wireCapacity = (int) Math.min(1 << 20, linkLatencyPs * psDen / (minTlp * psNum) + 2);
        // Undelivered TLPs: waiting in the queue, one serializing, the rest on the wire.
        int ringCap = Integer.highestOneBit(queueCap + 1 + wireCapacity - 1) * 2;
        this.ring = new Tlp[ringCap];
        this.ringMask = ringCap - 1;
        this.notify = new long[ringCap];
        int pendCap = Integer.highestOneBit(queueCap - 1 | 1) * 2;
        this.pend = new Tlp[pendCap];
        this.pendMask = pendCap - 1;

        this.deliver = sim().event(fullName() + ".deliver", () -> linkEvent(DELIVER));
        this.sentEvent = sim().event(fullName() + ".sent", () -> linkEvent(SENT));
        this.wake = sim().event(fullName() + ".wake", () -> linkEvent(WAKE));
        this.trace = sim().event(fullName() + ".trace", this::onTrace);

        var s = stats();
        tlpsMwr = s.counter("tlpsMWr", "TLPs", "memory write TLPs sent");
        tlpsMrd = s.counter("tlpsMRd", "TLPs", "memory read request TLPs sent");
        tlpsCpld = s.counter("tlpsCplD", "TLPs", "completion-with-data TLPs sent");
        bytesMwr = s.counter("bytesMWr", "B", "wire bytes of memory writes (header, framing and payload)");
        bytesMrd = s.counter("bytesMRd", "B", "wire bytes of memory read requests");
        bytesCpld = s.counter("bytesCplD", "B", "wire bytes of completions (header, framing and payload)");
        payloadBytes = s.counter("payloadBytes", "B", "data payload bytes carried by MWr and CplD");
        bytesAck = s.counter("bytesAck", "B", "wire bytes of Ack DLLPs");
        bytesFc = s.counter("bytesFc", "B", "wire bytes of flow-control update DLLPs");
        bytesSkip = s.counter("bytesSkip", "B", "wire bytes of SKIP ordered sets");
        busy = s.timeAverage("busy", "fraction", "fraction of time the serializer sends TLP, DLLP or SKIP bytes");
        queued = s.timeAverage("queued", "TLPs", "TLPs waiting in the transmit queue");
        s.formula("overheadFraction", "fraction", "DLLP and SKIP bytes over all wire bytes",
                () -> (double) (bytesAck.value() + bytesFc.value() + bytesSkip.value())
                        / Math.max(1, bytesAck.value() + bytesFc.value() + bytesSkip.value()
                        + bytesMwr.value() + bytesMrd.value() + bytesCpld.value()));
        // The up link's class limits are the device's transmit credits; the down link's posted limit is the host's
        // queue of MMIO writes waiting for the link.
        boolean down = "down".equals(name);
        for (TlpKind k : TlpKind.values()) {
            int limit = classLimit[k.ordinal()];
            if (limit > 0) {
                String what = switch (k) {
                    case MWR -> down ? "MMIO posted queue" : "posted-write transmit credits";
                    case MRD -> "read-request transmit credits";
                    case CPLD -> "completion transmit credits";
                };
                String prefix = switch (k) {
                    case MWR -> "posted";
                    case MRD -> "nonPosted";
                    case CPLD -> "completion";
                };
                classFull[k.ordinal()] = s.bound(prefix, what, "all " + limit + " TLP slots of the class taken",
                        "built in: " + limit + " TLPs");
            }
        }
        // Counters and levels change at instants no event marks; a dump or reset first brings them up to now.
        s.setRefresh(this::refreshStats);
        busySignal = signal("busy", 1);
        queueSignal = signal("queued", 16);
        flightSignal = signal("onWire", 16);
        tracing = busySignal.enabled() || queueSignal.enabled() || flightSignal.enabled();
    }

    private static long gcd(long a, long b) {
        return b == 0 ? a : gcd(b, a % b);
    }

    void connect(LinkEnd from, LinkEnd to) {
        this.sender = from;
        this.receiver = to;
        this.bracketSender = from.bracketsLinkEvents() ? from : null;
        this.bracketReceiver = to.bracketsLinkEvents() ? to : null;
    }

    /**
     * With {@code on}, the receiver may take TLPs late ({@link LinkEnd#takesLate}): such a TLP costs no delivery event
     * and is handed over the next time the link is brought up to date after its arrival. With it off every TLP is
     * delivered in an event at its arrival: the reference the late path is compared against. Late hand-over stays off
     * while a signal of this link is traced, since the onWire signal changes at each arrival. Only while the link is
     * empty.
     */
    void setLateHandover(boolean on) {
        advance();
        if (cSeq != dSeq || pCount != 0) {
            throw new InvariantViolation(fullName() + ": late hand-over switched with TLPs in flight");
        }
        lateHandover = on && !tracing;
        if (lateHandover && !deferredRegistered) {
            deferredRegistered = true;
            // Late TLPs still on the wire when the events run out arrive before the run ends.
            sim().addDeferredWork(new DeferredWork() {
                @Override
                public long deferredUntilPs() {
                    if (lateCommitted > 0) {
                        return lastLateArrivePs;
                    }
                    return pCount > eagerPending ? pend[(pHead + firstPending(true)) & pendMask].readyPs : NONE;
                }

                @Override
                public void settle() {
                    advance();
                }

                @Override
                public String toString() {
                    return fullName() + " late TLPs";
                }
            });
        }
    }

    /**
     * The receiver now waits for some of the late TLPs in flight: each one it no longer takes late
     * ({@link LinkEnd#stillLate}) is delivered in an event at its arrival from now on, as if it had never been late.
     * Committed ones keep their place on the wire; the link is brought up to date first, so none of them has arrived.
     */
    void hurryLate() {
        advance();
        boolean changed = false;
        for (long q = dSeq; q < cSeq; q++) {
            Tlp t = ring[(int) (q & ringMask)];
            if (t.late && !receiver.stillLate(t)) {
                t.late = false;
                lateCommitted--;
                changed = true;
            }
        }
        for (int i = 0; i < pCount; i++) {
            Tlp t = pend[(pHead + i) & pendMask];
            if (t.late && !receiver.stillLate(t)) {
                t.late = false;
                eagerPending++;
                changed = true;
            }
        }
        if (!changed) {
            return;
        }
        eagerSeq = firstEagerCommitted();
        // The run's end waits for the last late TLP still committed (deferred work), no longer for a hurried one.
        for (long q = cSeq - 1; q >= dSeq && lateCommitted > 0; q--) {
            Tlp t = ring[(int) (q & ringMask)];
            if (t.late) {
                lastLateArrivePs = t.arrivePs;
                break;
            }
        }
        armDelivery();
    }

    /** Sequence number of the first committed, undelivered TLP that is not late ({@code cSeq} if none). */
    private long firstEagerCommitted() {
        long e = dSeq;
        while (e < cSeq && ring[(int) (e & ringMask)].late) {
            e++;
        }
        return e;
    }

    /** Index in the pending queue of the first TLP that is ({@code late}) or is not late; one must be there. */
    private int firstPending(boolean late) {
        int i = 0;
        while (pend[(pHead + i) & pendMask].late != late) {
            i++;
        }
        return i;
    }

    /**
     * True if a TLP of this kind would be accepted by {@link #enqueue} now. A refusal counts as the sender waiting:
     * it hears {@link LinkEnd#txSpace} at the instant a slot of that class frees.
     */
    boolean canAccept(TlpKind kind) {
        int c = kind.ordinal();
        if (classCount[c] >= classLimit[c]) {
            advance();
            if (classCount[c] >= classLimit[c]) {
                waiting |= 1 << c;
                armWake();
                return false;
            }
        }
        if ((waiting & 1 << c) != 0) {
            waiting &= ~(1 << c);
            if (waiting == 0) {
                wake.cancel();
            }
        }
        return true;
    }

    /** Queues a TLP ready now; the caller must have checked {@link #canAccept}. */
    void enqueue(Tlp t) {
        enqueue(t, now());
    }

    /**
     * Queues a TLP whose fields are set, to start no earlier than {@code readyPs} (not in the past). It holds its
     * class slot from now until it starts, but counts as queued (statistic, signal, {@link #queued()}) only from its
     * ready time. A TLP marked {@link Tlp#notifySent} is reported at its end whenever it is ready.
     */
    void enqueue(Tlp t, long readyPs) {
        long now = now();
        int c = t.kind.ordinal();
        advance();
        if (classCount[c] >= classLimit[c]) {
            throw new InvariantViolation(fullName() + ": " + t.kind + " queued beyond its class limit " + classLimit[c]);
        }
        if (readyPs < now) {
            throw new InvariantViolation(fullName() + ": " + t + " ready at " + readyPs + " ps, now is " + now + " ps");
        }
        if (++classCount[c] == classLimit[c]) {
            classFull[c].setAt(now, true);
        }
        t.readyPs = readyPs;
        // A sent report with no link latency comes at the arrival instant itself, which only a delivery event orders.
        t.late = lateHandover && (!t.notifySent || linkLatencyPs > 0) && receiver.takesLate(t);
        boolean noEagerCommitted = eagerSeq == cSeq;
        // What the re-arm conditions below rely on: with nothing pending that an event could be armed for, no ready
        // time is remembered for it.
        assert !noEagerCommitted || eagerPending > 0 || deliveryArmedReadyPs == NEVER : "delivery armed for nothing";
        assert nHead != nTail || pendNotify > 0 || sentArmedReadyPs == NEVER : "sent armed for nothing";
        if (readyPs == now) {
            // Everything still pending is ready later, so this TLP goes ahead of it: its timing is fixed now.
            commit(t);
            if (t.notifySent && pendNotify == 0 && nTail - nHead == 1) {
                sentEvent.schedule(t.endPs);
            }
        } else {
            // Behind every pending TLP ready at or before it.
            int i = pCount;
            while (i > 0 && pend[(pHead + i - 1) & pendMask].readyPs > readyPs) {
                pend[(pHead + i) & pendMask] = pend[(pHead + i - 1) & pendMask];
                i--;
            }
            pend[(pHead + i) & pendMask] = t;
            pCount++;
            if (t.notifySent) {
                pendNotify++;
            }
            if (!t.late) {
                eagerPending++;
            }
            nextChangePs = Math.min(nextChangePs, readyPs);
        }
        // The first TLP to deliver may be this one, or one pending behind it whose provisional arrival it delays. A
        // TLP ready no earlier than the pending one the event is armed for queues behind it and changes nothing; one
        // committed now goes ahead of every pending one. (With none armed, that ready time is NEVER.)
        if (noEagerCommitted && (!t.late && readyPs == now || eagerPending > 0 && readyPs < deliveryArmedReadyPs)) {
            armDelivery();
        }
        // Likewise for the first TLP to report its end. While a committed one is armed, everything queued now goes
        // behind it, so the event stays; a TLP committed now arms it only if it is the first committed one to report.
        if (pendNotify > 0 && nHead == nTail - (readyPs == now && t.notifySent ? 1 : 0) && readyPs < sentArmedReadyPs) {
            armSent();
        }
        if (tracing) {
            armTrace();
        }
    }

    /**
     * Brings the link up to the current time: commits the pending TLPs whose ready time has come and observes starts
     * and ends that have passed, in time order, reporting each change at its own instant to the statistics.
     */
    void advance() {
        if (now() >= nextChangePs) {
            catchUp(now());
        }
    }

    private void catchUp(long now) {
        while (true) {
            long s = sSeq < cSeq ? ring[(int) (sSeq & ringMask)].startPs : NEVER;
            long r = pCount > 0 ? pend[pHead].readyPs : NEVER;
            // At equal times an earlier TLP leaves the queue before a later one enters it.
            if (s <= r) {
                if (s > now) {
                    break;
                }
                started(ring[(int) (sSeq & ringMask)]);
            } else {
                if (r > now) {
                    break;
                }
                Tlp t = pend[pHead];
                pend[pHead] = null;
                pHead = (pHead + 1) & pendMask;
                pCount--;
                if (t.notifySent) {
                    // Its provisional end, for which the sent event is armed, is now its end.
                    pendNotify--;
                }
                if (!t.late) {
                    eagerPending--;
                }
                commit(t);
            }
        }
        if (busyOn && busyOffPs <= now && (sSeq == cSeq || ring[(int) (sSeq & ringMask)].startPs > busyOffPs)) {
            busyOn = false;
            busy.setAt(busyOffPs, 0);
            if (tracing) {
                busySignal.set(0);
            }
        }
        // Next: a start, a ready time, or the serializer going idle; ends only matter to the onWire signal.
        long next = sSeq < cSeq ? ring[(int) (sSeq & ringMask)].startPs : NEVER;
        if (pCount > 0) {
            next = Math.min(next, pend[pHead].readyPs);
        }
        if (busyOn) {
            next = Math.min(next, busyOffPs);
        }
        if (tracing) {
            while (eSeq < sSeq && ring[(int) (eSeq & ringMask)].endPs <= now) {
                eSeq++;
                flightSignal.set(eSeq - dSeq);
            }
            if (eSeq < sSeq) {
                next = Math.min(next, ring[(int) (eSeq & ringMask)].endPs);
            }
        }
        // Late TLPs that have arrived go to the receiver now, in wire order, ahead of the next one delivered by event.
        while (dSeq < eagerSeq) {
            Tlp t = ring[(int) (dSeq & ringMask)];
            if (t.arrivePs > now) {
                next = Math.min(next, t.arrivePs);
                break;
            }
            ring[(int) (dSeq & ringMask)] = null;
            dSeq++;
            lateCommitted--;
            receiver.receive(t);
        }
        nextChangePs = next;
    }

    /** Fixes a TLP's place on the wire, at its ready time: after every TLP committed before it. */
    private void commit(Tlp t) {
        if (cSeq - dSeq == ring.length) {
            throw new InvariantViolation(fullName() + ": more TLPs queued and on the wire than it can hold");
        }
        ByteClock k = clock;
        k.place(t.readyPs, t.wireBytes);
        long start = k.start;
        t.startPs = start;
        t.endPs = k.end;
        t.arrivePs = k.end + linkLatencyPs;
        t.ackBytes = k.ack;
        t.fcBytes = k.fc;
        t.skipBytes = k.skip;
        t.freeAfterPs = k.freeAtPs;
        ring[(int) (cSeq & ringMask)] = t;
        if (t.notifySent) {
            notify[(int) (nTail++ & ringMask)] = cSeq;
        }
        if (t.late) {
            lateCommitted++;
            lastLateArrivePs = t.arrivePs;
            if (eagerSeq == cSeq) {
                eagerSeq++;
            }
        }
        cSeq++;
        nextChangePs = Math.min(nextChangePs, start);
        // The queue only grows here: its peak since the last refresh of the statistics.
        if (cSeq - sSeq > queuedPeak) {
            queuedPeak = cSeq - sSeq;
        }
        if (tracing) {
            queueSignal.set(cSeq - sSeq);
        }
    }

    /** The TLP at sSeq has started: it leaves the queue and its class slot frees. */
    private void started(Tlp t) {
        long start = t.startPs;
        if (busyOn && start > busyOffPs) {
            busy.setAt(busyOffPs, 0);
            busyOn = false;
        }
        if (!busyOn) {
            busy.setAt(start, 1);
            busyOn = true;
        }
        busyOffPs = t.freeAfterPs;
        sSeq++;
        queuedWaitPs += start - t.readyPs;
        int c = t.kind.ordinal();
        if (classCount[c]-- == classLimit[c]) {
            classFull[c].setAt(start, false);
        }
        count(t);
        if (tracing) {
            queueSignal.set(cSeq - sSeq);
            busySignal.set(1);
        }
    }

    /**
     * Brings the statistics up to now, the queue length's time average among them. That one is kept by Little's law
     * rather than by a level change at each commit and start: the area under the queue length is the sum of the time
     * each TLP waited in it, one subtraction per TLP. Those started since the last refresh count whole
     * (queuedWaitPs), less what the previous refresh already counted of those queued then (queuedCreditPs); those
     * queued now count up to now.
     */
    private void refreshStats() {
        advance();
        long now = now();
        long partial = 0;
        for (long q = sSeq; q < cSeq; q++) {
            // Committed, so ready by now.
            partial += now - ring[(int) (q & ringMask)].readyPs;
        }
        long level = cSeq - sSeq;
        queued.syncAt(now, queuedWaitPs - queuedCreditPs + partial, level, queuedPeak);
        queuedWaitPs = 0;
        queuedCreditPs = partial;
        queuedPeak = level;
    }

    private void count(Tlp t) {
        startedBytes += t.wireBytes + t.ackBytes + t.fcBytes + t.skipBytes;
        TlpKind k = t.kind;
        if (k == TlpKind.MWR) {
            tlpsMwr.inc();
            bytesMwr.add(t.wireBytes);
            payloadBytes.add(t.length);
        } else if (k == TlpKind.MRD) {
            tlpsMrd.inc();
            bytesMrd.add(t.wireBytes);
        } else {
            tlpsCpld.inc();
            bytesCpld.add(t.wireBytes);
            payloadBytes.add(t.length);
        }
        if (t.ackBytes != 0) {
            bytesAck.add(t.ackBytes);
        }
        if (t.fcBytes != 0) {
            bytesFc.add(t.fcBytes);
        }
        if (t.skipBytes != 0) {
            bytesSkip.add(t.skipBytes);
        }
    }

    /**
     * The serializer's byte clock: the cumulative byte count since the link last went idle, and the DLLP and SKIP
     * intervals. {@link #place} puts one TLP after everything placed so far, the same arithmetic for the real
     * serializer and for the probe that times pending TLPs ahead of their commit.
     *
     * <p>Each interval is kept as the byte count at which its next DLLP or SKIP is due (every byte on the wire counts
     * towards all three, overhead bytes included), and the earliest of the three beside them: a TLP that crosses none,
     * the common case, costs one addition and one comparison.
     */
    private final class ByteClock {
        long wireBytes;
        long anchorBytes;
        long anchorPs;
        long freeAtPs;
        long ackAt;
        long fcAt;
        long skipAt;
        /** The least of ackAt, fcAt and skipAt. */
        long overheadAt;
        // The last TLP placed: its start and end, and the overhead bytes that follow it.
        long start;
        long end;
        int ack;
        int fc;
        int skip;

        void copyFrom(ByteClock o) {
            wireBytes = o.wireBytes;
            anchorBytes = o.anchorBytes;
            anchorPs = o.anchorPs;
            freeAtPs = o.freeAtPs;
            ackAt = o.ackAt;
            fcAt = o.fcAt;
            skipAt = o.skipAt;
            overheadAt = o.overheadAt;
        }

        void restart(long nowPs) {
            wireBytes = anchorBytes = 0;
            anchorPs = freeAtPs = nowPs;
            startIntervals();
        }

        /** No bytes counted towards any interval yet. */
        void startIntervals() {
            ackAt = ackLimit;
            fcAt = fcLimit;
            skipAt = PcieConfig.SKIP_INTERVAL_BYTES;
            overheadAt = Math.min(ackAt, Math.min(fcAt, skipAt));
        }

        /** Places a TLP of {@code bytes} wire bytes ready at {@code readyPs}, then the overhead it triggers. */
        void place(long readyPs, int bytes) {
            long s = readyPs;
            if (s > freeAtPs) {
                // The link is idle until then: restart the byte clock there so the gap is not counted as bytes.
                anchorPs = s;
                anchorBytes = wireBytes;
            } else {
                s = freeAtPs;
            }
            long w = wireBytes + bytes;
            wireBytes = w;
            start = s;
            long e = timeAt(anchorPs, w - anchorBytes);
            end = e;
            if (w >= overheadAt) {
                appendOverhead();
                freeAtPs = timeAt(anchorPs, wireBytes - anchorBytes);
            } else {
                // Nothing follows the TLP: the serializer is free at its end.
                ack = 0;
                fc = 0;
                skip = 0;
                freeAtPs = e;
            }
        }

        /** The DLLP and SKIP bytes that follow a TLP whose bytes crossed their intervals, Acks first, then updates. */
        private void appendOverhead() {
            int a = 0;
            int f = 0;
            int k = 0;
            long w = wireBytes;
            while (true) {
                if (w >= ackAt) {
                    ackAt += ackLimit;
                    w += PcieConfig.DLLP_BYTES;
                    a += PcieConfig.DLLP_BYTES;
                } else if (w >= fcAt) {
                    fcAt += fcLimit;
                    w += PcieConfig.DLLP_BYTES;
                    f += PcieConfig.DLLP_BYTES;
                } else if (w >= skipAt) {
                    skipAt += PcieConfig.SKIP_INTERVAL_BYTES;
                    w += PcieConfig.SKIP_BYTES;
                    k += PcieConfig.SKIP_BYTES;
                } else {
                    break;
                }
            }
            wireBytes = w;
            overheadAt = Math.min(ackAt, Math.min(fcAt, skipAt));
            ack = a;
            fc = f;
            skip = k;
        }
    }

    /**
     * Places the pending TLPs up to index {@code i} on the probe; its start and end are then pend[i]'s provisional
     * ones: exact unless a TLP is queued ahead of it before it commits, which only makes them later.
     */
    private ByteClock probe(int i) {
        ByteClock p = probe;
        p.copyFrom(clock);
        for (int j = 0; j <= i; j++) {
            Tlp t = pend[(pHead + j) & pendMask];
            p.place(t.readyPs, t.wireBytes);
        }
        return p;
    }

    private long timeAt(long fromPs, long b) {
        // b >= 0, so shift and mask give quotient and remainder; the remainder's share is rounded up.
        long mask = psDen - 1;
        return fromPs + (b >>> psDenShift) * psNum + (((b & mask) * psNum + mask) >>> psDenShift);
    }

    /** Schedules the delivery of the oldest undelivered TLP, its arrival provisional while it is not committed. */
    private void armDelivery() {
        long at;
        deliveryArmedReadyPs = NEVER;
        if (eagerSeq < cSeq) {
            at = ring[(int) (eagerSeq & ringMask)].arrivePs;
        } else if (eagerPending > 0) {
            // Nothing that is not late is ahead of it on the wire: its provisional arrival.
            int i = firstPending(false);
            deliveryArmedReadyPs = pend[(pHead + i) & pendMask].readyPs;
            at = probe(i).end + linkLatencyPs;
        } else {
            deliver.cancel();
            return;
        }
        moveTo(deliver, at);
    }

    /** Schedules the wake-up for the waiting classes: when the first queued TLP of one of them starts. */
    private void armWake() {
        long at = NEVER;
        for (long q = sSeq; q < cSeq; q++) {
            Tlp t = ring[(int) (q & ringMask)];
            if ((waiting & 1 << t.kind.ordinal()) != 0) {
                at = t.startPs;
                break;
            }
        }
        for (int i = 0; i < pCount && at == NEVER; i++) {
            // Not committed yet: its provisional start. Should a TLP be queued ahead of it, the wake-up comes early,
            // finds the class still full and is armed again.
            Tlp t = pend[(pHead + i) & pendMask];
            if ((waiting & 1 << t.kind.ordinal()) != 0) {
                at = probe(i).start;
            }
        }
        if (at == NEVER) {
            throw new InvariantViolation(fullName() + ": a sender waits for a class with nothing queued");
        }
        moveTo(wake, at);
    }

    /** Schedules the next signal change, while signals are traced. */
    private void armTrace() {
        long at = nextChangePs;
        if (at == NEVER) {
            trace.cancel();
        } else if (!trace.scheduled()) {
            trace.schedule(at);
        } else if (trace.time() != at) {
            trace.reschedule(at);
        }
    }

    private void onTrace() {
        advance();
        armTrace();
    }

    private static final int DELIVER = 0;
    private static final int SENT = 1;
    private static final int WAKE = 2;

    /**
     * Runs one of this link's events bracketed for both ends, so either can finish follow-up work of its own
     * (including work a callback into its clients asked for) at the event's tail; see DmaEngine#wake.
     */
    private void linkEvent(int which) {
        LinkEnd a = bracketSender;
        LinkEnd b = bracketReceiver;
        if (a != null) {
            a.linkEventBegin();
        }
        if (b != null) {
            b.linkEventBegin();
        }
        try {
            advance();
            switch (which) {
                case DELIVER -> onDeliver();
                case SENT -> onSent();
                default -> onWake();
            }
        } catch (RuntimeException | Error e) {
            if (b != null) {
                b.linkEventAbandoned();
            }
            if (a != null) {
                a.linkEventAbandoned();
            }
            throw e;
        }
        if (b != null) {
            b.linkEventEnd();
        }
        if (a != null) {
            a.linkEventEnd();
        }
    }

    private void onDeliver() {
        long now = now();
        // The late TLPs ahead of it arrived earlier, so bringing the link up to date handed them over.
        Tlp t = dSeq < cSeq ? ring[(int) (dSeq & ringMask)] : null;
        if (t == null || t.arrivePs != now || t.late) {
            throw new InvariantViolation(fullName() + ": delivery at " + now + " ps finds " + t
                    + (t == null ? "" : " arriving at " + t.arrivePs + " ps" + (t.late ? ", a late one" : "")));
        }
        boolean sentFirst = nHead < nTail && notify[(int) (nHead & ringMask)] == dSeq;
        if (sentFirst) {
            // Zero link latency: its end and its arrival are the same instant, and the end comes first.
            nHead++;
        }
        ring[(int) (dSeq & ringMask)] = null;
        dSeq++;
        if (tracing) {
            flightSignal.set(eSeq - dSeq);
        }
        long e = firstEagerCommitted();
        eagerSeq = e;
        if (dSeq < e) {
            nextChangePs = Math.min(nextChangePs, ring[(int) (dSeq & ringMask)].arrivePs);
        }
        armDelivery();
        if (sentFirst) {
            armSent();
            sender.sent(t);
        }
        receiver.receive(t);
    }

    private void onSent() {
        long now = now();
        while (nHead < nTail) {
            Tlp t = ring[(int) (notify[(int) (nHead & ringMask)] & ringMask)];
            if (t.endPs > now) {
                break;
            }
            nHead++;
            sender.sent(t);
        }
        armSent();
    }

    /**
     * Arms the sent event for the first TLP to report: a committed one, or else the first pending one at its
     * provisional end (early if a TLP is queued ahead of it later; {@link #onSent} then arms it again).
     */
    private void armSent() {
        long at;
        sentArmedReadyPs = NEVER;
        if (nHead < nTail) {
            at = ring[(int) (notify[(int) (nHead & ringMask)] & ringMask)].endPs;
        } else if (pendNotify > 0) {
            int i = 0;
            while (!pend[(pHead + i) & pendMask].notifySent) {
                i++;
            }
            sentArmedReadyPs = pend[(pHead + i) & pendMask].readyPs;
            at = probe(i).end;
        } else {
            sentEvent.cancel();
            return;
        }
        moveTo(sentEvent, at);
    }

    /** Schedules {@code e} at {@code at}, moving it only if it is pending at another time. */
    private static void moveTo(Event e, long at) {
        if (!e.scheduled()) {
            e.schedule(at);
        } else if (e.time() != at) {
            e.reschedule(at);
        }
    }

    private void onWake() {
        int free = 0;
        for (int c = 0; c < CLASSES; c++) {
            if ((waiting & 1 << c) != 0 && classCount[c] < classLimit[c]) {
                free |= 1 << c;
            }
        }
        waiting &= ~free;
        if (waiting != 0) {
            armWake();
        }
        if (free != 0) {
            sender.txSpace();
        }
    }

    /** Fraction of time since the last statistics reset that the serializer was busy. */
    public double busyFraction() {
        advance();
        return busy.average();
    }

    /** All bytes put on the wire in this direction so far: TLPs, DLLPs and SKIPs. */
    public long wireBytes() {
        advance();
        return startedBytes;
    }

    public long payloadBytes() {
        advance();
        return payloadBytes.value();
    }

    public long overheadBytes() {
        advance();
        return bytesAck.value() + bytesFc.value() + bytesSkip.value();
    }

    /** Most TLPs the wire can hold at once. */
    int wireCapacity() {
        return wireCapacity;
    }

    /** TLPs waiting to be serialized. */
    public int queued() {
        advance();
        return (int) (cSeq - sSeq);
    }

    /** TLPs serialized and not yet delivered. */
    public int onWire() {
        advance();
        long now = now();
        long q = dSeq;
        while (q < sSeq && ring[(int) (q & ringMask)].endPs <= now) {
            q++;
        }
        return (int) (q - dSeq);
    }

    /** Picoseconds {@code bytes} take on this link at the raw rate (rounded up); for tools, not for the model. */
    public long serializationPs(long bytes) {
        return (bytes * psNum + psDen - 1) / psDen;
    }

    @Override
    protected void onReset() {
        advance();
        if (cSeq != dSeq || pCount != 0) {
            throw new InvariantViolation(fullName() + ": reset with TLPs still queued or on the wire");
        }
        deliver.cancel();
        sentEvent.cancel();
        wake.cancel();
        trace.cancel();
        waiting = 0;
        eagerSeq = cSeq;
        eagerPending = 0;
        clock.restart(now());
        pendNotify = 0;
        sentArmedReadyPs = NEVER;
        deliveryArmedReadyPs = NEVER;
        startedBytes = 0;
        busyOn = false;
        nextChangePs = NEVER;
        busy.set(0);
        busySignal.set(0);
    }
}
