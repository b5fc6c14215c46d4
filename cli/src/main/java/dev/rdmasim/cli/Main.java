package dev.rdmasim.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of the {@code rdmasim} command. */
@Command(name = "rdmasim",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = "Cycle-level model of an RDMA network adapter driven by an NDK front end.",
        subcommands = {DemoCommand.class, ReplayCommand.class, ExplainCommand.class, PerfCommand.class, SweepCommand.class,
            WorkerCommand.class, ProfilesCommand.class,
            CommandLine.HelpCommand.class})
public final class Main implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(execute(args));
    }

    /** Runs the command line and returns the exit code: 0 success, 2 usage error, 1 failure. */
    public static int execute(String... args) {
        CommandLine cmd = new CommandLine(new Main());
        cmd.setExecutionExceptionHandler((ex, line, parsed) -> {
            if (ex instanceof UserError) {
                line.getErr().println("rdmasim: " + ex.getMessage());
                return 2;
            }
            throw ex;
        });
        return cmd.execute(args);
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
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
