package dev.rdmasim.kernel;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * One model cut into partitions, each a {@link Simulator} of its own, that meet only through {@link Crossing}s with a
 * least latency. Runs them in windows of simulated time no longer than the least latency of any crossing (the
 * conservative lookahead): a message sent inside a window cannot arrive inside it, so during a window every
 * partition runs alone, and the messages are handed over when all have reached its end, crossing by crossing in the
 * order the crossings were made and within a crossing in the order sent.
 *
 * <p>The partitions run on as many threads as asked (each thread its share, in index order) or one after another on
 * the caller's: the result is the same either way, to the event, because no partition sees another's state except
 * through the hand-over, and the hand-over and the window bounds depend only on simulated state. A window starts at
 * the earliest pending event of any partition, so idle stretches cost nothing.
 *
 * <p>When every partition is idle and nothing is in flight, deferred work ({@link Simulator#addDeferredWork}) is
 * settled as a single simulator settles it: at the last instant any partition's deferred work has, every partition's
 * clock moved there, partitions in index order. A {@link Simulator#stop()} in a partition stops that partition at
 * once and ends the run when the window ends, as {@link #stop()} does: the other partitions finish the window, so the
 * point where a run stops does not depend on the threads either.
 */
public final class Partitions {
    private final Simulator[] parts;
    private Crossing<?>[] crossings = new Crossing<?>[0];
    private long lookaheadPs = Long.MAX_VALUE;
    private volatile boolean stopAsked;
    private long windows;
    /** The last instant of the last window run (a partition stopped inside it finishes it when the run goes on). */
    private long lastWindowEnd = Long.MIN_VALUE;
    /** Per partition, work to do at the start of each of its windows (null: none). */
    private final LongConsumer[] beforeWindow;

    /** Partitions that start at the same instant; each must be used by this object only. */
    public Partitions(List<Simulator> partitions) {
        if (partitions.isEmpty()) {
            throw new IllegalArgumentException("no partitions");
        }
        this.parts = partitions.toArray(new Simulator[0]);
        this.beforeWindow = new LongConsumer[parts.length];
        for (int i = 0; i < parts.length; i++) {
            Objects.requireNonNull(parts[i], "partition " + i);
            for (int j = 0; j < i; j++) {
                if (parts[j] == parts[i]) {
                    throw new IllegalArgumentException("partition " + i + " is partition " + j + " again");
                }
            }
        }
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
        Crossing<T> c = new Crossing<>(this, name, from, to, latencyPs, priority, receiver);
        crossings = java.util.Arrays.copyOf(crossings, crossings.length + 1);
        crossings[crossings.length - 1] = c;
        lookaheadPs = Math.min(lookaheadPs, latencyPs);
        return c;
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
     * the window's first instant: for a block that does its work lazily and must hand over across a {@link Crossing}
     * whatever it did before that instant. One hook per partition; a second call adds to the first.
     */
    public void beforeEachWindow(Simulator partition, LongConsumer hook) {
        int i = indexOf(partition);
        Objects.requireNonNull(hook, "hook");
        LongConsumer before = beforeWindow[i];
        beforeWindow[i] = before == null ? hook : before.andThen(hook);
    }

    /** The latest instant a partition may have run to: the end of the window now running, or of the last one. */
    long horizonPs() {
        return lastWindowEnd;
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
     * {@code timePs} is {@link Long#MAX_VALUE}: then the clocks stay at the last event, or the last settled deferred
     * work). False if stopped first. {@code threads} at most the number of partitions is used.
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
        // A partition stopped inside the last window finishes it first: nothing can reach it before the window's end.
        for (Simulator s : parts) {
            if (!s.runThrough(Math.min(lastWindowEnd, timePs))) {
                return false;
            }
        }
        int n = Math.min(threads, parts.length);
        return n == 1 ? new Runner(timePs, null).runAll() : runThreaded(timePs, n);
    }

    private boolean runThreaded(long timePs, int threads) {
        Barrier barrier = new Barrier(threads);
        Runner runner = new Runner(timePs, barrier);
        List<Thread> workers = new ArrayList<>();
        for (int w = 1; w < threads; w++) {
            int worker = w;
            Thread t = new Thread(() -> runner.work(worker), "partitions-" + worker);
            t.setDaemon(true);
            workers.add(t);
            t.start();
        }
        try {
            return runner.runAll();
        } finally {
            barrier.finish();
            for (Thread t : workers) {
                boolean interrupted = false;
                while (true) {
                    try {
                        t.join();
                        break;
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /** One run: the window loop, on the caller's thread, with the other threads (if any) running their shares. */
    private final class Runner {
        private final long untilPs;
        private final Barrier barrier;
        private final int threads;
        /** The current window's first and last instants, written before a window is opened. */
        private long windowStart;
        private long windowEnd;
        /** Per partition: false if its simulator was stopped in the window; written by the thread that runs it. */
        private final boolean[] ranOut;
        private volatile Throwable failure;

        Runner(long untilPs, Barrier barrier) {
            this.untilPs = untilPs;
            this.barrier = barrier;
            this.threads = barrier == null ? 1 : barrier.threads;
            this.ranOut = new boolean[parts.length];
        }

        boolean runAll() {
            while (true) {
                for (Crossing<?> c : crossings) {
                    c.handOver();
                }
                long start = earliest();
                if (start == Long.MAX_VALUE && untilPs == Long.MAX_VALUE) {
                    if (settle()) {
                        continue;
                    }
                    // As one simulator would: every clock at the last event of any partition.
                    long last = Long.MIN_VALUE;
                    for (Simulator s : parts) {
                        last = Math.max(last, s.now());
                    }
                    for (Simulator s : parts) {
                        s.runUntil(last);
                    }
                    return true;
                }
                if (start > untilPs) {
                    for (Simulator s : parts) {
                        s.runUntil(untilPs);
                    }
                    return true;
                }
                long end = start > Long.MAX_VALUE - lookaheadPs ? Long.MAX_VALUE : start + lookaheadPs - 1;
                windowStart = start;
                windowEnd = Math.min(end, untilPs);
                lastWindowEnd = windowEnd;
                windows++;
                if (barrier != null) {
                    barrier.open();
                }
                runShare(0);
                if (barrier != null) {
                    barrier.awaitOthers();
                }
                Throwable t = failure;
                if (t != null) {
                    rethrow(t);
                }
                boolean stopped = stopAsked;
                for (boolean ok : ranOut) {
                    stopped |= !ok;
                }
                if (stopped) {
                    for (Crossing<?> c : crossings) {
                        c.handOver(); // nothing sent is lost: it waits in the inbox for a later run
                    }
                    return false;
                }
            }
        }

        /** A worker thread's loop: one share of every window until the run ends. */
        void work(int worker) {
            long seen = 0;
            while (true) {
                seen = barrier.awaitOpen(seen);
                if (seen < 0) {
                    return;
                }
                runShare(worker);
                barrier.arrive();
            }
        }

        private void runShare(int thread) {
            for (int i = thread; i < parts.length; i += threads) {
                try {
                    LongConsumer before = beforeWindow[i];
                    if (before != null) {
                        before.accept(windowStart);
                    }
                    ranOut[i] = parts[i].runThrough(windowEnd);
                } catch (Throwable t) {
                    ranOut[i] = false;
                    if (failure == null) {
                        failure = t;
                    }
                    return;
                }
            }
        }

        private long earliest() {
            long t = Long.MAX_VALUE;
            for (Simulator s : parts) {
                t = Math.min(t, s.nextEventTime());
            }
            return t;
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
     * Opens windows for the worker threads and waits for them to finish each: a generation count the caller raises,
     * and a count of the workers done with it. Waiters spin briefly, then yield, then park for a few microseconds, so
     * a host with fewer free cores than threads still makes progress.
     */
    private static final class Barrier {
        final int threads;
        private final AtomicLong generation = new AtomicLong();
        private final AtomicLong arrived = new AtomicLong();
        private long target;

        Barrier(int threads) {
            this.threads = threads;
        }

        void open() {
            target += threads - 1;
            generation.incrementAndGet();
        }

        void arrive() {
            arrived.incrementAndGet();
        }

        void awaitOthers() {
            int spins = 0;
            while (arrived.get() < target) {
                spins = pause(spins);
            }
        }

        /** Waits for a generation after {@code seen}; returns it, or -1 once the run is over. */
        long awaitOpen(long seen) {
            int spins = 0;
            while (true) {
                long g = generation.get();
                if (g < 0) {
                    return -1;
                }
                if (g != seen) {
                    return g;
                }
                spins = pause(spins);
            }
        }

        void finish() {
            generation.set(Long.MIN_VALUE);
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
