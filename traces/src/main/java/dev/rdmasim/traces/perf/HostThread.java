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
 * one poll later ({@code host.pollTime}, at least 1 ns so that a zero poll time cannot freeze the clock).
 *
 * <p>A turn runs after every other event of its instant (each thread has a priority of its own, below every model
 * event's), so what it sees does not depend on when it was scheduled: a poll at the very instant a write lands sees
 * it. That lets a thread sleep through empty polls exactly: a body that found nothing and only watches host memory
 * the adapter writes says so ({@link #idle}); unless every poll is an event ({@code host.eventPerPoll}), the thread
 * then schedules no turn until {@link #wake} says such a write landed, and resumes at the first of its poll instants
 * at or after that write, where the polls it skipped would have brought it.
 */
final class HostThread {
    private static final long MIN_SPIN_PS = 1_000;

    private final Simulator sim;
    private final HostCpu cpu;
    private final long spinPs;
    private final boolean sleeps;
    private final Event turn;
    private Runnable body;
    private boolean running;
    /** Set by the body during a turn: it found nothing, and only a device write can change that. */
    private boolean idle;
    /** Asleep since {@link #sleptAtPs}, the instant of the empty turn after which it scheduled none. */
    private boolean asleep;
    private long sleptAtPs;
    /** The core's last work finish when the thread fell asleep: work charged to the core meanwhile would move its polls. */
    private long sleptWorkFinishPs;

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
    }

    /** Starts running {@code b} turn after turn, from when the core is free. */
    void start(Runnable b) {
        if (running) {
            throw new IllegalStateException("thread already running");
        }
        body = b;
        running = true;
        asleep = false;
        turn.schedule(clock());
    }

    /** No more turns (callable from the body). */
    void stop() {
        running = false;
        asleep = false;
        turn.cancel();
    }

    /** When this thread's next instruction runs: now, or when the core finishes the work queued on it. */
    long clock() {
        return Math.max(sim.now(), cpu.freeAt());
    }

    /**
     * Called by the body during a turn: it found nothing, charged nothing, and what it polls changes only when a
     * device write lands in host memory that the caller watches and reports with {@link #wake}.
     */
    void idle() {
        idle = true;
    }

    /** A device write this thread waits for has just landed: if asleep, it resumes at its next poll instant. */
    void wake() {
        if (!asleep) {
            return;
        }
        asleep = false;
        if (cpu.lastWorkFinish() != sleptWorkFinishPs) {
            throw new InvariantViolation(turn.name() + ": its core took work while the thread slept; its polls would"
                    + " have moved (host.eventPerPoll=true runs every poll)");
        }
        // The polls it skipped came every spinPs after the one it fell asleep at; one at this very instant runs after
        // the write (turns come last in their instant) and sees it.
        long now = sim.now();
        long polls = Math.max(1, (now - sleptAtPs) / spinPs + 1);
        turn.schedule(sleptAtPs + polls * spinPs);
    }

    private void turn() {
        idle = false;
        body.run();
        if (running) {
            long now = sim.now();
            long t = cpu.freeAt();
            boolean stalled = cpu.stalled();
            if (idle && sleeps && !stalled && t <= now) {
                asleep = true;
                sleptAtPs = now;
                sleptWorkFinishPs = cpu.lastWorkFinish();
                return;
            }
            // A core stalled on a full MMIO queue has not finished its work: look again after a poll's time.
            turn.schedule(stalled || t <= now ? now + spinPs : t);
        }
    }
}
