package dev.rdmasim.driver;

import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.adapter.pcie.HostBridge;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.stats.Bound;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.TimeAverage;
import dev.rdmasim.kernel.wave.Signal;

/**
 * One host core the driver runs on: a sequential processor that works through a bounded queue
 * of driver work items in order. A host has {@code host.cores} of them working in parallel; each QP
 * posts on one (see {@link HostDriver}). Each item costs CPU time (a WQE build, an MMIO store, a
 * write-combined chunk flush) and takes effect when the CPU finishes it: ring bytes and doorbell
 * records are stored into host memory then, MMIO writes are handed to the root complex then.
 *
 * <p>When the root complex's posted queue is full the store cannot retire: the core <em>stalls</em>
 * (as an x86 core does on a full write-combining / uncached store path) until the bridge's retry
 * callback says there is room, and every later item is pushed back by the stall. Nothing is lost. The
 * posted queue is the root complex's, shared by every core: a stall holds back only the core whose store
 * was refused, and the driver passes the bridge's one retry callback to each stalled core in turn.
 *
 * <p>Work that only reads memory (CQ and EQ polls) is charged with {@link #charge}: it happens at
 * the call and moves the end of the CPU's timeline, delaying the items queued after it.
 */
public final class HostCpu extends Module {
    static final int STORE_SQ = 1;
    static final int STORE_RQ = 2;
    static final int STORE_WORD = 3;
    static final int MMIO = 4;
    static final int STORE_BLOCK = 5;

    /** Largest MMIO write the CPU issues: one write-combined line. */
    static final int MAX_MMIO = 64;

    private final HostMemory memory;
    private final HostBridge bridge;
    private final int capacity;
    // Work items, a ring of parallel arrays (no per-item allocation).
    private final int[] kind;
    private final long[] finish;
    private final Object[] owner;
    private final long[] a;
    private final int[] b;
    private final int[] c;
    private final byte[][] data;
    private int head;
    private int count;
    private long tailFinish;
    private boolean stalled;
    private long stalledSince;
    private Runnable roomListener;
    private final Event step;

    private final Counter busyTime;
    private final Counter emptyPollTime;
    private final Counter stallTime;
    private final Counter stalls;
    private final Counter items;
    private final Counter mmioWrites;
    private final Counter mmioBytes;
    private final Counter refusedPosts;
    private final TimeAverage queued;
    private final Bound queueFull;
    private final Signal queuedSignal;
    private final Signal stalledSignal;

    HostCpu(Module parent, String name, HostMemory memory, HostBridge bridge, int capacity) {
        super(parent, name);
        if (capacity < 2) {
            throw new IllegalArgumentException("cpu work queue capacity must be >= 2, got " + capacity);
        }
        this.memory = memory;
        this.bridge = bridge;
        this.capacity = capacity;
        kind = new int[capacity];
        finish = new long[capacity];
        owner = new Object[capacity];
        a = new long[capacity];
        b = new int[capacity];
        c = new int[capacity];
        data = new byte[capacity][MAX_MMIO];
        step = sim().event(fullName() + ".step", this::step);
        busyTime = stats().counter("busyTime", "ps",
                "CPU time spent on driver work (builds, stores, polls that found an entry)");
        emptyPollTime = stats().counter("emptyPollTime", "ps",
                "CPU time spent on polls that found nothing (a busy-polling thread waiting, not working)");
        stallTime = stats().counter("stallTime", "ps", "CPU time stalled on a full MMIO posted queue");
        stalls = stats().counter("stalls", "stalls", "MMIO stores refused by the root complex (CPU stalled)");
        items = stats().counter("items", "items", "driver work items completed");
        mmioWrites = stats().counter("mmioWrites", "writes", "MMIO writes issued (8 B doorbells, 64 B chunks)");
        mmioBytes = stats().counter("mmioBytes", "B", "bytes written by MMIO");
        refusedPosts = stats().counter("queueFull", "posts", "posts refused because the work queue was full");
        stats().formula("busyFraction", "ratio", "(busyTime + stallTime) / simulated time; empty polls are waiting",
                () -> now() == 0 ? 0 : Math.min(1.0, (busyTime.value() + stallTime.value()) / (double) now()));
        queued = stats().timeAverage("queued", "items", "driver work items waiting for the CPU");
        queueFull = stats().bound("queue", "host CPU work queue", "a post refused for lack of room waits for the"
                + " queue to drain to half", "the host's CPU queue, " + capacity + " items");
        queuedSignal = signal("queued", 16);
        stalledSignal = signal("stalled", 1);
    }

    /** Earliest time new work could start: now, or when the queued work is done. */
    public long freeAt() {
        return Math.max(now(), tailFinish);
    }

    /**
     * When the last work item ever queued finishes (or finished): it changes only when work is queued, so a caller
     * can tell whether the core took any work between two instants.
     */
    public long lastWorkFinish() {
        return tailFinish;
    }

    /** Work items waiting or in progress. */
    public int queuedItems() {
        return count;
    }

    public boolean stalled() {
        return stalled;
    }

    /** Called (inside an event) whenever the work queue has drained below half after refusing a post. */
    public void setRoomListener(Runnable listener) {
        this.roomListener = listener;
    }

    boolean hasRoom(int n) {
        return capacity - count >= n;
    }

    void refused() {
        refusedPosts.inc();
        wantRoom = true;
        queueFull.set(true);
    }

    private boolean wantRoom;

    /** CPU time spent now (a poll): delays everything queued after it. */
    void charge(long cost) {
        tailFinish = Math.max(now(), tailFinish) + cost;
        busyTime.add(cost);
    }

    /**
     * As {@link #charge}, for a poll that found nothing: it takes the same time, but a thread spinning on an
     * empty queue is waiting, so it does not count as busy (a polling workload would otherwise show its CPU as
     * the busiest block whatever limits it).
     */
    void chargeEmptyPoll(long cost) {
        tailFinish = Math.max(now(), tailFinish) + cost;
        emptyPollTime.add(cost);
    }

    /**
     * {@code n} polls that found nothing, {@code cost} each, made back to back from the end of the work done so far,
     * the last one started by now: the empty polls of a thread that slept through them (see the perf harness's
     * threads) charged after the fact, exactly as {@link #chargeEmptyPoll} would have charged them one by one.
     *
     * @throws InvariantViolation if the last would start after now: they were never all made
     */
    public void chargeSkippedEmptyPolls(long n, long cost) {
        long total = Math.multiplyExact(n, cost);
        long end = tailFinish + total;
        if (n <= 0 || end - cost > now()) {
            throw new InvariantViolation(fullName() + ": " + n + " skipped empty polls of " + cost + " ps from "
                    + tailFinish + " ps would end at " + end + " ps, the last starting after now (" + now() + " ps)");
        }
        tailFinish = end;
        emptyPollTime.add(total);
    }

    /**
     * Queues the store of {@code n} new entries of a send or receive ring starting at running
     * counter {@code first}; {@code counter} is the producer counter written to the doorbell
     * record afterwards (then {@link #kick()}). Consecutive stores of one ring merge into one item (the adapter cannot
     * see ring bytes before a doorbell or record update, so storing them together is the same).
     */
    void storeRing(int itemKind, Object ring, int first, int n, int counter, long cost) {
        if (count > 0) {
            int t = wrap(head + count - 1);
            if (kind[t] == itemKind && owner[t] == ring && (int) a[t] + b[t] == first && !(stalled && t == head)) {
                b[t] += n;
                c[t] = counter;
                shiftFrom(t, cost);
                busyTime.add(cost);
                return;
            }
        }
        int i = push(itemKind, cost);
        owner[i] = ring;
        a[i] = first;
        b[i] = n;
        c[i] = counter;
    }

    /** Queues a 32-bit big-endian store into host memory (a doorbell-record word). */
    void storeWord(long address, int value, long cost) {
        int i = push(STORE_WORD, cost);
        owner[i] = null;
        a[i] = address;
        c[i] = value;
    }

    /**
     * Queues a store of {@code src[off..off+len)} into host memory at {@code address} (a command entry or
     * mailbox); the caller keeps {@code src} unchanged until the store is done.
     */
    void storeBytes(long address, byte[] src, int off, int len, long cost) {
        int i = push(STORE_BLOCK, cost);
        owner[i] = src;
        a[i] = address;
        b[i] = len;
        c[i] = off;
    }

    /** Queues an MMIO write of {@code len} bytes; returns the buffer to fill with them. */
    byte[] mmio(long barOffset, int len, long cost) {
        if (len < 1 || len > MAX_MMIO) {
            throw new InvariantViolation(fullName() + ": MMIO write of " + len + " bytes");
        }
        int i = push(MMIO, cost);
        owner[i] = null;
        a[i] = barOffset;
        b[i] = len;
        return data[i];
    }

    private int push(int itemKind, long cost) {
        if (count == capacity) {
            throw new InvariantViolation(fullName() + ": work queue overflow (caller must check hasRoom)");
        }
        int i = wrap(head + count);
        long start = Math.max(now(), tailFinish);
        kind[i] = itemKind;
        finish[i] = start + cost;
        tailFinish = finish[i];
        busyTime.add(cost);
        count++;
        queued.set(count);
        queuedSignal.set(count);
        return i;
    }

    /**
     * Makes sure the CPU acts on its queue at the right time; callers queue all items of one
     * driver call, then kick once (so a store and its doorbell cost one event, not a reschedule).
     */
    void kick() {
        if (stalled || count == 0) {
            return;
        }
        long w = nextWake();
        if (!step.scheduled()) {
            step.schedule(w);
        } else if (step.time() != w) {
            step.reschedule(w);
        }
    }

    /**
     * When the next item must be acted on. Send-ring stores followed by more work are applied with
     * that work (no event of their own): the adapter cannot read those ring bytes before a later
     * doorbell, so applying them a little later changes nothing it can observe.
     */
    private long nextWake() {
        int i = head;
        for (int k = 1; k < count && kind[i] == STORE_SQ; k++) {
            i = wrap(i + 1);
        }
        return finish[i];
    }

    /** Adds {@code d} to the finish time of item {@code from} and every item after it. */
    private void shiftFrom(int from, long d) {
        int n = count - wrap(from - head + capacity);
        for (int k = 0, i = from; k < n; k++, i = wrap(i + 1)) {
            finish[i] += d;
        }
        tailFinish += d;
    }

    private void step() {
        long t = now();
        int done = 0;
        while (count > 0 && finish[head] <= t) {
            int i = head;
            switch (kind[i]) {
                case STORE_SQ -> ((SendQueue) owner[i]).store((int) a[i], b[i], c[i]);
                case STORE_RQ -> ((ReceiveQueue) owner[i]).store((int) a[i], b[i], c[i]);
                case STORE_WORD -> memory.putIntBE(a[i], c[i]);
                case STORE_BLOCK -> memory.write(a[i], (byte[]) owner[i], c[i], b[i]);
                case MMIO -> {
                    if (!bridge.mmioWrite(a[i], data[i], 0, b[i])) {
                        stalled = true;
                        stalledSince = t;
                        stalls.inc();
                        stalledSignal.set(1);
                        items.add(done);
                        return; // the bridge calls onMmioRetry once its posted queue has room
                    }
                    mmioWrites.inc();
                    mmioBytes.add(b[i]);
                }
                default -> throw new InvariantViolation(fullName() + ": unknown work item " + kind[i]);
            }
            owner[i] = null;
            head = wrap(head + 1);
            count--;
            done++;
        }
        items.add(done);
        queued.set(count);
        queuedSignal.set(count);
        if (count > 0) {
            step.schedule(nextWake());
        }
        if (count <= capacity / 2) {
            // Drained to where a refused post is told to try again, listener or not.
            queueFull.set(false);
        }
        if (wantRoom && count <= capacity / 2 && roomListener != null) {
            wantRoom = false;
            roomListener.run();
        }
    }

    /** Index into the work ring of a position less than one lap past its end. */
    private int wrap(int i) {
        return i < capacity ? i : i - capacity;
    }

    /** The root complex's posted queue has room again: a stalled core retries its store (and goes on). */
    void retryMmio() {
        if (!stalled) {
            return;
        }
        stalled = false;
        stalledSignal.set(0);
        long d = now() - stalledSince;
        stallTime.add(d);
        shiftFrom(head, d);
        step();
    }
}
