package dev.rdmasim.adapter.wire;

import dev.rdmasim.kernel.stats.TimeSource;

/**
 * The clock of a link's statistics groups (its endpoints' and directions'). A level the link feeds is
 * stamped with the instant it names: a past one while a direction replays its lazily computed changes, now
 * while an endpoint updates its own level. Any other reading (a dump, a reset, an average) first commits
 * everything that has happened on the lines, so it sees them up to date.
 *
 * <p>A link split over two partitions ({@link EthernetLink#split}) has one clock per end, each read and stamped
 * only by its own partition's thread, and a reading brings up to date only the parts of that end.
 *
 * <p>One class for all of them: the kernel's time-average call site then sees two clock types, the
 * simulator and this, which the JIT still inlines; a clock per block type would make it a virtual call for
 * every time average in the model.
 */
final class LinkClock implements TimeSource {
    private final EthernetLink link;
    /** Which parts a reading brings up to date: {@link EthernetLink#BOTH_ENDS}, or one end of a split link. */
    private final int end;
    /** The instant of a level change being fed, or -1. */
    private long stamp = -1;

    LinkClock(EthernetLink link, int end) {
        this.link = link;
        this.end = end;
    }

    /** Stamps the level changes fed until {@link #release()} with {@code timePs}. */
    void stamp(long timePs) {
        stamp = timePs;
    }

    void release() {
        stamp = -1;
    }

    @Override
    public long nowPs() {
        return stamp >= 0 ? stamp : link.statsNow(end);
    }
}
