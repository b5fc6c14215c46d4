package dev.rdmasim.adapter.nic;

import static dev.rdmasim.adapter.config.Parameters.*;

import dev.rdmasim.adapter.cache.SetAssocCache;
import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.format.SendWqeBuilder;
import dev.rdmasim.adapter.pcie.DmaCallback;
import dev.rdmasim.adapter.pcie.DmaPort;
import dev.rdmasim.adapter.pcie.DmaRequest;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.hw.ClockDomain;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.stats.Bound;
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
        /** The QP's staging buffer holds blocks up to {@code fetchedBb} (16-bit counter). */
        void staged(Qp qp, int fetchedBb);
    }

    /**
     * One QP's send queue as the engine holds it on chip: the producer index the doorbells announced, what has been
     * asked for and what has arrived, the staging buffer the parser reads from, and whether the QP's context is on
     * chip. Written by this block only; the parser reads the staged blocks and gives their room back through
     * {@link #stagingFreed}.
     */
    static final class SendRing {
        /** Most fetch reads in flight per QP; a power of two, so fetch ring indices wrap with a mask. */
        static final int MAX_FETCHES = 4;

        /** Where the QP's context is, for the next fetch: a fill that arrived is used once, even if evicted since. */
        enum Context { LOOK_UP, FILLING, FILLED }

        /** A read of ring blocks in one of the QP's fetch entries. */
        enum Read { IN_FLIGHT, ARRIVED }

        /** Producer counter in basic blocks, as the last doorbell announced it (16 bits). */
        private int pi;
        /** Basic blocks requested by fetches, arrived or not (16-bit counter). */
        private int issued;
        /** Basic blocks fetched into the staging buffer, in ring order (16-bit counter). */
        private int fetched;
        /** Basic blocks the parser has taken out of the staging buffer (16-bit counter). */
        private int consumed;
        /** Fetch reads in flight for this QP, oldest first. */
        private final int[] readLen = new int[MAX_FETCHES];
        private final Read[] reads = new Read[MAX_FETCHES];
        private int readHead;
        private int readCount;
        private final byte[] staging;
        private final int stagingBbs;
        /** Per staging block: the WQE starting there was written whole by BlueFlame, not fetched. */
        private final boolean[] blueFlame;
        private boolean queued;
        /** Blocks wait to be fetched but the QP's prefetch window is full (counted in the engine's bound). */
        boolean windowFull;
        /** Has blocks to fetch while its staging buffer is full (counted in the staging bound). */
        boolean stagingFull;
        private Context context = Context.LOOK_UP;

        SendRing(int fetchBbs) {
            int bbs = Integer.highestOneBit(Math.max(2 * fetchBbs, 8) - 1) << 1;
            stagingBbs = bbs;
            staging = new byte[bbs * SendWqeBuilder.BB];
            blueFlame = new boolean[bbs];
        }

        /** The staging buffer: block {@code b} of the ring (16-bit counter) is at {@code (b & (stagingBbs()-1)) * 64}. */
        byte[] staging() {
            return staging;
        }

        int stagingBbs() {
            return stagingBbs;
        }

        /** Basic blocks staged, in ring order (16-bit counter): the parser may read up to here. */
        int fetchedBb() {
            return fetched;
        }

        int producerIndex() {
            return pi;
        }

        int issuedBb() {
            return issued;
        }

        int readsInFlight() {
            return readCount;
        }

        boolean queued() {
            return queued;
        }

        Context context() {
            return context;
        }

        /** Whether the WQE staged at ring block {@code bb} came whole by BlueFlame (no fetch read). */
        boolean cameByBlueFlame(int bb) {
            return blueFlame[bb & (stagingBbs - 1)];
        }

        /** Basic blocks announced by doorbells but not yet asked for. */
        int bbsToFetch() {
            return (pi - issued) & 0xFFFF;
        }

        private int staged() {
            return (fetched - consumed) & 0xFFFF;
        }

        private void moveContext(Context from, Context to) {
            if (context != from) {
                throw new InvariantViolation("QP context " + context + ", expected " + from + " before " + to);
            }
            context = to;
        }
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
            if (slotsUsed-- == slots.length) {
                slotsFull.set(false);
            }
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
    private final Bound prefetchFull;
    private final Bound slotsFull;
    private final Bound stagingFull;
    private int slotsUsed;

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
        prefetchFull = stats().bound("prefetch", "prefetch window", "at least one QP has blocks to fetch while its"
                + " requests not yet sent fill its window", "nic.wqePrefetchDepth");
        slotsFull = stats().bound("slots", "fetch slots", "every slot holds a read in flight", "nic.wqeFetchSlots");
        stagingFull = stats().bound("staging", "per-QP fetch reads", "at least one QP has blocks to fetch while it"
                + " has " + SendRing.MAX_FETCHES + " reads in flight or its staging buffer (two reads of"
                + " nic.wqeFetchMaxBytes) holds blocks in flight or not yet parsed", "nic.wqeFetchMaxBytes");
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
        qp.sq.pi = pi;
        queue(qp);
    }

    /**
     * A whole WQE came by BlueFlame: if nothing older is missing and there is room, it is placed in the staging
     * buffer as if fetched (true); otherwise the doorbell unit rings instead (false).
     */
    @Override
    public boolean takeBlueFlame(Qp qp, byte[] wqe, int index, int bbs) {
        SendRing sq = qp.sq;
        if (index == sq.fetched && sq.readCount == 0 && index == sq.pi
                && sq.staged() + bbs <= sq.stagingBbs && credits.wqeCacheFree() >= bbs) {
            credits.reserveWqeCache(bbs);
            for (int b = 0; b < bbs; b++) {
                int dst = ((index + b) & (sq.stagingBbs - 1)) * SendWqeBuilder.BB;
                System.arraycopy(wqe, b * SendWqeBuilder.BB, sq.staging, dst, SendWqeBuilder.BB);
                sq.blueFlame[(index + b) & (sq.stagingBbs - 1)] = b == 0;
            }
            sq.pi = (index + bbs) & 0xFFFF;
            sq.fetched = sq.pi;
            sq.issued = sq.pi;
            return true;
        }
        return false;
    }

    /** Queues the QP for a fetch if it has blocks to fetch and room to take them. */
    void queue(Qp qp) {
        // A QP in error still fetches its new WQEs: they complete at once, flushed.
        SendRing sq = qp.sq;
        boolean canFetch = !sq.queued && sq.bbsToFetch() > 0 && fetches(qp);
        // Every change of a QP's unsent requests or blocks to fetch comes through here, so this is exact.
        boolean windowFull = canFetch && qp.req.unsent() >= params.prefetchDepth();
        sq.windowFull = prefetchFull.follow(sq.windowFull, windowFull);
        if (canFetch && sq.readCount < SendRing.MAX_FETCHES && !windowFull) {
            sq.queued = true;
            queue.add(qp.qpn);
            pump();
        }
        noteStaging(qp);
    }

    /**
     * Keeps the staging bound exact: called wherever a QP's staged blocks, blocks to fetch or window change (here
     * and when a read is issued). A QP whose window is full is counted there, not here.
     */
    private void noteStaging(Qp qp) {
        SendRing sq = qp.sq;
        boolean full = sq.bbsToFetch() > 0 && !sq.windowFull && fetches(qp)
                && (sq.readCount >= SendRing.MAX_FETCHES || ((sq.issued - sq.consumed) & 0xFFFF) >= sq.stagingBbs);
        sq.stagingFull = stagingFull.follow(sq.stagingFull, full);
    }

    /** Whether the QP's state lets it fetch: ready to send, or in error (its new WQEs complete at once, flushed). */
    private static boolean fetches(Qp qp) {
        return qp.state() == QpState.READY_TO_SEND || qp.state() == QpState.ERROR;
    }

    /** The parser took {@code bbs} blocks (maybe none) out of the QP's staging buffer: room for more fetches. */
    void stagingFreed(Qp qp, int bbs) {
        qp.sq.consumed = (qp.sq.consumed + bbs) & 0xFFFF;
        queue(qp);
    }

    /** Requests retired: the ring has room again, for WQEs already staged and for new fetches. */
    void requeue(Qp qp) {
        if (qp.sq.staged() > 0 && !qp.req.full()) {
            output.staged(qp, qp.sq.fetched);
        }
        queue(qp);
    }

    /** The transmitter queued the last packet of a request: the QP may fetch further ahead. */
    void sentOne(Qp qp) {
        queue(qp);
    }

    /** Whether a fetch of the QP is queued, in flight or waiting for its context. */
    boolean busyWith(Qp qp) {
        return qp.sq.queued || qp.sq.readCount != 0 || qp.sq.context == SendRing.Context.FILLING;
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
        SendRing sq = qp.sq;
        sq.queued = false;
        // The QP's context must be on chip before its ring can be read. A context that just arrived
        // is used from the fill even if the line has since been evicted, so heavy thrashing cannot
        // starve a QP forever.
        int r;
        if (sq.context == SendRing.Context.FILLED) {
            sq.moveContext(SendRing.Context.FILLED, SendRing.Context.LOOK_UP);
            r = 0;
        } else {
            r = contexts.lookup(qp.qpn);
        }
        if (r < 0) {
            if (r <= -3) {
                contexts.writeBackEvicted();
                int line = SetAssocCache.missSlot(r);
                slot.qpn = qp.qpn;
                takeSlot();
                slot.context = true;
                slot.target = line;
                slot.read.read(contexts.qpContextAddress(qp.qpn), contexts.line(line), 0,
                        ContextMemory.QP_CONTEXT_BYTES, slot, 0);
                sq.moveContext(SendRing.Context.LOOK_UP, SendRing.Context.FILLING);
                port.send(slot.read);
            } else {
                // Another fetch is filling this context, or its set is busy: try again after it.
                sq.queued = true;
                queue.add(qp.qpn);
            }
            pump();
            return;
        }
        int staged = (sq.issued - sq.consumed) & 0xFFFF;
        int room = Math.min(sq.stagingBbs - staged, qp.req.room());
        int n = Math.min(Math.min(sq.bbsToFetch(), params.fetchMaxBbs()), room);
        int ringBb = sq.issued & qp.sqMaskBbs();
        n = Math.min(n, qp.sqMaskBbs() + 1 - ringBb);
        int stageBb = sq.issued & (sq.stagingBbs - 1);
        n = Math.min(n, sq.stagingBbs - stageBb);
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
        int entry = (sq.readHead + sq.readCount) & (SendRing.MAX_FETCHES - 1);
        sq.readLen[entry] = n;
        sq.reads[entry] = SendRing.Read.IN_FLIGHT;
        sq.readCount++;
        sq.issued = (sq.issued + n) & 0xFFFF;
        for (int b = 0; b < n; b++) {
            sq.blueFlame[stageBb + b] = false; // fetched, not written by BlueFlame
        }
        slot.qpn = qp.qpn;
        takeSlot();
        slot.context = false;
        slot.target = entry;
        slot.read.read(qp.cfg.sqBase() + (long) ringBb * SendWqeBuilder.BB, sq.staging,
                stageBb * SendWqeBuilder.BB, n * SendWqeBuilder.BB, slot, 0);
        wqeFetches.inc();
        port.send(slot.read);
        noteStaging(qp);
        pump();
    }

    private void takeSlot() {
        if (++slotsUsed == slots.length) {
            slotsFull.set(true);
        }
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
        qp.sq.moveContext(SendRing.Context.FILLING, SendRing.Context.FILLED);
        queue(qp);
        pump();
    }

    private void blocksArrived(Qp qp, int entry) {
        SendRing sq = qp.sq;
        if (sq.reads[entry] != SendRing.Read.IN_FLIGHT) {
            throw new InvariantViolation(fullName() + ": QP " + qp.qpn + " fetch entry " + entry + " arrived twice");
        }
        sq.reads[entry] = SendRing.Read.ARRIVED;
        while (sq.readCount > 0 && sq.reads[sq.readHead] == SendRing.Read.ARRIVED) {
            sq.fetched = (sq.fetched + sq.readLen[sq.readHead]) & 0xFFFF;
            sq.readHead = (sq.readHead + 1) & (SendRing.MAX_FETCHES - 1);
            sq.readCount--;
        }
        output.staged(qp, sq.fetched);
        queue(qp);
        pump();
    }
}
