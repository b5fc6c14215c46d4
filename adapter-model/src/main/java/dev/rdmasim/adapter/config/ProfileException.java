package dev.rdmasim.adapter.config;

/**
 * A bad profile: unknown key, unparsable or out-of-range value, violated cross-parameter rule,
 * unreadable profile file. The message is one line meant for the user as is.
 */
public final class ProfileException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public ProfileException(String message) {
        super(message);
    }

    public ProfileException(String message, Throwable cause) {
        super(message, cause);
    }
}
