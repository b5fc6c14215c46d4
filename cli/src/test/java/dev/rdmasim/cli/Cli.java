package dev.rdmasim.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Runs {@link Main#execute} with stdout and stderr captured, for the command tests. */
record Cli(int code, String out, String err) {
    static Cli run(String... args) {
        return capture(() -> Main.execute(args));
    }

    /** Runs {@code command} (which returns an exit code) with stdout and stderr captured. */
    static Cli capture(java.util.function.IntSupplier command) {
        PrintStream savedOut = System.out;
        PrintStream savedErr = System.err;
        var stdout = new ByteArrayOutputStream();
        var stderr = new ByteArrayOutputStream();
        System.setOut(new PrintStream(stdout, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(stderr, true, StandardCharsets.UTF_8));
        int status;
        try {
            status = command.getAsInt();
        } finally {
            System.setOut(savedOut);
            System.setErr(savedErr);
        }
        return new Cli(status, stdout.toString(StandardCharsets.UTF_8), stderr.toString(StandardCharsets.UTF_8));
    }
}
