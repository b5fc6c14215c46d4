package dev.rdmasim.adapter.pcie;

import dev.rdmasim.kernel.InvariantViolation;

/**
 * A block's side of one {@link DmaChannel}: the one place where a refusal by a full channel is handled. A block
 * either {@link #send}s a request, which the port holds in a small bounded backlog when the channel is full and
 * hands over, in order, as the channel frees (so the block sees one "blocked" state, never a lost request), or
 * {@link #offer}s it, which the channel takes now or refuses, for blocks that retry the whole step later. Either
 * way the block is told through its {@link #onReady} callback, in its own event, once the channel has taken
 * everything the port held: that is the retry of a transaction-level port with a blocked slot.
 *
 * <p>A backlog that would overflow is an {@link InvariantViolation}: its depth is the most a block can have
 * outstanding by construction, so overflowing it means the block lost track of its own requests.
 */
public final class DmaPort {
    private static final Runnable NOTHING = () -> { };

    private final DmaChannel channel;
    private final DmaRequest[] backlog;
    private int head;
    private int count;
    private Runnable onReady = NOTHING;

    /**
     * A port on {@code channel} holding at most {@code backlogDepth} requests the channel refused (0: a refusal of
     * {@link #send} is an invariant violation, for blocks whose requests always fit the channel).
     */
    public DmaPort(DmaChannel channel, int backlogDepth) {
        if (backlogDepth < 0) {
            throw new IllegalArgumentException("backlog depth must be >= 0, got " + backlogDepth);
        }
        this.channel = channel;
        this.backlog = new DmaRequest[backlogDepth];
    }

    /** The channel calls back only ports that wait for it: a port that never waits costs no retry event. */
    private void listen() {
        if (!listening) {
            listening = true;
            channel.setRetry(this::retry);
        }
    }

    private boolean listening;

    /** What to run once the channel has room again after a refusal and the backlog is empty. */
    public void onReady(Runnable action) {
        onReady = action == null ? NOTHING : action;
        listen();
    }

    /**
     * Hands {@code r} to the channel, behind anything already held; true if the channel took it now, false if the
     * port holds it until the channel frees.
     */
    public boolean send(DmaRequest r) {
        if (count == 0 && channel.submit(r)) {
            return true;
        }
        if (count == backlog.length) {
            throw new InvariantViolation(channel + ": " + r + " refused with " + count + " requests already held"
                    + " (the port's client keeps more in flight than it was built for)");
        }
        listen();
        int tail = head + count;
        backlog[tail < backlog.length ? tail : tail - backlog.length] = r;
        count++;
        return false;
    }

    /**
     * Offers {@code r} to the channel: true if taken, false if refused (then {@link #onReady} follows later, if the
     * client set one; a client without one drops what was refused).
     */
    public boolean offer(DmaRequest r) {
        return count == 0 && channel.submit(r);
    }

    /** True while the port holds requests the channel refused. */
    public boolean blocked() {
        return count > 0;
    }

    /** Requests the port holds. */
    public int held() {
        return count;
    }

    public DmaChannel channel() {
        return channel;
    }

    private void retry() {
        while (count > 0) {
            if (!channel.submit(backlog[head])) {
                return; // Still full: the channel calls again when the next slot frees.
            }
            backlog[head] = null;
            head = head + 1 == backlog.length ? 0 : head + 1;
            count--;
        }
        onReady.run();
    }

    @Override
    public String toString() {
        return "port " + channel + " (" + count + " held)";
    }
}
