package dev.rdmasim.kernel.wave;

/** A signal excluded from tracing. */
record DisabledSignal(String fullName, int width) implements Signal {

    @Override
    public void set(long value) {
        // Deliberately empty: the point of disabling a signal is that tracing it costs nothing.
    }

    @Override
    public boolean enabled() {
        return false;
    }
}
