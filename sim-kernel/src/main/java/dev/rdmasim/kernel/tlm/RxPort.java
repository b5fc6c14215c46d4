package dev.rdmasim.kernel.tlm;

import java.util.Objects;

/** The receiving end of a transaction-level link; see {@link TxPort}. */
public final class RxPort<T> {
    private final String name;
    private final Acceptor<T> acceptor;
    private TxPort<T> peer;

    public RxPort(String name, Acceptor<T> acceptor) {
        this.name = Objects.requireNonNull(name, "name");
        this.acceptor = Objects.requireNonNull(acceptor, "acceptor");
    }

    public String name() {
        return name;
    }

    public boolean connected() {
        return peer != null;
    }

    /** Connects a sender to a receiver, one to one. */
    public static <T> void connect(TxPort<T> tx, RxPort<T> rx) {
        if (rx.peer != null) {
            throw new IllegalStateException("port '" + rx.name + "' is already connected to '" + rx.peer.name() + "'");
        }
        tx.bind(rx);
        rx.peer = tx;
    }

    boolean offer(T item) {
        return acceptor.accept(item);
    }

    /** Tells a refused sender that it may send again; does nothing if the sender is not waiting. */
    public void sendRetry() {
        if (peer != null) {
            peer.retry();
        }
    }

    /** True if the sender is waiting for a retry. */
    public boolean senderBlocked() {
        return peer != null && peer.blocked();
    }
}
