package dev.rdmasim.adapter.pcie;

import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.TimeAverage;
import dev.rdmasim.kernel.wave.Signal;

/**
 * One direction of the link: a transmit queue, the serializer that puts TLPs and data-link overhead on the wire
 * at the raw rate, and the wire itself (a fixed pipeline latency) up to the receiver.
 *
 * <p>The queue is served strictly in arrival order, which satisfies every PCIe ordering rule (posted writes never
 * pass each other, completions never pass posted writes). Each traffic class (posted, non-posted, completion) has
 * its own limit, so a full class is refused without blocking the others from being accepted.
 *
 * <p>Data-link overhead is real bytes in the same stream: after the TLP that completes each {@code ackLimit} bytes
 * of link traffic an 8 B Ack DLLP follows, likewise an 8 B flow-control update every {@code fcUpdateLimit} bytes and
 * a 4 B SKIP every 1538 bytes. Time is derived from the cumulative byte count since the link last went idle, so no
 * rounding accumulates.
 */
public final class LinkTransmitter extends Module {
    private static final int POSTED = 0;
    private static final int NON_POSTED = 1;
    private static final int COMPLETION = 2;

    private final long linkLatencyPs;
    private final long psNum;
    private final long psDen;
    /** log2 of psDen: with power-of-two lane counts psDen is always a power of two, so shifts replace divisions. */
    private final int psDenShift;
    private final int ackLimit;
    private final int fcLimit;

    private final int[] classLimit = new int[3];
    private final int[] classCount = new int[3];
    private final Tlp[] queue;
    private int qHead;
    private int qCount;

    private final Tlp[] flight;
    private final long[] flightArrivePs;
    private int fHead;
    private int fCount;

    private LinkEnd sender;
    private LinkEnd receiver;

    private Tlp current;
    private long wireBytes;
    private long anchorBytes;
    private long anchorPs;
    private long freeAtPs;
    private long sinceAck;
    private long sinceFc;
    private long sinceSkip;

    private final Event txDone;
    private final Event linkFree;
    private final Event deliver;

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
        classLimit[POSTED] = postedLimit;
        classLimit[NON_POSTED] = nonPostedLimit;
        classLimit[COMPLETION] = completionLimit;
        this.queue = new Tlp[Math.max(1, postedLimit + nonPostedLimit + completionLimit)];
        // TLPs leave at least one minimal TLP time apart, so the wire holds a bounded number of them.
        int minTlp = Math.min(cfg.completionOverheadBytes(), cfg.requestOverheadBytes());
        int flightCap = (int) Math.min(1 << 20, linkLatencyPs * psDen / (minTlp * psNum) + 2);
        this.flight = new Tlp[flightCap];
        this.flightArrivePs = new long[flightCap];

        this.txDone = sim().event(fullName() + ".txDone", () -> linkEvent(TX_DONE));
        this.linkFree = sim().event(fullName() + ".linkFree", () -> linkEvent(LINK_FREE));
        this.deliver = sim().event(fullName() + ".deliver", () -> linkEvent(DELIVER));

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
        busySignal = signal("busy", 1);
        queueSignal = signal("queued", 16);
        flightSignal = signal("onWire", 16);
    }

    private static long gcd(long a, long b) {
        return b == 0 ? a : gcd(b, a % b);
    }

    void connect(LinkEnd from, LinkEnd to) {
        this.sender = from;
        this.receiver = to;
    }

    /** The ordering class of a TLP kind; {@link TlpKind} declares its kinds in class order (MWR, MRD, CPLD). */
    private static int trafficClass(TlpKind kind) {
        return kind.ordinal();
    }

    /** True if a TLP of this kind would be accepted by {@link #enqueue} now. */
    boolean canAccept(TlpKind kind) {
        int c = trafficClass(kind);
        return classCount[c] < classLimit[c];
    }

    /** Queues a TLP whose fields are set; the caller must have checked {@link #canAccept}. */
    void enqueue(Tlp t) {
        int c = trafficClass(t.kind);
        if (classCount[c] >= classLimit[c]) {
            throw new InvariantViolation(fullName() + ": " + t.kind + " queued beyond its class limit " + classLimit[c]);
        }
        classCount[c]++;
        t.queuedPs = now();
        int tail = qHead + qCount;
        queue[tail < queue.length ? tail : tail - queue.length] = t;
        qCount++;
        queued.set(qCount);
        queueSignal.set(qCount);
        if (current == null && !linkFree.scheduled()) {
            startNext();
        }
    }

    private void startNext() {
        Tlp t = queue[qHead];
        queue[qHead] = null;
        qHead = qHead + 1 == queue.length ? 0 : qHead + 1;
        qCount--;
        classCount[trafficClass(t.kind)]--;
        queued.set(qCount);
        queueSignal.set(qCount);

        long now = now();
        if (now > freeAtPs) {
            // The link was idle: restart the byte clock here so the gap is not counted as bytes.
            anchorPs = now;
            anchorBytes = wireBytes;
        }
        account(t.wireBytes);
        long tlpEndPs = timeAt(wireBytes);
        countTlp(t);
        while (true) {
            if (sinceAck >= ackLimit) {
                sinceAck -= ackLimit;
                account(PcieConfig.DLLP_BYTES);
                bytesAck.add(PcieConfig.DLLP_BYTES);
            } else if (sinceFc >= fcLimit) {
                sinceFc -= fcLimit;
                account(PcieConfig.DLLP_BYTES);
                bytesFc.add(PcieConfig.DLLP_BYTES);
            } else if (sinceSkip >= PcieConfig.SKIP_INTERVAL_BYTES) {
                sinceSkip -= PcieConfig.SKIP_INTERVAL_BYTES;
                account(PcieConfig.SKIP_BYTES);
                bytesSkip.add(PcieConfig.SKIP_BYTES);
            } else {
                break;
            }
        }
        freeAtPs = timeAt(wireBytes);
        current = t;
        busy.set(1);
        busySignal.set(1);
        txDone.schedule(tlpEndPs);
        sender.txSpace();
    }

    private void countTlp(Tlp t) {
        switch (t.kind) {
            case MWR -> {
                tlpsMwr.inc();
                bytesMwr.add(t.wireBytes);
                payloadBytes.add(t.length);
            }
            case MRD -> {
                tlpsMrd.inc();
                bytesMrd.add(t.wireBytes);
            }
            case CPLD -> {
                tlpsCpld.inc();
                bytesCpld.add(t.wireBytes);
                payloadBytes.add(t.length);
            }
        }
    }

    private void account(long n) {
        wireBytes += n;
        sinceAck += n;
        sinceFc += n;
        sinceSkip += n;
    }

    /** Time the byte at cumulative position {@code bytes} has fully left, rounded up to the picosecond. */
    private long timeAt(long bytes) {
        long b = bytes - anchorBytes;
        // b >= 0, so shift and mask give quotient and remainder; the remainder's share is rounded up.
        long mask = psDen - 1;
        return anchorPs + (b >>> psDenShift) * psNum + (((b & mask) * psNum + mask) >>> psDenShift);
    }

    private static final int TX_DONE = 0;
    private static final int LINK_FREE = 1;
    private static final int DELIVER = 2;

    /**
     * Runs one of this link's events bracketed for both ends, so either can finish follow-up work of its own
     * (including work a callback into its clients asked for) at the event's tail; see DmaEngine#wake.
     */
    private void linkEvent(int which) {
        sender.linkEventBegin();
        receiver.linkEventBegin();
        try {
            switch (which) {
                case TX_DONE -> onTxDone();
                case LINK_FREE -> onLinkFree();
                default -> onDeliver();
            }
        } catch (RuntimeException | Error e) {
            receiver.linkEventAbandoned();
            sender.linkEventAbandoned();
            throw e;
        }
        receiver.linkEventEnd();
        sender.linkEventEnd();
    }

    private void onTxDone() {
        Tlp t = current;
        current = null;
        sender.sent(t);
        if (fCount == flight.length) {
            throw new InvariantViolation(fullName() + ": more TLPs on the wire than it can hold");
        }
        int slot = fHead + fCount;
        if (slot >= flight.length) {
            slot -= flight.length;
        }
        flight[slot] = t;
        flightArrivePs[slot] = now() + linkLatencyPs;
        fCount++;
        flightSignal.set(fCount);
        if (!deliver.scheduled()) {
            deliver.schedule(flightArrivePs[fHead]);
        }
        if (freeAtPs <= now()) {
            onLinkFree();
        } else {
            linkFree.schedule(freeAtPs);
        }
    }

    private void onLinkFree() {
        if (qCount > 0) {
            startNext();
        } else {
            busy.set(0);
            busySignal.set(0);
        }
    }

    private void onDeliver() {
        Tlp t = flight[fHead];
        flight[fHead] = null;
        fHead = fHead + 1 == flight.length ? 0 : fHead + 1;
        fCount--;
        flightSignal.set(fCount);
        if (fCount > 0) {
            deliver.schedule(flightArrivePs[fHead]);
        }
        receiver.receive(t);
    }

    /** Fraction of time since the last statistics reset that the serializer was busy. */
    public double busyFraction() {
        return busy.average();
    }

    /** All bytes ever put on the wire in this direction: TLPs, DLLPs and SKIPs. */
    public long wireBytes() {
        return wireBytes;
    }

    public long payloadBytes() {
        return payloadBytes.value();
    }

    public long overheadBytes() {
        return bytesAck.value() + bytesFc.value() + bytesSkip.value();
    }

    /** Most TLPs the wire can hold at once. */
    int wireCapacity() {
        return flight.length;
    }

    /** TLPs waiting to be serialized. */
    public int queued() {
        return qCount;
    }

    /** TLPs serialized and not yet delivered. */
    public int onWire() {
        return fCount;
    }

    /** Picoseconds {@code bytes} take on this link at the raw rate (rounded up); for tools, not for the model. */
    public long serializationPs(long bytes) {
        return (bytes * psNum + psDen - 1) / psDen;
    }

    @Override
    protected void onReset() {
        if (qCount != 0 || fCount != 0 || current != null) {
            throw new InvariantViolation(fullName() + ": reset with TLPs still queued or on the wire");
        }
        txDone.cancel();
        linkFree.cancel();
        deliver.cancel();
        wireBytes = anchorBytes = 0;
        anchorPs = freeAtPs = now();
        sinceAck = sinceFc = sinceSkip = 0;
        busy.set(0);
        busySignal.set(0);
    }
}
