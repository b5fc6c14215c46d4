package dev.rdmasim.kernel.wave;

/** A signal whose changes are written by its {@link VcdWriter}. */
final class TracedSignal implements Signal {

    private final VcdWriter writer;
    private final String fullName;
    private final int width;
    final char[] id;
    long value;

    TracedSignal(VcdWriter writer, String fullName, int width, char[] id) {
        this.writer = writer;
        this.fullName = fullName;
        this.width = width;
        this.id = id;
    }

    @Override
    public void set(long newValue) {
        // Unsigned shift: a value fits when no bit at or above the width is set. Shifting by 64 is a no-op in Java,
        // hence the width test.
        if (width < 64 && (newValue >>> width) != 0) {
            throw new IllegalArgumentException(
                    "value " + Long.toUnsignedString(newValue) + " does not fit the " + width + "-bit signal " + fullName);
        }
        if (newValue != value) {
            writer.writeChange(this, newValue);
        }
    }

    @Override
    public boolean enabled() {
        return true;
    }

    @Override
    public String fullName() {
        return fullName;
    }

    @Override
    public int width() {
        return width;
    }

    @Override
    public String toString() {
        return fullName + "[" + width + "] = " + value;
    }
}
