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
    record Params(int parseCycles, int maxDs, int maxSge, int mtu) {
        static Params of(Profile p) {
            return new Params(p.getInt(NIC_WQE_PARSE_CYCLES),
                    Math.min(ControlSegment.MAX_DS, p.getInt(NIC_MAX_WQE_BYTES) / 16),
                    Math.max(1, Math.min(63, p.getInt(NDK_MAX_INITIATOR_REQUEST_SGE))), p.getInt(LINK_MTU));
        }
    }

    /** Where parsed requests go: the transmitter, told that a QP has a new request. */
    interface Output {
        void parsed(Qp qp);
    }

    /** Who is told that the QP's staging buffer has room again (the fetch engine). */
    interface StagingFreed {
        void stagingFreed(Qp qp);
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
    private StagingFreed stagingFreed;
    private boolean parsing;
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
        wqesParsed = stats().counter("wqesParsed", "WQEs", "send WQEs parsed");
        badWqes = stats().counter("badWqes", "WQEs", "WQEs that failed validation");
        inlineStalls = stats().counter("inlineStalls", "events", "times the parser waited for inline buffer space");
        parser = new SendWqeParser(params.maxSge());
        resume = sim().event(fullName() + ".step", this::parse);
        credits.onInlineFreed(this::inlineFreed);
    }

    void connect(Output transmitter, StagingFreed fetch) {
        this.output = transmitter;
        this.stagingFreed = fetch;
    }

    /** A QP has new blocks staged. */
    @Override
    public void staged(Qp qp) {
        if (!qp.inParseQueue) {
            qp.inParseQueue = true;
            queue.add(qp.qpn);
        }
        parse();
    }

    boolean stalledOnInline() {
        return stalledOnInline;
    }

    private void inlineFreed() {
        if (stalledOnInline) {
            stalledOnInline = false;
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
        int avail = (qp.fetchedBb - qp.parsedBb) & 0xFFFF;
        boolean more = false;
        if (avail > 0 && !qp.ringFull()) {
            int off = (qp.parsedBb & (qp.stagingBbs - 1)) * SendWqeBuilder.BB;
            int ds = ControlSegment.ds(qp.staging, off);
            int bbs = Math.max(1, SendWqeBuilder.bbsForDs(ds));
            if (bbs <= avail) {
                parser.setLimits(Math.min(qp.cfg.maxSendSge(), 63), qp.cfg.maxInline(), params.maxDs());
                int syndrome = parser.parse(qp.staging, 0, qp.staging.length, off, qp.qpn, qp.parsedBb);
                if (syndrome == 0 && parser.isInline() && !credits.inlineFits(parser.inlineLength())) {
                    // The inline buffer is full: the parser stalls until an acknowledgement frees it.
                    inlineStalls.inc();
                    stalledOnInline = true;
                    return;
                }
                long ready = busy.book(params.parseCycles(), clock.at());
                Wr w = qp.wr(qp.wrCount);
                w.clear();
                w.stamp(Stage.DOORBELL, qp.doorbellPs);
                int slot = qp.parsedBb & (qp.stagingBbs - 1);
                w.blueFlame = qp.blueFlameStaged[slot];
                qp.blueFlameStaged[slot] = false;
                if (!w.blueFlame) {
                    // A WQE written by BlueFlame was never fetched: the stage stays empty (Stage.NOT_REACHED).
                    w.stamp(Stage.WQE_FETCHED, ready);
                }
                w.readyPs = ready;
                fill(qp, w, syndrome, bbs);
                if (w.inline) {
                    credits.takeInline(w.length);
                }
                qp.wrCount++;
                qp.parsedBb = (qp.parsedBb + bbs) & 0xFFFF;
                credits.releaseWqeCache(bbs);
                wqesParsed.inc();
                if (syndrome != 0) {
                    badWqes.inc();
                }
                output.parsed(qp);
                more = ((qp.fetchedBb - qp.parsedBb) & 0xFFFF) > 0 && !qp.ringFull();
            }
        }
        queue.poll();
        qp.inParseQueue = false;
        if (more) {
            qp.inParseQueue = true;
            queue.add(qp.qpn);
        }
        stagingFreed.stagingFreed(qp);
    }

    private void fill(Qp qp, Wr w, int syndrome, int bbs) {
        w.wqeIndex = qp.parsedBb;
        w.bbs = bbs;
        w.syndrome = syndrome;
        if (syndrome != 0) {
            w.opcode = ControlSegment.opcode(qp.staging, (qp.parsedBb & (qp.stagingBbs - 1)) * SendWqeBuilder.BB);
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
        w.firstPsn = qp.nextPsn;
        qp.nextPsn = (qp.nextPsn + pk) & 0xFF_FFFF;
        if (read) {
            w.responses = 0;
        }
    }
}
