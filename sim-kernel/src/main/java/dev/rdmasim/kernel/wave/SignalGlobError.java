package dev.rdmasim.kernel.wave;

/**
 * A signal glob that selects none of the signals a model declared: the user's mistake (a misspelt name), which would
 * otherwise give an empty waveform without a word. Its own type so that a command can say which option it came from.
 */
public final class SignalGlobError extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    SignalGlobError(String message) {
        super(message);
    }
}
