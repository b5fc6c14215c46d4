package dev.rdmasim.traces.replay;

/** A replay option that cannot do what it says, such as a signal glob that selects no signal: the user's mistake. */
public final class OptionError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public OptionError(String message) {
        super(message);
    }
}
