package dev.rdmasim.kernel.stats;

/**
 * Distribution of non-negative values (latencies, sizes) kept to 3 significant decimal digits by an HdrHistogram.
 * Values below 2048 are kept exactly; larger ones are reported as the top of their equivalence range.
 *
 * <p>Recording does not allocate, except when an auto-resizing histogram first sees a larger value than ever before.
 */
public final class Histogram extends Stat {

    private static final int SIGNIFICANT_DIGITS = 3;

    private final org.HdrHistogram.Histogram hdr;
    private final boolean autoResize;

    /** Auto-resizing histogram: any non-negative value can be recorded. */
    Histogram(StatInfo info) {
        super(info);
        this.hdr = new org.HdrHistogram.Histogram(SIGNIFICANT_DIGITS);
        this.autoResize = true;
    }

    /** Fixed-size histogram, which never allocates after construction but rejects values above its range. */
    Histogram(StatInfo info, long highestTrackableValue) {
        super(info);
        if (highestTrackableValue < 2) {
            throw new IllegalArgumentException(
                    "highestTrackableValue of " + fullName() + " must be at least 2, got " + highestTrackableValue);
        }
        this.hdr = new org.HdrHistogram.Histogram(1, highestTrackableValue, SIGNIFICANT_DIGITS);
        this.autoResize = false;
    }

    /**
     * Records one value.
     *
     * @throws IllegalArgumentException if {@code value} is negative, or above the range of a fixed-size histogram
     */
    public void record(long value) {
        if (value < 0) {
            throw new IllegalArgumentException(fullName() + ": cannot record negative value " + value);
        }
        if (!autoResize && value > hdr.getHighestTrackableValue()) {
            throw new IllegalArgumentException(fullName() + ": value " + value
                    + " exceeds highest trackable value " + hdr.getHighestTrackableValue());
        }
        hdr.recordValue(value);
    }

    public long count() {
        return hdr.getTotalCount();
    }

    /** Mean of the recorded values, to the histogram's precision; NaN if none were recorded. */
    public double mean() {
        return hdr.getTotalCount() == 0 ? Double.NaN : hdr.getMean();
    }

    /**
     * The value below or at which {@code percentile} percent of the recorded values fall; 0 if none were recorded.
     *
     * @param percentile in [0, 100]
     */
    public long percentile(double percentile) {
        if (!(percentile >= 0.0 && percentile <= 100.0)) {
            throw new IllegalArgumentException(fullName() + ": percentile must be in [0, 100], got " + percentile);
        }
        return hdr.getValueAtPercentile(percentile);
    }

    /** Smallest recorded value; 0 if none were recorded. */
    public long min() {
        return hdr.getMinValue();
    }

    /** Largest recorded value; 0 if none were recorded. */
    public long max() {
        return hdr.getMaxValue();
    }

    void reset() {
        hdr.reset();
    }

    @Override
    public String toString() {
        return fullName() + " (count " + count() + ")";
    }
}
