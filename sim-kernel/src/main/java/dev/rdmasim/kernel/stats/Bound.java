package dev.rdmasim.kernel.stats;

/**
 * The time a bounded resource (a window, a pool of tags or slots, a queue, a credit buffer) spends at its limit,
 * when work waits on it although no engine is busy. Registered in a {@link StatsGroup} as two statistics: a counter
 * {@code fullTime} (picoseconds at the limit) and a formula {@code fullFraction} (that time over the simulated
 * time), prefixed when a block has several bounds ({@code readTagsFullTime}, ...).
 *
 * <p>The owner reports only the transitions into and out of the limit, so the cost is a comparison and a long
 * addition per transition and nothing per event otherwise. A resource shared by many users (one window per QP,
 * say) may instead count its users at the limit with {@link #enter} and {@link #leave}: it is at its limit while
 * at least one is. Time spent at the limit up to now is folded into the counter whenever the group is refreshed
 * (before every dump), so {@code fullTime} is exact in every dump.
 */
public final class Bound {
    private final TimeSource time;
    private final Counter fullTime;
    private final String what;
    private final String parameter;
    private final String fractionName;
    /** Users at the limit; the resource is at its limit while this is positive. */
    private int atLimit;
    /** Since when the time at the limit is not yet in {@link #fullTime}; meaningful while at the limit. */
    private long since;

    Bound(TimeSource time, Counter fullTime, String fractionName, String what, String parameter) {
        this.time = time;
        this.fractionName = fractionName;
        this.fullTime = fullTime;
        this.what = what;
        this.parameter = parameter;
    }

    /** What is full, in words ("prefetch window", "read tags"), for reports. */
    public String what() {
        return what;
    }

    /** The parameter (or parameters) that set the limit, e.g. {@code nic.txSlots}. */
    public String parameter() {
        return parameter;
    }

    /** The name of the {@code fullFraction} statistic in the group (without the group's path). */
    public String fractionName() {
        return fractionName;
    }

    /** Whether the resource is at its limit now. */
    public boolean full() {
        return atLimit > 0;
    }

    /** The resource is at its limit from now on ({@code true}) or no longer ({@code false}); repeats are ignored. */
    public void set(boolean full) {
        if (full != (atLimit > 0)) {
            if (full) {
                enter();
            } else {
                leave();
            }
        }
    }

    /**
     * As {@link #set}, for a block that works out its changes lazily: the change happened at {@code timePs}, which
     * may have passed but is no earlier than the previous change.
     *
     * @throws IllegalStateException if {@code timePs} is before the stretch it would end began
     */
    public void setAt(long timePs, boolean full) {
        if (full == (atLimit > 0)) {
            return;
        }
        if (full) {
            atLimit = 1;
            since = timePs;
        } else {
            if (timePs < since) {
                throw new IllegalStateException(fullTime.fullName() + ": limit left at " + timePs
                        + " ps, before it was reached at " + since + " ps");
            }
            atLimit = 0;
            fullTime.add(timePs - since);
        }
    }

    /**
     * For a resource shared by many users that each keep a flag of their own: the user was at the limit
     * ({@code was}) and now is or is not ({@code now}); a change enters or leaves. Returns {@code now}, the flag to
     * keep.
     */
    public boolean follow(boolean was, boolean now) {
        if (now != was) {
            if (now) {
                enter();
            } else {
                leave();
            }
        }
        return now;
    }

    /** One more user is at the limit (a QP whose window is full, say). */
    public void enter() {
        if (atLimit++ == 0) {
            since = time.nowPs();
        }
    }

    /**
     * One user is no longer at the limit.
     *
     * @throws IllegalStateException if no user was
     */
    public void leave() {
        if (atLimit <= 0) {
            throw new IllegalStateException(fullTime.fullName() + ": left a limit no user was at");
        }
        if (--atLimit == 0) {
            fullTime.add(time.nowPs() - since);
        }
    }

    /** Picoseconds at the limit since time zero (or the last reset), including the current stretch. */
    public long fullTimePs() {
        return atLimit > 0 ? fullTime.value() + time.nowPs() - since : fullTime.value();
    }

    /** {@link #fullTimePs} over the simulated time since zero; 0 at time zero. */
    public double fullFraction() {
        long now = time.nowPs();
        return now == 0 ? 0 : Math.min(1.0, fullTimePs() / (double) now);
    }

    /** Folds the current stretch at the limit into the counter, so that it reads exactly now. */
    void flush() {
        if (atLimit > 0) {
            long now = time.nowPs();
            fullTime.add(now - since);
            since = now;
        }
    }

    @Override
    public String toString() {
        return fullTime.fullName() + (atLimit > 0 ? " full" : " not full");
    }
}
