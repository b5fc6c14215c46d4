package dev.rdmasim.kernel.wave;

import java.util.Objects;

/**
 * One traced value of the simulated hardware, declared with {@link VcdWriter#signal(String, int)}. A signal
 * that the writer's filter excluded is disabled: {@link #set} on it does nothing.
 */
public sealed interface Signal permits TracedSignal, DisabledSignal {

    /**
     * A signal that is never traced, for when there is no {@link VcdWriter} at all.
     *
     * @throws IllegalArgumentException if the width is not 1 to 64
     */
    static Signal disabled(String fullName, int width) {
        Objects.requireNonNull(fullName, "fullName");
        if (width < 1 || width > 64) {
            throw new IllegalArgumentException("width of signal " + fullName + " must be 1 to 64, got " + width);
        }
        return new DisabledSignal(fullName, width);
    }

    /**
     * Records the value from the current simulated time on; nothing is written unless it differs from the
     * previous value.
     *
     * @throws IllegalArgumentException if an enabled signal is given a value that does not fit its width,
     *     read as unsigned
     * @throws IllegalStateException if simulated time went backwards, or the writer is closed
     */
    void set(long value);

    /** Whether changes of this signal are written; false if the filter excluded it. */
    boolean enabled();

    /** Dotted hierarchical name, e.g. {@code nicA.dma.tagsInUse}. */
    String fullName();

    /** Width in bits, 1 to 64. */
    int width();
}
