package dev.rdmasim.kernel.stats;

/** A settable simulated clock for tests. */
final class FakeTime implements TimeSource {

    private long nowPs;

    @Override
    public long nowPs() {
        return nowPs;
    }

    void set(long ps) {
        nowPs = ps;
    }

    void advance(long ps) {
        nowPs += ps;
    }
}
