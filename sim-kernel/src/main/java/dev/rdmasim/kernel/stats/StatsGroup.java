package dev.rdmasim.kernel.stats;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.DoubleSupplier;
import java.util.regex.Pattern;

/**
 * The statistics of one simulation block, all named under the block's hierarchical path (e.g. {@code nicA.dma}).
 * Statistics are created once, while the block is built, and then updated directly through the returned objects.
 */
public final class StatsGroup {

    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private final String path;
    private final TimeSource time;
    private final List<Stat> stats = new ArrayList<>();
    private final Set<String> names = new HashSet<>();
    private final List<Bound> bounds = new ArrayList<>();
    private Runnable refresh;
    /** Actions of others that also keep statistics of this group lazily ({@link #addRefresh}). */
    private final List<Runnable> moreRefresh = new ArrayList<>();

    /**
     * @param path the owning block's hierarchical name: one or more names joined by dots
     * @param time simulated time, used by {@link TimeAverage}s
     */
    public StatsGroup(String path, TimeSource time) {
        Objects.requireNonNull(path, "path");
        this.time = Objects.requireNonNull(time, "time");
        for (String component : path.split("\\.", -1)) {
            if (!NAME.matcher(component).matches()) {
                throw new IllegalArgumentException("invalid statistics group path '" + path
                        + "': expected names matching " + NAME + " joined by dots");
            }
        }
        this.path = path;
    }

    public String path() {
        return path;
    }

    public Counter counter(String name, String unit, String description) {
        return add(new Counter(info(name, unit, description)));
    }

    /** An auto-resizing histogram that accepts any non-negative value. */
    public Histogram histogram(String name, String unit, String description) {
        return add(new Histogram(info(name, unit, description)));
    }

    /** A fixed-size histogram that accepts values in [0, highestTrackableValue] and never allocates when recording. */
    public Histogram histogram(String name, String unit, String description, long highestTrackableValue) {
        return add(new Histogram(info(name, unit, description), highestTrackableValue));
    }

    /** A derived value, evaluated each time the statistics are read or dumped. */
    public Formula formula(String name, String unit, String description, DoubleSupplier function) {
        Objects.requireNonNull(function, "function");
        return add(new Formula(info(name, unit, description), function));
    }

    /** A time-weighted average of a level, starting now at level 0. */
    public TimeAverage timeAverage(String name, String unit, String description) {
        return add(new TimeAverage(info(name, unit, description), time));
    }

    /**
     * A time-weighted average of a level fed on another clock than the group's: for a block whose parts run in two
     * partitions ({@link dev.rdmasim.kernel.Partitions}), each level on the clock of the part that changes it.
     */
    public TimeAverage timeAverage(String name, String unit, String description, TimeSource clock) {
        return add(new TimeAverage(info(name, unit, description), Objects.requireNonNull(clock, "clock")));
    }

    /**
     * A bounded resource of the block, reporting the time it spends at its limit as a counter {@code fullTime} (ps)
     * and a formula {@code fullFraction}; with a non-empty {@code prefix} they are {@code <prefix>FullTime} and
     * {@code <prefix>FullFraction}, for a block with several bounds.
     *
     * @param prefix    empty, or a lower-camel-case name for the resource ({@code readTags})
     * @param what      what is full, in words, as reports name it ({@code "PCIe read tags"})
     * @param limit     how "at its limit" is decided, for the descriptions ({@code "all tags in use"})
     * @param parameter the parameter(s) setting the limit ({@code "pcie.readTags"})
     */
    public Bound bound(String prefix, String what, String limit, String parameter) {
        Objects.requireNonNull(prefix, "prefix");
        Objects.requireNonNull(what, "what");
        Objects.requireNonNull(limit, "limit");
        Objects.requireNonNull(parameter, "parameter");
        String timeName = prefix.isEmpty() ? "fullTime" : prefix + "FullTime";
        String fractionName = prefix.isEmpty() ? "fullFraction" : prefix + "FullFraction";
        Counter counter = counter(timeName, "ps", "time at the limit: " + what + " (" + limit + "; " + parameter
                + ")");
        Bound bound = new Bound(time, counter, fractionName, what, parameter);
        formula(fractionName, "ratio", timeName + " / simulated time: " + what + " at the limit (" + parameter + ")",
                bound::fullFraction);
        bounds.add(bound);
        return bound;
    }

    /** The block's bounded resources, in registration order; an unmodifiable live view. */
    public List<Bound> bounds() {
        return Collections.unmodifiableList(bounds);
    }

    /**
     * Installs the action that brings this group's statistics up to the current simulated time, for a block that
     * updates them lazily (for instance with {@link TimeAverage#setAt}) rather than as each change happens. It runs
     * before every dump of the registry and before {@link #reset}; anyone else reading such a group's statistics
     * directly should call {@link #refresh} first.
     *
     * @throws IllegalStateException if the group already has one
     */
    public void setRefresh(Runnable action) {
        Objects.requireNonNull(action, "action");
        if (refresh != null) {
            throw new IllegalStateException("statistics group " + path + " already has a refresh action");
        }
        refresh = action;
    }

    /**
     * Adds an action that brings some of this group's statistics up to the current simulated time, for someone other
     * than the block that owns the group (a harness that charges the block's counters after the fact); it runs after
     * the block's own refresh action, in the order added. Refreshing may run it more than once at one instant, so it
     * must do nothing the second time.
     */
    public void addRefresh(Runnable action) {
        moreRefresh.add(Objects.requireNonNull(action, "action"));
    }

    /**
     * Runs the refresh actions, if any (see {@link #setRefresh}, {@link #addRefresh}), then folds the time every
     * {@link Bound} has spent at its limit up to now into its counter.
     */
    public void refresh() {
        if (refresh != null) {
            refresh.run();
        }
        for (int i = 0; i < moreRefresh.size(); i++) {
            moreRefresh.get(i).run();
        }
        for (int i = 0; i < bounds.size(); i++) {
            bounds.get(i).flush();
        }
    }

    /**
     * Clears all statistics, after a {@link #refresh}; time averages restart at the current simulated time, keeping
     * their current level.
     */
    public void reset() {
        refresh();
        // Formulas are derived from other statistics, so they have nothing of their own to clear.
        for (Stat stat : stats) {
            if (stat instanceof Counter c) {
                c.reset();
            } else if (stat instanceof Histogram h) {
                h.reset();
            } else if (stat instanceof TimeAverage t) {
                t.reset();
            }
        }
    }

    /** The statistics in registration order; an unmodifiable live view. */
    public List<Stat> stats() {
        return Collections.unmodifiableList(stats);
    }

    @Override
    public String toString() {
        return "StatsGroup[" + path + ", " + stats.size() + " stats]";
    }

    private StatInfo info(String name, String unit, String description) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(description, "description");
        String fullName = path + "." + name;
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                    "invalid statistic name '" + fullName + "': the last component must match " + NAME);
        }
        if (names.contains(name)) {
            throw new IllegalArgumentException("duplicate statistic " + fullName);
        }
        return new StatInfo(name, fullName, unit, description);
    }

    private <S extends Stat> S add(S stat) {
        names.add(stat.name());
        stats.add(stat);
        return stat;
    }
}
