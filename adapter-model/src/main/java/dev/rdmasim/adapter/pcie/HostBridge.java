package dev.rdmasim.adapter.pcie;

import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.kernel.DeferredWork;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.TimeAverage;
import dev.rdmasim.kernel.wave.Signal;
import java.util.Objects;

/**
 * The root complex (host bridge) at the host end of the link. Applies device memory writes to {@link HostMemory} in
 * arrival order (or turns writes into the MSI-X window into interrupts), answers device reads after the host read
 * latency with completions cut at MPS or RCB boundaries, and sends host MMIO writes downstream once they have come
 * through the uncore ({@code mmioLatencyPs}).
 *
 * <p>A device write is committed to memory (and seen by the CPU, the write observer and a DMA's {@code writeApplied})
 * the host write latency after it arrives; writes, MSI-X messages included, commit in arrival order, so a CQE is
 * never visible before the data written ahead of it, nor an interrupt before the CQE.
 *
 * <p>A write nobody watches (not MSI-X, no client waiting for it to apply, outside what the write observer watches)
 * is taken late: it costs neither a delivery nor a commit event, and is applied when due at the next access to host
 * memory, to this bridge or to the upstream link, so every access sees the same bytes as with an event per write.
 *
 * <p>Host memory is sampled when a read request reaches the root complex: it sees every write that arrived before
 * it (a read pushes the writes ahead of it in the root complex, so those still committing are committed first), and
 * none that arrives while it waits out the host read latency. Its completions are queued downstream at once,
 * ready when that latency has passed; the downstream queue is served in ready order, so a completion never passes
 * an MMIO write queued before it was ready.
 */
public final class HostBridge extends Module {
    /** This block's side of the link, kept private so clients cannot inject TLPs. */
    final LinkEnd linkEnd = new LinkEnd() {
        @Override
        public void receive(Tlp tlp) {
            HostBridge.this.receive(tlp);
        }

        @Override
        public void sent(Tlp tlp) {
            HostBridge.this.sent(tlp);
        }

        @Override
        public void txSpace() {
            HostBridge.this.txSpace();
        }

        @Override
        public boolean takesLate(Tlp tlp) {
            return HostBridge.this.takesLate(tlp);
        }
    };

    private final PcieConfig cfg;
    private final HostMemory memory;
    private final TlpPool pool;
    private final LinkTransmitter down;
    private final LinkTransmitter up;
    private final int cplUnit;
    // Per-TLP figures of the configuration, read once.
    private final int rcbMask;
    private final int completionOverhead;
    private final int requestOverhead;
    private final long readLatencyPs;
    private final long writeLatencyPs;
    private final long mmioLatencyPs;
    // Device writes arrived and not yet committed, oldest first (all wait the same time, so arrival order is due
    // order); a ring that grows, as the TLP pool does, while the link warms up.
    private Tlp[] committing = new Tlp[16];
    private long[] commitDuePs = new long[16];
    private boolean[] commitLate = new boolean[16];
    private int cHead;
    private int cCount;
    /** Writes committing that wait for the commit event (not late); the event is armed for the first of them. */
    private int eagerCommits;
    private final Event commit;

    // Late writes (LinkTransmitter#setLateHandover): no delivery or commit event of their own. They are applied when
    // due, the next time the upstream link, this bridge or host memory is touched; host memory runs settle() before
    // every access while any are in flight or committing.
    private int lateInFlight;
    private int lateCommitting;
    private long lastLateDuePs;
    private final Runnable settle = this::settle;
    /** Inside this bridge's own work, whose host memory accesses must not settle. */
    private boolean inBridge;

    // Read requests inside the host read latency, in arrival order (all wait the same time): when their
    // completions are ready and how many there are. Their completions are already queued downstream; this only
    // keeps the statistics, which count a read as served when its latency is over.
    private final long[] readDuePs;
    private final int[] readCompletions;
    private int rHead;
    private int rCount;
    /** Sets the pendingReads signal as reads leave; scheduled only while it is traced. */
    private final Event trace;

    private InterruptHandler interruptHandler;
    private HostWriteObserver writeObserver;
    private Runnable mmioRetry;
    private boolean mmioRefused;

    private final Counter writesApplied;
    private final Counter bytesApplied;
    private final Counter interrupts;
    private final Counter readsServed;
    private final Counter completions;
    private final Counter mmioWrites;
    private final Counter mmioBytes;
    private final Counter mmioRefusals;
    private final TimeAverage pendingReads;
    private final Signal pendingReadsSignal;

    HostBridge(Module parent, String name, PcieConfig cfg, HostMemory memory, TlpPool pool, LinkTransmitter down,
               LinkTransmitter up) {
        super(parent, name);
        this.up = up;
        this.cfg = cfg;
        this.memory = Objects.requireNonNull(memory, "memory");
        this.pool = pool;
        this.down = down;
        this.cplUnit = cfg.rcbChunks() ? cfg.rcb() : cfg.mps();
        this.rcbMask = cfg.rcb() - 1;
        this.completionOverhead = cfg.completionOverheadBytes();
        this.requestOverhead = cfg.requestOverheadBytes();
        this.readLatencyPs = cfg.hostReadLatencyPs();
        this.writeLatencyPs = cfg.hostWriteLatencyPs();
        this.mmioLatencyPs = cfg.mmioLatencyPs();
        this.commit = sim().event(fullName() + ".commit", this::onCommit);
        // Late writes still committing when the events run out are applied before the run ends.
        sim().addDeferredWork(new DeferredWork() {
            @Override
            public long deferredUntilPs() {
                return lateCommitting > 0 ? lastLateDuePs : NONE;
            }

            @Override
            public void settle() {
                HostBridge.this.settle();
            }

            @Override
            public String toString() {
                return fullName() + " late writes";
            }
        });
        // The device never has more reads outstanding than tags.
        this.readDuePs = new long[cfg.readTags()];
        this.readCompletions = new int[cfg.readTags()];
        this.trace = sim().event(fullName() + ".trace", this::onTrace);
        var s = stats();
        writesApplied = s.counter("writesApplied", "TLPs", "device memory writes applied to host memory");
        bytesApplied = s.counter("bytesApplied", "B", "bytes written to host memory by the device");
        interrupts = s.counter("interrupts", "MSI-X", "writes to the MSI-X window delivered as interrupts");
        readsServed = s.counter("readsServed", "MRd", "device read requests served");
        completions = s.counter("completions", "CplD", "completions with data sent");
        mmioWrites = s.counter("mmioWrites", "TLPs", "host MMIO writes accepted for the downstream link");
        mmioBytes = s.counter("mmioBytes", "B", "bytes of host MMIO writes");
        mmioRefusals = s.counter("mmioRefusals", "writes", "MMIO writes refused because the posted queue was full");
        pendingReads = s.timeAverage("pendingReads", "MRd", "read requests waiting for host memory");
        s.setRefresh(() -> {
            settle();
            advance();
        });
        pendingReadsSignal = signal("pendingReads", 16);
    }

    /** Most completions one read request can produce: its first one may stop short at an RCB boundary. */
    static int maxCompletionsPerRead(PcieConfig cfg) {
        int unit = cfg.rcbChunks() ? cfg.rcb() : cfg.mps();
        return (cfg.mrrs() + unit - 1) / unit + 1;
    }

    public HostMemory memory() {
        return memory;
    }

    /** Receives MSI-X interrupts; without a handler, an MSI-X write is an error. */
    public void setInterruptHandler(InterruptHandler handler) {
        this.interruptHandler = handler;
    }

    /** Observes every device write as it lands in host memory; null to stop. */
    public void setWriteObserver(HostWriteObserver observer) {
        this.writeObserver = observer;
    }

    /**
     * Called (in its own event, at the instant the posted queue has room again) after a refused {@link #mmioWrite}.
     */
    public void setMmioRetry(Runnable retry) {
        this.mmioRetry = retry;
    }

    /**
     * Host CPU stores {@code len} bytes at BAR offset {@code barOffset} (an 8 B doorbell, a 64 B write-combined
     * chunk; at most MPS). Returns false if the posted queue is full: the caller keeps the bytes and retries after
     * the retry callback.
     */
    public boolean mmioWrite(long barOffset, byte[] src, int off, int len) {
        if (len < 1 || len > cfg.mps()) {
            throw new IllegalArgumentException(fullName() + ": MMIO write of " + len + " bytes, must be 1..MPS ("
                    + cfg.mps() + ")");
        }
        Objects.checkFromIndexSize(off, len, src.length);
        if (!down.canAccept(TlpKind.MWR)) {
            mmioRefused = true;
            mmioRefusals.inc();
            return false;
        }
        Tlp t = pool.acquire(TlpKind.MWR);
        t.address = barOffset;
        t.length = len;
        t.wireBytes = requestOverhead + len;
        System.arraycopy(src, off, t.payload, 0, len);
        mmioWrites.inc();
        mmioBytes.add(len);
        // The store reaches the root port after the uncore path; every store takes the same time, so order is kept.
        down.enqueue(t, now() + mmioLatencyPs);
        return true;
    }

    /**
     * A plain write of data nobody watches (not an MSI-X message, no owner waiting for it to apply, outside what the
     * write observer watches) is taken late: its effect, the bytes in host memory, is first seen by a later access.
     */
    private boolean takesLate(Tlp t) {
        if (t.kind != TlpKind.MWR || t.notifyOnApply || cfg.isMsix(t.address)
                || (writeObserver != null && writeObserver.watches(t.address, t.length))) {
            return false;
        }
        lateInFlight++;
        memory.settleBeforeAccess(settle);
        return true;
    }

    private void receive(Tlp t) {
        boolean outer = inBridge;
        inBridge = true;
        try {
            // Comparisons rather than an enum switch, which costs a lookup table per TLP.
            if (t.kind == TlpKind.MWR) {
                if (t.late) {
                    // Handed over at some instant after its arrival: due the write latency after the arrival.
                    lateInFlight--;
                    queueCommit(t, t.arrivePs + writeLatencyPs, true);
                    commitLateDue();
                } else if (writeLatencyPs == 0) {
                    commitAll(); // late writes that arrived before it
                    applyWrite(t);
                } else {
                    queueCommit(t, now() + writeLatencyPs, false);
                }
            } else if (t.kind == TlpKind.MRD) {
                commitAll(); // the read is ordered behind the writes that reached the root complex before it
                serveRead(t);
            } else {
                throw new InvariantViolation(fullName() + ": the host never reads from the device, yet got " + t);
            }
        } finally {
            inBridge = outer;
        }
        unhookIfSettled();
    }

    private void queueCommit(Tlp t, long duePs, boolean late) {
        if (cCount == committing.length) {
            Tlp[] tl = new Tlp[cCount * 2];
            long[] due = new long[cCount * 2];
            boolean[] lt = new boolean[cCount * 2];
            for (int i = 0; i < cCount; i++) {
                int k = (cHead + i) % committing.length;
                tl[i] = committing[k];
                due[i] = commitDuePs[k];
                lt[i] = commitLate[k];
            }
            committing = tl;
            commitDuePs = due;
            commitLate = lt;
            cHead = 0;
        }
        // Not a %: a division for every device write. The ring is never more than full, so one wrap at most.
        int k = cHead + cCount;
        if (k >= committing.length) {
            k -= committing.length;
        }
        committing[k] = t;
        commitDuePs[k] = duePs;
        commitLate[k] = late;
        cCount++;
        if (late) {
            lateCommitting++;
            lastLateDuePs = duePs;
        } else if (eagerCommits++ == 0) {
            // The first write that waits for the event; any before it are late, and due earlier.
            commit.schedule(duePs);
        }
    }

    /** Commits the writes that are due (or, with {@code all}, every one still committing), in arrival order. */
    private void commitDue(boolean all) {
        long now = now();
        while (cCount > 0 && (all || commitDuePs[cHead] <= now)) {
            commitHead();
        }
    }

    /**
     * Commits the late writes at the head that are due. It stops at a write that waits for the commit event: that
     * event is then due now (it would have run if it were earlier), and the writes behind it are due later.
     */
    private void commitLateDue() {
        long now = now();
        while (cCount > 0 && commitLate[cHead] && commitDuePs[cHead] <= now) {
            commitHead();
        }
    }

    private void commitHead() {
        Tlp t = committing[cHead];
        boolean late = commitLate[cHead];
        committing[cHead] = null;
        cHead = cHead + 1 == committing.length ? 0 : cHead + 1;
        cCount--;
        if (late) {
            lateCommitting--;
        } else {
            eagerCommits--;
        }
        applyWrite(t);
    }

    private void commitAll() {
        if (cCount > 0) {
            commitDue(true);
            commit.cancel();
        }
    }

    private void onCommit() {
        boolean outer = inBridge;
        inBridge = true;
        try {
            commitDue(false);
            if (eagerCommits > 0) {
                int k = cHead;
                while (commitLate[k]) {
                    k = k + 1 == committing.length ? 0 : k + 1;
                }
                commit.schedule(commitDuePs[k]);
            }
        } finally {
            inBridge = outer;
        }
        unhookIfSettled();
    }

    /**
     * Brings the late writes up to now: those the upstream link has delivered by now are handed over, and those due
     * are applied. Run before every host memory access while late writes exist, and before statistics are read.
     */
    private void settle() {
        if (inBridge || (lateInFlight == 0 && lateCommitting == 0)) {
            return;
        }
        inBridge = true;
        try {
            up.advance();
            commitLateDue();
        } finally {
            inBridge = false;
        }
        unhookIfSettled();
    }

    private void unhookIfSettled() {
        if (lateInFlight == 0 && lateCommitting == 0) {
            memory.settleBeforeAccess(null);
        }
    }

    /** Device writes arrived and not yet committed to host memory. */
    public int writesCommitting() {
        settle();
        return cCount;
    }

    private static void returnLent(Tlp t) {
        if (t.lender != null) {
            t.lender.returned();
        }
    }

    private void applyWrite(Tlp t) {
        DmaRequest owner = t.notifyOnApply ? t.owner : null;
        // The write's bytes: its own payload, or the slice of a buffer lent to it (Tlp#writeFrom), returned once read.
        byte[] b = t.writeFrom != null ? t.writeFrom : t.payload;
        int o = t.writeFrom != null ? t.writeOffset : 0;
        if (cfg.isMsix(t.address)) {
            int vector = (int) ((t.address - cfg.msixBase()) >>> 2);
            int data = (b[o] & 0xff) | (t.length > 1 ? (b[o + 1] & 0xff) << 8 : 0)
                    | (t.length > 2 ? (b[o + 2] & 0xff) << 16 : 0) | (t.length > 3 ? (b[o + 3] & 0xff) << 24 : 0);
            returnLent(t);
            long addr = t.address;
            int len = t.length;
            pool.release(t);
            interrupts.inc();
            // A host that installed no handler has masked the vector: the message is counted and dropped.
            if (interruptHandler != null) {
                interruptHandler.interrupt(vector, data);
            }
            if (writeObserver != null) {
                writeObserver.written(addr, len);
            }
        } else {
            memory.write(t.address, b, o, t.length);
            returnLent(t);
            writesApplied.inc();
            bytesApplied.add(t.length);
            long addr = t.address;
            int len = t.length;
            // A late write is one the observer said it does not watch.
            boolean watched = !t.late;
            pool.release(t);
            if (writeObserver != null && watched) {
                writeObserver.written(addr, len);
            }
        }
        if (owner != null) {
            owner.applied();
        }
    }

    /** Reads host memory now and queues the completions, ready once the host read latency has passed. */
    private void serveRead(Tlp req) {
        advance();
        if (rCount == readDuePs.length) {
            throw new InvariantViolation(fullName() + ": more reads outstanding than tags");
        }
        long due = now() + readLatencyPs;
        long addr = req.address;
        int remaining = req.length;
        int tag = req.tag;
        byte[] into = req.readInto;
        int intoOffset = req.readOffset;
        if (into == null) {
            throw new InvariantViolation(fullName() + ": read " + req + " names no buffer to read into");
        }
        pool.release(req);
        // Host memory as of now, straight into the requester's buffer (see Tlp#readInto).
        memory.read(addr, into, intoOffset, remaining);
        int n = 0;
        // Every completion but the last ends on an RCB boundary; after the first, chunks are whole units.
        int chunk = Math.min(remaining, cplUnit - (int) (addr & rcbMask));
        while (remaining > 0) {
            Tlp c = pool.acquire(TlpKind.CPLD);
            c.address = addr;
            c.length = chunk;
            c.tag = tag;
            c.byteCount = remaining;
            c.wireBytes = completionOverhead + chunk;
            down.enqueue(c, due);
            n++;
            addr += chunk;
            remaining -= chunk;
            chunk = Math.min(remaining, cplUnit);
        }
        int slot = rHead + rCount;
        if (slot >= readDuePs.length) {
            slot -= readDuePs.length;
        }
        readDuePs[slot] = due;
        readCompletions[slot] = n;
        rCount++;
        pendingReads.set(rCount);
        pendingReadsSignal.set(rCount);
        // With no latency the read is over at once.
        advance();
        if (pendingReadsSignal.enabled() && rCount > 0 && !trace.scheduled()) {
            trace.schedule(readDuePs[rHead]);
        }
    }

    /** Counts the reads whose latency is over as served, each at its own instant. */
    private void advance() {
        long now = now();
        while (rCount > 0 && readDuePs[rHead] <= now) {
            long due = readDuePs[rHead];
            readsServed.inc();
            completions.add(readCompletions[rHead]);
            rHead = rHead + 1 == readDuePs.length ? 0 : rHead + 1;
            rCount--;
            pendingReads.setAt(due, rCount);
            pendingReadsSignal.set(rCount);
        }
    }

    private void onTrace() {
        advance();
        if (rCount > 0) {
            trace.schedule(readDuePs[rHead]);
        }
    }

    private void sent(Tlp tlp) {
        // Nothing waits for host-side TLPs to leave.
    }

    /** Runs in the link's own wake-up event, so the retry needs no event of its own. */
    private void txSpace() {
        if (mmioRefused && mmioRetry != null && down.canAccept(TlpKind.MWR)) {
            mmioRefused = false;
            mmioRetry.run();
        }
    }

    /** Read requests waiting for host memory. */
    public int pendingReads() {
        advance();
        return rCount;
    }

    @Override
    protected void onReset() {
        settle();
        advance();
        if (rCount != 0) {
            throw new InvariantViolation(fullName() + ": reset with device reads still being served");
        }
        trace.cancel();
        mmioRefused = false;
    }
}
