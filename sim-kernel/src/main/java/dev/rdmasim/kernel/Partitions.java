package dev.rdmasim.kernel;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * One model cut into partitions, each a {@link Simulator} of its own, that meet only through {@link Crossing}s with a
 * least latency (and untimed {@link Mailbox}es). Runs them in windows of simulated time no longer than the least
 * latency of any crossing (the conservative lookahead): a message sent inside a window cannot arrive inside it, so
 * during a window every partition runs alone.
 *
 * <p>Each thread runs its share of the partitions (partition i on thread i mod threads) window after window, and
 * the threads meet once per window: each publishes, for its partitions, the time of the next pending event (and of
 * the first message it sent that window) and whether it stopped, then waits for the others. Then each partition
 * takes the messages sent to it during the window, crossing by crossing in the order the crossings were made and
 * each in the order sent, and every thread works out the next window from the published times alike: it starts at
 * the earliest of them, so idle stretches cost nothing. A partition touches another's state only through those
 * hand-overs, and the window bounds depend only on simulated state, so every partition runs the same events in the
 * same order on one thread or several.
 *
 * <p>When every partition is idle and nothing is in flight, deferred work ({@link Simulator#addDeferredWork}) is
 * settled as a single simulator settles it: at the last instant any partition's deferred work has, every partition's
 * clock moved there, partitions in index order. A {@link Simulator#stop()} in a partition stops that partition at
 * once and ends the run when the window ends, as {@link #stop()} does: the other partitions finish the window, so the
 * point where a run stops does not depend on the threads either. The next run first finishes that window in the
 * stopped partition.
 */
public final class Partitions {
    /** Stride of the per-partition arrays written by one thread and read by others: 128 bytes, a cache line pair. */
    private static final int PAD = 16;
    private static final int QUIET = 0;
    private static final int STOPPED = 1;

    private final Simulator[] parts;
    private Crossing<?>[][] incoming;
    private Crossing<?>[][] outgoing;
    private Mailbox<?>[][] mailboxesIn;
    private long lookaheadPs = Long.MAX_VALUE;
    private volatile boolean stopAsked;
    private long windows;
    /** Windows run since creation: the parity of the next one picks the outboxes. */
    private long round;
    /** The last instant of the last window run (a partition stopped inside it finishes it when the run goes on). */
    private long lastWindowEnd = Long.MIN_VALUE;
    /** Per partition, work to do at the start of each of its windows (null: none). */
    private final LongConsumer[] beforeWindow;
    // Per partition (index i * PAD), written by its own thread: the window it runs, and what it publishes at its end;
    // the published values by window parity too (index (2 i + p) * PAD), since a thread may start the next window
    // while another still reads what it published for this one.
    private final long[] windowEnd;
    private final int[] parity;
    private final long[] nextPs;
    private final boolean[] stopped;
    private volatile Throwable failure;

    /** Partitions that start at the same instant; each must be used by this object only. */
    public Partitions(List<Simulator> partitions) {
        if (partitions.isEmpty()) {
            throw new IllegalArgumentException("no partitions");
        }
        this.parts = partitions.toArray(new Simulator[0]);
        for (int i = 0; i < parts.length; i++) {
            Objects.requireNonNull(parts[i], "partition " + i);
            for (int j = 0; j < i; j++) {
                if (parts[j] == parts[i]) {
                    throw new IllegalArgumentException("partition " + i + " is partition " + j + " again");
                }
            }
        }
        int n = parts.length;
        this.incoming = new Crossing<?>[n][0];
        this.outgoing = new Crossing<?>[n][0];
        this.mailboxesIn = new Mailbox<?>[n][0];
        this.beforeWindow = new LongConsumer[n];
        this.windowEnd = new long[n * PAD];
        Arrays.fill(windowEnd, Long.MIN_VALUE);
        this.parity = new int[n * PAD];
        this.nextPs = new long[2 * n * PAD];
        this.stopped = new boolean[2 * n * PAD];
    }

    /**
     * A line from partition {@code from} to partition {@code to} (another one) whose messages arrive at least
     * {@code latencyPs} after they are sent and are handed to {@code receiver} in {@code to}, by an event of
     * {@code priority}. The least latency of all crossings is the window length.
     */
    public <T> Crossing<T> crossing(String name, Simulator from, Simulator to, long latencyPs, int priority,
            Consumer<? super T> receiver) {
        int f = indexOf(from);
        int t = indexOf(to);
        if (f == t) {
            throw new IllegalArgumentException("crossing '" + name + "' starts and ends in partition " + f
                    + "; within a partition, schedule an event");
        }
        Crossing<T> c = new Crossing<>(this, name, from, f, to, latencyPs, priority, receiver);
        incoming[t] = append(incoming[t], c);
        outgoing[f] = append(outgoing[f], c);
        lookaheadPs = Math.min(lookaheadPs, latencyPs);
        return c;
    }

    /** An untimed line from partition {@code from} to {@code to}: see {@link Mailbox}. */
    public <T> Mailbox<T> mailbox(String name, Simulator from, Simulator to, Consumer<? super T> receiver) {
        int f = indexOf(from);
        int t = indexOf(to);
        if (f == t) {
            throw new IllegalArgumentException("mailbox '" + name + "' starts and ends in partition " + f);
        }
        Mailbox<T> m = new Mailbox<>(this, name, f, receiver);
        mailboxesIn[t] = Arrays.copyOf(mailboxesIn[t], mailboxesIn[t].length + 1);
        mailboxesIn[t][mailboxesIn[t].length - 1] = m;
        return m;
    }

    private static Crossing<?>[] append(Crossing<?>[] a, Crossing<?> c) {
        Crossing<?>[] b = Arrays.copyOf(a, a.length + 1);
        b[a.length] = c;
        return b;
    }

    private int indexOf(Simulator sim) {
        for (int i = 0; i < parts.length; i++) {
            if (parts[i] == sim) {
                return i;
            }
        }
        throw new IllegalArgumentException("not one of the partitions: " + sim);
    }

    /**
     * Has {@code hook} run in {@code partition}, on its thread, at the start of each window it takes part in, with
     * the window's first instant: for a block that hands over across a {@link Crossing} ahead of time what it will
     * send during the window. A second call adds to the first.
     */
    public void beforeEachWindow(Simulator partition, LongConsumer hook) {
        int i = indexOf(partition);
        Objects.requireNonNull(hook, "hook");
        LongConsumer before = beforeWindow[i];
        beforeWindow[i] = before == null ? hook : before.andThen(hook);
    }

    /** The latest instant partition {@code i} may have run to: the end of the window it runs, or of the last one. */
    long windowEnd(int i) {
        return windowEnd[i * PAD];
    }

    /** Which of its two outboxes partition {@code i} fills now. */
    int parity(int i) {
        return parity[i * PAD];
    }

    public int size() {
        return parts.length;
    }

    public Simulator partition(int i) {
        return parts[i];
    }

    /** The window length: the least latency of any crossing ({@link Long#MAX_VALUE} with none). */
    public long lookaheadPs() {
        return lookaheadPs;
    }

    /** Windows run so far. */
    public long windows() {
        return windows;
    }

    /** Events run by all partitions. */
    public long eventsExecuted() {
        long n = 0;
        for (Simulator s : parts) {
            n += s.eventsExecuted();
        }
        return n;
    }

    /** Ends the run at the end of the current window (callable from any partition's event or another thread). */
    public void stop() {
        stopAsked = true;
    }

    /** Runs until every partition is idle with nothing in flight; false if stopped first. */
    public boolean run(int threads) {
        return runUntil(Long.MAX_VALUE, threads);
    }

    /**
     * Runs every event at or before {@code timePs} in every partition, then moves every clock there (unless
     * {@code timePs} is {@link Long#MAX_VALUE}: then every clock ends at the last event of any partition, or the last
     * settled deferred work). False if stopped first. {@code threads} at most the number of partitions is used.
     */
    public boolean runUntil(long timePs, int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, got " + threads);
        }
        long now = Long.MIN_VALUE;
        for (Simulator s : parts) {
            now = Math.max(now, s.now());
        }
        if (timePs < now) {
            throw new IllegalArgumentException("cannot run until " + timePs + " ps: now is " + now + " ps");
        }
        stopAsked = false;
        failure = null;
        // A partition stopped inside the last window finishes it first: nothing can reach it before the window's end.
        for (Simulator s : parts) {
            if (!s.runThrough(Math.min(lastWindowEnd, timePs))) {
                return false;
            }
        }
        int n = Math.min(threads, parts.length);
        while (true) {
            pullAll(); // what was sent outside a run, or in the catch-up above
            long start = Long.MAX_VALUE;
            for (Simulator s : parts) {
                start = Math.min(start, s.nextEventTime());
            }
            if (start == Long.MAX_VALUE && timePs == Long.MAX_VALUE) {
                if (settle()) {
                    continue;
                }
                long last = Long.MIN_VALUE; // as one simulator would: every clock at the last event of any partition
                for (Simulator s : parts) {
                    last = Math.max(last, s.now());
                }
                for (Simulator s : parts) {
                    s.runUntil(last);
                }
                return true;
            }
            if (start > timePs) {
                for (Simulator s : parts) {
                    s.runUntil(timePs);
                }
                return true;
            }
            int outcome = n == 1 ? windowLoop(0, 1, null, start, timePs, round) : threaded(n, start, timePs);
            Throwable t = failure;
            if (t != null) {
                rethrow(t);
            }
            if (outcome == STOPPED) {
                return false;
            }
        }
    }

    private void pullAll() {
        for (int i = 0; i < parts.length; i++) {
            for (int p = 0; p < 2; p++) {
                for (Crossing<?> c : incoming[i]) {
                    c.pull(p);
                }
                for (Mailbox<?> m : mailboxesIn[i]) {
                    m.pull(p);
                }
            }
        }
    }

    private int threaded(int threads, long start, long untilPs) {
        Barrier barrier = new Barrier(threads);
        long firstRound = round;
        int[] outcomes = new int[threads];
        List<Thread> workers = new ArrayList<>();
        for (int w = 1; w < threads; w++) {
            int worker = w;
            Thread t = new Thread(() -> outcomes[worker] = windowLoop(worker, threads, barrier, start, untilPs,
                    firstRound), "partitions-" + worker);
            t.setDaemon(true);
            workers.add(t);
            t.start();
        }
        outcomes[0] = windowLoop(0, threads, barrier, start, untilPs, firstRound);
        boolean interrupted = false;
        for (Thread t : workers) {
            while (true) {
                try {
                    t.join();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return outcomes[0];
    }

    /**
     * Thread {@code t}'s windows, from the one starting at {@code start} until a window after which every partition is
     * idle (or the next event is past {@code untilPs}), or one in which a partition stopped or failed. Every thread
     * takes the same decisions from the same published values, so all leave after the same window.
     */
    private int windowLoop(int t, int threads, Barrier barrier, long start, long untilPs, long firstRound) {
        long k = firstRound;
        while (true) {
            long end = start > Long.MAX_VALUE - lookaheadPs ? Long.MAX_VALUE : start + lookaheadPs - 1;
            end = Math.min(end, untilPs);
            int p = (int) (k & 1);
            for (int i = t; i < parts.length; i += threads) {
                runWindow(i, p, start, end);
            }
            if (t == 0) {
                windows++;
                round = k + 1;
                lastWindowEnd = end;
                stopped[p * PAD] |= stopAsked; // read once, by one thread, and published with the rest
            }
            if (barrier != null) {
                barrier.await(t);
            }
            for (int i = t; i < parts.length; i += threads) {
                try {
                    for (Crossing<?> c : incoming[i]) {
                        c.pull(p);
                    }
                    for (Mailbox<?> m : mailboxesIn[i]) {
                        m.pull(p);
                    }
                } catch (Throwable e) {
                    fail(e);
                }
            }
            long next = Long.MAX_VALUE;
            boolean stop = false;
            for (int i = 0; i < parts.length; i++) {
                next = Math.min(next, nextPs[(2 * i + p) * PAD]);
                stop |= stopped[(2 * i + p) * PAD];
            }
            k++;
            if (stop) {
                return STOPPED; // the caller joins every thread before it looks at any partition
            }
            if (next == Long.MAX_VALUE || next > untilPs) {
                return QUIET;
            }
            start = next;
        }
    }

    /** Partition {@code i}'s part of a window, and what it publishes at the end: it never throws. */
    private void runWindow(int i, int p, long start, long end) {
        int x = i * PAD;
        windowEnd[x] = end;
        parity[x] = p;
        boolean ok;
        long next = Long.MAX_VALUE;
        try {
            LongConsumer before = beforeWindow[i];
            if (before != null) {
                before.accept(start);
            }
            ok = parts[i].runThrough(end);
            next = parts[i].nextEventTime();
            for (Crossing<?> c : outgoing[i]) {
                next = Math.min(next, c.firstArrivalPs(p));
            }
        } catch (Throwable e) {
            fail(e);
            ok = false;
        }
        int y = (2 * i + p) * PAD;
        nextPs[y] = next;
        stopped[y] = !ok;
    }

    private void fail(Throwable e) {
        synchronized (this) {
            if (failure == null) {
                failure = e;
            }
        }
    }

    /** Settles every partition's deferred work at the latest instant any of it has; false if there is none. */
    private boolean settle() {
        long at = DeferredWork.NONE;
        for (Simulator s : parts) {
            at = Math.max(at, s.deferredUntilPs());
        }
        if (at == DeferredWork.NONE) {
            return false;
        }
        for (Simulator s : parts) {
            s.settleDeferredAt(at);
        }
        return true;
    }

    private static void rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException(t);
    }

    /**
     * The threads' meeting point: each raises its own counter (on a cache line of its own) to the number of windows
     * it has finished and waits until every other has too. Waiters spin briefly, then yield, then park for a few
     * microseconds, so a host with fewer free cores than threads still makes progress.
     */
    private static final class Barrier {
        private final int threads;
        private final AtomicLongArray done;

        Barrier(int threads) {
            this.threads = threads;
            this.done = new AtomicLongArray(threads * PAD);
        }

        /** Thread {@code t} has finished one more window: waits until every other has finished as many. */
        void await(int t) {
            long mine = done.get(t * PAD) + 1;
            done.set(t * PAD, mine);
            for (int j = 0; j < threads; j++) {
                int spins = 0;
                while (done.get(j * PAD) < mine) {
                    spins = pause(spins);
                }
            }
        }

        private static int pause(int spins) {
            if (spins < 20_000) {
                Thread.onSpinWait();
            } else if (spins < 20_100) {
                Thread.yield();
            } else {
                LockSupport.parkNanos(20_000);
            }
            return spins + 1;
        }
    }
}
