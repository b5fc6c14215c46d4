package dev.rdmasim.sweep;

/** A mistake in a sweep's description (a key, a value, a point, its file or its output directory), found before it runs. */
public final class SweepSpecException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public SweepSpecException(String message) {
        super(message);
    }

    public SweepSpecException(String message, Throwable cause) {
        super(message, cause);
    }
}
