package dev.rdmasim.kernel.demo;

import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.Time;
import dev.rdmasim.kernel.hw.AsyncFifo;
import dev.rdmasim.kernel.hw.Channels;
import dev.rdmasim.kernel.hw.ClockDomain;
import dev.rdmasim.kernel.hw.Fifo;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.hw.OutPort;
import dev.rdmasim.kernel.stats.Formula;
import dev.rdmasim.kernel.wave.SignalFilter;
import dev.rdmasim.kernel.wave.VcdWriter;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * A small pipeline that shows the kernel at work: a source on a 250 MHz clock, a 4-entry FIFO, a
 * clock-domain crossing into 1 GHz, a 3-cycle delay line and a sink that stalls at random. It
 * writes a waveform ({@code wave.vcd}) and statistics ({@code stats.json}).
 */
public final class KernelDemo {
    /** What a run produced. */
    public record Result(long tokens, long simTimePs, long events, double throughputMtps, double meanLatencyNs,
            long p99LatencyPs, Path vcd, Path statsJson, String statsText) {
    }

    private KernelDemo() {
    }

    /**
     * Runs the demo and writes its files into {@code outDir}; a failed or refused run writes none.
     *
     * @param signalGlobs comma-separated globs of the signals to trace (empty: all)
     * @throws dev.rdmasim.kernel.wave.SignalGlobError if a glob selects none of the demo's signals
     */
    public static Result run(Path outDir, long seed, long tokens, String signalGlobs) throws IOException {
        if (tokens < 1) {
            throw new IllegalArgumentException("the demo needs at least one token, got " + tokens);
        }
        Files.createDirectories(outDir);
        Path vcd = outDir.resolve("wave.vcd");
        Path json = outDir.resolve("stats.json");
        // Written under temporary names and renamed at the end, so a refused or failed run leaves no file behind
        // and replaces none from an earlier run.
        Path vcdPartial = partial(vcd);
        Path jsonPartial = partial(json);
        try {
            Result r = simulate(seed, tokens, signalGlobs, vcdPartial, jsonPartial, vcd, json);
            Files.move(vcdPartial, vcd, StandardCopyOption.REPLACE_EXISTING);
            Files.move(jsonPartial, json, StandardCopyOption.REPLACE_EXISTING);
            return r;
        } catch (IOException | RuntimeException | Error e) {
            deleteQuietly(vcdPartial, e);
            deleteQuietly(jsonPartial, e);
            throw e;
        }
    }

    private static Result simulate(long seed, long tokens, String signalGlobs, Path vcdTo, Path jsonTo, Path vcd,
            Path json) throws IOException {
        Simulator sim = new Simulator(seed);
        Sink sink;
        try (Writer w = Files.newBufferedWriter(vcdTo, StandardCharsets.UTF_8);
                VcdWriter wave = new VcdWriter(w, sim, SignalFilter.parse(signalGlobs))) {
            sim.attachWave(wave);
            Module top = new Module(sim, "demo") {
            };
            ClockDomain pcie = ClockDomain.ofMHz(sim, "pcie", 250);
            ClockDomain core = ClockDomain.ofMHz(sim, "core", 1000);
            Source source = new Source(top, "source", pcie, tokens, 0.3, 4);
            sink = new Sink(top, "sink", core, tokens, 0.4, 6);
            OutPort<Token> queued = Fifo.of(source.out, "queue", 4, 1, false, false);
            OutPort<Token> crossed = AsyncFifo.of(queued, "cdc", core, 8, 2);
            Channels.connect(Fifo.of(crossed, "delay", 3, 3, false, true), sink.in);
            wave.requireEveryGlobMatches("demo.sink.*");
            Sink s = sink;
            Formula tput = top.stats().formula("throughput", "Mtokens/s", "tokens received per simulated microsecond",
                    () -> s.received() / Time.toUs(sim.now()));
            source.wake();
            sink.wake();
            sim.run();
            if (sink.received() != tokens) {
                throw new dev.rdmasim.kernel.InvariantViolation("demo delivered " + sink.received() + " of " + tokens + " tokens");
            }
            try (Writer jw = Files.newBufferedWriter(jsonTo, StandardCharsets.UTF_8)) {
                sim.stats().writeJson(jw);
            }
            return new Result(tokens, sim.now(), sim.eventsExecuted(), tput.value(), sink.latency().mean() / Time.NS,
                    sink.latency().percentile(99), vcd, json, sim.stats().toText());
        }
    }

    private static Path partial(Path p) {
        return p.resolveSibling(p.getFileName() + ".partial");
    }

    private static void deleteQuietly(Path p, Throwable cause) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            cause.addSuppressed(e);
        }
    }
}
