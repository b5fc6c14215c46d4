package dev.rdmasim.cli;

import dev.rdmasim.traces.format.TraceError;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of the {@code rdmasim} command. */
@Command(name = "rdmasim",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = "Cycle-level model of an RDMA network adapter driven by an NDK front end.")
public final class Main implements Runnable {
    /** The subcommands, in the order help lists them. */
    private static final List<Class<?>> SUBCOMMANDS = List.of(DemoCommand.class, ReplayCommand.class,
            ExplainCommand.class, PerfCommand.class, SweepCommand.class, WorkerCommand.class, ProfilesCommand.class,
            ValidateCommand.class, CommandLine.HelpCommand.class);

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(execute(args));
    }

    /** Runs the command line and returns the exit code: 0 success, 2 usage error, 1 failure. */
    public static int execute(String... args) {
        if (args.length == 1 && (args[0].equals("--version") || args[0].equals("-V"))) {
            // Answered before the command tree is built: picocli's model of every subcommand is most of the
            // start-up time, and the version needs none of it (the output is what picocli prints).
            for (String line : new Version().getVersion()) {
                System.out.println(line);
            }
            System.out.flush();
            return 0;
        }
        if (HelpTexts.print(args)) {
            return 0;
        }
        Integer perf = PerfCommandLine.run(args);
        if (perf != null) {
            return perf;
        }
        return viaPicocli(args);
    }

    /** {@link #execute} by picocli alone: the command tree built, the arguments parsed and run. */
    static int viaPicocli(String... args) {
        CommandLine cmd = commandLine(args.length == 0 ? null : args[0]);
        cmd.setExecutionExceptionHandler((ex, line, parsed) -> {
            String message = userMessage(ex);
            if (message != null) {
                return reportUserError(message, line.getErr());
            }
            throw ex;
        });
        cmd.setParameterExceptionHandler(Main::parameterError);
        return cmd.execute(args);
    }

    /** The command line with every subcommand. */
    static CommandLine commandLine() {
        return commandLine(null);
    }

    /**
     * The command line for a run whose first argument is {@code first}: when that names a subcommand, only that
     * one is built. Picocli's model of a command (its options read by reflection) is most of a short command's
     * start-up, and a run uses one subcommand; help, errors and suggestions about the top level need them all.
     */
    static CommandLine commandLine(String first) {
        Class<?> only = null;
        for (Class<?> sub : SUBCOMMANDS) {
            Command c = sub.getAnnotation(Command.class);
            if (sub != CommandLine.HelpCommand.class
                    && first != null && (c.name().equals(first) || List.of(c.aliases()).contains(first))) {
                only = sub;
            }
        }
        CommandLine line = new CommandLine(new Main());
        for (Class<?> sub : SUBCOMMANDS) {
            if (only == null || sub == only) {
                line.addSubcommand(new CommandLine(sub)); // built alone, so its model transformer applies
            }
        }
        return line;
    }

    /** Prints a mistake of the user's as its one line and returns the exit code for it. */
    static int reportUserError(String message, java.io.PrintWriter err) {
        err.println("rdmasim: " + TraceError.printable(message));
        return 2;
    }

    /** The one line a mistake of the user's is reported as, or null for a failure of the simulator itself. */
    static String userMessage(Exception ex) {
        if (ex instanceof UserError || ex instanceof TraceError) {
            return ex.getMessage();
        }
        if (ex instanceof UncheckedIOException u) {
            // A place the user named could not be read or written (a full disk, a path taken away).
            return u.getMessage() + ": " + OutputPaths.describe(u.getCause());
        }
        return null;
    }

    /**
     * A command line picocli could not parse (unknown option or command, missing or bad value): one line saying
     * what, and where the command's help is, rather than the whole usage text.
     */
    private static int parameterError(CommandLine.ParameterException ex, String[] args) {
        CommandLine line = ex.getCommandLine();
        String message = ex.getMessage();
        if (ex instanceof CommandLine.UnmatchedArgumentException u && !u.getSuggestions().isEmpty()) {
            message += " (did you mean " + String.join(" or ", u.getSuggestions().stream().limit(3)
                    .map(s -> "'" + s + "'").toList()) + "?)";
        }
        // The help command as the user starts it: the qualified name less its first word, after command().
        String qualified = line.getCommandSpec().qualifiedName();
        String sub = qualified.indexOf(' ') < 0 ? "" : qualified.substring(qualified.indexOf(' '));
        line.getErr().println("rdmasim: " + TraceError.printable(message) + "; see " + command() + sub + " --help");
        return 2;
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** The system property through which the {@code ./rdmasim} launcher says how it was started. */
    static final String COMMAND_PROPERTY = "rdmasim.command";

    /**
     * How the user starts this command, for the commands that hints print: what the launcher says it was started
     * as ({@code ./rdmasim}, {@code ../rdmasim}, ...), else {@code java -jar} with this jar, else {@code rdmasim}
     * (run from classes, as in the tests).
     */
    static String command() {
        String launcher = System.getProperty(COMMAND_PROPERTY);
        if (launcher != null && !launcher.isBlank()) {
            return launcher;
        }
        try {
            CodeSource source = Main.class.getProtectionDomain().getCodeSource();
            if (source != null) {
                Path where = Path.of(source.getLocation().toURI());
                if (Files.isRegularFile(where)) {
                    return "java -jar " + where;
                }
            }
        } catch (URISyntaxException | RuntimeException e) {
            // fall through: no better name than the command's own
        }
        return "rdmasim";
    }

    /** Version from the jar manifest, or "development" when run from classes. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Main.class.getPackage().getImplementationVersion();
            return new String[] {"rdmasim " + (v == null ? "development" : v)};
        }
    }
}
