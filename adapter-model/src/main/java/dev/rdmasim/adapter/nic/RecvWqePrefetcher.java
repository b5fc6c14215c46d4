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
                qp.rqKnown = qp.rqConsumed + ((Doorbells.recvCounter(qp.rqStage, 0) - qp.rqConsumed) & 0xFFFF);
                qp.rqDbFresh = true;
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
                int next = qp.rqCacheFirst + qp.rqCacheCount;
                for (int i = 0; i < qp.rqFetchCount; i++) {
                    System.arraycopy(qp.rqStage, i * stride, qp.rqCache, ((next + i) % params.depth()) * stride, stride);
                }
                qp.rqCacheCount += qp.rqFetchCount;
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
            qp.rqKnown = qp.rqConsumed + ((Doorbells.recvCounter(flushBuf, 0) - qp.rqConsumed) & 0xFFFF);
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
        if (qp.rqCacheCount == 0) {
            if (qp.rqFetchInFlight) {
                return WAIT;
            }
            if (qp.rqConsumed == qp.rqKnown) {
                if (!qp.rqDbFresh) {
                    readRecord(qp); // learn the driver's producer counter
                    return WAIT;
                }
                // Read since the last take and still nothing posted.
                qp.rqDbFresh = false;
                return NONE_POSTED;
            }
            fetch(qp, params.depth());
            return WAIT;
        }
        if (qp.rqCacheFirst != qp.rqConsumed) {
            throw new InvariantViolation(fullName() + ": QP " + qp.qpn + " takes receive WQE " + qp.rqConsumed
                    + " but its prefetch cache starts at " + qp.rqCacheFirst);
        }
        syndrome = parser.parse(qp.rqCache, (qp.rqCacheFirst % params.depth()) * qp.cfg.rqStrideBytes(),
                1 << qp.cfg.rqLogStride(), qp.cfg.maxRecvSge());
        qp.rqCacheFirst++;
        qp.rqCacheCount--;
        qp.rqDbFresh = false;
        return TAKEN;
    }

    private int syndrome;

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
        if (qp.rqFetchInFlight || qp.rqFlushing || depth - qp.rqCacheCount < Math.max(1, depth / 2)) {
            return;
        }
        if (qp.rqKnown - (qp.rqCacheFirst + qp.rqCacheCount) > 0) {
            fetch(qp, depth - qp.rqCacheCount);
        }
    }

    /** A read of the QP's landed: false if the QP is being flushed, which completes every posted WQE anyway. */
    private boolean landed(Qp qp) {
        qp.rqFetchInFlight = false;
        if (qp.rqFlushing) {
            responder.resume();
            return false;
        }
        return true;
    }

    /** The QP's prefetch cache and read buffer, made when the responder first reads for it. */
    private void allocate(Qp qp) {
        if (qp.rqCache == null) {
            int stride = qp.cfg.rqStrideBytes();
            qp.rqCache = new byte[params.depth() * stride];
            qp.rqStage = new byte[Math.max(4, wqesPerRead(stride) * stride)];
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
        int next = qp.rqCacheFirst + qp.rqCacheCount;
        int n = Math.min(Math.min(room, qp.rqKnown - next), Math.min(wqesPerRead(stride), ring - (next & (ring - 1))));
        allocate(qp);
        qp.rqRead.read(qp.cfg.rqBase() + (long) (next & (ring - 1)) * stride, qp.rqStage, 0, n * stride, ringRead, qp.qpn);
        if (port.offer(work.ready(qp.rqRead))) {
            qp.rqFetchInFlight = true;
            qp.rqFetchCount = n;
        }
    }

    /**
     * Reads the doorbell record's producer counter for a frame that found no known receive WQE. Only then: the
     * adapter cannot see posts but through this record, and polling it ahead would cost a PCIe read per message.
     */
    private void readRecord(Qp qp) {
        allocate(qp);
        qp.rqRead.read(qp.cfg.dbRecord() + Doorbells.OFF_RECV_COUNTER, qp.rqStage, 0, 4, recordRead, qp.qpn);
        if (port.offer(work.ready(qp.rqRead))) {
            qp.rqFetchInFlight = true;
        }
    }

    // ------------------------------------------------------------ flush of a QP in error

    /** The QP went to error: every posted receive WQE completes flushed, once the producer count is known. */
    void startFlush(Qp qp) {
        qp.rqFlushing = true;
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
        while (qp.rqConsumed != qp.rqKnown) {
            if (cqe.full()) {
                responder.waitForCqeSpace(qp);
                return;
            }
            CqeWriter.Job j = cqe.claim();
            j.cqn = qp.cfg.recvCqn();
            j.qpn = qp.qpn;
            j.opcode = Cqe.RESP_ERR;
            j.wqeCounter = qp.rqConsumed & 0xFFFF;
            j.syndrome = CqeSyndrome.WR_FLUSH;
            cqe.commit();
            qp.rqConsumed++;
        }
        qp.rqCacheFirst = qp.rqConsumed; // what was fetched ahead is flushed with the rest
        qp.rqCacheCount = 0;
    }
}
