package dev.rdmasim.traces.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Runs a scale test's main class in a JVM of its own with a small heap and returns what it printed. */
public final class ForkedScale {
    private ForkedScale() {
    }

    /** {@link TraceScaleMain} with a 64 MiB heap. */
    static String run(String mode, Path trace) throws IOException, InterruptedException {
        return run("64m", 120, TraceScaleMain.class, mode, trace.toString());
    }

    /**
     * Runs {@code main} with {@code args} in a JVM with heap {@code heap} (as {@code -Xmx} takes it) and the serial
     * collector, failing the test unless it exits 0 within {@code timeoutSeconds}.
     */
    public static String run(String heap, long timeoutSeconds, Class<?> main, String... args)
            throws IOException, InterruptedException {
        Path javaBin = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> command = new ArrayList<>(List.of(javaBin.toString(), "-Xmx" + heap,
                "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        // Read while it runs, so a chatty child never blocks on a full pipe.
        CompletableFuture<byte[]> output = CompletableFuture.supplyAsync(() -> {
            try {
                return p.getInputStream().readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        boolean done = p.waitFor(timeoutSeconds, TimeUnit.SECONDS);
        if (!done) {
            p.destroyForcibly();
        }
        String out = new String(output.join(), StandardCharsets.UTF_8).trim();
        assertThat(done).as("finished within %d s: %s", timeoutSeconds, out).isTrue();
        assertThat(p.exitValue()).as("exit status; output: %s", out).isZero();
        System.out.println(main.getSimpleName() + " " + String.join(" ", args) + ": " + out);
        return out;
    }
}
