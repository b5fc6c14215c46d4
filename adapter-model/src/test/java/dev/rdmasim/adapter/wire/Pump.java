package dev.rdmasim.adapter.wire;

/** Test traffic source and sink helpers for a {@link LinkEndpoint}. */
final class Pump {
    private Pump() {
    }

    /** Fills frame number {@code index} (data and length) before it is sent. */
    interface Filler {
        void fill(Frame f, int index);
    }

    /**
     * Sends {@code frames} frames from {@code ep} as fast as its buffer pool allows, resuming from the
     * pool's retry callback; returns a live count of frames sent so far.
     */
    static int[] start(LinkEndpoint ep, int frames, Filler filler) {
        int[] sent = {0};
        Runnable pump = () -> {
            Frame f;
            while (sent[0] < frames && (f = ep.acquire()) != null) {
                filler.fill(f, sent[0]++);
                ep.send(f);
            }
        };
        ep.onBufferFree(pump);
        pump.run();
        return sent;
    }

    /** A receiver that takes and immediately releases every frame. */
    static boolean consume(Frame f) {
        f.release();
        return true;
    }
}
