package dev.rdmasim.cli;

import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * A progress bar for long runs: shown on a terminal once a run has taken more than a second, never when the
 * output is not a terminal (a pipe, a file, a test). Cheap to update often: it looks at the clock only every
 * few dozen steps.
 */
final class ProgressDisplay implements AutoCloseable {
    private static final long SHOW_AFTER_NS = 1_000_000_000L;
    private static final int CHECK_EVERY = 64;

    private final String task;
    private final String unit;
    private final boolean terminal;
    private final long startNs = System.nanoTime();
    private long total = -1;
    private long sinceCheck;
    private ProgressBar bar;

    ProgressDisplay(String task, String unit) {
        this.task = task;
        this.unit = unit;
        this.terminal = System.console() != null;
    }

    void total(long n) {
        total = n;
    }

    void at(long done) {
        if (!terminal || ++sinceCheck < CHECK_EVERY) {
            return;
        }
        sinceCheck = 0;
        if (bar == null) {
            if (System.nanoTime() - startNs < SHOW_AFTER_NS) {
                return;
            }
            bar = new ProgressBarBuilder().setTaskName(task).setInitialMax(total).setUnit(" " + unit, 1)
                    .setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(250).showSpeed().build();
        }
        bar.stepTo(done);
    }

    @Override
    public void close() {
        if (bar != null) {
            bar.close();
        }
    }
}
