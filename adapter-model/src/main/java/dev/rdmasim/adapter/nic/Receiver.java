package dev.rdmasim.adapter.nic;

import static dev.rdmasim.adapter.config.Parameters.*;

import dev.rdmasim.adapter.wire.Aeth;
import dev.rdmasim.adapter.wire.Frame;
import dev.rdmasim.adapter.wire.FrameCheck;
import dev.rdmasim.adapter.wire.LinkEndpoint;
import dev.rdmasim.adapter.wire.Opcode;
import dev.rdmasim.adapter.wire.RoceReader;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.stats.Counter;

/**
 * The receiver, the frame intake: takes frames from the wire one at a time (a frame costs the profile's cycles),
 * checks them (Ethernet, IP, UDP, ICRC) and steers them: datagrams to QP1, request packets to the {@link Responder},
 * responses (ACK, NAK, READ response) to the {@link RequesterTransport}. A frame whose payload is being written stays
 * held until its writes have left the device, which bounds the data in flight by the link's buffers. A frame the
 * owner cannot take yet (waiting for a key, a receive WQE or a write slot) stays in the pipeline, and one arriving
 * while the pipeline is occupied stays on the link, so the peer sees backpressure rather than loss.
 */
final class Receiver extends Module implements PayloadWriter.Written, Responder.Intake {

    /** What the block is built with, taken from the profile once. */
    record Params(int packetCycles, int pipelineCycles) {
        /** Without pipeline depth: a frame's effects happen when its packet cycles end. */
        Params(int packetCycles) {
            this(packetCycles, 0);
        }

        static Params of(dev.rdmasim.adapter.config.Profile p) {
            return new Params(p.getInt(NIC_RX_PACKET_CYCLES), p.getInt(NIC_RX_PIPELINE_CYCLES));
        }
    }

    /** The requester transport's side: responses to the QP's own requests (ACK, NAK, READ response). */
    interface Requests {
        void acknowledge(Qp qp, int psn);

        void nak(Qp qp, int psn, int syndrome);

        /** Returns {@link RequesterTransport#WAIT}, {@code DONE}, {@code HELD} or {@code DROPPED}. */
        int readResponse(Qp qp, Frame f, RoceReader reader);

        void responseWritten(Qp qp, Wr w);
    }

    private final WorkClock work;
    private final QpTable qps;
    private final Requests req;
    private final ReceiverRequests responder;
    /** QP1, once it exists: datagrams go there. */
    private java.util.function.Consumer<RoceReader> datagrams;
    private final RoceReader reader;
    private final Busy busy;
    private final Event stepEvent;
    private final Event retryEvent;
    /** When the pipeline's cycles for the current frame end. */
    private long currentReadyPs;
    private final int packetCycles;
    /** Latency through the receive pipeline beyond the frame's booking: its effects happen that much later. */
    private final long pipelinePs;
    private LinkEndpoint port;
    private Frame current;
    private boolean waiting;
    private boolean refused;
    private final Counter frames;
    private final Counter dropped;

    Receiver(Module parent, Params params, dev.rdmasim.kernel.hw.ClockDomain nicClock, WorkClock work, QpTable qps,
            PayloadWriter payload, Requests req, ReceiverRequests responder) {
        super(parent, "rx");
        this.work = work;
        this.qps = qps;
        this.req = req;
        this.responder = responder;
        reader = new RoceReader(stats());
        busy = new Busy(this, nicClock, signal("busy", 1));
        stepEvent = sim().event(fullName() + ".step", this::step);
        retryEvent = sim().event(fullName() + ".retry", this::onRetry);
        packetCycles = params.packetCycles();
        pipelinePs = nicClock.cyclesToPs(params.pipelineCycles());
        payload.connect(this, this::resume);
        frames = stats().counter("frames", "frames", "frames received");
        dropped = stats().counter("dropped", "frames", "frames dropped (bad checks, unknown QP, QP not ready to receive or in error, silent PSN drops)");
        Counter duplicates = stats().counter("duplicates", "packets", "duplicate request packets re-acknowledged");
        Counter sequenceErrors = stats().counter("sequenceNaks", "packets", "requests ahead of the expected PSN (sequence NAK)");
        Counter accessErrors = stats().counter("accessNaks", "packets",
                "requests failing the remote key check or invalid (NAK, QP to error)");
        Counter rnr = stats().counter("rnrNaks", "packets", "SENDs that found no receive WQE (RNR NAK)");
        responder.connect(this, new Responder.Counters(dropped, duplicates, sequenceErrors, accessErrors, rnr));
    }

    /** QP1 exists: UD datagrams go to it from now on (before, they are dropped). */
    void onDatagram(java.util.function.Consumer<RoceReader> qp1) {
        this.datagrams = qp1;
    }

    void attach(LinkEndpoint p) {
        port = p;
        port.connectReceiver(this::accept);
    }

    /**
     * Takes a frame if the pipeline is free. The frame's checks and their effects are worked out at once, for the
     * instant the pipeline's cycles end ({@link WorkClock}): DMA writes, the ACK and the completions it
     * causes carry that instant as their ready time, so they leave when a pipeline event at that instant would have
     * sent them, without the event. The pipeline stays occupied until then: a frame arriving earlier is refused
     * and offered again when it frees, as before.
     */
    private boolean accept(Frame f) {
        if (current != null || busy.busyUntil() > now()) {
            refused = true;
            if (current == null) {
                retryWhenFree();
            }
            return false;
        }
        current = f;
        frames.inc();
        currentReadyPs = busy.book(packetCycles) + pipelinePs;
        work.ahead(currentReadyPs);
        try {
            step();
        } finally {
            work.present();
        }
        return true;
    }

    /** Something the current frame waited for has arrived (a key line, a receive WQE, a write slot). */
    @Override
    public void resume() {
        if (current != null && waiting && !stepEvent.scheduled()) {
            waiting = false;
            // Not before the pipeline's cycles for it are over; from then on it runs at its own instant.
            stepEvent.schedule(Math.max(now(), currentReadyPs));
        }
    }

    private void done() {
        current = null;
        busy.idleAfterBookings();
        retryWhenFree();
    }

    /** Has the link offer a refused frame again as soon as the pipeline is free: now, or when it frees. */
    private void retryWhenFree() {
        if (!refused) {
            return;
        }
        if (busy.busyUntil() <= now()) {
            onRetry();
        } else if (!retryEvent.scheduled()) {
            retryEvent.schedule(busy.busyUntil());
        }
    }

    /** The pipeline has freed after refusing a frame: ask the link to offer it again. */
    private void onRetry() {
        if (refused && current == null) {
            refused = false;
            port.retryDelivery();
        }
    }

    private void step() {
        Frame f = current;
        FrameCheck c = reader.wrap(f);
        if (c != FrameCheck.VALID) {
            dropped.inc();
            f.release();
            done();
            return;
        }
        int op = reader.opcode();
        if (Opcode.isUd(op)) {
            // A datagram: QP1's business, not an RC QP's (data QPs may share its number).
            if (datagrams != null) {
                datagrams.accept(reader);
            } else {
                dropped.inc();
            }
            f.release();
            done();
            return;
        }
        Qp qp = qps.qpOrNull(reader.destQp());
        if (qp == null) {
            dropped.inc();
            f.release();
            done();
            return;
        }
        boolean keep;
        if (op == Opcode.ACKNOWLEDGE) {
            int syn = reader.aethSyndrome();
            if (Aeth.isAck(syn)) {
                req.acknowledge(qp, reader.psn());
            } else {
                req.nak(qp, reader.psn(), syn);
            }
            keep = false;
        } else if (op >= Opcode.RDMA_READ_RESPONSE_FIRST && op <= Opcode.RDMA_READ_RESPONSE_ONLY) {
            int r = req.readResponse(qp, f, reader);
            if (r == RequesterTransport.WAIT) {
                waiting = true;
                return;
            }
            if (r == RequesterTransport.DROPPED) {
                dropped.inc();
            }
            keep = r == RequesterTransport.HELD;
        } else {
            int r = responder.request(qp, f, op, reader);
            if (r < 0) {
                waiting = true;
                return;
            }
            keep = r > 0;
        }
        if (!keep) {
            f.release();
        }
        done();
    }

    // ------------------------------------------------------------ writes of received payload that left

    @Override
    public void written(Qp qp, Wr w) {
        if (w != null) {
            req.responseWritten(qp, w);
        } else {
            responder.messageWritten(qp);
        }
        resume();
    }
}
