package dev.rdmasim.traces.format;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads or checks a large trace in its own JVM, so a test can bound its heap ({@code -Xmx64m}):
 * {@code check FILE} or {@code read FILE}. Prints {@code lines=N calls=N ms=N heapMiB=N}.
 */
public final class TraceScaleMain {
    private TraceScaleMain() {
    }

    public static void main(String[] args) throws IOException {
        Path file = Path.of(args[1]);
        if (args[0].equals("gen")) {
            generate(file);
            return;
        }
        long start = System.nanoTime();
        long lines;
        long calls;
        if (args[0].equals("check")) {
            TraceChecker.Summary s = TraceChecker.check(file);
            lines = s.calls() + s.declarations();
            calls = s.calls();
        } else {
            lines = 0;
            calls = 0;
            try (TraceReader r = TraceReader.open(file)) {
                for (TraceLine l = r.next(); l != null; l = r.next()) {
                    lines++;
                    calls += l.isCall() ? 1 : 0;
                }
            }
        }
        long ms = (System.nanoTime() - start) / 1_000_000;
        Runtime rt = Runtime.getRuntime();
        System.out.println("lines=" + lines + " calls=" + calls + " ms=" + ms + " heapMiB="
                + (rt.totalMemory() - rt.freeMemory()) / (1 << 20) + " maxHeapMiB=" + rt.maxMemory() / (1 << 20));
    }

    /** A trace of {@code n} writes and a wait, as a repeat of four lines. */
    static void writeRepeatTrace(Path file, long n) throws IOException {
        Files.writeString(file, TraceTexts.SETUP
                + "repeat " + n + " as i every=100ns\n"
                + "  write A.qp ctx=w${i} sge=A.src+${i%16*4096}:4KiB remote=B.dst+${i%16*4096} flags=SILENT_SUCCESS\n"
                + "end\n"
                + "wait A.cq count=1\n", StandardCharsets.UTF_8);
    }

    /** A trace of {@code n} explicit timed writes, one line each. */
    static void writeExplicitTrace(Path file, int n) throws IOException {
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            w.write(TraceTexts.SETUP);
            for (int i = 0; i < n; i++) {
                w.write("@" + (i * 100L) + "ns write A.qp ctx=w" + i + " sge=A.src+" + (i % 16 * 4096)
                        + ":4KiB remote=B.dst+" + (i % 16 * 4096) + "\n");
            }
            w.write("wait A.cq ctx=w" + (n - 1) + "\n");
        }
    }

    /** Writes the two traces for a manual run: {@code gen DIR}. */
    static void generate(Path dir) throws IOException {
        writeRepeatTrace(dir.resolve("repeat.trace"), 10_000_000);
        writeExplicitTrace(dir.resolve("explicit.trace"), 200_000);
    }
}
