package dev.rdmasim.kernel.stats;

/**
 * Time-weighted average of a level, such as a FIFO's occupancy: each level counts in proportion to how long, in
 * simulated time, it was held. The level is 0 until first {@link #set set}.
 */
public final class TimeAverage extends Stat {

    private final TimeSource time;
    private long startPs;
    private long lastChangePs;
    private long level;
    private long max;
    // Level x picoseconds since the start, exact in a long while it fits (it does for any run of hours at levels
    // below millions); what would overflow it is moved to the double. Exact integer sums make the average
    // independent of how often an unchanged level is set, which lets a set that changes nothing return at once.
    private long area;
    private double areaOverflow;

    TimeAverage(StatInfo info, TimeSource time) {
        super(info);
        this.time = time;
        this.startPs = time.nowPs();
        this.lastChangePs = startPs;
    }

    /**
     * Sets the level held from the current simulated time on. Setting the level it already holds does nothing.
     *
     * @throws IllegalStateException if the level changes and simulated time went backwards since the previous
     *     change
     */
    public void set(long newLevel) {
        if (newLevel == level) {
            return; // the area accrues lazily from the last change
        }
        long now = time.nowPs();
        accumulateTo(now);
        level = newLevel;
        if (newLevel > max) {
            max = newLevel;
        }
    }

    /**
     * Sets the level held from {@code timePs} on, an instant that may already have passed: for blocks that work out
     * their changes lazily and report them after the fact. Changes must come in time order; a change at the time of
     * the last reset or later counts from there.
     *
     * @throws IllegalArgumentException if {@code timePs} is in the future
     * @throws IllegalStateException if {@code timePs} is before the previous change or the last reset
     */
    public void setAt(long timePs, long newLevel) {
        long now = time.nowPs();
        if (timePs > now) {
            throw new IllegalArgumentException(fullName() + ": level change at " + timePs
                    + " ps is in the future (now " + now + " ps)");
        }
        if (newLevel == level) {
            checkMonotonic(timePs);
            return;
        }
        accumulateTo(timePs);
        level = newLevel;
        if (newLevel > max) {
            max = newLevel;
        }
    }

    /**
     * Brings the average up to {@code timePs} for a level its owner integrates itself instead of reporting every
     * change: {@code area} is the level times picoseconds held since the previous change or sync (for a queue, the
     * sum of the time each item spent in it within that stretch: Little's law), {@code newLevel} the level held from
     * {@code timePs} on, {@code peak} the highest level reached within the stretch. The result is exactly what a
     * change reported at each instant gives. An owner that syncs so must do it before its statistics are read or
     * reset ({@link StatsGroup#setRefresh}).
     *
     * @throws IllegalArgumentException if {@code timePs} is in the future or {@code area} is negative
     * @throws IllegalStateException if {@code timePs} is before the previous change or the last reset
     */
    public void syncAt(long timePs, long area, long newLevel, long peak) {
        long now = time.nowPs();
        if (timePs > now) {
            throw new IllegalArgumentException(fullName() + ": sync at " + timePs + " ps is in the future (now "
                    + now + " ps)");
        }
        if (area < 0) {
            throw new IllegalArgumentException(fullName() + ": negative area " + area + " at " + timePs + " ps");
        }
        checkMonotonic(timePs);
        lastChangePs = timePs;
        addArea(area);
        level = newLevel;
        max = Math.max(max, Math.max(peak, newLevel));
    }

    /** The level currently held. */
    public long level() {
        return level;
    }

    /**
     * Average level over [start, now], where start is creation or the last reset. When no simulated time has
     * elapsed the average is the current level.
     */
    public double average() {
        long now = time.nowPs();
        checkMonotonic(now);
        long span = now - startPs;
        if (span == 0) {
            return level;
        }
        double total = areaOverflow + area + (double) level * (now - lastChangePs);
        return total / span;
    }

    /** Highest level held since creation or the last reset. */
    public long max() {
        return max;
    }

    /** Restarts averaging at the current time, keeping the current level. */
    void reset() {
        long now = time.nowPs();
        startPs = now;
        lastChangePs = now;
        area = 0;
        areaOverflow = 0.0;
        max = level;
    }

    private void accumulateTo(long now) {
        checkMonotonic(now);
        long span = now - lastChangePs;
        lastChangePs = now;
        if (level == 0 || span == 0) {
            return;
        }
        // Levels are never negative in practice; any level or span of 2^31 or more takes the careful path.
        if (((level | span) & 0xFFFF_FFFF_8000_0000L) == 0) {
            addArea(level * span); // below 2^62
            return;
        }
        areaOverflow += (double) level * span;
    }

    /** Adds a non-negative area: exactly in the long while it fits, the rest in the double. */
    private void addArea(long add) {
        long sum = area + add;
        if (sum >= 0) { // area >= 0 and add >= 0: a negative sum is an overflow
            area = sum;
        } else {
            areaOverflow += add;
        }
    }

    private void checkMonotonic(long now) {
        if (now < lastChangePs) {
            throw new IllegalStateException(fullName() + ": simulated time went backwards from "
                    + lastChangePs + " ps to " + now + " ps");
        }
    }

    @Override
    public String toString() {
        return fullName() + " level " + level;
    }
}
