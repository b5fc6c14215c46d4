package dev.rdmasim.adapter.nic;

import static dev.rdmasim.adapter.config.Parameters.*;

import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.cache.SetAssocCache;
import dev.rdmasim.adapter.format.Cqe;
import dev.rdmasim.adapter.format.Doorbells;
import dev.rdmasim.adapter.pcie.DmaCallback;
import dev.rdmasim.adapter.pcie.DmaPort;
import dev.rdmasim.adapter.pcie.DmaRequest;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.hw.ClockDomain;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.stats.Bound;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.TimeAverage;
import dev.rdmasim.kernel.wave.Signal;
import java.util.Arrays;

/**
 * Writes 64-byte CQEs into completion rings by DMA, in the order completions are handed to it, and
 * raises events. Each CQE needs its CQ's context on chip (a miss is a DMA read of context memory);
 * when the ring looks full the writer re-reads the consumer index from the CQ's doorbell record,
 * and if it is still full the CQ overflows: the CQE is dropped, the CQ goes to error and a CQ-error
 * event is written. An armed CQ that gets a matching CQE writes an event-queue entry and an MSI-X
 * message, after the CQE on the same DMA channel so PCIe ordering keeps them behind it, subject to
 * interrupt moderation (a count and a period).
 */
final class CqeWriter extends Module implements DmaCallback {
    /** One completion to report; pooled in the writer's ring. */
    static final class Job {
        int cqn;
        int opcode;
        int qpn;
        int wqeOpcode;
        int wqeCounter;
        int byteCount;
        int immediate;
        int syndrome;
        boolean solicited;
        boolean report;
        /** A receive WQE's completion: reported with {@link LifecycleListener#RECEIVE} as its opcode. */
        boolean receive;
        long bytes;
        final long[] stamps = new long[Stage.values().length];
        final byte[] cqe = new byte[Cqe.SIZE];
        final DmaRequest write = new DmaRequest();
        /** Its CQE is in host memory (or it was dropped by an overflowed CQ): it can retire. */
        boolean done;
        boolean dropped;
        /** Raise this CQ's completion event once this CQE has left the device. */
        boolean raiseAfter;
        int eventCqnAfter;
    }

    private final WorkClock work;
    private final CqTable firmware;
    private final ContextMemory contexts;
    private final EventQueueUnit eq;
    private final RequesterTransport.Retirements retirements;
    /** Told when a job slot frees: the requester transport and the receiver, in that order. */
    private Runnable[] spaceListeners = new Runnable[0];
    private final Job[] jobs;
    private int head;
    private int count;
    private final Busy busy;
    private final int cqeCycles;
    /** Latency through the CQE pipeline beyond the CQE's booking. */
    private final long pipelinePs;
    private final DmaPort port;
    private final DmaPort eventPort;
    /** Both writes of an event leaving may let a waiting CQE go. */
    private final EventQueueUnit.Listener eventSent = interrupt -> pump();
    private final SetAssocCache cqcCache;
    /** Jobs from head that have been processed (CQE write issued, or dropped); the rest wait. */
    private int issued;
    /** CQE writes issued whose TLPs have not all left the device. */
    private int unsent;
    private final DmaRequest ctxRead = new DmaRequest();
    private final DmaRequest dbRead = new DmaRequest();
    private final byte[] dbBuf = new byte[Doorbells.CQ_RECORD_SIZE];
    /** Inside {@link #pump()}'s loop: calls from below only add work for it. */
    private boolean pumping;
    private final Event resume;
    private boolean waiting;
    private final Counter written;
    private final Counter errors;
    private final Counter overflows;
    private final TimeAverage queued;
    private final Bound jobsFull;
    private final Signal queuedSignal;

    /** What the block is built with, taken from the profile once. */
    record Params(int depth, int cqeCycles, int cqcEntries, int cqcWays, SetAssocCache.Policy policy, int pipelineCycles) {
        /** Without pipeline depth: a CQE's writes are ready when its build cycles end. */
        Params(int depth, int cqeCycles, int cqcEntries, int cqcWays, SetAssocCache.Policy policy) {
            this(depth, cqeCycles, cqcEntries, cqcWays, policy, 0);
        }

        static Params of(Profile p) {
            return new Params(64, p.getInt(NIC_CQE_CYCLES), p.getInt(NIC_CQC_CACHE_ENTRIES), p.getInt(NIC_CQC_CACHE_WAYS),
                    SetAssocCache.Policy.of(p.getString(NIC_CACHE_REPLACEMENT)), p.getInt(NIC_CQE_PIPELINE_CYCLES));
        }
    }

    CqeWriter(Module parent, Params params, ClockDomain clock, WorkClock work, CqTable firmware, ContextMemory contexts,
            EventQueueUnit eq, DmaPort port, DmaPort eventPort, RequesterTransport.Retirements retirements) {
        super(parent, "cqe");
        this.work = work;
        this.firmware = firmware;
        this.contexts = contexts;
        this.eq = eq;
        this.retirements = retirements;
        int depth = params.depth();
        int cqeCycles = params.cqeCycles();
        this.port = port;
        this.eventPort = eventPort;
        this.cqeCycles = cqeCycles;
        this.pipelinePs = clock.cyclesToPs(params.pipelineCycles());
        jobs = new Job[depth];
        for (int i = 0; i < depth; i++) {
            jobs[i] = new Job();
        }
        busy = new Busy(this, clock, signal("busy", 1));
        resume = sim().event(fullName() + ".step", this::pump);
        cqcCache = new SetAssocCache(this, "cqcCache", params.cqcEntries(), params.cqcWays(), 64, params.policy());
        port.onReady(this::pump);
        written = stats().counter("cqes", "CQEs", "CQEs written to host memory");
        errors = stats().counter("errorCqes", "CQEs", "error CQEs written");
        overflows = stats().counter("overflows", "CQEs", "CQEs dropped because their CQ was full");
        queued = stats().timeAverage("queued", "jobs", "completions waiting to be written");
        jobsFull = stats().bound("", "CQE job queue", "every entry holds a completion waiting to be written",
                "built in: " + params.depth() + " jobs");
        queuedSignal = signal("queued", 8);
    }

    /** Who waits for a free job slot (the ready signal {@code cqeSpace}), called in this order. */
    void onSpace(Runnable... listeners) {
        spaceListeners = listeners.clone();
    }

    int queuedJobs() {
        return count;
    }

    boolean full() {
        return count == jobs.length;
    }

    /** Whether a completion waiting or being written names CQ {@code cqn}. */
    boolean hasJobsFor(int cqn) {
        for (int k = 0; k < count; k++) {
            if (jobs[wrap(head + k)].cqn == cqn) {
                return true;
            }
        }
        return false;
    }

    /** Whether a completion waiting or being written belongs to QP {@code qpn}. */
    boolean hasJobsForQp(int qpn) {
        for (int k = 0; k < count; k++) {
            if (jobs[wrap(head + k)].qpn == qpn) {
                return true;
            }
        }
        return false;
    }

    /** A CQ's context changed or went away (resize, destroy): its cached line is stale. */
    void contextChanged(int cqn) {
        cqcCache.invalidate(cqn);
    }

    /** The next free job to fill; call {@link #commit()} after filling it. */
    Job claim() {
        if (count >= jobs.length) {
            throw new InvariantViolation(fullName() + ": completion queue overflow (caller must check full())");
        }
        Job j = jobs[wrap(head + count)];
        j.report = false;
        j.receive = false;
        j.syndrome = 0;
        j.solicited = false;
        j.immediate = 0;
        j.bytes = 0;
        j.done = false;
        j.dropped = false;
        j.raiseAfter = false;
        Arrays.fill(j.stamps, Stage.NOT_REACHED);
        return j;
    }

    void commit() {
        if (++count == jobs.length) {
            jobsFull.set(true);
        }
        queued.set(count);
        queuedSignal.set(count);
        pump();
    }

    /**
     * Prepares every CQE it can, now. CQEs are pipelined: the next one is prepared while earlier ones are still
     * on their way. Each is booked for {@code nic.cqeCycles} and its DMA requests carry the end of that booking
     * as their ready time, so the writer costs no event of its own and its writes leave when a writer event at
     * that instant would have issued them. Only an idle writer takes a job this way; jobs queued behind a busy
     * one are taken one by one as it frees (an event each), so no write holds a link slot for longer than one
     * CQE ahead.
     */
    void pump() {
        if (pumping) {
            return;
        }
        pumping = true;
        try {
            while (!waiting && issued < count && !port.blocked()) {
                if (busy.deferWhileBusy(work.at(), resume)) {
                    break;
                }
                // What the CQE issues (context or doorbell-record read, the CQE write) leaves after the pipeline.
                step(busy.book(cqeCycles, work.at()) + pipelinePs);
            }
        } finally {
            pumping = false;
        }
        busy.idleAfterBookings();
    }

    /** Processes the next job as of {@code t}, the end of its booking. */
    private void step(long t) {
        int index = wrap(head + issued);
        Job j = jobs[index];
        Cq cq = firmware.cq(j.cqn);
        int r = cqcCache.lookup(j.cqn);
        if (r < 0) {
            if (r <= -3) {
                waiting = true;
                ctxRead.read(contexts.cqContextAddress(j.cqn), cqcCache.line(SetAssocCache.missSlot(r)), 0, 64, this, SetAssocCache.missSlot(r));
                port.send(ctxRead.notBefore(t));
            } else {
                waiting = true;
            }
            return;
        }
        if (cq.overflowed) {
            j.done = true;
            j.dropped = true;
            issued++;
            retireDone();
            return;
        }
        if (cq.producer - cq.consumerKnown >= cq.size()) {
            waiting = true;
            dbRead.read(cq.dbRecord, dbBuf, 0, dbBuf.length, this, -1);
            port.send(dbRead.notBefore(t));
            return;
        }
        int owner = Cqe.ownerBit(cq.producer, cq.logSize);
        if (j.syndrome != 0) {
            Cqe.writeError(j.cqe, 0, j.opcode, j.qpn, j.wqeOpcode, j.wqeCounter, j.syndrome, 0, owner);
            errors.inc();
        } else {
            Cqe.writeSuccess(j.cqe, 0, j.opcode, j.qpn, j.wqeOpcode, j.wqeCounter, j.byteCount, j.immediate, j.solicited, owner);
        }
        long addr = cq.ring + Cqe.entryOffset(cq.producer, cq.logSize);
        if (j.solicited || j.syndrome != 0) {
            cq.lastSolicited = cq.producer;
        }
        cq.producer++;
        j.write.write(addr, j.cqe, 0, Cqe.SIZE, this, index, true);
        issued++;
        unsent++;
        port.send(j.write.notBefore(t));
        boolean matches = cq.armed && (!cq.armSolicitedOnly || j.solicited || j.syndrome != 0);
        if (matches) {
            // One-shot: the arm is used up; moderation may hold the event back.
            cq.armed = false;
            cq.eventHeld = true;
            cq.heldEvents = 0;
            cq.firstHeldPs = t;
            if (cq.moderationPeriodPs > 0 && cq.moderationCount > 1) {
                cq.moderationTimer.reschedule(t + cq.moderationPeriodPs);
            }
        }
        if (cq.eventHeld) {
            cq.heldEvents++;
            if (cq.heldEvents >= cq.moderationCount || cq.moderationPeriodPs == 0) {
                cq.eventHeld = false;
                cq.moderationTimer.cancel();
                j.raiseAfter = true;
                j.eventCqnAfter = cq.cqn;
            }
        }
    }

    @Override
    public void readDone(DmaRequest r) {
        waiting = false;
        if (r == ctxRead) {
            cqcCache.fill((int) r.cookie());
        } else {
            Cq cq = firmware.cq(jobs[wrap(head + issued)].cqn);
            cq.consumerKnown = cq.producer - ((cq.producer - Doorbells.cqConsumerIndex(dbBuf, 0)) & 0xFF_FFFF);
            if (cq.producer - cq.consumerKnown >= cq.size()) {
                cq.overflowed = true;
                overflows.inc();
                firmware.cqOverflowed(cq);
                eq.cqError(eventPort, cq.cqn, eventSent);
            }
        }
        pump();
    }

    @Override
    public void writeSent(DmaRequest r) {
        if (r.cookie() >= 0) {
            Job j = jobs[(int) r.cookie()];
            unsent--;
            // The CQE's TLPs have left: an EQE and MSI-X issued now follow it on the link.
            if (j.raiseAfter) {
                j.raiseAfter = false;
                eq.completion(eventPort, j.eventCqnAfter, eventSent);
            }
        }
        pump();
    }

    @Override
    public void writeApplied(DmaRequest r) {
        if (r.cookie() >= 0) {
            Job j = jobs[(int) r.cookie()];
            j.stamps[Stage.CQE_WRITTEN.ordinal()] = now();
            j.done = true;
            written.inc();
            retireDone();
        }
        pump();
    }

    /** Index into the job ring of a position at most one lap past its end. */
    private int wrap(int i) {
        return i < jobs.length ? i : i - jobs.length;
    }

    /** Retires finished jobs from the head, in order. */
    private void retireDone() {
        while (issued > 0 && jobs[head].done) {
            retire(jobs[head], jobs[head].dropped);
        }
    }

    private void retire(Job j, boolean dropped) {
        if (j != jobs[head]) {
            throw new InvariantViolation(fullName() + ": CQEs retired out of order");
        }
        if (j.report) {
            retirements.retired(j.qpn, j.wqeCounter, j.receive ? LifecycleListener.RECEIVE : j.wqeOpcode, j.bytes,
                    dropped ? -1 : j.syndrome, j.stamps);
        }
        head = wrap(head + 1);
        if (count-- == jobs.length) {
            jobsFull.set(false);
        }
        issued--;
        queued.set(count);
        queuedSignal.set(count);
        for (Runnable r : spaceListeners) {
            r.run();
        }
    }

    private void releaseHeldEvent(Cq cq) {
        cq.eventHeld = false;
        cq.moderationTimer.cancel();
        raiseBehindCqes(cq.cqn);
    }

    /** Raises a completion event for {@code cqn} once every CQE issued so far has left the device. */
    private void raiseBehindCqes(int cqn) {
        for (int k = issued - 1; k >= 0 && unsent > 0; k--) {
            Job j = jobs[wrap(head + k)];
            if (!j.dropped && j.write.inEngine() && !j.raiseAfter) {
                j.raiseAfter = true;
                j.eventCqnAfter = cqn;
                return;
            }
        }
        eq.completion(eventPort, cqn, eventSent);
    }

    /** The arm doorbell of {@code cq} with its arm word (command, sequence, consumer index). */
    void arm(Cq cq, int word) {
        cq.armed = true;
        cq.armSolicitedOnly = Doorbells.armCmd(word) == Doorbells.ARM_CMD_SOLICITED;
        cq.armSequence = Doorbells.armSequence(word);
        armed(cq, Doorbells.armConsumerIndex(word));
    }

    /**
     * The CQ was just armed with the driver's consumer index {@code ci}. If CQEs the driver has not
     * consumed are already there (any, or a solicited or error one for a SOLICITED arm), the event
     * fires at once instead of waiting for the next CQE.
     */
    void armed(Cq cq, int ci) {
        long unconsumed = (cq.producer - ci) & 0xFF_FFFF;
        if (unconsumed == 0 || unconsumed > cq.size()) {
            return;
        }
        long firstUnconsumed = cq.producer - unconsumed;
        if (cq.armSolicitedOnly && cq.lastSolicited < firstUnconsumed) {
            return;
        }
        cq.armed = false;
        releaseHeldEvent(cq);
    }

    /** The moderation period of a CQ with a held event ran out: raise it now. */
    void moderationExpired(Cq cq) {
        if (cq.eventHeld) {
            releaseHeldEvent(cq);
        }
    }
}
