package dev.rdmasim.traces.format;

/**
 * A user error in a trace: {@link #getMessage()} is {@code file:line:col: what was expected}, ready to
 * print as it is. Unchecked, so accessors of {@link TraceLine} can throw it from anywhere.
 */
public final class TraceError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient Position position;
    private final String detail;

    public TraceError(Position at, String message) {
        super(at + ": " + message);
        this.position = at;
        this.detail = message;
    }

    public Position position() {
        return position;
    }

    /** The message without its position. */
    public String detail() {
        return detail;
    }
}
