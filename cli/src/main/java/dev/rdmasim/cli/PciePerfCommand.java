package dev.rdmasim.cli;

import dev.rdmasim.adapter.config.Parameters;
import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.kernel.Time;
import dev.rdmasim.traces.pcie.PcieBench;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code rdmasim perf pcie_read|pcie_write}: the pcie-bench-style DMA benchmark of {@link PcieBench}. Not registered
 * itself: {@link PerfCommand} hands these two tests over to it with their options.
 */
@Command(name = "perf",
        mixinStandardHelpOptions = true,
        description = {"PCIe DMA benchmark in the manner of pcie-bench (pcie_read, pcie_write).",
            "The adapter's DMA engine streams DMA reads or writes of SIZE bytes to consecutive host addresses in a"
                + " 1 MiB buffer, WINDOW outstanding; reports payload bandwidth and, for reads, the latency of reads"
                + " issued one at a time. Reached as 'perf pcie_read|pcie_write' (PerfCommand hands these tests"
                + " over)."})
final class PciePerfCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Parameters(index = "0", paramLabel = "TEST", description = "pcie_read or pcie_write.")
    String test;

    @Option(names = {"-s", "--size"}, paramLabel = "BYTES",
            description = "Bytes per DMA request, 64..65536 (default: ${DEFAULT-VALUE}).")
    int size = 64;

    @Option(names = {"-a", "--all"}, description = "Sweep sizes 64 B .. 4 KiB, doubling.")
    boolean all;

    @Option(names = {"-n", "--iters"}, paramLabel = "N",
            description = "DMA requests in the bandwidth run, at least 2 (default: ${DEFAULT-VALUE}).")
    long iterations = PcieBench.DEFAULT_ITERATIONS;

    @Option(names = "--window", paramLabel = "N",
            description = "DMA requests outstanding, 1..1024 (default: the profile's pcie.readTags).")
    int window;

    @Option(names = "--profile", paramLabel = "NAME|FILE",
            description = "Adapter profile: a shipped name or a YAML file (default: ${DEFAULT-VALUE}).")
    String profile = "default";

    @Option(names = "--set", paramLabel = "KEY=VALUE", description = {"Override a profile parameter (repeatable).", "Example: --set pcie.mps=128"})
    List<String> overrides = new ArrayList<>();

    @Option(names = "--seed", paramLabel = "N", description = "Run seed: the data patterns (default: ${DEFAULT-VALUE}).")
    long seed = 1;

    @Option(names = "--json", description = "Machine-readable output: one object, or an array with -a.")
    boolean json;

    @Override
    public void run() {
        PcieBench.Test t;
        List<PcieBench.Options> runs = new ArrayList<>();
        try {
            t = PcieBench.Test.of(test);
            // 0 stands for "the profile's read tags" only when --window is not given.
            boolean given = spec.commandLine().getParseResult().hasMatchedOption("--window");
            if (window < 0 || window > PcieBench.MAX_WINDOW || given && window == 0) {
                throw new IllegalArgumentException("--window must be 1.." + PcieBench.MAX_WINDOW + ", got " + window);
            }
            if (all && spec.commandLine().getParseResult().hasMatchedOption("-s")) {
                throw new IllegalArgumentException("-s and -a exclude each other");
            }
            for (int s : all ? PcieBench.ALL_SIZES : new int[] {size}) {
                runs.add(new PcieBench.Options(t, s, iterations, window, seed));
            }
        } catch (IllegalArgumentException e) {
            throw new UserError(e.getMessage());
        }
        Profile p = ProfilesCommand.resolve(profile, overrides);
        List<PcieBench.Result> results = new ArrayList<>();
        for (PcieBench.Options o : runs) {
            results.add(PcieBench.run(p, o));
        }
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            List<Map<String, Object>> objects = new ArrayList<>();
            for (PcieBench.Result r : results) {
                objects.add(r.json());
            }
            ProfilesCommand.printJson(out, all ? objects : objects.get(0));
            return;
        }
        printTable(out, p, t, results);
    }

    private static void printTable(PrintWriter o, Profile p, PcieBench.Test t, List<PcieBench.Result> results) {
        boolean read = t == PcieBench.Test.PCIE_READ;
        o.printf(Locale.US, "%s: DMA %s of the adapter's DMA engine, profile %s (PCIe Gen%s x%s, MPS %s, MRRS %s),"
                        + " window %d, sequential over a 1 MiB host buffer%n",
                t.label(), read ? "reads" : "writes", p.name(), p.get(Parameters.PCIE_GEN.key()),
                p.get(Parameters.PCIE_LANES.key()), p.get(Parameters.PCIE_MPS.key()), p.get(Parameters.PCIE_MRRS.key()),
                results.get(0).window());
        if (read) {
            o.printf(Locale.US, "%8s %10s %9s %14s %11s %14s %12s%n", "bytes", "iterations", "bw_gbps",
                    "lat_ns_median", "lat_ns_p99", "loaded_median", "sim_time");
        } else {
            o.printf(Locale.US, "%8s %10s %9s %12s%n", "bytes", "iterations", "bw_gbps", "sim_time");
        }
        for (PcieBench.Result r : results) {
            if (read) {
                o.printf(Locale.US, "%8d %10d %9.2f %14.1f %11.1f %14.1f %12s%n", r.bytes(), r.iterations(),
                        r.bwGbps(), r.latNsMedian(), r.latNsP99(), r.loadedLatNsMedian(), Time.format(r.simTimePs()));
            } else {
                o.printf(Locale.US, "%8d %10d %9.2f %12s%n", r.bytes(), r.iterations(), r.bwGbps(),
                        Time.format(r.simTimePs()));
            }
        }
        if (read) {
            o.printf(Locale.US, "latency: %d reads one at a time on the idle link; loaded_median: during the"
                    + " bandwidth run%n", results.get(0).latencyIterations());
        }
        o.flush();
    }
}
