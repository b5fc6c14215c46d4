package dev.rdmasim.cli.demo;

import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.nic.Stage;
import dev.rdmasim.adapter.wire.PcapWriter;
import dev.rdmasim.driver.HostPair;
import dev.rdmasim.driver.WriteStream;
import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.wave.SignalFilter;
import dev.rdmasim.kernel.wave.VcdWriter;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;

/**
 * Host A streams RDMA WRITEs of one size to host B through two modeled adapters, a PCIe link each
 * and an Ethernet cable, keeping a fixed number outstanding. Writes {@code wave.vcd} (every block's
 * signals, or those matching a glob), {@code wire.pcap} (every RoCEv2 frame, for Wireshark) and
 * {@code stats.json}, and reports throughput, latency and where the time of a request goes.
 */
public final class AdapterDemo {
    /** Mean time spent between consecutive stages, over the requests that reached both. */
    public record StageTime(Stage from, Stage to, double meanNs) {
    }

    /** What a run produced. */
    public record Result(String profile, int messageBytes, long messages, long simTimePs, long events, double gbps,
            double mmsgs, double p50Ns, double p99Ns, StageTime[] stages, Path vcd, Path pcap, Path statsJson,
            String statsText) {
    }

    private AdapterDemo() {
    }

    /**
     * Runs the demo and writes its files into {@code outDir}; a failed or refused run writes none.
     *
     * @param signalGlobs comma-separated globs of the signals to trace (empty: all)
     * @throws dev.rdmasim.kernel.wave.SignalGlobError if a glob selects none of the demo's signals
     */
    public static Result run(Path outDir, long seed, Profile profile, int messageBytes, long messages, int depth,
            String signalGlobs) throws IOException {
        if (messages < 1) {
            throw new IllegalArgumentException("the demo needs at least one message, got " + messages);
        }
        Files.createDirectories(outDir);
        Path vcd = outDir.resolve("wave.vcd");
        Path pcap = outDir.resolve("wire.pcap");
        Path json = outDir.resolve("stats.json");
        // Written under temporary names and renamed at the end, so a refused or failed run leaves no file behind
        // and replaces none from an earlier run.
        Path[] files = {vcd, pcap, json};
        try {
            Result r = simulate(seed, profile, messageBytes, messages, depth, signalGlobs, vcd, pcap, json);
            for (Path f : files) {
                Files.move(partial(f), f, StandardCopyOption.REPLACE_EXISTING);
            }
            return r;
        } catch (IOException | RuntimeException | Error e) {
            for (Path f : files) {
                try {
                    Files.deleteIfExists(partial(f));
                } catch (IOException d) {
                    e.addSuppressed(d);
                }
            }
            throw e;
        }
    }

    private static Path partial(Path p) {
        return p.resolveSibling(p.getFileName() + ".partial");
    }

    private static Result simulate(long seed, Profile profile, int messageBytes, long messages, int depth,
            String signalGlobs, Path vcd, Path pcap, Path json) throws IOException {
        Simulator sim = new Simulator(seed);
        long[] latencies = new long[(int) Math.min(messages, Integer.MAX_VALUE - 8)];
        int[] n = {0};
        Stage[] order = {Stage.DOORBELL, Stage.WQE_FETCHED, Stage.PAYLOAD_READ, Stage.FIRST_PACKET,
            Stage.LAST_PACKET, Stage.REMOTE_PLACED, Stage.ACKED, Stage.CQE_WRITTEN};
        double[] stageSum = new double[order.length - 1];
        long[] stageCount = new long[order.length - 1];
        try (Writer w = Files.newBufferedWriter(partial(vcd), StandardCharsets.UTF_8);
                VcdWriter wave = new VcdWriter(w, sim, SignalFilter.parse(signalGlobs));
                PcapWriter capture = PcapWriter.open(partial(pcap))) {
            sim.attachWave(wave);
            long buffer = Math.max(1L << 20, (long) messageBytes * depth);
            int sqLog = 32 - Integer.numberOfLeadingZeros(Math.max(depth, 2) - 1);
            HostPair pair = HostPair.create(sim, profile, buffer, Math.max(sqLog + 1, 8), Math.max(sqLog, 6), 6);
            pair.link().addTap(capture);
            pair.a().host().adapter().addLifecycleListener((nic, qpn, idx, op, bytes, syndrome, stamps) -> {
                if (n[0] < latencies.length && stamps[Stage.DOORBELL.ordinal()] >= 0) {
                    latencies[n[0]++] = stamps[Stage.CQE_WRITTEN.ordinal()] - stamps[Stage.DOORBELL.ordinal()];
                }
                for (int i = 0; i + 1 < order.length; i++) {
                    long a = at(stamps, order[i]);
                    long b = at(stamps, order[i + 1]);
                    if (a >= 0 && b >= 0) {
                        stageSum[i] += b - a;
                        stageCount[i]++;
                    }
                }
            });
            WriteStream stream = new WriteStream(pair.a(), pair.b(), messageBytes, depth, 1, 1, false);
            wave.requireEveryGlobMatches("nicA.pcie.*");
            stream.stopWhenCompleted(messages);
            stream.start();
            sim.run();
            if (stream.completed() < messages) {
                throw new dev.rdmasim.kernel.InvariantViolation("demo completed " + stream.completed() + " of " + messages + " WRITEs");
            }
            try (Writer jw = Files.newBufferedWriter(partial(json), StandardCharsets.UTF_8)) {
                sim.stats().writeJson(jw);
            }
            long[] sorted = Arrays.copyOf(latencies, n[0]);
            Arrays.sort(sorted);
            StageTime[] stages = new StageTime[order.length - 1];
            for (int i = 0; i < stages.length; i++) {
                stages[i] = new StageTime(order[i], order[i + 1], stageCount[i] == 0 ? Double.NaN : stageSum[i] / stageCount[i] / 1000.0);
            }
            double seconds = sim.now() / 1e12;
            return new Result(profile.name(), messageBytes, stream.completed(), sim.now(), sim.eventsExecuted(),
                    stream.completed() * messageBytes * 8 / seconds / 1e9, stream.completed() / seconds / 1e6,
                    percentile(sorted, 50) / 1000.0, percentile(sorted, 99) / 1000.0, stages, vcd, pcap, json,
                    sim.stats().toText());
        }
    }

    private static double percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }

    /**
     * A stage's time for the means: a WQE that came by BlueFlame was never fetched (its WQE_FETCHED is empty), so
     * it counts as in the adapter at its doorbell: no fetch time, its parse in the step after.
     */
    private static long at(long[] stamps, Stage s) {
        long t = stamps[s.ordinal()];
        return t == Stage.NOT_REACHED && s == Stage.WQE_FETCHED ? stamps[Stage.DOORBELL.ordinal()] : t;
    }
}
