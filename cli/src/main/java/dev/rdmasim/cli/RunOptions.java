package dev.rdmasim.cli;

import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/** The options of commands that replay a trace: the hosts' default profile, overrides and the seed (a mixin). */
final class RunOptions {
    @Option(names = "--profile", paramLabel = "NAME|FILE",
            description = "Profile of hosts whose host line names none (default: ${DEFAULT-VALUE}).")
    String profile = "default";

    @Option(names = "--set", paramLabel = "KEY=VALUE", description = "Override a profile parameter on every host (repeatable).")
    List<String> overrides = new ArrayList<>();

    @Option(names = "--seed", paramLabel = "N", description = "Run seed (default: ${DEFAULT-VALUE}).")
    long seed = 1;
}
