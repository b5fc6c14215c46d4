package dev.rdmasim.cli;

import dev.rdmasim.adapter.config.ProfileException;
import dev.rdmasim.sweep.report.ValidationPlots;
import dev.rdmasim.traces.validate.Validation;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code rdmasim validate}: the model against the shipped table of published measurements of real adapters. */
@Command(name = "validate",
        mixinStandardHelpOptions = true,
        // In the order declared: the synopsis then wraps between options, never inside --only's ID[,ID...].
        sortSynopsis = false,
        description = {"Run the model against published measurements of real adapters.",
            "Each row of the shipped table (perftest latency and bandwidth on ConnectX-class adapters, pcie-bench DMA"
                + " latency) runs on the profile and settings that describe its hardware; the hardware's figure and"
                + " the model's are printed side by side with the error and the row's tolerance. Exit 0 when every"
                + " figure is within its tolerance, 1 when one is not. Sources: docs/calibration.md."})
final class ValidateCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--only", paramLabel = "ID", split = ",",
            description = {"Run only these rows (comma-separated ids; see --list).", "Example: --only cx5-write-lat-8"})
    List<String> only = new ArrayList<>();

    @Option(names = "--list", description = "List the table's rows and exit.")
    boolean list;

    @Option(names = "--report", paramLabel = "FILE",
            description = "Also write the comparison as Markdown to FILE (a new file; an existing one is not replaced).")
    Path report;

    @Option(names = "--out", paramLabel = "DIR",
            description = {"Write validation.md (as --report) and the plots latency-vs-size.png and"
                + " bandwidth-vs-size.png into DIR, a new or empty directory: the model's curve over message sizes for"
                + " each group of rows that share hardware, settings and test, with the published figures as markers."})
    Path out;

    @Option(names = "--set", paramLabel = "KEY=VALUE",
            description = {"Override a parameter on every row, after the row's own settings (repeatable): what the"
                + " figures would be on a changed adapter or host.", "Example: --set pcie.hostWriteLatency=300ns"})
    List<String> set = new ArrayList<>();

    @Override
    public Integer call() {
        PrintWriter o = spec.commandLine().getOut();
        List<Validation.Measurement> table = Validation.table();
        if (list) {
            for (Validation.Measurement m : table) {
                o.printf(Locale.US, "%-20s %s%n", m.id(), m.what());
            }
            o.flush();
            return 0;
        }
        List<Validation.Measurement> chosen = new ArrayList<>();
        for (String id : only) {
            chosen.add(table.stream().filter(m -> m.id().equals(id)).findFirst()
                    .orElseThrow(() -> new UserError("--only: no row '" + id + "' (see rdmasim validate --list)")));
        }
        if (chosen.isEmpty()) {
            chosen = table;
        }
        for (Validation.Measurement m : chosen) {
            try {
                Validation.profile(m, set);
            } catch (ProfileException e) {
                throw new UserError("--set: " + e.getMessage() + " (row " + m.id() + ")");
            }
        }
        if (report != null) {
            OutputPaths.file("--report", report);
            if (Files.exists(report)) {
                throw new UserError("--report " + report + " exists; remove it or name another file");
            }
        }
        if (out != null) {
            OutputPaths.emptyDirectory("--out", out);
        }
        o.printf(Locale.US, "%-20s %-15s %12s %12s %9s %6s  %s%n", "id", "figure", "hardware", "model", "error", "tol",
                "verdict");
        o.flush();
        List<Validation.Row> rows = new ArrayList<>();
        for (Validation.Measurement m : chosen) {
            Validation.Row r = Validation.run(m, set);
            rows.add(r);
            o.printf(Locale.US, "%-20s %-15s %12s %12s %+8.1f%% %5.0f%%  %s%n", m.id(), m.figure().key(),
                    fmt(m.hardware(), m.figure()), fmt(r.model(), m.figure()), r.errorPct(), m.tolerance(),
                    r.within() ? "ok" : "OUT");
            o.flush();
        }
        long ok = rows.stream().filter(Validation.Row::within).count();
        o.printf(Locale.US, "%d of %d figures within their tolerance%n", ok, rows.size());
        if (report != null) {
            try {
                Files.writeString(report, Validation.markdown(rows), StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW);
            } catch (IOException e) {
                throw new UserError("--report " + report + ": " + OutputPaths.describe(e));
            }
            o.println("report: " + report);
        }
        if (out != null) {
            writeOut(o, rows);
        }
        o.flush();
        return ok == rows.size() ? 0 : 1;
    }

    /** validation.md and the plots; the curves run each group's setup over message sizes (seed 1, as the rows). */
    private void writeOut(PrintWriter o, List<Validation.Row> rows) {
        List<Validation.Curve> curves = Validation.curves(rows, set);
        int points = curves.stream().mapToInt(c -> c.sizes().size() - c.group().rows().size()).sum();
        try {
            Files.createDirectories(out);
            Path md = out.resolve("validation.md");
            Files.writeString(md, Validation.markdown(rows), StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW);
            List<Path> written = new ArrayList<>(List.of(md));
            written.addAll(ValidationPlots.write(out, curves));
            o.printf(Locale.US, "out: %s (%d curves, %d points run beside the rows): %s%n", out, curves.size(),
                    points, String.join(", ", written.stream().map(p -> p.getFileName().toString()).toList()));
        } catch (IOException e) {
            throw new UserError("--out " + out + ": " + OutputPaths.describe(e));
        }
    }

    private static String fmt(double v, Validation.Figure f) {
        return String.format(Locale.US, v >= 100 ? "%.0f %s" : "%.3f %s", v, f.unit());
    }
}
