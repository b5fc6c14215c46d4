package dev.rdmasim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The progress bar: nothing at all without a terminal; on a terminal nothing before its delay, then a bar that the
 * command's own lines pass above. A fake terminal (a byte stream) stands for stderr.
 */
class ProgressDisplayTest {
    private final ByteArrayOutputStream terminalBytes = new ByteArrayOutputStream();
    private final PrintStream terminal = new PrintStream(terminalBytes, true, StandardCharsets.UTF_8);
    private final StringWriter stdout = new StringWriter();
    private final PrintWriter out = new PrintWriter(stdout);

    private String terminal() {
        return terminalBytes.toString(StandardCharsets.UTF_8);
    }

    /** Waits (at most 5 s) until the bar's render thread has drawn something containing {@code text}. */
    private void awaitDrawn(String text) throws InterruptedException {
        for (int i = 0; i < 500 && !terminal().contains(text); i++) {
            Thread.sleep(10);
        }
        assertThat(terminal()).contains(text);
    }

    @Test
    void withoutATerminalLinesPrintAsTheyAreAndNothingElse() {
        try (ProgressDisplay bar = new ProgressDisplay("perf write_bw", "sizes", true, null, 0, 80)) {
            bar.total(2);
            bar.println(out, "row 1");
            bar.step(1);
            for (int i = 0; i < 1000; i++) {
                bar.at(i);
            }
            bar.println(out, "row 2");
            bar.step(2);
        }
        assertThat(stdout.toString()).isEqualTo("row 1" + System.lineSeparator() + "row 2" + System.lineSeparator());
    }

    @Test
    void onATerminalTheBarShowsAfterItsDelayAndLinesGoAboveIt() throws InterruptedException {
        try (ProgressDisplay bar = new ProgressDisplay("perf write_bw", "sizes", true, terminal, 0, 80)) {
            bar.total(3);
            bar.step(1);
            awaitDrawn("1/3 sizes");
            bar.println(out, "row 1");
            String t = terminal();
            // The bar's line was blanked before the row was printed, and the bar drawn again after it.
            String blank = "\r" + " ".repeat(80) + "\r";
            assertThat(t).contains(blank);
            assertThat(t.substring(t.lastIndexOf(blank) + blank.length())).startsWith("\r").contains("perf write_bw")
                    .contains("1/3 sizes");
            assertThat(stdout.toString()).isEqualTo("row 1" + System.lineSeparator());
            bar.step(3);
            awaitDrawn("3/3 sizes");
        }
        assertThat(terminal()).endsWith(System.lineSeparator());
        for (String drawn : terminal().split("\r")) {
            assertThat(drawn.strip().length()).isLessThanOrEqualTo(80);
        }
    }

    @Test
    void aShortRunNeverShowsTheBar() throws InterruptedException {
        try (ProgressDisplay bar = new ProgressDisplay("perf", "sizes", true, terminal, 60_000_000_000L, 80)) {
            bar.total(2);
            bar.step(1);
            Thread.sleep(600); // two of the bar's refresh periods
            bar.println(out, "done");
        }
        assertThat(terminal()).isEmpty();
        assertThat(stdout.toString()).isEqualTo("done" + System.lineSeparator());
    }

    @Test
    void fineProgressShowsOnlyOnceACountIsPassedOnAfterTheDelay() throws InterruptedException {
        // A replay of a few calls that takes long (setup, simulated tail) never shows "0/2 calls".
        try (ProgressDisplay bar = new ProgressDisplay("replay", "calls", false, terminal, 0, 80)) {
            bar.total(2);
            bar.at(1);
            bar.at(2);
            Thread.sleep(600);
        }
        assertThat(terminal()).isEmpty();
        try (ProgressDisplay bar = new ProgressDisplay("replay", "calls", false, terminal, 0, 80)) {
            bar.total(1000);
            for (int i = 1; i <= 1000; i++) {
                bar.at(i);
            }
            awaitDrawn("/1000 calls");
        }
        assertThat(terminal()).contains("replay", "calls/s");
    }
}
