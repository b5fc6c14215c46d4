package dev.rdmasim.adapter.nic;

import dev.rdmasim.kernel.hw.ClockDomain;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.wave.Signal;

/**
 * A serial resource clocked by the NIC core: one job at a time, each starting on a clock edge
 * and lasting a whole number of cycles. Engines use it to charge their per-item cost, and the
 * busy fraction it reports is what the sweep report uses to name the bottleneck block.
 */
final class Busy {
    private final ClockDomain clock;
    private final Module owner;
    private final Counter busyPs;
    private final Counter jobs;
    private final Signal signal;
    private long busyUntil;
    /** True once a job was booked, so busyUntil is a clock edge. */
    private boolean booked;

    Busy(Module owner, ClockDomain clock, Signal busySignal) {
        this.owner = owner;
        this.clock = clock;
        busyPs = owner.stats().counter("busyTime", "ps", "time the engine spent working");
        jobs = owner.stats().counter("jobs", "jobs", "items the engine processed");
        owner.stats().formula("busyFraction", "ratio", "busyTime / simulated time",
                () -> owner.now() == 0 ? 0 : Math.min(1.0, busyPs.value() / (double) owner.now()));
        signal = busySignal;
    }

    /** True if a job started now would have to wait. */
    boolean busy() {
        return busyUntil > owner.now();
    }

    long busyUntil() {
        return busyUntil;
    }

    /**
     * Books a job of {@code cycles} starting at the first edge at or after both now and the end of
     * the previous job; returns the time the job ends.
     */
    long book(long cycles) {
        return book(cycles, 0);
    }

    /**
     * Books a job of {@code cycles} that may not start before {@code notBeforePs} either (its input is not there
     * yet); returns the time the job ends.
     */
    long book(long cycles, long notBeforePs) {
        long now = Math.max(owner.now(), notBeforePs);
        // The end of a booked job is a clock edge already: only an idle engine needs the division.
        long start = busyUntil >= now && booked ? busyUntil : clock.edgeAtOrAfter(now);
        booked = true;
        long end = start + clock.cyclesToPs(cycles);
        busyUntil = end;
        busyPs.add(end - start);
        jobs.inc();
        signal.set(1);
        return end;
    }

    /**
     * For an engine that takes work when it arrives: true if a job for instant {@code at} would have to wait
     * behind a booked one. Then {@code resume} is scheduled for when the engine frees, so the waiting work is taken
     * one item at a time instead of all booked ahead.
     */
    boolean deferWhileBusy(long at, dev.rdmasim.kernel.Event resume) {
        if (busyUntil <= at) {
            return false;
        }
        if (!resume.scheduled()) {
            resume.schedule(busyUntil);
        }
        return true;
    }

    /** Called by the engine when it has nothing left to do, for the waveform. */
    void idle() {
        signal.set(0);
    }

    /**
     * Called by an engine that books its jobs ahead of time when it has nothing left: the flag drops when the last
     * booked job ends. That instant needs an event only when the flag is traced.
     */
    void idleAfterBookings() {
        if (busyUntil <= owner.now()) {
            signal.set(0);
        } else if (signal.enabled()) {
            if (idleEvent == null) {
                idleEvent = owner.sim().event(owner.fullName() + ".idle", () -> {
                    if (busyUntil <= owner.now()) {
                        signal.set(0);
                    }
                });
            }
            idleEvent.reschedule(busyUntil);
        }
    }

    private dev.rdmasim.kernel.Event idleEvent;
}
