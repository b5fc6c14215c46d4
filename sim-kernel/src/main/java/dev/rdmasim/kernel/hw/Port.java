package dev.rdmasim.kernel.hw;

/** What both ends of a ready/valid channel share: an owner, a name, and their part in each cycle. */
abstract class Port {
    final ClockedModule owner;
    private final String name;

    Port(ClockedModule owner, String name) {
        this.owner = owner;
        this.name = name;
        owner.addPort(this);
    }

    public final String name() {
        return name;
    }

    public final String fullName() {
        return owner.fullName() + "." + name;
    }

    public final ClockedModule owner() {
        return owner;
    }

    public abstract boolean connected();

    /** Owner of the other end; throws if unconnected. */
    abstract ClockedModule peerOwner();

    /** Decides whether the channel transfers in {@code cycle}; returns the decision. */
    abstract boolean latch(long cycle);

    /** Publishes the next drive; returns true if the channel transferred or its drive changed. */
    abstract boolean commit(long cycle);

    abstract void reset();

    final IllegalStateException alreadyConnected(Port peer) {
        return new IllegalStateException("port '" + fullName() + "' is already connected to '" + peer.fullName() + "'");
    }

    final IllegalStateException notConnected() {
        return new IllegalStateException("port '" + fullName() + "' is not connected");
    }

    @Override
    public final String toString() {
        return fullName();
    }
}
