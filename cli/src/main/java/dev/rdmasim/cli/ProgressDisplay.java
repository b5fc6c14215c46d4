package dev.rdmasim.cli;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Optional;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarConsumer;
import me.tongfei.progressbar.ProgressBarStyle;
import me.tongfei.progressbar.ProgressState;

/**
 * A progress bar for long runs: shown on a terminal (on stderr) once a run has taken more than a second, never when
 * the output is not a terminal (a pipe, a file, a test). Lines the command prints while it runs go through
 * {@link #println} so that they land above the bar instead of through it. Two kinds of progress: fine
 * ({@link #at}, per call of a replay: cheap enough for every step, it passes the count on every few dozen steps,
 * and a run with fewer steps than that shows no bar) and coarse ({@link #step}, per size of a perf run: the bar
 * shows from the first second on, its elapsed time moving while one long step runs).
 */
final class ProgressDisplay implements AutoCloseable {
    static final long SHOW_AFTER_NS = 1_000_000_000L;
    private static final int CHECK_EVERY = 64;

    private final DelayedConsole console;
    private final ProgressBar bar;
    private long sinceCheck;
    private volatile WorkEstimate estimate;

    /** Fine progress counting {@code unit}, with its rate (calls/s), if the output is a terminal. */
    ProgressDisplay(String task, String unit) {
        this(task, unit, false);
    }

    /** Coarse progress (no rate) if {@code coarse}, else fine progress, if the output is a terminal. */
    ProgressDisplay(String task, String unit, boolean coarse) {
        this(task, unit, coarse, System.console() != null ? System.err : null, SHOW_AFTER_NS, 0);
    }

    /**
     * A bar drawn on {@code terminal} (null: no bar at all) once {@code showAfterNs} have passed (and, for fine
     * progress, once {@link #at} has passed a count on after that), at most {@code width} characters wide (0: the
     * terminal's width).
     */
    ProgressDisplay(String task, String unit, boolean coarse, PrintStream terminal, long showAfterNs, int width) {
        if (terminal == null) {
            console = null;
            bar = null;
            return;
        }
        console = new DelayedConsole(terminal, width, showAfterNs, coarse);
        // Continuous updates: the elapsed time keeps moving while a long step runs.
        ProgressBarBuilder b = new ProgressBarBuilder().setTaskName(task).setInitialMax(-1).setUnit(" " + unit, 1)
                .setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(250).continuousUpdate().setConsumer(console)
                .setEtaFunction(this::eta);
        bar = (coarse ? b : b.showSpeed()).build();
    }

    /** The number of steps the run will take, once known. */
    void total(long n) {
        if (bar != null) {
            bar.maxHint(n);
        }
    }

    /**
     * The steps' estimated work, when they differ ({@code work.length} steps): the time left follows the work left
     * at the last step's rate instead of the steps left at the average rate.
     */
    void total(double[] work) {
        total(work.length);
        estimate = new WorkEstimate(work, System.nanoTime());
    }

    /** The time left as the bar shows it: from the work estimate when there is one, else by steps. */
    private Optional<Duration> eta(ProgressState s) {
        WorkEstimate e = estimate;
        if (e != null) {
            return e.left(System.nanoTime());
        }
        long current = s.getCurrent() - s.getStart();
        long max = s.getMax() - s.getStart();
        if (max <= 0 || current <= 0) {
            return Optional.empty();
        }
        return Optional.of(s.getElapsedAfterStart().dividedBy(current).multipliedBy(max - current));
    }

    /** Fine-grained progress (calls of a replay): passed on every {@value #CHECK_EVERY} calls. */
    void at(long done) {
        if (bar == null || ++sinceCheck < CHECK_EVERY) {
            return;
        }
        sinceCheck = 0;
        bar.stepTo(done);
        console.armIfDue();
    }

    /** Coarse progress (sizes of a perf run): passed on at once. */
    void step(long done) {
        if (bar != null) {
            WorkEstimate e = estimate;
            if (e != null) {
                e.stepsDone((int) done, System.nanoTime());
            }
            bar.stepTo(done);
        }
    }

    /** Prints one line of the command's output, above the bar if one is showing, and flushes it. */
    void println(PrintWriter out, String line) {
        Runnable print = () -> {
            out.println(line);
            out.flush();
        };
        if (console == null) {
            print.run();
        } else {
            console.above(print);
        }
    }

    @Override
    public void close() {
        if (bar != null) {
            bar.close();
        }
    }

    /**
     * Draws the bar only once the run is old enough, and lets the command's own lines past it: the bar's render
     * thread and the command's thread both go through this object's lock.
     */
    private static final class DelayedConsole implements ProgressBarConsumer {
        private final PrintStream out;
        private final ConsoleProgressBarConsumer console;
        private final long showAtNs;
        private volatile boolean armed;
        private String last = "";
        private boolean shown;

        DelayedConsole(PrintStream out, int width, long showAfterNs, boolean armed) {
            this.out = out;
            this.console = width > 0 ? new ConsoleProgressBarConsumer(out, width) : new ConsoleProgressBarConsumer(out);
            this.showAtNs = System.nanoTime() + showAfterNs;
            this.armed = armed;
        }

        /** Fine progress: the bar may show once a count has been passed on after the delay. */
        void armIfDue() {
            if (!armed && System.nanoTime() - showAtNs >= 0) {
                armed = true;
            }
        }

        @Override
        public int getMaxRenderedLength() {
            return console.getMaxRenderedLength();
        }

        @Override
        public synchronized void accept(String rendered) {
            last = rendered;
            if (!shown && (!armed || System.nanoTime() - showAtNs < 0)) {
                return;
            }
            shown = true;
            console.accept(rendered);
            out.flush();
        }

        /** Clears the bar's line, runs {@code print} (which ends its own line), then draws the bar again below. */
        synchronized void above(Runnable print) {
            if (shown) {
                out.print("\r" + " ".repeat(getMaxRenderedLength()) + "\r");
                out.flush();
            }
            print.run();
            if (shown) {
                console.accept(last);
                out.flush();
            }
        }

        @Override
        public synchronized void close() {
            if (shown) {
                console.close();
            }
        }
    }
}
