package dev.rdmasim.cli;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.function.ToIntFunction;

/**
 * The run the launcher records a class-data sharing archive from ({@code -XX:ArchiveClassesAtExit}): the help
 * text, a tiny latency test and a tiny bandwidth test, so that the archive holds what short commands load (the
 * command line, the profile reader, the adapter model, the perf harness) and every later run maps those classes
 * instead of loading and verifying them. Given a directory, it first renders every help text into it
 * ({@link HelpTexts}) and runs the steps with those texts in use. Output is discarded; the exit code says whether
 * every step ran.
 */
public final class StartupTraining {
    /** The commands run, in order. Small enough to take well under a second once compiled. */
    static final String[][] STEPS = {
        {"--help"},
        {"perf", "--help"},
        {"perf", "write_lat", "-s", "2", "-n", "50"},
        {"perf", "write_bw", "-s", "64", "-n", "200"},
    };
    /**
     * Run through picocli even though {@link PerfCommandLine} would take them, so the archive also holds picocli's
     * classes and its model of a command, which every other command line loads.
     */
    static final String[][] PICOCLI_STEPS = {
        {"perf", "write_lat", "-s", "2", "-n", "20"},
    };

    private StartupTraining() {
    }

    public static void main(String[] args) {
        if (args.length > 1) {
            System.err.println("usage: StartupTraining [HELP-DIRECTORY]");
            System.exit(2);
        }
        if (args.length == 1) {
            HelpTexts.render(Path.of(args[0]));
            System.setProperty(HelpTexts.DIR_PROPERTY, args[0]);
        }
        System.exit(run());
    }

    /** Runs every step with its output discarded; 0 when each exited 0, else the first failing step's code. */
    static int run() {
        PrintStream out = System.out;
        PrintStream err = System.err;
        PrintStream nowhere = new PrintStream(OutputStream.nullOutputStream());
        int firstFailure;
        try {
            System.setOut(nowhere);
            System.setErr(nowhere);
            firstFailure = runAll(STEPS, Main::execute);
            int picocli = runAll(PICOCLI_STEPS, Main::viaPicocli);
            if (firstFailure == 0) {
                firstFailure = picocli;
            }
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
        return firstFailure;
    }

    /** Runs each step by {@code how}; 0 when each exited 0, else the first failing step's code. */
    private static int runAll(String[][] steps, ToIntFunction<String[]> how) {
        int firstFailure = 0;
        for (String[] step : steps) {
            int code = how.applyAsInt(step);
            if (code != 0 && firstFailure == 0) {
                firstFailure = code;
            }
        }
        return firstFailure;
    }
}
