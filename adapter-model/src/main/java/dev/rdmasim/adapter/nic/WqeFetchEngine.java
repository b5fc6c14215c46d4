package dev.rdmasim.adapter.nic;

import static dev.rdmasim.adapter.config.Parameters.*;

import dev.rdmasim.adapter.cache.SetAssocCache;
import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.format.SendWqeBuilder;
import dev.rdmasim.adapter.pcie.DmaCallback;
import dev.rdmasim.adapter.pcie.DmaPort;
import dev.rdmasim.adapter.pcie.DmaRequest;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.hw.ClockDomain;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.stats.Counter;

/**
 * The WQE fetch engine. QPs the doorbell unit rang wait in a FIFO; the engine takes one per cycle. A QP's context
 * must be on chip first (the QP-context cache; a miss is a DMA read of its context, during which the QP waits and
 * the engine serves others). Then it DMA-reads as many new 64-byte basic blocks of the send ring as fit its fetch
 * size, the QP's staging buffer, the requester's ring of requests in flight and the WQE cache credits, into the
 * staging buffer. Several reads of one QP may be in flight, each in one of the engine's fetch slots; they land in
 * order of issue and the parser follows only the contiguous prefix that has arrived.
 *
 * <p>A BlueFlame write of a whole WQE, which the doorbell unit hands over when nothing older is missing, is placed
 * in the staging buffer as if fetched, with no read. Upstream signals that let a waiting QP fetch again: WQE cache
 * blocks freed ({@link WqeCredits}), staging or ring room freed by the parser or by retirement
 * ({@link #requeue}), a request's last packet queued ({@link #sentOne}).
 */
final class WqeFetchEngine extends Module implements DoorbellUnit.Output {
    /** What the block is built with, taken from the profile once. */
    record Params(int slots, int fetchMaxBbs, int prefetchDepth) {
        static Params of(Profile p) {
            return new Params(p.getInt(NIC_WQE_FETCH_SLOTS),
                    Math.max(1, p.getInt(NIC_WQE_FETCH_MAX_BYTES) / SendWqeBuilder.BB), p.getInt(NIC_WQE_PREFETCH_DEPTH));
        }
    }

    /** Where parsed-to-be WQE blocks go: the parser, told that a QP has new blocks staged. */
    interface Output {
        void staged(Qp qp);
    }

    /** One read in flight: a QP's context, or a run of its ring's blocks. */
    private final class Slot implements DmaCallback {
        final DmaRequest read = new DmaRequest();
        int qpn = -1;
        boolean context;
        /** The cache slot a context fill lands in, or the QP's fetch ring entry of a ring read. */
        int target;

        @Override
        public void readDone(DmaRequest r) {
            Qp qp = qps.qp(qpn);
            qpn = -1;
            if (context) {
                contextArrived(qp, target);
            } else {
                blocksArrived(qp, target);
            }
        }
    }

    private final Params params;
    private final WorkClock clock;
    private final QpTable qps;
    private final ContextMemory contexts;
    private final WqeCredits credits;
    private final DmaPort port;
    private Output output;
    private final IntRing queue = new IntRing(16);
    private final IntRing cacheWaiters = new IntRing(16);
    private final Slot[] slots;
    private final Busy busy;
    private final Event step;
    private final Counter wqeFetches;
    private final Counter wqeCacheStalls;

    WqeFetchEngine(Module parent, Params params, ClockDomain nicClock, WorkClock clock, QpTable qps,
            ContextMemory contexts, WqeCredits credits, DmaPort port) {
        super(parent, "fetch");
        this.params = params;
        this.clock = clock;
        this.qps = qps;
        this.contexts = contexts;
        this.credits = credits;
        this.port = port;
        slots = new Slot[params.slots()];
        for (int i = 0; i < slots.length; i++) {
            slots[i] = new Slot();
        }
        busy = new Busy(this, nicClock, signal("busy", 1));
        wqeFetches = stats().counter("wqeFetches", "reads", "DMA reads of send-ring basic blocks");
        wqeCacheStalls = stats().counter("wqeCacheStalls", "events", "times a fetch waited for WQE cache space");
        step = sim().event(fullName() + ".step", this::fetchOne);
        port.onReady(this::pump);
        credits.onWqeCacheFreed(this::wqeCacheFreed);
    }

    void connect(Output parser) {
        this.output = parser;
    }

    /** The doorbell unit announced new blocks up to producer index {@code pi} (16 bits). */
    @Override
    public void ring(Qp qp, int pi) {
        qp.sqPi = pi;
        queue(qp);
    }

    /**
     * A whole WQE came by BlueFlame: if nothing older is missing and there is room, it is placed in the staging
     * buffer as if fetched (true); otherwise the doorbell unit rings instead (false).
     */
    @Override
    public boolean takeBlueFlame(Qp qp, byte[] wqe, int index, int bbs) {
        if (index == qp.fetchedBb && qp.fetchCount == 0 && index == qp.sqPi
                && ((qp.fetchedBb - qp.parsedBb) & 0xFFFF) + bbs <= qp.stagingBbs && credits.wqeCacheFree() >= bbs) {
            credits.reserveWqeCache(bbs);
            for (int b = 0; b < bbs; b++) {
                int dst = ((index + b) & (qp.stagingBbs - 1)) * SendWqeBuilder.BB;
                System.arraycopy(wqe, b * SendWqeBuilder.BB, qp.staging, dst, SendWqeBuilder.BB);
            }
            qp.blueFlameStaged[index & (qp.stagingBbs - 1)] = true;
            qp.sqPi = (index + bbs) & 0xFFFF;
            qp.fetchedBb = qp.sqPi;
            qp.issuedBb = qp.sqPi;
            return true;
        }
        return false;
    }

    /** Queues the QP for a fetch if it has blocks to fetch and room to take them. */
    void queue(Qp qp) {
        // A QP in error still fetches its new WQEs: they complete at once, flushed.
        if (!qp.inFetchQueue && qp.bbsToFetch() > 0 && qp.fetchCount < Qp.MAX_FETCHES
                && (qp.state == QpState.READY_TO_SEND || qp.state == QpState.ERROR)
                && qp.wrCount - qp.wrSent < params.prefetchDepth()) {
            qp.inFetchQueue = true;
            queue.add(qp.qpn);
            pump();
        }
    }

    /** Requests retired: the ring has room again, for WQEs already staged and for new fetches. */
    void requeue(Qp qp) {
        if (((qp.fetchedBb - qp.parsedBb) & 0xFFFF) > 0 && !qp.ringFull()) {
            output.staged(qp);
        }
        queue(qp);
    }

    /** The transmitter queued the last packet of a request: the QP may fetch further ahead. */
    void sentOne(Qp qp) {
        queue(qp);
    }

    /** Whether a fetch of the QP is queued, in flight or waiting for its context. */
    boolean busyWith(Qp qp) {
        return qp.inFetchQueue || qp.fetchCount != 0 || qp.waitingForContext;
    }

    private void wqeCacheFreed() {
        while (!cacheWaiters.isEmpty()) {
            queue(qps.qp(cacheWaiters.poll()));
        }
    }

    private void pump() {
        if (!step.scheduled() && !queue.isEmpty() && !port.blocked()) {
            step.schedule(busy.book(1, clock.at()));
        }
    }

    private void fetchOne() {
        if (queue.isEmpty()) {
            busy.idle();
            return;
        }
        Slot slot = freeSlot();
        if (slot == null) {
            return; // A completing read frees a slot and pumps again.
        }
        Qp qp = qps.qp(queue.poll());
        qp.inFetchQueue = false;
        // The QP's context must be on chip before its ring can be read. A context that just arrived
        // is used from the fill even if the line has since been evicted, so heavy thrashing cannot
        // starve a QP forever.
        int r = qp.contextFilled ? 0 : contexts.lookup(qp.qpn);
        qp.contextFilled = false;
        if (r < 0) {
            if (r <= -3) {
                contexts.writeBackEvicted();
                int line = SetAssocCache.missSlot(r);
                slot.qpn = qp.qpn;
                slot.context = true;
                slot.target = line;
                slot.read.read(contexts.qpContextAddress(qp.qpn), contexts.line(line), 0,
                        ContextMemory.QP_CONTEXT_BYTES, slot, 0);
                qp.waitingForContext = true;
                port.send(slot.read);
            } else {
                // Another fetch is filling this context, or its set is busy: try again after it.
                qp.inFetchQueue = true;
                queue.add(qp.qpn);
            }
            pump();
            return;
        }
        int staged = (qp.issuedBb - qp.parsedBb) & 0xFFFF;
        int room = Math.min(qp.stagingBbs - staged, qp.wrs.length - qp.wrCount);
        int n = Math.min(Math.min(qp.bbsToFetch(), params.fetchMaxBbs()), room);
        int ringBb = qp.issuedBb & qp.sqMaskBbs();
        n = Math.min(n, qp.sqMaskBbs() + 1 - ringBb);
        int stageBb = qp.issuedBb & (qp.stagingBbs - 1);
        n = Math.min(n, qp.stagingBbs - stageBb);
        if (n > 0 && credits.wqeCacheFree() == 0) {
            wqeCacheStalls.inc();
            cacheWaiters.add(qp.qpn);
            return; // Parsing frees blocks and requeues the waiters.
        }
        n = Math.min(n, credits.wqeCacheFree());
        if (n <= 0) {
            pump(); // Ring of in-flight requests is full: retirement requeues the QP.
            return;
        }
        credits.reserveWqeCache(n);
        int entry = (qp.fetchHead + qp.fetchCount) & (Qp.MAX_FETCHES - 1);
        qp.fetchLen[entry] = n;
        qp.fetchDone[entry] = false;
        qp.fetchCount++;
        qp.issuedBb = (qp.issuedBb + n) & 0xFFFF;
        slot.qpn = qp.qpn;
        slot.context = false;
        slot.target = entry;
        slot.read.read(qp.cfg.sqBase() + (long) ringBb * SendWqeBuilder.BB, qp.staging,
                stageBb * SendWqeBuilder.BB, n * SendWqeBuilder.BB, slot, 0);
        wqeFetches.inc();
        port.send(slot.read);
        pump();
    }

    private Slot freeSlot() {
        for (Slot s : slots) {
            if (s.qpn < 0) {
                return s;
            }
        }
        return null;
    }

    private void contextArrived(Qp qp, int line) {
        contexts.fill(line);
        qp.waitingForContext = false;
        qp.contextFilled = true;
        queue(qp);
        pump();
    }

    private void blocksArrived(Qp qp, int entry) {
        qp.fetchDone[entry] = true;
        while (qp.fetchCount > 0 && qp.fetchDone[qp.fetchHead]) {
            qp.fetchedBb = (qp.fetchedBb + qp.fetchLen[qp.fetchHead]) & 0xFFFF;
            qp.fetchHead = (qp.fetchHead + 1) & (Qp.MAX_FETCHES - 1);
            qp.fetchCount--;
        }
        output.staged(qp);
        queue(qp);
        pump();
    }
}
