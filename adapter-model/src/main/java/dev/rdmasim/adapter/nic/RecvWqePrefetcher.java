package dev.rdmasim.adapter.nic;

import static dev.rdmasim.adapter.config.Parameters.*;

import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.format.Cqe;
import dev.rdmasim.adapter.format.CqeSyndrome;
import dev.rdmasim.adapter.format.Doorbells;
import dev.rdmasim.adapter.format.RecvWqe;
import dev.rdmasim.adapter.pcie.DmaCallback;
import dev.rdmasim.adapter.pcie.DmaChannel;
import dev.rdmasim.adapter.pcie.DmaPort;
import dev.rdmasim.adapter.pcie.DmaRequest;
import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.hw.Module;

/**
 * The receive-WQE prefetcher: the responder's view of each QP's receive queue. The adapter learns of posted
 * receives only through the QP's doorbell record, which it reads when a message finds no known receive WQE (only
 * then: reading it ahead would cost a PCIe read per message). It keeps up to {@code nic.rqPrefetchDepth} known
 * receive WQEs fetched ahead per QP and tops them up with one ring read (at most {@code nic.wqeFetchMaxBytes})
 * once half are used, so a stream of SENDs does not wait a PCIe read for each receive WQE. When a QP goes to error
 * it reads the doorbell record once more and completes every posted receive WQE flushed.
 *
 * <p>The responder takes WQEs with {@link #take}; the prefetcher tells it, through the {@link Responder} signals,
 * when a read it waited for has landed and when a flush CQE found the CQE writer full.
 */
final class RecvWqePrefetcher extends Module {
    /** {@link #take} results. */
    static final int TAKEN = 1;
    static final int WAIT = -1;
    /** No receive WQE is posted: the doorbell record was read since the last take and shows none (RNR). */
    static final int NONE_POSTED = 0;

    /** One QP's receive queue as the prefetcher holds it: written by this block only. */
    static final class QpRecvQueue {
        /** Receive WQEs the responder has finished with (running count; the ring index is its low bits). */
        private int consumed;
        /** Receive WQEs the driver is known to have posted (from the doorbell record). */
        private int known;
        private boolean fetchInFlight;
        /** The reads of this QP's receive ring and doorbell record, and where they land. */
        private final DmaRequest read = new DmaRequest();
        private byte[] stage;
        /** Receive WQEs fetched ahead, a ring of slots by running index (allocated at the first fetch). */
        private byte[] cache;
        /** Running index of the first fetched WQE not yet taken, and how many follow it in the cache. */
        private int cacheFirst;
        private int cacheCount;
        /** WQEs the ring read in flight brings. */
        private int fetchCount;
        /** A frame waiting for a receive WQE had the doorbell record read for it: none known then means none posted. */
        private boolean dbFresh;
        private boolean flushing;

        /** Receive WQEs consumed: the index (low 16 bits) of the next one. */
        int consumedCount() {
            return consumed;
        }

        boolean flushing() {
            return flushing;
        }
    }

    /** What the block is built with, taken from the profile once. */
    record Params(int depth, int fetchMaxBytes) {
        static Params of(Profile p) {
            return new Params(p.getInt(NIC_RQ_PREFETCH_DEPTH), p.getInt(NIC_WQE_FETCH_MAX_BYTES));
        }
    }

    /** The responder's side: woken when a read lands, asked to hold a QP whose flush CQE found no room. */
    interface Responder {
        void resume();

        void waitForCqeSpace(Qp qp);
    }

    private final Params params;
    private final WorkClock work;
    private final QpTable qps;
    private final CqeWriter cqe;
    private final DmaPort port;
    private Responder responder;
    private final RecvWqe.Parser parser = new RecvWqe.Parser(32);
    private final IntRing flushQueue = new IntRing(16);
    private final DmaRequest flushRead = new DmaRequest();
    private final byte[] flushBuf = new byte[4];
    /** The doorbell record's receive counter, read for a message that found no known receive WQE. */
    private final DmaCallback recordRead = new DmaCallback() {
        @Override
        public void readDone(DmaRequest r) {
            Qp qp = qps.qp((int) r.cookie());
            if (landed(qp)) {
                qp.rq.known = qp.rq.consumed + ((Doorbells.recvCounter(qp.rq.stage, 0) - qp.rq.consumed) & 0xFFFF);
                qp.rq.dbFresh = true;
                topUp(qp);
                responder.resume();
            }
        }
    };
    /** A run of receive WQEs from the ring, into the QP's prefetch cache. */
    private final DmaCallback ringRead = new DmaCallback() {
        @Override
        public void readDone(DmaRequest r) {
            Qp qp = qps.qp((int) r.cookie());
            if (landed(qp)) {
                int stride = qp.cfg.rqStrideBytes();
                int next = qp.rq.cacheFirst + qp.rq.cacheCount;
                for (int i = 0; i < qp.rq.fetchCount; i++) {
                    System.arraycopy(qp.rq.stage, i * stride, qp.rq.cache, ((next + i) % params.depth()) * stride, stride);
                }
                qp.rq.cacheCount += qp.rq.fetchCount;
                topUp(qp);
                responder.resume();
            }
        }
    };
    /** The doorbell record read for a flush: every WQE posted up to its count completes flushed. */
    private final DmaCallback flushRecordRead = new DmaCallback() {
        @Override
        public void readDone(DmaRequest r) {
            Qp qp = qps.qp((int) r.cookie());
            qp.rq.known = qp.rq.consumed + ((Doorbells.recvCounter(flushBuf, 0) - qp.rq.consumed) & 0xFFFF);
            flushMore(qp);
            pumpFlush();
        }
    };

    RecvWqePrefetcher(Module parent, Params params, WorkClock work, QpTable qps, CqeWriter cqe, DmaChannel channel) {
        super(parent, "rq");
        this.params = params;
        this.work = work;
        this.qps = qps;
        this.cqe = cqe;
        this.port = new DmaPort(channel, 0);
    }

    void connect(Responder r) {
        this.responder = r;
        port.onReady(() -> {
            pumpFlush();
            r.resume();
        });
    }

    /**
     * Takes the QP's next receive WQE for a message: {@link #TAKEN} (its scatter list is in {@link #sges()} and its
     * validation result in {@link #syndrome()}), {@link #WAIT} for a DMA read, or {@link #NONE_POSTED}.
     */
    int take(Qp qp) {
        if (qp.rq.cacheCount == 0) {
            if (qp.rq.fetchInFlight) {
                return WAIT;
            }
            if (qp.rq.consumed == qp.rq.known) {
                if (!qp.rq.dbFresh) {
                    readRecord(qp); // learn the driver's producer counter
                    return WAIT;
                }
                // Read since the last take and still nothing posted.
                qp.rq.dbFresh = false;
                return NONE_POSTED;
            }
            fetch(qp, params.depth());
            return WAIT;
        }
        if (qp.rq.cacheFirst != qp.rq.consumed) {
            throw new InvariantViolation(fullName() + ": QP " + qp.qpn + " takes receive WQE " + qp.rq.consumed
                    + " but its prefetch cache starts at " + qp.rq.cacheFirst);
        }
        syndrome = parser.parse(qp.rq.cache, (qp.rq.cacheFirst % params.depth()) * qp.cfg.rqStrideBytes(),
                1 << qp.cfg.rqLogStride(), qp.cfg.maxRecvSge());
        qp.rq.cacheFirst++;
        qp.rq.cacheCount--;
        qp.rq.dbFresh = false;
        return TAKEN;
    }

    private int syndrome;

    /** The responder has finished with the receive WQE it took (its completion is on its way). */
    void consumed(Qp qp) {
        qp.rq.consumed++;
    }

    /**
     * The QP is reset with nothing of it in flight: a flush that ended no longer holds the queue, and the doorbell
     * record is read afresh when a message finds no known WQE. The running counters stay: the driver keeps its own.
     */
    void reset(Qp qp) {
        qp.rq.flushing = false;
        qp.rq.dbFresh = false;
    }

    /** Whether a read of the QP is in flight, or its flush still waits to learn the producer count. */
    boolean busyWith(Qp qp) {
        return qp.rq.fetchInFlight || (qp.rq.flushing && flushPending());
    }

    /** The validation result of the WQE just taken: 0, or the syndrome it completes with. */
    int syndrome() {
        return syndrome;
    }

    /** The scatter list of the WQE just taken. */
    dev.rdmasim.adapter.format.ScatterList sges() {
        return parser.sges();
    }

    /**
     * Tops up the QP's receive WQE cache in the background once half of it is used: one read of the next known
     * WQEs it knows of (contiguous in the ring, at most {@code nic.wqeFetchMaxBytes} in one read).
     */
    void topUp(Qp qp) {
        int depth = params.depth();
        if (qp.rq.fetchInFlight || qp.rq.flushing || depth - qp.rq.cacheCount < Math.max(1, depth / 2)) {
            return;
        }
        if (qp.rq.known - (qp.rq.cacheFirst + qp.rq.cacheCount) > 0) {
            fetch(qp, depth - qp.rq.cacheCount);
        }
    }

    /** A read of the QP's landed: false if the QP is being flushed, which completes every posted WQE anyway. */
    private boolean landed(Qp qp) {
        qp.rq.fetchInFlight = false;
        if (qp.rq.flushing) {
            responder.resume();
            return false;
        }
        return true;
    }

    /** The QP's prefetch cache and read buffer, made when the responder first reads for it. */
    private void allocate(Qp qp) {
        if (qp.rq.cache == null) {
            int stride = qp.cfg.rqStrideBytes();
            qp.rq.cache = new byte[params.depth() * stride];
            qp.rq.stage = new byte[Math.max(4, wqesPerRead(stride) * stride)];
        }
    }

    /** Receive WQEs one ring read brings at most: {@code nic.wqeFetchMaxBytes} of them, and at least one. */
    private int wqesPerRead(int stride) {
        return Math.max(1, params.fetchMaxBytes() / stride);
    }

    /** Reads up to {@code room} known receive WQEs following the cache into it (issued if the channel takes it). */
    private void fetch(Qp qp, int room) {
        int stride = qp.cfg.rqStrideBytes();
        int ring = 1 << qp.cfg.rqLogSize();
        int next = qp.rq.cacheFirst + qp.rq.cacheCount;
        int n = Math.min(Math.min(room, qp.rq.known - next), Math.min(wqesPerRead(stride), ring - (next & (ring - 1))));
        allocate(qp);
        qp.rq.read.read(qp.cfg.rqBase() + (long) (next & (ring - 1)) * stride, qp.rq.stage, 0, n * stride, ringRead, qp.qpn);
        if (port.offer(work.ready(qp.rq.read))) {
            qp.rq.fetchInFlight = true;
            qp.rq.fetchCount = n;
        }
    }

    /**
     * Reads the doorbell record's producer counter for a frame that found no known receive WQE. Only then: the
     * adapter cannot see posts but through this record, and polling it ahead would cost a PCIe read per message.
     */
    private void readRecord(Qp qp) {
        allocate(qp);
        qp.rq.read.read(qp.cfg.dbRecord() + Doorbells.OFF_RECV_COUNTER, qp.rq.stage, 0, 4, recordRead, qp.qpn);
        if (port.offer(work.ready(qp.rq.read))) {
            qp.rq.fetchInFlight = true;
        }
    }

    // ------------------------------------------------------------ flush of a QP in error

    /** The QP went to error: every posted receive WQE completes flushed, once the producer count is known. */
    void startFlush(Qp qp) {
        qp.rq.flushing = true;
        flushQueue.add(qp.qpn);
        pumpFlush();
    }

    /** A receive flush is queued or its doorbell-record read is in flight (it names its QP later). */
    boolean flushPending() {
        return !flushQueue.isEmpty() || flushRead.inEngine();
    }

    private void pumpFlush() {
        if (flushQueue.isEmpty() || flushRead.inEngine()) {
            return;
        }
        Qp qp = qps.qp(flushQueue.peek());
        flushRead.read(qp.cfg.dbRecord() + Doorbells.OFF_RECV_COUNTER, flushBuf, 0, 4, flushRecordRead, qp.qpn);
        if (port.offer(work.ready(flushRead))) {
            flushQueue.poll();
        }
    }

    /** Completes posted receive WQEs flushed while the CQE writer has room; the responder holds the QP otherwise. */
    void flushMore(Qp qp) {
        while (qp.rq.consumed != qp.rq.known) {
            if (cqe.full()) {
                responder.waitForCqeSpace(qp);
                return;
            }
            CqeWriter.Job j = cqe.claim();
            j.cqn = qp.cfg.recvCqn();
            j.qpn = qp.qpn;
            j.opcode = Cqe.RESP_ERR;
            j.wqeCounter = qp.rq.consumed & 0xFFFF;
            j.syndrome = CqeSyndrome.WR_FLUSH;
            cqe.commit();
            qp.rq.consumed++;
        }
        qp.rq.cacheFirst = qp.rq.consumed; // what was fetched ahead is flushed with the rest
        qp.rq.cacheCount = 0;
    }
}
