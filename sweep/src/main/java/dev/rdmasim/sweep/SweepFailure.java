package dev.rdmasim.sweep;

/** A sweep could not complete: a point failed (named in the message) or the executor broke down. */
public final class SweepFailure extends RuntimeException {
    public SweepFailure(String message) {
        super(message);
    }

    public SweepFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
