package dev.rdmasim.adapter.pcie;

import dev.rdmasim.adapter.host.HostMemory;
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
 * latency with completions cut at MPS or RCB boundaries, and sends host MMIO writes downstream.
 *
 * <p>A read request is served by reading memory when its latency has elapsed, so it sees every write that arrived
 * before it. Its completions enter the same in-order downstream queue as MMIO writes, so a completion never passes
 * an earlier posted write.
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
    };

    private final PcieConfig cfg;
    private final HostMemory memory;
    private final TlpPool pool;
    private final LinkTransmitter down;
    private final int cplUnit;

    // Read requests waiting for the host read latency, in arrival order (all wait the same time).
    private final Tlp[] reads;
    private final long[] readDuePs;
    private int rHead;
    private int rCount;
    private final Event serveRead;

    private InterruptHandler interruptHandler;
    private HostWriteObserver writeObserver;
    private Runnable mmioRetry;
    private boolean mmioRefused;
    private final Event mmioRetryEvent;

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

    HostBridge(Module parent, String name, PcieConfig cfg, HostMemory memory, TlpPool pool, LinkTransmitter down) {
        super(parent, name);
        this.cfg = cfg;
        this.memory = Objects.requireNonNull(memory, "memory");
        this.pool = pool;
        this.down = down;
        this.cplUnit = cfg.rcbChunks() ? cfg.rcb() : cfg.mps();
        // The device never has more reads outstanding than tags.
        this.reads = new Tlp[cfg.readTags()];
        this.readDuePs = new long[cfg.readTags()];
        this.serveRead = sim().event(fullName() + ".serveRead", this::onServeRead);
        this.mmioRetryEvent = sim().event(fullName() + ".mmioRetry", this::onMmioRetry);
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

    /** Called (in its own event) after a refused {@link #mmioWrite} once the posted queue has room. */
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
        t.wireBytes = cfg.requestOverheadBytes() + len;
        System.arraycopy(src, off, t.payload, 0, len);
        mmioWrites.inc();
        mmioBytes.add(len);
        down.enqueue(t);
        return true;
    }

    private void receive(Tlp t) {
        switch (t.kind) {
            case MWR -> applyWrite(t);
            case MRD -> {
                if (rCount == reads.length) {
                    throw new InvariantViolation(fullName() + ": more reads outstanding than tags");
                }
                int slot = rHead + rCount;
                if (slot >= reads.length) {
                    slot -= reads.length;
                }
                reads[slot] = t;
                readDuePs[slot] = now() + cfg.hostReadLatencyPs();
                rCount++;
                pendingReads.set(rCount);
                pendingReadsSignal.set(rCount);
                if (!serveRead.scheduled()) {
                    serveRead.schedule(readDuePs[rHead]);
                }
            }
            case CPLD -> throw new InvariantViolation(fullName() + ": the host never reads from the device, yet got " + t);
        }
    }

    private void applyWrite(Tlp t) {
        DmaRequest owner = t.notifyOnApply ? t.owner : null;
        if (cfg.isMsix(t.address)) {
            int vector = (int) ((t.address - cfg.msixBase()) >>> 2);
            int data = (t.payload[0] & 0xff) | (t.length > 1 ? (t.payload[1] & 0xff) << 8 : 0)
                    | (t.length > 2 ? (t.payload[2] & 0xff) << 16 : 0) | (t.length > 3 ? (t.payload[3] & 0xff) << 24 : 0);
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
            memory.write(t.address, t.payload, 0, t.length);
            writesApplied.inc();
            bytesApplied.add(t.length);
            long addr = t.address;
            int len = t.length;
            pool.release(t);
            if (writeObserver != null) {
                writeObserver.written(addr, len);
            }
        }
        if (owner != null) {
            owner.applied();
        }
    }

    private void onServeRead() {
        Tlp req = reads[rHead];
        reads[rHead] = null;
        rHead = rHead + 1 == reads.length ? 0 : rHead + 1;
        rCount--;
        pendingReads.set(rCount);
        pendingReadsSignal.set(rCount);
        if (rCount > 0) {
            serveRead.schedule(readDuePs[rHead]);
        }
        readsServed.inc();
        long addr = req.address;
        int remaining = req.length;
        int tag = req.tag;
        pool.release(req);
        // Every completion but the last ends on an RCB boundary; after the first, chunks are whole units.
        int chunk = Math.min(remaining, cplUnit - (int) (addr & (cfg.rcb() - 1)));
        while (remaining > 0) {
            Tlp c = pool.acquire(TlpKind.CPLD);
            c.address = addr;
            c.length = chunk;
            c.tag = tag;
            c.byteCount = remaining;
            c.wireBytes = cfg.completionOverheadBytes() + chunk;
            memory.read(addr, c.payload, 0, chunk);
            completions.inc();
            down.enqueue(c);
            addr += chunk;
            remaining -= chunk;
            chunk = Math.min(remaining, cplUnit);
        }
    }

    private void sent(Tlp tlp) {
        // Nothing waits for host-side TLPs to leave.
    }

    private void txSpace() {
        if (mmioRefused && mmioRetry != null && !mmioRetryEvent.scheduled() && down.canAccept(TlpKind.MWR)) {
            mmioRetryEvent.scheduleIn(0);
        }
    }

    private void onMmioRetry() {
        mmioRefused = false;
        mmioRetry.run();
    }

    /** Read requests waiting for host memory. */
    public int pendingReads() {
        return rCount;
    }

    @Override
    protected void onReset() {
        if (rCount != 0) {
            throw new InvariantViolation(fullName() + ": reset with device reads still being served");
        }
        serveRead.cancel();
        mmioRetryEvent.cancel();
        mmioRefused = false;
    }
}
