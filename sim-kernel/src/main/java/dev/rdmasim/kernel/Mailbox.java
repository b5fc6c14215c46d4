package dev.rdmasim.kernel;

import java.util.Arrays;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * An untimed one-way line between two partitions of a {@link Partitions} model, for exchanges that change no timing:
 * buffers a partition released going back to their pool in another, say. What the sending partition posts during a
 * window reaches the receiver, in the order posted, on the receiver's thread once every partition has reached the
 * window's end, before the receiver's next window. Like a {@link Crossing}, it has two outboxes used in alternate
 * windows and allocates nothing per message once they have grown.
 *
 * @param <T> what the line carries
 */
public final class Mailbox<T> {
    private final Partitions owner;
    private final String name;
    private final int fromIndex;
    private final Consumer<? super T> receiver;
    private final Object[][] out = {new Object[16], new Object[16]};
    private final int[] outCount = new int[2];

    Mailbox(Partitions owner, String name, int fromIndex, Consumer<? super T> receiver) {
        this.owner = owner;
        this.name = Objects.requireNonNull(name, "name");
        this.fromIndex = fromIndex;
        this.receiver = Objects.requireNonNull(receiver, "receiver");
    }

    public String name() {
        return name;
    }

    /** Posts {@code message}, from the sending partition (or while no partition runs). */
    public void post(T message) {
        Objects.requireNonNull(message, "message");
        int p = owner.parity(fromIndex);
        int n = outCount[p];
        if (n == out[p].length) {
            out[p] = Arrays.copyOf(out[p], n * 2);
        }
        out[p][n] = message;
        outCount[p] = n + 1;
    }

    /** Messages posted and not yet handed to the receiver. */
    public int pending() {
        return outCount[0] + outCount[1];
    }

    /** On the receiving partition's thread after the window of parity {@code p}: hands over what it brought. */
    @SuppressWarnings("unchecked")
    void pull(int p) {
        int n = outCount[p];
        Object[] o = out[p];
        for (int k = 0; k < n; k++) {
            T m = (T) o[k];
            o[k] = null;
            receiver.accept(m);
        }
        outCount[p] = 0;
    }

    @Override
    public String toString() {
        return "mailbox '" + name + "' (" + pending() + " pending)";
    }
}
