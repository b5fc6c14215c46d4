package dev.rdmasim.traces.perf;

import dev.rdmasim.driver.HostCpu;
import dev.rdmasim.driver.HostDriver;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.Simulator;

/**
 * A benchmark thread busy-polling on one of a host's cores, as perftest's loop does. Each turn runs the body at
 * the time the core is free: the driver work the body queues (WQE builds, doorbells) and the CQ polls it makes
 * are charged to the core, so the next turn comes when that work is done. A turn that found nothing comes back
 * one poll later ({@code host.pollTime}, at least 1 ns so that a zero poll time cannot freeze the clock).
 */
final class HostThread {
    private static final long MIN_SPIN_PS = 1_000;

    private final Simulator sim;
    private final HostCpu cpu;
    private final long spinPs;
    private final Event turn;
    private Runnable body;
    private boolean running;

    /** A thread named {@code name} on core {@code core} of {@code host}. */
    HostThread(Simulator sim, HostDriver host, int core, String name, long pollPs) {
        this.sim = sim;
        this.cpu = host.core(core);
        this.spinPs = Math.max(pollPs, MIN_SPIN_PS);
        this.turn = sim.event(host.fullName() + "." + name, this::turn);
    }

    /** Starts running {@code body} turn after turn, from when the core is free. */
    void start(Runnable b) {
        if (running) {
            throw new IllegalStateException("thread already running");
        }
        body = b;
        running = true;
        turn.schedule(clock());
    }

    /** No more turns (callable from the body). */
    void stop() {
        running = false;
        turn.cancel();
    }

    /** When this thread's next instruction runs: now, or when the core finishes the work queued on it. */
    long clock() {
        return Math.max(sim.now(), cpu.freeAt());
    }

    private void turn() {
        body.run();
        if (running) {
            long t = cpu.freeAt();
            // A core stalled on a full MMIO queue has not finished its work: look again after a poll's time.
            turn.schedule(cpu.stalled() || t <= sim.now() ? sim.now() + spinPs : t);
        }
    }
}
