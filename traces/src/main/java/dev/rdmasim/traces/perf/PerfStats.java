package dev.rdmasim.traces.perf;

import java.util.Arrays;

/** perftest's arithmetic over posting and completion times (picoseconds); pure functions. */
final class PerfStats {
    private PerfStats() {
    }

    /** Bits per byte over picoseconds to Gb/s: bytes * 8 / (ps * 1e-12) / 1e9. */
    private static final double GBPS_PER_BYTE_PER_PS = 8_000.0;

    /** Average bandwidth in Gb/s: every byte over the time from the first post to the last completion. */
    static double avgGbps(long bytes, int messages, long[] posted, long[] completed) {
        return bytes * (double) messages * GBPS_PER_BYTE_PER_PS / span(posted, completed);
    }

    /** Messages per microsecond (Mpps) over the same span. */
    static double msgRateMpps(int messages, long[] posted, long[] completed) {
        return messages * 1e6 / span(posted, completed);
    }

    static long span(long[] posted, long[] completed) {
        long d = completed[completed.length - 1] - posted[0];
        if (d <= 0) {
            throw new IllegalArgumentException("the last completion (" + completed[completed.length - 1]
                    + " ps) is not after the first post (" + posted[0] + " ps)");
        }
        return d;
    }

    /**
     * perftest's peak: the least time per message over a run of consecutive requests i..j, where i starts a
     * post list (a multiple of {@code postList}) and j is a signaled completion (j + 1 a multiple of {@code
     * cqMod}, or the last request), i.e. min over such i <= j of (completed[j] - posted[i]) / (j - i + 1);
     * the peak is the message size over that time. perftest tries every pair; here the same minimum is found
     * by bisection on the time per message t, since a pair with a time of at most t exists exactly when some
     * allowed j has completed[j] - t (j + 1) <= max over allowed i <= j of (posted[i] - t i), one pass per t.
     */
    static double peakGbps(long bytes, long[] posted, long[] completed, int postList, int cqMod) {
        return bytes * GBPS_PER_BYTE_PER_PS / bestPsPerMessage(posted, completed, postList, cqMod);
    }

    static double bestPsPerMessage(long[] posted, long[] completed, int postList, int cqMod) {
        int n = posted.length;
        double hi = (completed[n - 1] - posted[0]) / (double) n; // i = 0, j = n - 1 is always allowed
        double lo = 0;
        if (feasible(posted, completed, postList, cqMod, lo)) {
            return 0;
        }
        for (int k = 0; k < 100 && hi - lo > hi * 1e-12; k++) {
            double mid = (lo + hi) / 2;
            if (feasible(posted, completed, postList, cqMod, mid)) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        return hi;
    }

    private static boolean feasible(long[] posted, long[] completed, int postList, int cqMod, double t) {
        int n = posted.length;
        double best = Double.NEGATIVE_INFINITY;
        // j mod postList and (j + 1) mod cqMod kept as counters: no division per request in a pass that the
        // bisection repeats about forty times over every request of the run.
        int inList = 0;
        int sinceSignal = 0;
        for (int j = 0; j < n; j++) {
            if (inList == 0) {
                best = Math.max(best, posted[j] - t * j);
            }
            if (++inList == postList) {
                inList = 0;
            }
            boolean signaled = ++sinceSignal == cqMod;
            if (signaled) {
                sinceSignal = 0;
            }
            if ((signaled || j == n - 1) && completed[j] - t * (j + 1) <= best) {
                return true;
            }
        }
        return false;
    }

    /** The same minimum by perftest's exhaustive search over all pairs (for tests). */
    static double bestPsPerMessageExhaustive(long[] posted, long[] completed, int postList, int cqMod) {
        int n = posted.length;
        double best = Double.MAX_VALUE;
        for (int i = 0; i < n; i += postList) {
            for (int j = i; j < n; j++) {
                if ((j + 1) % cqMod == 0 || j == n - 1) {
                    best = Math.min(best, (completed[j] - posted[i]) / (double) (j - i + 1));
                }
            }
        }
        return best;
    }

    /**
     * Latency samples summarized as perftest's latency report; {@code samplesPs} is sorted in place. Sums, mean
     * and deviations are taken in whole picoseconds and turned into microseconds at the end, so equal samples
     * give a standard deviation of exactly 0; the percentiles are samples (nearest rank), so they never exceed
     * the largest sample kept, nor t_max.
     */
    static LatResult latency(PerfTest test, int bytes, int iterations, long[] samplesPs, int rttFactor, long simTimePs,
            double wallSeconds) {
        Arrays.sort(samplesPs);
        int cnt = samplesPs.length - 2; // the two largest are dropped
        if (cnt < 1) {
            throw new IllegalArgumentException("need at least 3 samples, got " + samplesPs.length);
        }
        double unit = rttFactor * 1e6; // ps of a round trip to us of a half (or whole) trip
        long median = (cnt - 1) % 2 != 0 ? (samplesPs[cnt / 2] + samplesPs[cnt / 2 - 1]) / 2 : samplesPs[cnt / 2];
        // Deviations from the smallest sample: exact in a long, and small enough to square in a double.
        long base = samplesPs[0];
        long sum = 0;
        for (int i = 0; i < cnt; i++) {
            sum += samplesPs[i] - base;
        }
        double mean = (double) sum / cnt;
        double var = 0;
        for (int i = 0; i < cnt; i++) {
            double d = (samplesPs[i] - base) - mean;
            var += d * d;
        }
        return new LatResult(test, bytes, iterations, samplesPs[0] / unit, samplesPs[cnt] / unit, median / unit,
                (base + mean) / unit, Math.sqrt(var / cnt) / unit, percentile(samplesPs, cnt, 99.0) / unit,
                percentile(samplesPs, cnt, 99.9) / unit, simTimePs, wallSeconds);
    }

    /** The nearest-rank percentile of the first {@code cnt} sorted samples: the least one with p % at or below it. */
    static long percentile(long[] sorted, int cnt, double p) {
        int rank = (int) Math.ceil(p / 100.0 * cnt);
        return sorted[Math.max(0, Math.min(cnt, rank) - 1)];
    }
}
