package dev.rdmasim.traces.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Ten million writes written as a repeat: checked in a JVM with 64 MiB of heap. */
class TraceRepeatScaleTest {
    @Test
    void tenMillionRepeatedWritesCheckInBoundedMemory(@TempDir Path dir) throws Exception {
        Path trace = dir.resolve("repeat.trace");
        TraceScaleMain.writeRepeatTrace(trace, 10_000_000);
        String out = ForkedScale.run("check", trace);
        // 13 setup lines, 10M writes and a wait.
        assertThat(out).startsWith("lines=10000014 calls=10000001 ");
    }
}
