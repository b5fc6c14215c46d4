package dev.rdmasim.kernel;

import java.util.Arrays;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * A one-way line from one partition of a {@link Partitions} model to another: each message is sent with the instant
 * it arrives, at least {@link #latencyPs()} after it is sent and never before the message sent ahead of it (a line
 * delivers in order). The least latency is what lets the two partitions run apart: nothing sent in a window can
 * arrive in it.
 *
 * <p>Messages sent during a window wait in the sender's outbox for that window (there are two, used in alternate
 * windows, so the sender fills one while the receiver empties the other). When every partition has reached the
 * window's end, the receiver's thread moves them into its inbox, in the order sent, and arms one event on its own
 * simulator for the first arrival; that event hands every message due at its instant to the receiver, in order, and
 * re-arms itself for the next. The rings grow by doubling and are reused, so a steady stream allocates nothing per
 * message.
 *
 * @param <T> what the line carries; the receiver owns a message once it is handed over
 */
public final class Crossing<T> {
    private final Partitions owner;
    private final String name;
    private final Simulator from;
    private final int fromIndex;
    private final Simulator to;
    private final long latencyPs;
    private final Consumer<? super T> receiver;
    private final Event deliver;

    // The sender's side: outbox p is written only by the sending partition's thread, during windows of parity p.
    private final Object[][] out = {new Object[16], new Object[16]};
    private final long[][] outAt = {new long[16], new long[16]};
    private final int[] outCount = new int[2];
    private long lastSentAt = Long.MIN_VALUE;
    private long sent;

    // The receiver's side: filled from the outboxes after each window, drained by the delivery event.
    private Object[] in = new Object[16];
    private long[] inAt = new long[16];
    private int inHead;
    private int inCount;

    Crossing(Partitions owner, String name, Simulator from, int fromIndex, Simulator to, long latencyPs, int priority,
            Consumer<? super T> receiver) {
        this.owner = owner;
        this.name = Objects.requireNonNull(name, "name");
        this.from = Objects.requireNonNull(from, "from");
        this.fromIndex = fromIndex;
        this.to = Objects.requireNonNull(to, "to");
        if (latencyPs <= 0) {
            throw new IllegalArgumentException("crossing '" + name + "': the least latency must be positive, got "
                    + latencyPs + " ps (it is the window partitions run apart in)");
        }
        this.latencyPs = latencyPs;
        this.receiver = Objects.requireNonNull(receiver, "receiver");
        this.deliver = to.event(name + ".deliver", priority, this::onDeliver);
    }

    public String name() {
        return name;
    }

    /** The least time from a message's sending to its arrival. */
    public long latencyPs() {
        return latencyPs;
    }

    /** Messages sent so far. */
    public long sent() {
        return sent;
    }

    /**
     * Sends {@code message} now to arrive at {@code arrivalPs}: at least the latency after the sender's current time,
     * and not before the last message sent. Either breach is a model bug (the partitions could not run apart) and
     * throws.
     */
    public void send(T message, long arrivalPs) {
        send(message, from.now(), arrivalPs);
    }

    /**
     * Sends {@code message}, which leaves the sender at {@code sentPs}, to arrive at {@code arrivalPs}, at least the
     * latency after {@code sentPs}. A block whose timing is fixed ahead (a line whose frames start back to back) may
     * hand over at the start of a window ({@link Partitions#beforeEachWindow}) what it sends during that window, with
     * {@code sentPs} later than now. Whatever the instants, the message must arrive after every instant a partition
     * may already have run to (the end of the window now running, or of the last one): a later hand-over throws.
     */
    public void send(T message, long sentPs, long arrivalPs) {
        Objects.requireNonNull(message, "message");
        if (arrivalPs < sentPs + latencyPs) {
            throw new InvariantViolation("crossing '" + name + "': a message sent at " + sentPs + " ps arrives at "
                    + arrivalPs + " ps, sooner than its least latency of " + latencyPs + " ps");
        }
        long horizon = owner.windowEnd(fromIndex);
        if (arrivalPs <= horizon) {
            throw new InvariantViolation("crossing '" + name + "': a message arriving at " + arrivalPs
                    + " ps is handed over after the partitions may have run to " + horizon + " ps");
        }
        if (arrivalPs < lastSentAt) {
            throw new InvariantViolation("crossing '" + name + "': a message arriving at " + arrivalPs
                    + " ps would overtake the one sent before it, arriving at " + lastSentAt + " ps");
        }
        lastSentAt = arrivalPs;
        int p = owner.parity(fromIndex);
        int n = outCount[p];
        if (n == out[p].length) {
            out[p] = Arrays.copyOf(out[p], n * 2);
            outAt[p] = Arrays.copyOf(outAt[p], n * 2);
        }
        out[p][n] = message;
        outAt[p][n] = arrivalPs;
        outCount[p] = n + 1;
        sent++;
    }

    /** Messages sent and not yet handed to the receiver (in an outbox or the inbox). */
    public int inFlight() {
        return outCount[0] + outCount[1] + inCount;
    }

    /** The arrival of the first message in outbox {@code p}, or {@link Long#MAX_VALUE}: its earliest, as a line is in order. */
    long firstArrivalPs(int p) {
        return outCount[p] > 0 ? outAt[p][0] : Long.MAX_VALUE;
    }

    /**
     * On the receiving partition's thread, once the window of parity {@code p} has ended everywhere: outbox {@code p}
     * joins the inbox in the order sent, and the delivery event is armed for the first arrival.
     */
    void pull(int p) {
        int n = outCount[p];
        if (n == 0) {
            return;
        }
        if (inCount + n > in.length) {
            int size = in.length;
            while (size < inCount + n) {
                size *= 2;
            }
            Object[] bigger = new Object[size];
            long[] biggerAt = new long[size];
            for (int k = 0; k < inCount; k++) {
                int i = (inHead + k) & (in.length - 1);
                bigger[k] = in[i];
                biggerAt[k] = inAt[i];
            }
            in = bigger;
            inAt = biggerAt;
            inHead = 0;
        }
        int mask = in.length - 1;
        Object[] o = out[p];
        long[] oa = outAt[p];
        for (int k = 0; k < n; k++) {
            int i = (inHead + inCount + k) & mask;
            in[i] = o[k];
            inAt[i] = oa[k];
            o[k] = null;
        }
        inCount += n;
        outCount[p] = 0;
        if (!deliver.scheduled()) {
            deliver.schedule(inAt[inHead]);
        }
    }

    @SuppressWarnings("unchecked")
    private void onDeliver() {
        long now = to.now();
        int mask = in.length - 1;
        while (inCount > 0 && inAt[inHead] <= now) {
            if (inAt[inHead] < now) {
                throw new InvariantViolation("crossing '" + name + "': a message due at " + inAt[inHead]
                        + " ps is handed over at " + now + " ps");
            }
            T m = (T) in[inHead];
            in[inHead] = null;
            inHead = (inHead + 1) & mask;
            inCount--;
            receiver.accept(m);
        }
        if (inCount > 0) {
            deliver.schedule(inAt[inHead]);
        }
    }

    @Override
    public String toString() {
        return "crossing '" + name + "' (" + inFlight() + " in flight)";
    }
}
