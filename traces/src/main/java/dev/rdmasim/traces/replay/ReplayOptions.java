package dev.rdmasim.traces.replay;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * How to replay a trace.
 *
 * @param outDir      where the outputs go (created if needed); null: the replay writes no file at all (a caller that
 *                    wants only the {@link ReplayResult}, the request stages or the hosts afterwards)
 * @param profile     the profile of hosts whose {@code host} line names none (a built-in name or a file)
 * @param overrides   {@code key=value} parameter overrides applied to every host, after its own
 * @param seed        the simulator's seed (every random stream derives from it)
 * @param vcd         write {@code wave.vcd}
 * @param vcdSignals  glob(s) of the signals to trace, comma-separated (null or empty: all)
 * @param timeline    write {@code timeline.json}
 * @param pcap        write {@code wire.pcap}
 * @param record      write the NDK calls the replay made as a trace there (null: no recording)
 * @param lifecycle   write {@code lifecycle.csv} (a row per request: about 130 bytes each, so a replay of
 *                    millions of requests may leave it out; requests are tracked either way)
 * @param qp          values that replace those of every {@code qp} line, by the line's key ({@code iq}, {@code rq},
 *                    {@code isge}, {@code rsge}, {@code inline} in bytes): what a sweep over QP parameters varies.
 *                    The first pass checks the lines as written; an override beyond the adapter's limits is refused
 *                    by {@code NdkCreateQp} when the line runs. Empty: the lines as written.
 */
public record ReplayOptions(Path outDir, String profile, List<String> overrides, long seed, boolean vcd,
        String vcdSignals, boolean timeline, boolean pcap, Path record, boolean lifecycle, Map<String, Long> qp) {
    /** The keys of a {@code qp} line that {@link #qp} may replace. */
    public static final Set<String> QP_KEYS = Set.of("iq", "rq", "isge", "rsge", "inline");

    public ReplayOptions {
        overrides = List.copyOf(overrides);
        qp = java.util.Collections.unmodifiableMap(new TreeMap<>(qp));
        for (Map.Entry<String, Long> e : qp.entrySet()) {
            if (!QP_KEYS.contains(e.getKey())) {
                throw new IllegalArgumentException("'" + e.getKey() + "' is not a qp line key to override (valid: "
                        + String.join(", ", new java.util.TreeSet<>(QP_KEYS)) + ")");
            }
            if (e.getValue() < 0) {
                throw new IllegalArgumentException("qp " + e.getKey() + " must not be negative, got " + e.getValue());
            }
        }
    }

    /** Without QP overrides. */
    public ReplayOptions(Path outDir, String profile, List<String> overrides, long seed, boolean vcd,
            String vcdSignals, boolean timeline, boolean pcap, Path record, boolean lifecycle) {
        this(outDir, profile, overrides, seed, vcd, vcdSignals, timeline, pcap, record, lifecycle, Map.of());
    }

    /** With {@code lifecycle.csv}, without QP overrides. */
    public ReplayOptions(Path outDir, String profile, List<String> overrides, long seed, boolean vcd,
            String vcdSignals, boolean timeline, boolean pcap, Path record) {
        this(outDir, profile, overrides, seed, vcd, vcdSignals, timeline, pcap, record, true);
    }

    /** Without recording. */
    public ReplayOptions(Path outDir, String profile, List<String> overrides, long seed, boolean vcd,
            String vcdSignals, boolean timeline, boolean pcap) {
        this(outDir, profile, overrides, seed, vcd, vcdSignals, timeline, pcap, null);
    }

    /** The profile of hosts whose {@code host} line names none: {@link #profile}, or {@code default} when null. */
    public String baseProfile() {
        return profile == null ? "default" : profile;
    }

    /** These options, recording the replay's NDK calls into {@code trace}. */
    public ReplayOptions withRecord(Path trace) {
        return new ReplayOptions(outDir, profile, overrides, seed, vcd, vcdSignals, timeline, pcap, trace, lifecycle,
                qp);
    }

    /** These options without {@code lifecycle.csv}. */
    public ReplayOptions withoutLifecycle() {
        return new ReplayOptions(outDir, profile, overrides, seed, vcd, vcdSignals, timeline, pcap, record, false, qp);
    }

    /** These options, with {@code values} replacing those of every {@code qp} line (see {@link #qp}). */
    public ReplayOptions withQp(Map<String, Long> values) {
        return new ReplayOptions(outDir, profile, overrides, seed, vcd, vcdSignals, timeline, pcap, record, lifecycle,
                values);
    }

    /** Defaults: the default profile, no overrides, seed 1, no optional outputs. */
    public static ReplayOptions into(Path outDir) {
        return new ReplayOptions(outDir, "default", List.of(), 1, false, null, false, false);
    }
}
