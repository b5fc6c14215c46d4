package dev.rdmasim.cli;

/** A mistake in what the user asked for: reported as one line, exit status 2, no stack trace. */
final class UserError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UserError(String message) {
        super(message);
    }
}
