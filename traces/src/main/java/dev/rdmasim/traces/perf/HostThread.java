package dev.rdmasim.traces.perf;

import dev.rdmasim.driver.HostCpu;
import dev.rdmasim.driver.HostDriver;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.hw.ClockDomain;

/**
 * A benchmark thread busy-polling on one of a host's cores, as perftest's loop does. Each turn runs the body at
 * the time the core is free: the driver work the body queues (WQE builds, doorbells) and the CQ polls it makes
 * are charged to the core, so the next turn comes when that work is done. A turn that found nothing comes back
 * one poll later ({@code host.pollTime}, at least 1 ns so that a zero poll time cannot freeze the clock): at once
 * after its empty CQ poll's CPU time, or one spin later if it charged nothing (write_lat's flag byte).
 *
 * <p>A turn runs after every other event of its instant (each thread has a priority of its own, below every model
 * event's), so what it sees does not depend on when it was scheduled: a poll at the very instant a write lands sees
 * it. That lets a thread sleep through empty polls exactly. A body that found nothing, and whose next look can only
 * differ once the adapter writes host memory the caller watches, says so ({@link #idle}) with what one such empty
 * turn costs ({@link IdleTurns}). Unless every poll is an event ({@code host.eventPerPoll}), the thread then
 * schedules no turn until {@link #wake} says a watched write landed; it resumes at the first of its poll instants at
 * or after that write, where the polls it skipped would have brought it, and first charges the skipped turns as
 * they would have been charged one by one. A thread sleeps only when its core had no other work: its polls are
 * then strictly periodic. A wake when nothing it polls changed is harmless: it polls again, as it would have.
 */
final class HostThread {
    private static final long MIN_SPIN_PS = 1_000;

    /** What one empty turn of a body cost, and the same for turns a sleeping thread skipped. */
    interface IdleTurns {
        /** CPU time one empty turn charges its core (0: none, the turn then comes one spin later). */
        long costPs();

        /** {@code n} empty turns made back to back, the last started by now, charged and counted as they would have been. */
        void skipped(long n);
    }

    /** Empty turns that each cost {@code costPs} and are charged, {@code n} at a time, by {@code skipped}. */
    static IdleTurns idleTurns(java.util.function.LongSupplier costPs, java.util.function.LongConsumer skipped) {
        return new IdleTurns() {
            @Override
            public long costPs() {
                return costPs.getAsLong();
            }

            @Override
            public void skipped(long n) {
                skipped.accept(n);
            }
        };
    }

    /** An empty turn that charges and counts nothing (spinning on a byte of host memory). */
    static final IdleTurns FREE = new IdleTurns() {
        @Override
        public long costPs() {
            return 0;
        }

        @Override
        public void skipped(long n) {
        }
    };

    private final Simulator sim;
    private final HostCpu cpu;
    private final long spinPs;
    private final boolean sleeps;
    private final Event turn;
    private Runnable body;
    private boolean running;
    /** Set by the body during a turn: it found nothing, and only a watched device write can change that. */
    private IdleTurns idle;
    /** Asleep since {@link #sleptAtPs}, the instant of the empty turn after which it scheduled none. */
    private boolean asleep;
    private long sleptAtPs;
    /** Time between the turns it sleeps through: the empty turn's CPU time, or a spin if that is zero. */
    private long sleptPeriodPs;
    private IdleTurns sleptTurns;
    /** The core's last work finish when the thread fell asleep: work charged to the core meanwhile would move its polls. */
    private long sleptWorkFinishPs;
    /** Empty turns slept through before the next turn, to be charged when it runs. */
    private long skipped;

    /**
     * A thread named {@code name} on core {@code core} of {@code host}; {@code order} ranks it among the run's threads
     * when turns of several fall on one instant (distinct per thread, 0 first).
     */
    HostThread(Simulator sim, HostDriver host, int core, String name, long pollPs, int order, boolean eventPerPoll) {
        if (order < 0 || Event.MAX_PRIORITY - order <= ClockDomain.EDGE_PRIORITY) {
            throw new IllegalArgumentException("thread order " + order + ": turns must come after clock edges");
        }
        this.sim = sim;
        this.cpu = host.core(core);
        this.spinPs = Math.max(pollPs, MIN_SPIN_PS);
        this.sleeps = !eventPerPoll;
        this.turn = sim.event(host.fullName() + "." + name, Event.MAX_PRIORITY - order, this::turn);
        // The empty polls it sleeps through are counted by the driver and the core: whoever reads either first
        // brings them up to now.
        host.stats().addRefresh(this::catchUp);
        cpu.stats().addRefresh(this::catchUp);
    }

    /**
     * While asleep: charges the empty turns it would have made up to now (every one due before this instant, and the
     * one due at this instant if it would have run before the event that ran last) and sleeps on from the last of
     * them, so that statistics read now show them. Does nothing the second time at one instant.
     */
    private void catchUp() {
        if (!asleep) {
            return;
        }
        long now = sim.now();
        long period = sleptPeriodPs;
        long n = (now - sleptAtPs) / period;
        if (n > 0 && sleptAtPs + n * period == now && !sim.wouldHaveRunAt(turn.priority())) {
            n--;
        }
        if (n > 0) {
            sleptTurns.skipped(n);
            sleptAtPs += n * period;
            sleptWorkFinishPs = cpu.lastWorkFinish();
        }
    }

    /** Starts running {@code b} turn after turn, from when the core is free. */
    void start(Runnable b) {
        if (running) {
            throw new IllegalStateException("thread already running");
        }
        body = b;
        running = true;
        asleep = false;
        skipped = 0;
        turn.schedule(clock());
    }

    /**
     * No more turns (callable from the body, or from outside the simulation between events). A thread stopped while
     * asleep first charges the empty turns it would have made up to now: every one before this instant, and the one
     * due at this instant if it would have run before the event that ran last.
     */
    void stop() {
        catchUp();
        running = false;
        asleep = false;
        skipped = 0;
        turn.cancel();
    }

    /** When this thread's next instruction runs: now, or when the core finishes the work queued on it. */
    long clock() {
        return Math.max(sim.now(), cpu.freeAt());
    }

    /**
     * Called by the body during a turn: it found nothing, did nothing but what {@code turns} describes, and what it
     * polls changes only when a device write lands in host memory that the caller watches and reports with
     * {@link #wake}.
     */
    void idle(IdleTurns turns) {
        idle = turns;
    }

    /** A device write this thread may wait for has just landed: if asleep, it resumes at its next poll instant. */
    void wake() {
        if (!asleep) {
            return;
        }
        asleep = false;
        if (cpu.lastWorkFinish() != sleptWorkFinishPs) {
            throw new InvariantViolation(turn.name() + ": its core took work while the thread slept; its polls would"
                    + " have moved (host.eventPerPoll=true runs every poll)");
        }
        // Its turns came every period after the one it fell asleep at; one at this very instant runs after the write
        // (turns come last in their instant) and sees it, so the first at or after now.
        long now = sim.now();
        long period = sleptPeriodPs;
        long turns = Math.max(1, (now - sleptAtPs + period - 1) / period);
        skipped = turns - 1;
        turn.schedule(sleptAtPs + turns * period);
    }

    private void turn() {
        long now = sim.now();
        if (skipped > 0) {
            // The empty turns slept through, charged before this one looks.
            long n = skipped;
            skipped = 0;
            sleptTurns.skipped(n);
        }
        long workBefore = cpu.lastWorkFinish();
        idle = null;
        body.run();
        if (!running) {
            return;
        }
        long t = cpu.freeAt();
        boolean stalled = cpu.stalled();
        IdleTurns empty = idle;
        if (empty != null && sleeps && !stalled && workBefore <= now) {
            // The core was free and the turn charged exactly its empty look: the turns to come until a watched write
            // lands are the same, one period apart.
            long cost = empty.costPs();
            long finish = cpu.lastWorkFinish();
            if (cost == 0 ? finish == workBefore : finish == now + cost) {
                asleep = true;
                sleptAtPs = now;
                sleptPeriodPs = cost == 0 ? spinPs : cost;
                sleptTurns = empty;
                sleptWorkFinishPs = finish;
                return;
            }
        }
        // A core stalled on a full MMIO queue has not finished its work: look again after a poll's time.
        turn.schedule(stalled || t <= now ? now + spinPs : t);
    }
}
