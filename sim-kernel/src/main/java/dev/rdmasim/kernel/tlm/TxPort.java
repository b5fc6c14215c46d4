package dev.rdmasim.kernel.tlm;

import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.Simulator;
import java.util.Objects;

/**
 * The sending end of a transaction-level link, in the manner of gem5's timing ports: {@link
 * #trySend} either hands the item over or is refused, and a refused sender holds its item (a single
 * blocked slot) until the receiver calls {@link RxPort#sendRetry()}. Sending again before that is a
 * bug and fails loudly. The retry callback runs from its own zero-delay event, never inside the
 * receiver's code, so neither side can observe the other half-updated.
 */
public final class TxPort<T> {
    private final String name;
    private final Event retryEvent;
    private RxPort<T> peer;
    private boolean blocked;
    private long sent;
    private long refused;

    public TxPort(Simulator sim, String name, Runnable onRetry) {
        this.name = Objects.requireNonNull(name, "name");
        Objects.requireNonNull(onRetry, "onRetry");
        this.retryEvent = sim.event(name + ".retry", onRetry);
    }

    public String name() {
        return name;
    }

    public boolean connected() {
        return peer != null;
    }

    void bind(RxPort<T> rx) {
        if (peer != null) {
            throw new IllegalStateException("port '" + name + "' is already connected to '" + peer.name() + "'");
        }
        peer = rx;
    }

    /** Offers {@code item}; true if the receiver took it. */
    public boolean trySend(T item) {
        if (peer == null) {
            throw new IllegalStateException("port '" + name + "' is not connected");
        }
        if (blocked) {
            throw new IllegalStateException("port '" + name + "' sent while waiting for a retry from '" + peer.name() + "'");
        }
        if (peer.offer(item)) {
            sent++;
            return true;
        }
        blocked = true;
        refused++;
        return false;
    }

    /** True between a refused send and the receiver's retry. */
    public boolean blocked() {
        return blocked;
    }

    public long sent() {
        return sent;
    }

    public long refused() {
        return refused;
    }

    void retry() {
        if (blocked) {
            blocked = false;
            if (!retryEvent.scheduled()) {
                retryEvent.scheduleIn(0);
            }
        }
    }
}
