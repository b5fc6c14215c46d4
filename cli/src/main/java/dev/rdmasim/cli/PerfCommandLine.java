package dev.rdmasim.cli;

import dev.rdmasim.traces.perf.PerfArgs;
import java.io.BufferedWriter;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A plain {@code perf} command line read and run without picocli. Building picocli's model of a command (its
 * converters registered and its annotations read by reflection, which makes the JVM generate a proxy class per
 * annotation type) costs a short run more than its simulation: about 0.15 s of the 1.15 s of CPU a {@code perf
 * write_lat -n 2000} took on the machine of docs/performance.md's session 17. This reader takes only the forms
 * whose meaning under picocli is plain: the test named once, each option written out in full and given at most
 * once (except {@code --set}), its value as the next argument, not starting with {@code -} or {@code @}, and a
 * number where picocli would convert one. Anything else (help, a test of the PCIe benchmark, {@code --opt=value},
 * clustered or unknown options, argument files, a bad number, a repeat, picocli settings in the system properties)
 * is declined, and picocli then reads the line as before, with its own errors. {@code PerfCommandLineTest} checks,
 * on seeded random command lines, that every line this reader takes picocli reads to the same values, and that
 * the option names are picocli's.
 */
final class PerfCommandLine {
    /** perf's own options with a value, and its switch (the perftest flags come from {@link PerfArgs#flags}). */
    static final List<String> VALUE_OPTIONS = List.of("--window", "--profile", "--set", "--seed", "--record");
    static final List<String> SWITCHES = List.of("--json");

    private PerfCommandLine() {
    }

    /**
     * Runs {@code args} as picocli would and returns the exit code, or returns null, having done nothing, when
     * they are not a plain perf command line.
     */
    static Integer run(String[] args) {
        PerfCommand c = parse(args);
        if (c == null) {
            return null;
        }
        c.out = writer(System.out, "sun.stdout.encoding");
        c.err = writer(System.err, "sun.stderr.encoding");
        try {
            return c.call();
        } catch (Exception ex) {
            return failed(ex, c.err);
        } finally {
            c.out.flush();
            c.err.flush();
        }
    }

    /**
     * What picocli's execution makes of {@code ex} with Main's handler: a user's mistake reported in one line (2),
     * anything else a failure of the simulator, printed with its stack trace (1). (An Error propagates, as picocli
     * lets it.)
     */
    static int failed(Exception ex, PrintWriter err) {
        String message = Main.userMessage(ex);
        if (message == null) {
            ex.printStackTrace(err);
            return 1;
        }
        return Main.reportUserError(message, err);
    }

    /** The command {@code args} give with its fields set, or null when they are not a plain perf command line. */
    static PerfCommand parse(String[] args) {
        if (args.length < 2 || !args[0].equals("perf") || HelpTexts.picocliSettings()) {
            return null;
        }
        PerfCommand c = new PerfCommand();
        Map<String, String> given = new LinkedHashMap<>();
        Set<String> seen = new HashSet<>();
        List<String> overrides = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            if (a.startsWith("@")) {
                return null; // an argument file
            }
            if (!a.startsWith("-")) {
                if (c.test != null || a.startsWith("pcie_")) {
                    return null; // a second positional is an error; pcie tests re-read their flags by picocli
                }
                c.test = a;
                continue;
            }
            PerfArgs.Flag flag = PerfArgs.find(a);
            boolean takesValue = flag != null ? flag.takesValue() : VALUE_OPTIONS.contains(a);
            if (flag == null && !takesValue && !SWITCHES.contains(a)) {
                return null; // help, version, unknown, clustered, attached value, "--"
            }
            String key = flag != null ? flag.name() : a;
            if (!key.equals("--set") && !seen.add(key)) {
                return null; // picocli refuses a repeat
            }
            String value = "true";
            if (takesValue) {
                if (i + 1 == args.length) {
                    return null;
                }
                value = args[++i];
                if (value.startsWith("-") || value.startsWith("@")) {
                    return null; // picocli may take it for an option or a file
                }
            }
            if (flag != null) {
                given.put(key, value);
                continue;
            }
            if (key.equals("--window") || key.equals("--seed") || key.equals("--record")) {
                try {
                    switch (key) {
                        case "--window" -> c.window = Integer.valueOf(value);
                        case "--seed" -> c.seed = Long.valueOf(value);
                        default -> c.record = Path.of(value);
                    }
                } catch (RuntimeException e) {
                    return null; // picocli's conversion error (a bad number or path) is the message the user gets
                }
                continue;
            }
            switch (key) {
                case "--profile" -> c.profile = value;
                case "--set" -> overrides.add(value);
                case "--json" -> c.json = true;
                default -> throw new IllegalStateException("option " + key + " listed but not read");
            }
        }
        if (c.test == null) {
            return null;
        }
        c.overrides = overrides;
        // In the order picocli's parse result lists them (PerfArgs.flags()).
        Map<String, String> flags = new LinkedHashMap<>();
        for (PerfArgs.Flag f : PerfArgs.flags()) {
            if (given.containsKey(f.name())) {
                flags.put(f.name(), given.get(f.name()));
            }
        }
        c.flags = flags;
        return c;
    }

    /** The writer picocli gives a command by default: the stream in the JVM's encoding for it, flushing each line. */
    private static PrintWriter writer(OutputStream stream, String encodingProperty) {
        return new PrintWriter(new BufferedWriter(new OutputStreamWriter(stream, charset(
                System.getProperty(encodingProperty)))), true);
    }

    /** The charset picocli takes for an encoding property's value: the default unless it names a known one. */
    static Charset charset(String name) {
        if (name == null) {
            return Charset.defaultCharset();
        }
        try {
            return Charset.forName(name.equalsIgnoreCase("cp65001") ? "UTF-8" : name);
        } catch (RuntimeException e) {
            return Charset.defaultCharset();
        }
    }
}
