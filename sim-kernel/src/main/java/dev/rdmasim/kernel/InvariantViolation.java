package dev.rdmasim.kernel;

/**
 * Thrown when the model reaches a state its hardware could never be in (a lost handshake, a
 * counter underflow, a credit returned twice). It signals a bug in the model, not in the user's input.
 */
public final class InvariantViolation extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public InvariantViolation(String message) {
        super(message);
    }

    /** Throws with {@code message} unless {@code condition} holds. */
    public static void check(boolean condition, String message) {
        if (!condition) {
            throw new InvariantViolation(message);
        }
    }
}
