package dev.rdmasim.adapter.pcie;

import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.stats.Bound;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.Histogram;
import dev.rdmasim.kernel.stats.TimeAverage;
import dev.rdmasim.kernel.wave.Signal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The device's DMA engine: turns client requests into TLPs on the upstream link and reassembles completions.
 *
 * <p>Reads are cut at MRRS and 4 KiB boundaries into read requests, each holding a tag (its index in the tag table)
 * until its last completion arrives; with no free tag the channel waits. Writes are cut at MPS and 4 KiB boundaries
 * into memory writes whose payload is copied from the client's buffer as each TLP is built. Channels are served
 * round-robin one TLP at a time, as long as the device transmit queue for that TLP's class has room.
 *
 * <p>A request with a ready time in the future ({@link DmaRequest#notBefore}) is issued the same way; its TLPs go to
 * the link marked ready at that time, so they hold their queue slots (and a read its tags) from issue, and every
 * callback comes at its true instant from the link's own events, without an event of the engine.
 *
 * <p>Downstream, completions are copied into the reading client's buffer, and host MMIO writes go to the
 * {@link MmioTarget}.
 */
public final class DmaEngine extends Module {
    /** This block's side of the link, kept private so clients cannot inject TLPs. */
    final LinkEnd linkEnd = new LinkEnd() {
        @Override
        public void receive(Tlp tlp) {
            DmaEngine.this.receive(tlp);
        }

        @Override
        public void sent(Tlp tlp) {
            DmaEngine.this.sent(tlp);
        }

        @Override
        public void txSpace() {
            DmaEngine.this.wake();
        }

        @Override
        public boolean takesLate(Tlp tlp) {
            return DmaEngine.this.takesLate(tlp);
        }

        @Override
        public boolean stillLate(Tlp tlp) {
            // A read waits for a tag: every completion that frees one comes in an event again.
            if (tlp.byteCount == tlp.length) {
                lateTagFrees--;
                tagFreesHurried++;
                return false;
            }
            return true;
        }

        @Override
        public boolean bracketsLinkEvents() {
            return true;
        }

        @Override
        public void linkEventBegin() {
            inLinkEvent = true;
        }

        @Override
        public void linkEventEnd() {
            inLinkEvent = false;
            if (pumpOwed) {
                pumpOwed = false;
                onPump();
            }
        }

        @Override
        public void linkEventAbandoned() {
            // No tail is coming: fall back to the pump event, so the request is not lost.
            inLinkEvent = false;
            if (pumpOwed) {
                pumpOwed = false;
                pump.scheduleIn(0);
            }
        }
    };

    private static final long MAX_LATENCY_NS = 1_000_000_000L;

    private final PcieConfig cfg;
    // Per-TLP figures of the configuration, read once.
    private final int requestOverhead;
    private final int mps;
    private final int mrrs;
    private final TlpPool pool;
    private final LinkTransmitter up;
    private final LinkTransmitter down;
    private final List<DmaChannel> channels = new ArrayList<>();
    private DmaChannel[] rr = new DmaChannel[0];
    private int rrNext;
    /** One bit per channel (its index in {@link #rr}) that has requests queued; kept by the channels. */
    long nonEmpty;
    private final Event pump;
    private boolean pumping;
    /** Inside a link event that calls into this engine; its last step is {@link LinkEnd#linkEventEnd}. */
    private boolean inLinkEvent;
    /** A pump that runs at the tail of the current link event instead of in its own event. */
    private boolean pumpOwed;
    private MmioTarget mmioTarget;

    // Tag table: tag t is free or holds one outstanding read request.
    private final DmaRequest[] tagRequest;
    private final long[] tagAddress;
    private final int[] tagRemaining;
    private final long[] tagIssuePs;
    private final int[] freeTags;
    private int freeTagCount;
    /** A read could not issue for lack of a tag, and no tag has been freed since. */
    private boolean tagWaiting;
    /** Completions taken late that free a tag, not yet handed over (see {@link #takesLate}). */
    private int lateTagFrees;
    /** Such completions delivered in an event after all, because a read came to wait for a tag (for tests). */
    long tagFreesHurried;

    private final Counter readRequests;
    private final Counter writeRequests;
    private final Counter readBytes;
    private final Counter writeBytes;
    private final Counter mrds;
    private final Counter mwrs;
    private final Counter cplds;
    private final Counter mmioWrites;
    private final Counter tagStalls;
    private final TimeAverage tagsInUse;
    private final Bound tagsFull;
    private final Histogram readLatency;
    private final Histogram mrdLatency;
    private final Signal tagsSignal;

    DmaEngine(Module parent, String name, PcieConfig cfg, TlpPool pool, LinkTransmitter up, LinkTransmitter down) {
        super(parent, name);
        this.cfg = cfg;
        this.requestOverhead = cfg.requestOverheadBytes();
        this.mps = cfg.mps();
        this.mrrs = cfg.mrrs();
        this.pool = pool;
        this.up = up;
        this.down = down;
        this.pump = sim().event(fullName() + ".pump", this::onPump);
        int n = cfg.readTags();
        tagRequest = new DmaRequest[n];
        tagAddress = new long[n];
        tagRemaining = new int[n];
        tagIssuePs = new long[n];
        freeTags = new int[n];
        // Lowest tag on top of the stack, so a lone reader always uses tag 0.
        for (int i = 0; i < n; i++) {
            freeTags[i] = n - 1 - i;
        }
        freeTagCount = n;
        var s = stats();
        readRequests = s.counter("readRequests", "requests", "DMA read requests completed");
        writeRequests = s.counter("writeRequests", "requests", "DMA write requests sent");
        readBytes = s.counter("readBytes", "B", "bytes read from host memory");
        writeBytes = s.counter("writeBytes", "B", "bytes written to host memory");
        mrds = s.counter("mrds", "TLPs", "read request TLPs issued");
        mwrs = s.counter("mwrs", "TLPs", "memory write TLPs issued");
        cplds = s.counter("cplds", "TLPs", "completions received");
        mmioWrites = s.counter("mmioWrites", "TLPs", "host MMIO writes received");
        tagStalls = s.counter("tagStalls", "times", "times a read could not issue for lack of a free tag");
        tagsInUse = s.timeAverage("tagsInUse", "tags", "read tags outstanding");
        tagsFull = s.bound("readTags", "PCIe read tags", "every tag held by a read", "pcie.readTags");
        // "Submission" and "issue" mean the ready time for a request given one (docs/pcie.md); the descriptions are
        // kept as they were so that outputs of runs without ready times stay byte-identical.
        readLatency = s.histogram("readLatency", "ns", "read request latency, submission to last byte", MAX_LATENCY_NS);
        mrdLatency = s.histogram("mrdLatency", "ns", "read TLP round trip, issue to last completion", MAX_LATENCY_NS);
        tagsSignal = signal("tagsInUse", 16);
        // Completions taken late are counted when handed over: a dump first brings the downstream link up to now.
        s.setRefresh(down::advance);
    }

    /** Adds a client channel with a submission queue of {@code depth} requests. */
    public DmaChannel addChannel(String channelName, int depth) {
        return addChannel(channelName, depth, "its depth, " + depth);
    }

    /**
     * Adds a client channel with a submission queue of {@code depth} requests, set by {@code depthParameter} (named
     * in the description of the time the queue is full).
     */
    public DmaChannel addChannel(String channelName, int depth, String depthParameter) {
        if (depth < 1) {
            throw new IllegalArgumentException(fullName() + ": channel '" + channelName + "' depth must be >= 1, got " + depth);
        }
        for (DmaChannel c : channels) {
            if (c.name().equals(channelName)) {
                throw new IllegalArgumentException(fullName() + " already has a channel named '" + channelName + "'");
            }
        }
        if (channels.size() == Long.SIZE) {
            throw new IllegalArgumentException(fullName() + ": at most " + Long.SIZE + " channels, adding '" + channelName + "'");
        }
        DmaChannel c = new DmaChannel(this, channelName, depth, depthParameter, channels.size());
        channels.add(c);
        rr = channels.toArray(new DmaChannel[0]);
        return c;
    }

    public List<DmaChannel> channels() {
        return Collections.unmodifiableList(channels);
    }

    /** Receives host MMIO writes. */
    public void setMmioTarget(MmioTarget target) {
        this.mmioTarget = target;
    }

    Signal signalFor(String localName, int width) {
        return signal(localName, width);
    }

    /** Tags currently held by outstanding read TLPs. */
    public int tagsInUse() {
        down.advance();
        return tagsHeld();
    }

    /** Tags held, as this engine last saw them: late completions not yet handed over still hold theirs. */
    private int tagsHeld() {
        return cfg.readTags() - freeTagCount;
    }

    /** Highest number of tags held at once since the last statistics reset. */
    public long maxTagsInUse() {
        down.advance();
        return tagsInUse.max();
    }

    public double averageTagsInUse() {
        down.advance();
        return tagsInUse.average();
    }

    public long readTlpsIssued() {
        return mrds.value();
    }

    public long writeTlpsIssued() {
        return mwrs.value();
    }

    public long completionsReceived() {
        down.advance();
        return cplds.value();
    }

    /** Read request latency, from its ready time (submission unless given a later one) to last byte, in ns. */
    public Histogram readLatency() {
        return readLatency;
    }

    /**
     * Asks for a pump at the current instant. Called by a client's submission outside any link event, it pumps at
     * once: nothing else of this engine is running, and a pump issues nothing a channel is not entitled to by
     * round-robin. Inside one of the link's events (a delivery or send completion, a wake-up for queue space, or a
     * client callback they make) the pump runs at the event's tail instead, after the callback and the rest of the
     * event, so no TLP is issued in the middle of the engine's own bookkeeping. Either way it costs no event.
     */
    void wake() {
        if (pumping || pumpOwed || pump.scheduled()) {
            return;
        }
        if (inLinkEvent) {
            pumpOwed = true;
        } else {
            onPump();
        }
    }

    private void onPump() {
        pumping = true;
        try {
            int n = rr.length;
            // Round-robin, one TLP per turn, until a full round finds nobody able to go (or nothing is left), which
            // leaves rrNext just after the last channel that went. Only channels with requests are visited (their
            // bits in nonEmpty, read afresh each turn since issuing may submit or finish requests); an empty one would
            // be passed over anyway. travelled counts the positions the current round has passed since its start.
            int pos = rrNext;
            int travelled = 0;
            while (true) {
                long m = nonEmpty;
                if (m == 0) {
                    break;
                }
                long after = m & (-1L << pos);
                int i = Long.numberOfTrailingZeros(after != 0 ? after : m);
                travelled += (i >= pos ? i - pos : i + n - pos) + 1;
                if (travelled > n) {
                    break;
                }
                // May be n: the search from there finds no bit at or above it and wraps to the lowest (also at n = 64,
                // where the shift by 64 leaves every bit).
                pos = i + 1;
                if (issueOne(rr[i])) {
                    rrNext = pos;
                    travelled = 0;
                }
            }
        } finally {
            pumping = false;
        }
    }

    private boolean issueOne(DmaChannel c) {
        DmaRequest r = c.head();
        if (r == null) {
            return false;
        }
        long addr = r.hostAddress + r.issued;
        int left = r.length - r.issued;
        int toPage = PcieConfig.PAGE_BOUNDARY - (int) (addr & (PcieConfig.PAGE_BOUNDARY - 1));
        return r.kind == DmaRequest.Kind.READ ? issueRead(c, r, addr, Math.min(left, Math.min(mrrs, toPage)))
                : issueWrite(c, r, addr, Math.min(left, Math.min(mps, toPage)));
    }

    private boolean issueRead(DmaChannel c, DmaRequest r, long addr, int len) {
        if (!up.canAccept(TlpKind.MRD)) {
            return false;
        }
        if (lateTagFrees > 0) {
            // Tags freed by completions taken late are free from their arrival: hand those arrived by now over.
            down.advance();
        }
        if (freeTagCount == 0) {
            tagStalls.inc();
            tagWaiting = true;
            if (lateTagFrees > 0) {
                down.hurryLate();
            }
            return false;
        }
        int tag = freeTags[--freeTagCount];
        if (freeTagCount == 0) {
            tagsFull.set(true);
        }
        tagRequest[tag] = r;
        tagAddress[tag] = addr;
        tagRemaining[tag] = len;
        long ready = Math.max(r.readyPs, now());
        tagIssuePs[tag] = ready;
        tagsInUse.set(tagsHeld());
        tagsSignal.set(tagsHeld());
        Tlp t = pool.acquire(TlpKind.MRD);
        t.address = addr;
        t.length = len;
        t.tag = tag;
        t.wireBytes = requestOverhead;
        t.readInto = r.buffer;
        t.readOffset = r.offset + r.issued;
        r.issued += len;
        mrds.inc();
        if (r.issued == r.length) {
            c.pop();
        }
        up.enqueue(t, ready);
        return true;
    }

    private boolean issueWrite(DmaChannel c, DmaRequest r, long addr, int len) {
        if (!up.canAccept(TlpKind.MWR)) {
            return false;
        }
        Tlp t = pool.acquire(TlpKind.MWR);
        t.address = addr;
        t.length = len;
        t.wireBytes = requestOverhead + len;
        ByteLender lender = r.lender;
        if (lender != null) {
            // A slice of the client's bytes, read when the root complex applies the TLP (Tlp#writeFrom).
            t.writeFrom = r.buffer;
            t.writeOffset = r.offset + r.issued;
            t.lender = lender;
            lender.lent();
        } else {
            System.arraycopy(r.buffer, r.offset + r.issued, t.payload, 0, len);
        }
        t.owner = r;
        r.issued += len;
        t.last = r.issued == r.length;
        // The write's writeSent waits for its last TLP to leave.
        t.notifySent = t.last;
        t.notifyOnApply = t.last && r.notifyApplied;
        mwrs.inc();
        if (t.last) {
            c.pop();
        }
        up.enqueue(t, Math.max(r.readyPs, now()));
        return true;
    }

    private void receive(Tlp t) {
        // Comparisons rather than an enum switch, which costs a lookup table per TLP.
        if (t.kind == TlpKind.CPLD) {
            completion(t);
        } else if (t.kind == TlpKind.MWR) {
            if (mmioTarget == null) {
                throw new InvariantViolation(fullName() + ": MMIO write arrived but no MMIO target is set");
            }
            mmioWrites.inc();
            mmioTarget.mmioWrite(t.address, t.payload, 0, t.length);
            pool.release(t);
        } else {
            throw new InvariantViolation(fullName() + ": the device does not serve host reads, got " + t);
        }
    }

    private void completion(Tlp t) {
        int tag = t.tag;
        DmaRequest r = tagRequest[tag];
        if (r == null) {
            throw new InvariantViolation(fullName() + ": completion for free tag " + tag);
        }
        // Completions of one request arrive in address order, each carrying the bytes still to come.
        if (t.address != tagAddress[tag] || t.byteCount != tagRemaining[tag] || t.length > tagRemaining[tag]) {
            throw new InvariantViolation(fullName() + ": completion " + t + " does not continue tag " + tag + " in order");
        }
        // The root complex put the bytes into r.buffer when it served the read (Tlp#readInto).
        tagAddress[tag] += t.length;
        int len = t.length;
        boolean late = t.late;
        long at = t.arrivePs; // now, unless taken late
        pool.release(t);
        cplds.inc();
        tagRemaining[tag] -= len;
        if (tagRemaining[tag] == 0) {
            mrdLatency.record((at - tagIssuePs[tag]) / 1000);
            tagRequest[tag] = null;
            if (freeTagCount == 0) {
                tagsFull.setAt(at, false);
            }
            freeTags[freeTagCount++] = tag;
            tagsInUse.setAt(at, tagsHeld());
            tagsSignal.set(tagsHeld());
            if (late) {
                // Nobody waited for it: a read that found no tag had it delivered in an event (hurryLate).
                lateTagFrees--;
                if (tagWaiting) {
                    throw new InvariantViolation(fullName() + ": tag " + tag + " freed late while a read waits for one");
                }
            } else {
                tagWaiting = false;
                wake();
            }
        }
        r.outstanding -= len;
        if (r.outstanding == 0) {
            if (late) {
                throw new InvariantViolation(fullName() + ": the last completion of " + r + " was taken late");
            }
            r.inEngine = false;
            readRequests.inc();
            readBytes.add(r.length);
            readLatency.record((now() - r.readyPs) / 1000);
            r.callback.readDone(r);
        }
    }

    /**
     * Whether the link may hand {@code t} over late. A completion before its read's last only adds bytes to the
     * client's buffer, which the client reads after the last one. The last one of a read request that is not the
     * request's last only frees a tag, which no read waits for (with one waiting, or the tag level traced, it comes
     * in an event): a request's read requests are issued in address order and their completions come back in that
     * order, so its last byte ends its last completion, which is always delivered in an event; the link hands every
     * earlier TLP over first. A read that finds no tag first brings the link up to date ({@link #issueRead}).
     */
    private boolean takesLate(Tlp t) {
        if (t.kind != TlpKind.CPLD) {
            return false;
        }
        if (t.byteCount != t.length) {
            return true;
        }
        DmaRequest r = tagRequest[t.tag];
        if (tagWaiting || tagsSignal.enabled() || r == null || t.address + t.length == r.hostAddress + r.length) {
            return false;
        }
        lateTagFrees++;
        return true;
    }

    private void sent(Tlp t) {
        if (t.kind == TlpKind.MWR && t.last) {
            // Only such TLPs ask to hear of their end (notifySent).
            DmaRequest r = t.owner;
            writeRequests.inc();
            writeBytes.add(r.length);
            r.sentSeen = true;
            if (!r.notifyApplied) {
                r.inEngine = false;
            }
            r.callback.writeSent(r);
        }
    }

    void writeApplied(DmaRequest r) {
        if (!r.sentSeen) {
            throw new InvariantViolation("write " + r + " applied before its last TLP was sent");
        }
        r.inEngine = false;
        r.callback.writeApplied(r);
    }

    @Override
    protected void onReset() {
        boolean queued = false;
        for (DmaChannel c : rr) {
            queued |= c.queued() > 0;
        }
        if (queued || tagsInUse() > 0) {
            throw new InvariantViolation(fullName() + ": reset with DMA requests queued or reads outstanding");
        }
        pump.cancel();
        pumpOwed = false;
        rrNext = 0;
    }
}
