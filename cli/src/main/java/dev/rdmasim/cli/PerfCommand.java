package dev.rdmasim.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.config.Profiles;
import dev.rdmasim.sweep.Limit;
import dev.rdmasim.sweep.PointResult;
import dev.rdmasim.sweep.PointRunner;
import dev.rdmasim.traces.perf.BwResult;
import dev.rdmasim.traces.perf.LatResult;
import dev.rdmasim.traces.perf.Perf;
import dev.rdmasim.traces.perf.PerfArgs;
import dev.rdmasim.traces.perf.PerfFailure;
import dev.rdmasim.traces.perf.PerfOptions;
import dev.rdmasim.traces.perf.PerfResult;
import dev.rdmasim.traces.perf.PerfTest;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code rdmasim perf TEST}: perftest's workloads on two modeled hosts, with perftest's flags and table. */
@Command(name = "perf",
        mixinStandardHelpOptions = true,
        modelTransformer = PerfCommand.Flags.class,
        description = {"Runs a perftest workload (bw or lat, send/write/read) on two modeled hosts.",
            "Host A (client) connects -q QPs to host B (server) through the NDK calls, then streams (bw) or"
                + " ping-pongs (lat) for each size. Prints perftest's table, or one JSON object per size with --json."
                + " Times are simulated."})
final class PerfCommand implements Callable<Integer> {
    private static final String LINE = "-".repeat(95);

    /** Set by picocli; null when {@link PerfCommandLine} read the command line instead. */
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /**
     * What {@link PerfCommandLine} read without picocli: the perftest flags given ({@link #flagValues} order and
     * form) and where output goes; all null under picocli, which holds them in {@link #spec}.
     */
    Map<String, String> flags;
    PrintWriter out;
    PrintWriter err;

    @Parameters(index = "0", paramLabel = "TEST",
            description = {"send_bw, write_bw, read_bw, send_lat, write_lat or read_lat; or pcie_read or pcie_write:"
                + " the adapter's DMA engine streams reads or writes of -s bytes over PCIe, as pcie-bench does from"
                + " the device side (-s from 64 to 65536 B; -a: 64 B to 4 KiB; --window)."})
    String test;

    @Option(names = "--window", paramLabel = "N",
            description = "pcie_read/pcie_write only: DMA requests kept outstanding (default: every read tag).")
    Integer window;

    @Option(names = "--profile", paramLabel = "NAME|FILE",
            description = "Adapter profile: a shipped name (default, cx3-like, connectib-like, cx5-like, cx6-like) or a YAML file (default: ${DEFAULT-VALUE}).")
    String profile = "default";

    @Option(names = "--set", paramLabel = "KEY=VALUE",
            description = {"Override a profile parameter (repeatable).", "Example: --set host.mmioStoreTime=100ns"})
    List<String> overrides = new ArrayList<>();

    @Option(names = "--seed", paramLabel = "N", description = "Run seed (default: ${DEFAULT-VALUE}).")
    long seed = 1;

    @Option(names = "--json", description = "Print one JSON object per size instead of the table.")
    boolean json;

    @Option(names = "--record", paramLabel = "FILE",
            description = "Write the run's NDK calls as a trace (rdmasim replay FILE takes the same completions at the same times).")
    java.nio.file.Path record;

    @Override
    public Integer call() {
        if (test.startsWith("pcie_")) {
            if (record != null) {
                throw new UserError("--record applies to the NDK tests, not to " + test + " (it makes no NDK calls)");
            }
            return pcie();
        }
        if (window != null) {
            throw new UserError("--window applies to pcie_read and pcie_write only");
        }
        PerfOptions options = options();
        if (record != null) {
            OutputPaths.file("--record", record);
        }
        PrintWriter out = out();
        if (!json) {
            printHeader(out, options);
        }
        // Built only for --json: its set-up loads a few hundred classes a table does not need.
        ObjectMapper mapper = json ? new ObjectMapper() : null;
        long[] sizesDone = {0};
        // Busy and full fractions over the measured part, for the note on what limits the run.
        List<PointResult.Metric> busy = new ArrayList<>();
        List<PointResult.Bound> bounds = new ArrayList<>();
        PointRunner.BusyWindow window = new PointRunner.BusyWindow(busy, bounds);
        try (ProgressDisplay bar = new ProgressDisplay("perf " + options.test().label(), "sizes", true)) {
            bar.total(work(options));
            Perf.run(options, r -> {
                bar.println(out, json ? toJson(mapper, r) : row(r));
                bar.step(++sizesDone[0]);
            }, record, window::start, window::end);
        } catch (PerfFailure e) {
            out.flush();
            err().println("rdmasim: perf " + options.test().label() + " failed: " + e.getMessage());
            return 1;
        }
        if (!json) {
            out.println(LINE);
            out.println(" limited by      : " + Limit.of(busy, bounds).describe());
            if (record != null) {
                out.println(" recorded trace  : " + record);
            }
            out.flush();
        }
        return 0;
    }

    /**
     * What each size costs to simulate, roughly: every message (or round trip) is a few events, and every packet
     * (an MTU of payload) a few more, so -a's 8 MiB size weighs thousands of times its 2 B one.
     */
    static double[] work(PerfOptions options) {
        double mtu = options.mtu();
        double[] w = new double[options.sizes().size()];
        for (int i = 0; i < w.length; i++) {
            w[i] = options.iterations() * (1 + Math.ceil(options.sizes().get(i) / mtu));
        }
        return w;
    }

    /** The flags as checked options; any mistake is a {@link UserError} naming the flag. */
    PerfOptions options() {
        try {
            PerfTest t = PerfTest.fromLabel(test);
            Profile p = Profiles.resolve(profile).withOverrides(overrides);
            return PerfArgs.options(t, p, seed, flagValues());
        } catch (IllegalArgumentException e) {
            throw new UserError(e.getMessage());
        }
    }

    /** The perftest flags given, by short name ({@code -a} as "true"), in {@link PerfArgs#flags()} order. */
    Map<String, String> flagValues() {
        if (flags != null) {
            return flags;
        }
        CommandLine.ParseResult parsed = spec.commandLine().getParseResult();
        Map<String, String> values = new LinkedHashMap<>();
        for (PerfArgs.Flag f : PerfArgs.flags()) {
            if (parsed.hasMatchedOption(f.name())) {
                values.put(f.name(), f.takesValue() ? parsed.matchedOptionValue(f.name(), "") : "true");
            }
        }
        return values;
    }

    private PrintWriter out() {
        return spec != null ? spec.commandLine().getOut() : out;
    }

    private PrintWriter err() {
        return spec != null ? spec.commandLine().getErr() : err;
    }

    /**
     * Declares perftest's flags from {@link PerfArgs#flags()}, the table the flags are parsed by, so the command
     * and sweeps take the same flags with the same meaning. Values stay text: {@link PerfArgs} checks them.
     */
    static final class Flags implements CommandLine.IModelTransformer {
        @Override
        public CommandLine.Model.CommandSpec transform(CommandLine.Model.CommandSpec command) {
            for (PerfArgs.Flag f : PerfArgs.flags()) {
                CommandLine.Model.OptionSpec.Builder b = CommandLine.Model.OptionSpec.builder(f.name(), f.longName())
                        .description(f.description());
                if (f.takesValue()) {
                    b.paramLabel(f.label()).type(String.class).arity("1");
                } else {
                    b.type(boolean.class).arity("0");
                }
                command.addOption(b.build());
            }
            return command;
        }
    }

    private void printHeader(PrintWriter o, PerfOptions p) {
        String profileName = p.profile().name() + (overrides.isEmpty() ? "" : " with " + String.join(", ", overrides));
        o.println(LINE);
        o.printf(Locale.US, "                    %s (rdmasim: simulated time, seed %d)%n", p.test().title(), p.seed());
        o.printf(Locale.US, " Profile         : %s%n", profileName);
        o.printf(Locale.US, " Number of qps   : %-10d Transport type : RoCEv2 RC (NDK)%n", p.qps());
        o.printf(Locale.US, " TX depth        : %-10d CQ Moderation  : %d%n", p.txDepth(), p.cqMod());
        o.printf(Locale.US, " RX depth        : %-10s Post List      : %d%n",
                p.test().verb() == PerfTest.Verb.SEND ? Integer.toString(p.rxDepth()) : "-", p.postList());
        o.printf(Locale.US, " Mtu             : %-10s Max inline data: %d[B]%n", p.mtu() + "[B]", p.inlineSize());
        o.println(LINE);
        if (p.test().isBandwidth()) {
            o.println(" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]"
                    + "   lat p50[usec]   lat p99[usec]   lat p99.9[usec]");
        } else {
            o.println(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]"
                    + "    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]");
        }
        o.flush();
    }

    /** One table row in perftest's column layout. */
    static String row(PerfResult r) {
        if (r instanceof BwResult b) {
            return String.format(Locale.US, " %-10d %-14d %-18.2f %-20.2f %-16.6f %-15.3f %-15.3f %.3f", b.bytes(),
                    b.iterations(), b.bwPeakGbps(), b.bwAvgGbps(), b.msgRateMpps(), b.latP50Us(), b.latP99Us(),
                    b.latP999Us());
        }
        LatResult l = (LatResult) r;
        return String.format(Locale.US, " %-6d %-14d %-14.3f %-12.3f %-18.3f %-14.3f %-15.3f %-22.3f %.3f",
                l.bytes(), l.iterations(), l.tMinUs(), l.tMaxUs(), l.tTypicalUs(), l.tAvgUs(), l.tStdevUs(), l.tP99Us(),
                l.tP999Us());
    }

    /** One result as a JSON object (keys in the documented order). */
    static String toJson(ObjectMapper mapper, PerfResult r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("test", r.test().label());
        m.put("bytes", r.bytes());
        m.put("iterations", r.iterations());
        if (r instanceof BwResult b) {
            m.put("bw_peak_gbps", b.bwPeakGbps());
            m.put("bw_avg_gbps", b.bwAvgGbps());
            m.put("msg_rate_mpps", b.msgRateMpps());
            m.put("lat_p50_us", b.latP50Us());
            m.put("lat_p99_us", b.latP99Us());
            m.put("lat_p999_us", b.latP999Us());
        } else {
            LatResult l = (LatResult) r;
            m.put("t_min_us", l.tMinUs());
            m.put("t_max_us", l.tMaxUs());
            m.put("t_typical_us", l.tTypicalUs());
            m.put("t_avg_us", l.tAvgUs());
            m.put("t_stdev_us", l.tStdevUs());
            m.put("t_p99_us", l.tP99Us());
            m.put("t_p999_us", l.tP999Us());
        }
        m.put("sim_time_ps", r.simTimePs());
        m.put("wall_s", r.wallSeconds());
        try {
            return mapper.writeValueAsString(m);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** pcie_read / pcie_write: the DMA benchmark, with the flags it shares with the others. */
    private int pcie() {
        if (spec == null) {
            throw new IllegalStateException("pcie tests are read by picocli (PerfCommandLine leaves them to it)");
        }
        for (String flag : new String[] {"-t", "-r", "-I", "-q", "-l", "-Q", "-m"}) {
            if (spec.commandLine().getParseResult().hasMatchedOption(flag)) {
                throw new UserError(flag + " does not apply to " + test);
            }
        }
        List<String> args = new ArrayList<>(List.of(test));
        flagValues().forEach((flag, value) -> {
            args.add(flag);
            if (PerfArgs.lookup(flag).takesValue()) {
                args.add(value);
            }
        });
        if (window != null) {
            args.addAll(List.of("--window", window.toString()));
        }
        args.addAll(List.of("--profile", profile, "--seed", Long.toString(seed)));
        for (String o : overrides) {
            args.addAll(List.of("--set", o));
        }
        if (json) {
            args.add("--json");
        }
        CommandLine pcie = new CommandLine(new PciePerfCommand());
        pcie.setOut(spec.commandLine().getOut());
        pcie.setErr(spec.commandLine().getErr());
        pcie.setExecutionExceptionHandler(spec.commandLine().getExecutionExceptionHandler());
        pcie.setParameterExceptionHandler(spec.commandLine().getParameterExceptionHandler());
        return pcie.execute(args.toArray(String[]::new));
    }
}
