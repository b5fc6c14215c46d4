package dev.rdmasim.traces.replay;

import java.nio.file.Path;
import java.util.List;

/**
 * How to replay a trace.
 *
 * @param outDir      where the outputs go (created if needed)
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
 */
public record ReplayOptions(Path outDir, String profile, List<String> overrides, long seed, boolean vcd,
        String vcdSignals, boolean timeline, boolean pcap, Path record, boolean lifecycle) {
    public ReplayOptions {
        overrides = List.copyOf(overrides);
    }

    /** With {@code lifecycle.csv}. */
    public ReplayOptions(Path outDir, String profile, List<String> overrides, long seed, boolean vcd,
            String vcdSignals, boolean timeline, boolean pcap, Path record) {
        this(outDir, profile, overrides, seed, vcd, vcdSignals, timeline, pcap, record, true);
    }

    /** Without recording. */
    public ReplayOptions(Path outDir, String profile, List<String> overrides, long seed, boolean vcd,
            String vcdSignals, boolean timeline, boolean pcap) {
        this(outDir, profile, overrides, seed, vcd, vcdSignals, timeline, pcap, null);
    }

    /** These options, recording the replay's NDK calls into {@code trace}. */
    public ReplayOptions withRecord(Path trace) {
        return new ReplayOptions(outDir, profile, overrides, seed, vcd, vcdSignals, timeline, pcap, trace, lifecycle);
    }

    /** These options without {@code lifecycle.csv}. */
    public ReplayOptions withoutLifecycle() {
        return new ReplayOptions(outDir, profile, overrides, seed, vcd, vcdSignals, timeline, pcap, record, false);
    }

    /** Defaults: the default profile, no overrides, seed 1, no optional outputs. */
    public static ReplayOptions into(Path outDir) {
        return new ReplayOptions(outDir, "default", List.of(), 1, false, null, false, false);
    }
}
