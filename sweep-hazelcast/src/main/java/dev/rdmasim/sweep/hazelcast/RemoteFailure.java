package dev.rdmasim.sweep.hazelcast;

/**
 * An exception thrown on a member, carried back as text and stack frames: the original class may not be
 * serialisable, or known to the submitter. Prints like the original ({@code class: message}) with its causes.
 */
public final class RemoteFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private static final int MAX_CAUSES = 16;

    private final String className;
    private final String originalMessage;

    RemoteFailure(Throwable t) {
        this(t, 0);
    }

    private RemoteFailure(Throwable t, int depth) {
        super(t.toString(), t.getCause() == null || depth >= MAX_CAUSES ? null : new RemoteFailure(t.getCause(), depth + 1));
        this.className = t.getClass().getName();
        this.originalMessage = t.getMessage();
        setStackTrace(t.getStackTrace());
    }

    /** The original exception's class name. */
    public String className() {
        return className;
    }

    /** The original exception's message (may be null). */
    public String originalMessage() {
        return originalMessage;
    }

    @Override
    public String toString() {
        return getMessage();
    }
}
