package dev.rdmasim.adapter.nic;

import static dev.rdmasim.adapter.config.Parameters.*;

import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.format.ControlSegment;
import dev.rdmasim.adapter.format.SendWqeBuilder;
import dev.rdmasim.adapter.format.SendWqeParser;
import dev.rdmasim.adapter.format.WqeOpcode;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.hw.ClockDomain;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.stats.Counter;

/**
 * The WQE parser. QPs with staged blocks wait in a FIFO; for the head QP it parses the next whole WQE in its
 * staging buffer into a request of the requester's ring ({@link Wr}): real control, remote-address, data and
 * inline segments, validated ({@code nic.wqeParseCycles} each). An invalid WQE becomes a request that completes
 * with its error. An inline WQE needs room in the inline buffer for its payload, or the parser stalls until an
 * acknowledgement frees some; the requester's ring must have a free entry.
 *
 * <p>It parses as soon as the bytes are on chip and books its cycles; the request carries the end of that booking
 * as its ready time (its WQE_FETCHED stamp), before which nothing of it (payload read, packet) may go out, so a WQE
 * costs no parser event. Only an idle parser takes a WQE this way; WQEs that queue behind a busy one are taken one
 * by one as it frees (an event each), so no request holds tags or link slots for longer than one parse ahead.
 */
final class WqeParser extends Module implements WqeFetchEngine.Output {
    /** What the block is built with, taken from the profile once. */
    record Params(int parseCycles, int maxDs, int maxSge, int mtu, int pipelineCycles) {
        /** Without pipeline depth: a WQE is ready when its parse cycles end. */
        Params(int parseCycles, int maxDs, int maxSge, int mtu) {
            this(parseCycles, maxDs, maxSge, mtu, 0);
        }

        static Params of(Profile p) {
            return new Params(p.getInt(NIC_WQE_PARSE_CYCLES),
                    Math.min(ControlSegment.MAX_DS, p.getInt(NIC_MAX_WQE_BYTES) / 16),
                    Math.max(1, Math.min(63, p.getInt(NDK_MAX_INITIATOR_REQUEST_SGE))), p.getInt(LINK_MTU),
                    p.getInt(NIC_WQE_PIPELINE_CYCLES));
        }
    }

    /** Where parsed requests go: the requester transport, told that a QP has a new request. */
    interface Output {
        void parsed(Qp qp);
    }

    /** The requester's ring of requests in flight, which the parser fills at its tail. */
    interface Requests {
        /** No free entry: the parser waits for a retirement. */
        boolean full(Qp qp);

        /** The free entry at the tail, cleared, for the parser to fill. */
        Wr claim(Qp qp);

        /** The entry just filled joins the ring (it takes its PSNs now). */
        void post(Qp qp, Wr w);
    }

    /** Who is told that the QP's staging buffer has room again, and how many blocks (the fetch engine). */
    interface StagingFreed {
        void stagingFreed(Qp qp, int bbs);
    }

    /** One QP's place in the parser: written by this block only. */
    static final class QpParse {
        /** Basic blocks parsed out of the staging buffer (16-bit counter). */
        private int parsed;
        /** Basic blocks staged, as the fetch engine last announced (16-bit counter). */
        private int staged;
        private boolean queued;

        int parsedBb() {
            return parsed;
        }

        boolean queued() {
            return queued;
        }

        private int available() {
            return (staged - parsed) & 0xFFFF;
        }
    }

    private final Params params;
    private final WorkClock clock;
    private final QpTable qps;
    private final WqeCredits credits;
    private final IntRing queue = new IntRing(16);
    private final Busy busy;
    private final SendWqeParser parser;
    private final Event resume;
    private Output output;
    private Requests requests;
    private StagingFreed stagingFreed;
    private boolean parsing;
    /** Latency through the pipeline beyond the parse's booking: a WQE is ready that much later. */
    private final long pipelinePs;
    private boolean stalledOnInline;
    private final Counter wqesParsed;
    private final Counter badWqes;
    private final Counter inlineStalls;

    WqeParser(Module parent, Params params, ClockDomain nicClock, WorkClock clock, QpTable qps, WqeCredits credits) {
        super(parent, "parse");
        this.params = params;
        this.clock = clock;
        this.qps = qps;
        this.credits = credits;
        busy = new Busy(this, nicClock, signal("busy", 1));
        pipelinePs = nicClock.cyclesToPs(params.pipelineCycles());
        wqesParsed = stats().counter("wqesParsed", "WQEs", "send WQEs parsed");
        badWqes = stats().counter("badWqes", "WQEs", "WQEs that failed validation");
        inlineStalls = stats().counter("inlineStalls", "events", "times the parser waited for inline buffer space");
        parser = new SendWqeParser(params.maxSge());
        resume = sim().event(fullName() + ".step", this::parse);
        credits.onInlineFreed(this::inlineFreed);
    }

    void connect(Requests ring, Output requester, StagingFreed fetch) {
        this.requests = ring;
        this.output = requester;
        this.stagingFreed = fetch;
    }

    /** A QP has blocks staged up to {@code fetchedBb} (16-bit counter). */
    @Override
    public void staged(Qp qp, int fetchedBb) {
        QpParse ps = qp.parse;
        ps.staged = fetchedBb;
        if (!ps.queued) {
            ps.queued = true;
            queue.add(qp.qpn);
        }
        parse();
    }

    /** Whether the QP waits in the parser's queue. */
    boolean busyWith(Qp qp) {
        return qp.parse.queued;
    }

    boolean stalledOnInline() {
        return stalledOnInline;
    }

    private void inlineFreed() {
        if (stalledOnInline) {
            stalledOnInline = false;
            credits.inlineWaiting(false);
            parse();
        }
    }

    /** Parses every staged WQE it can, now (see the class comment). */
    private void parse() {
        if (parsing) {
            return; // re-entered through the transmitter; the loop below picks the new work up
        }
        parsing = true;
        try {
            while (!queue.isEmpty() && !stalledOnInline) {
                if (busy.deferWhileBusy(clock.at(), resume)) {
                    break;
                }
                parseOne();
            }
        } finally {
            parsing = false;
        }
        busy.idleAfterBookings();
    }

    private void parseOne() {
        Qp qp = qps.qp(queue.peek());
        QpParse ps = qp.parse;
        byte[] staging = qp.sq.staging();
        int stagingBbs = qp.sq.stagingBbs();
        int avail = ps.available();
        boolean more = false;
        int taken = 0;
        if (avail > 0 && !requests.full(qp)) {
            int off = (ps.parsed & (stagingBbs - 1)) * SendWqeBuilder.BB;
            int ds = ControlSegment.ds(staging, off);
            int bbs = Math.max(1, SendWqeBuilder.bbsForDs(ds));
            if (bbs <= avail) {
                parser.setLimits(Math.min(qp.cfg.maxSendSge(), 63), qp.cfg.maxInline(), params.maxDs());
                int syndrome = parser.parse(staging, 0, staging.length, off, qp.qpn, ps.parsed);
                if (syndrome == 0 && parser.isInline() && !credits.inlineFits(parser.inlineLength())) {
                    // The inline buffer is full: the parser stalls until an acknowledgement frees it.
                    inlineStalls.inc();
                    stalledOnInline = true;
                    credits.inlineWaiting(true);
                    return;
                }
                long ready = busy.book(params.parseCycles(), clock.at()) + pipelinePs;
                Wr w = requests.claim(qp);
                w.stamp(Stage.DOORBELL, qp.db.lastDoorbellPs());
                w.blueFlame = qp.sq.cameByBlueFlame(ps.parsed);
                if (!w.blueFlame) {
                    // A WQE written by BlueFlame was never fetched: the stage stays empty (Stage.NOT_REACHED).
                    w.stamp(Stage.WQE_FETCHED, ready);
                }
                w.readyPs = ready;
                fill(qp, w, syndrome, bbs, staging, stagingBbs);
                if (w.inline) {
                    credits.takeInline(w.length);
                }
                requests.post(qp, w);
                ps.parsed = (ps.parsed + bbs) & 0xFFFF;
                taken = bbs;
                credits.releaseWqeCache(bbs);
                wqesParsed.inc();
                if (syndrome != 0) {
                    badWqes.inc();
                }
                output.parsed(qp);
                more = ps.available() > 0 && !requests.full(qp);
            }
        }
        queue.poll();
        ps.queued = false;
        if (more) {
            ps.queued = true;
            queue.add(qp.qpn);
        }
        stagingFreed.stagingFreed(qp, taken);
    }

    private void fill(Qp qp, Wr w, int syndrome, int bbs, byte[] staging, int stagingBbs) {
        w.wqeIndex = qp.parse.parsed;
        w.bbs = bbs;
        w.syndrome = syndrome;
        if (syndrome != 0) {
            w.opcode = ControlSegment.opcode(staging, (qp.parse.parsed & (stagingBbs - 1)) * SendWqeBuilder.BB);
            w.signaled = true;
            w.packets = 0;
            return;
        }
        w.opcode = parser.opcode();
        w.signaled = parser.signaled();
        w.solicited = parser.solicited();
        w.fence = parser.fenceMode() != 0;
        w.immediate = parser.immediate();
        w.remoteAddress = parser.remoteAddress();
        w.rkey = parser.rkey();
        w.length = parser.totalLength();
        if (parser.isInline()) {
            w.inline = true;
            parser.copyInline(w.inlineData, 0);
        } else {
            var sg = parser.sges();
            w.sgeCount = sg.count();
            for (int i = 0; i < sg.count(); i++) {
                w.sgeAddr[i] = sg.address(i);
                w.sgeLen[i] = sg.length(i);
                w.sgeKey[i] = sg.lkey(i);
            }
        }
        boolean read = w.opcode == WqeOpcode.RDMA_READ;
        long len = w.length;
        int mtu = params.mtu();
        int pk = len == 0 ? 1 : (int) ((len + mtu - 1) / mtu);
        w.packets = pk;
        if (read) {
            w.responses = 0;
        }
    }
}
