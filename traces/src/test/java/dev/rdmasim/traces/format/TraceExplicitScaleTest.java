package dev.rdmasim.traces.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file of 200,000 explicit timed writes (~15 MB) checked in a JVM with 64 MiB of heap: the parsed
 * lines (a few hundred bytes of objects each) would not fit if the reader or checker kept them.
 */
class TraceExplicitScaleTest {
    @Test
    void twoHundredThousandExplicitLinesCheckInBoundedMemory(@TempDir Path dir) throws Exception {
        Path trace = dir.resolve("explicit.trace");
        TraceScaleMain.writeExplicitTrace(trace, 200_000);
        assertThat(trace.toFile().length()).isGreaterThan(10L << 20);
        String out = ForkedScale.run("check", trace);
        assertThat(out).startsWith("lines=200014 calls=200001 ");
    }
}
