package dev.rdmasim.driver;

import dev.rdmasim.adapter.format.WqeOpcode;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.stats.Counter;

/**
 * A closed-loop stream of RDMA WRITEs from one side of a {@link HostPair} to the other, as a
 * bandwidth / message-rate benchmark application runs it: keep {@code depth} WRITEs outstanding,
 * post them in batches of {@code batch} WQEs per doorbell (the first {@code batch - 1} deferred),
 * signal every {@code signalEvery}-th, and re-post as CQEs are polled.
 *
 * <p>The application is a thread on the core of the source QP: it runs when a CQE lands, but no
 * earlier than the core is free of its earlier work, and its polls and posts queue on that core.
 */
public final class WriteStream extends Module {
    private final HostPair.Side src;
    private final HostPair.Side dst;
    private final SendQueue sq;
    private final CompletionQueue cq;
    private final HostCpu cpu;
    private final int msgBytes;
    private final int depth;
    private final int batch;
    private final int signalEvery;
    private final boolean inline;
    private final int slots;
    private final SgeList sge = new SgeList(1);
    private final byte[] inlineBytes;
    private final Event run;
    private final Counter completed;
    private final Counter posted;
    private long seq;
    /** seq modulo slots and modulo signalEvery, kept as counters (no division per post). */
    private int slot;
    private int sinceSignal;
    private long outstanding;
    private long stopAt = Long.MAX_VALUE;
    private long postLimit = Long.MAX_VALUE;

    /**
     * @param msgBytes    payload bytes per WRITE (1 .. the buffer size)
     * @param depth       WRITEs kept outstanding (a multiple of {@code batch}, at most the send ring)
     * @param batch       WQEs per doorbell (1 = a doorbell or BlueFlame write per WQE)
     * @param signalEvery every n-th WQE asks for a CQE; a multiple of {@code batch} or 1
     * @param inline      payload inline in the WQE
     */
    public WriteStream(HostPair.Side src, HostPair.Side dst, int msgBytes, int depth, int batch, int signalEvery,
            boolean inline) {
        super(src.driver(), "writeStream");
        if (msgBytes < 1 || msgBytes > src.mr().length() || msgBytes > dst.mr().length()) {
            throw new IllegalArgumentException("msgBytes must be 1..buffer size, got " + msgBytes);
        }
        if (batch < 1 || depth < batch || depth % batch != 0 || depth > src.sq().ringBbs()) {
            throw new IllegalArgumentException("depth must be a multiple of batch and fit the send ring: depth "
                    + depth + ", batch " + batch + ", ring " + src.sq().ringBbs() + " BBs");
        }
        if (signalEvery < 1 || depth % signalEvery != 0 || (signalEvery % batch != 0 && signalEvery != 1)) {
            throw new IllegalArgumentException("signalEvery must divide depth and be 1 or a multiple of batch, got "
                    + signalEvery);
        }
        this.src = src;
        this.dst = dst;
        this.sq = src.sq();
        this.cq = src.cq();
        this.cpu = sq.core();
        this.msgBytes = msgBytes;
        this.depth = depth;
        this.batch = batch;
        this.signalEvery = signalEvery;
        this.inline = inline;
        this.slots = (int) Math.max(1, Math.min(depth, Math.min(src.mr().length(), dst.mr().length()) / msgBytes));
        inlineBytes = inline ? new byte[msgBytes] : null;
        if (inline) {
            src.driver().memory().read(src.mr().address(), inlineBytes, 0, msgBytes);
        }
        run = sim().event(fullName() + ".run", this::step);
        cq.setLandedListener(this::wake);
        cpu.setRoomListener(this::wake);
        completed = stats().counter("completed", "WRITEs", "WRITEs retired by polled CQEs");
        posted = stats().counter("posted", "WRITEs", "WRITEs posted");
    }

    /** Posts the first {@code depth} WRITEs (now, or when the CPU is free). */
    public void start() {
        wake();
    }

    /** WRITEs retired so far. */
    public long completed() {
        return completed.value();
    }

    /**
     * Posts no more than {@code total} WRITEs in all (a multiple of the batch and of the signalling interval, so the
     * last one asks for a CQE): the stream then ends, and a run can end with it.
     */
    public void postAtMost(long total) {
        if (total < 0 || total % batch != 0 || total % signalEvery != 0) {
            throw new IllegalArgumentException("total must be a multiple of batch (" + batch + ") and signalEvery ("
                    + signalEvery + "), got " + total);
        }
        postLimit = total;
    }

    /** Stops the simulator's run loop once {@code count} WRITEs have completed in total. */
    public void stopWhenCompleted(long count) {
        stopAt = count;
    }

    private void wake() {
        if (!run.scheduled()) {
            run.schedule(cpu.freeAt());
        }
    }

    private void step() {
        if (cpu.freeAt() > now()) {
            run.schedule(cpu.freeAt()); // The thread is still busy with its earlier posts.
            return;
        }
        for (Completion c = cq.poll(); c != null; c = cq.poll()) {
            if (c.isError()) {
                throw new IllegalStateException(fullName() + ": WRITE failed: " + c);
            }
            outstanding -= c.retired();
            completed.add(c.retired());
        }
        if (sq.pendingWqes() > 0 && !sq.ringDoorbell()) {
            return;
        }
        while (outstanding + batch <= depth && seq + batch <= postLimit) {
            if (!postBatch()) {
                break; // CPU queue full: the room listener wakes us.
            }
        }
        if (completed.value() >= stopAt) {
            sim().stop();
        }
    }

    private boolean postBatch() {
        for (int i = 0; i < batch; i++) {
            long n = seq;
            long offset = (long) slot * msgBytes;
            int flags = (i < batch - 1 ? SendQueue.DEFER : 0)
                    | (sinceSignal + 1 == signalEvery ? SendQueue.SIGNALED : 0);
            boolean ok;
            if (inline) {
                ok = sq.postInline(n, WqeOpcode.RDMA_WRITE, flags, 0, dst.mr().address() + offset, dst.mr().rkey(),
                        inlineBytes, 0, msgBytes);
            } else {
                sge.set(src.mr(), offset, msgBytes);
                ok = sq.post(n, WqeOpcode.RDMA_WRITE, flags, 0, dst.mr().address() + offset, dst.mr().rkey(), sge);
            }
            if (!ok) {
                // Only the first post of a batch can be refused for room (reserve checks per post);
                // ring whatever was deferred so no WQE waits without a doorbell.
                sq.ringDoorbell();
                return false;
            }
            seq++;
            slot = slot + 1 == slots ? 0 : slot + 1;
            sinceSignal = sinceSignal + 1 == signalEvery ? 0 : sinceSignal + 1;
            outstanding++;
            posted.inc();
        }
        return true;
    }
}
