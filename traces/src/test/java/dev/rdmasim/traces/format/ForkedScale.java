package dev.rdmasim.traces.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Runs {@link TraceScaleMain} in a JVM with a 64 MiB heap and returns what it printed. */
final class ForkedScale {
    private ForkedScale() {
    }

    static String run(String mode, Path trace) throws IOException, InterruptedException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(java.toString(), "-Xmx64m", "-XX:+UseSerialGC", "-cp",
                System.getProperty("java.class.path"), TraceScaleMain.class.getName(), mode, trace.toString())
                .redirectErrorStream(true).start();
        boolean done = p.waitFor(120, TimeUnit.SECONDS);
        if (!done) {
            p.destroyForcibly();
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(done).as("finished: %s", out).isTrue();
        assertThat(p.exitValue()).as("exit status; output: %s", out).isZero();
        System.out.println(mode + " " + trace.getFileName() + ": " + out);
        return out;
    }
}
