package dev.rdmasim.traces.format;

/**
 * When a line runs, as far as the reader can say without running anything: the replayer resolves
 * each line's time from the previous line's time and from anchors, small integer slots holding the
 * resolved time of an earlier line.
 *
 * <ul>
 * <li>{@link Kind#NONE}: right after the previous line (at the previous line's time, or when it
 *     finished for a line that blocks, such as {@code wait}).</li>
 * <li>{@link Kind#ABSOLUTE}: at {@code ps}, a simulated time (an {@code @T} outside any repeat).</li>
 * <li>{@link Kind#RELATIVE}: the previous line's time plus {@code ps} ({@code ps >= 0}).</li>
 * <li>{@link Kind#ANCHORED}: the time held by anchor {@code anchor} plus {@code ps}; {@code ps} may be
 *     negative (the anchor may have been set by a line that ran after the point it stands for).</li>
 * </ul>
 *
 * <p>{@code setAnchor >= 0}: once this line's time is resolved, store it in anchor {@code setAnchor}
 * (−1: none). Anchors are below {@link #MAX_ANCHORS}, one per repeat nesting depth, and are reused: an
 * anchor is only read by lines after the line that last set it.
 *
 * <p>How the reader derives these from a trace. Outside repeats: no time is {@code NONE}, {@code +D}
 * is {@code RELATIVE(D)}, {@code @T} is {@code ABSOLUTE(T)}. A repeat starts right after the line
 * before it; iteration k starts at the repeat's start + k × {@code every} when {@code every} is given,
 * else right after the previous iteration's last line. Inside an iteration, {@code @T} is the
 * iteration's start + T; {@code +D} is the previous line + D, and no time is the previous line, where
 * for an iteration's first line "the previous line" is the iteration's start. A start that is "right
 * after the previous line" is unknown until the next line runs, so the first line emitted after it
 * carries {@code setAnchor} = the depth of the outermost such repeat, and later lines refer to that
 * anchor with {@code ANCHORED} (the reader folds the first line's own offset into theirs).
 *
 * <p>Example: {@code repeat 3 as i every=1us} holding {@code @5ns write ...} and {@code +1ns wait ...}
 * gives, for iteration 0: {@code RELATIVE(5ns), setAnchor 0} then {@code RELATIVE(1ns)}; iteration 1:
 * {@code ANCHORED(0, 1us)} then {@code RELATIVE(1ns)}; iteration 2: {@code ANCHORED(0, 2us)} ... since
 * anchor 0 holds the repeat's start + 5ns.
 */
public record TimeSpec(Kind kind, long ps, int anchor, int setAnchor) {
    /** Anchors are numbered 0 .. MAX_ANCHORS-1; repeats nest at most this deep. */
    public static final int MAX_ANCHORS = 64;

    public static final TimeSpec NONE = new TimeSpec(Kind.NONE, 0, -1, -1);

    /**
     * The latest time a line may run at, 2^62 ps (about 53 days of simulated time): far beyond any run, and
     * half the range of a picosecond count, so the events a call schedules after it cannot wrap around.
     */
    public static final long MAX_PS = 1L << 62;

    /** Where a line's time comes from. */
    public enum Kind {
        /** Right after the previous line. */
        NONE,
        /** At {@code ps}. */
        ABSOLUTE,
        /** The previous line's time + {@code ps}. */
        RELATIVE,
        /** The time of anchor {@code anchor} + {@code ps}. */
        ANCHORED
    }

    public TimeSpec {
        if (kind == null) {
            throw new IllegalArgumentException("kind is null");
        }
        if (setAnchor < -1 || setAnchor >= MAX_ANCHORS) {
            throw new IllegalArgumentException("setAnchor " + setAnchor + " is not -1 or an anchor below " + MAX_ANCHORS);
        }
        if (kind == Kind.ANCHORED ? anchor < 0 || anchor >= MAX_ANCHORS : anchor != -1) {
            throw new IllegalArgumentException("anchor " + anchor + " does not fit kind " + kind);
        }
        if ((kind == Kind.ABSOLUTE || kind == Kind.RELATIVE) && ps < 0) {
            throw new IllegalArgumentException(kind + " time " + ps + " ps is negative");
        }
        if (kind == Kind.NONE && ps != 0) {
            throw new IllegalArgumentException("NONE takes no time, got " + ps + " ps");
        }
    }

    public static TimeSpec absolute(long ps) {
        return new TimeSpec(Kind.ABSOLUTE, ps, -1, -1);
    }

    public static TimeSpec relative(long ps) {
        return new TimeSpec(Kind.RELATIVE, ps, -1, -1);
    }

    public static TimeSpec anchored(int anchor, long ps) {
        return new TimeSpec(Kind.ANCHORED, ps, anchor, -1);
    }

    /** This spec, also setting anchor {@code a} once resolved. */
    public TimeSpec settingAnchor(int a) {
        return new TimeSpec(kind, ps, anchor, a);
    }
}
