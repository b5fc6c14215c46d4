package dev.rdmasim.adapter.nic;

import dev.rdmasim.adapter.pcie.DmaRequest;
import dev.rdmasim.kernel.Simulator;

/**
 * The instant the adapter's work now running is for. Normally that is now; while the receive pipeline handles a
 * frame the moment it arrives, it is the end of the pipeline's cycles for that frame, so everything the frame
 * causes downstream (DMA requests, acknowledgements, completions, timers) carries that instant as its ready time
 * and leaves when a pipeline event at that instant would have sent it, without the event. One per adapter; the
 * receiver opens and closes the window, every other block only reads it.
 */
final class WorkClock {
    private final Simulator sim;
    /** The end of the receive pipeline's cycles for the frame being handled; 0 outside one. */
    private long aheadPs;

    WorkClock(Simulator sim) {
        this.sim = sim;
    }

    /** The instant the work now running is for: now, or later while a frame is handled ahead of its instant. */
    long at() {
        long n = sim.now();
        return aheadPs > n ? aheadPs : n;
    }

    /** Gives {@code r} the instant of the work now running as its ready time, when that is later than now. */
    DmaRequest ready(DmaRequest r) {
        if (aheadPs > sim.now()) {
            r.notBefore(aheadPs);
        }
        return r;
    }

    /** Work from here on is for {@code ps} (the receive pipeline took a frame whose cycles end then). */
    void ahead(long ps) {
        aheadPs = ps;
    }

    /** Back to work for now. */
    void present() {
        aheadPs = 0;
    }
}
