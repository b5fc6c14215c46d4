package dev.rdmasim.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;

/**
 * Quick A/B harness for queue work, not a reference figure (the JMH benchmarks are):
 * {@code java -cp bench/target/benchmarks.jar dev.rdmasim.bench.HoldQuick seconds queue...}. Runs
 * the kernel hold model on each queue in interleaved 50 ms bursts of thread CPU time, so a busy
 * neighbour slows all alike and descheduled time is not counted. Name at most two queues per run:
 * a third makes the simulator's queue call sites megamorphic and slows every queue.
 */
public final class HoldQuick {
    public static void main(String[] args) {
        double seconds = Double.parseDouble(args[0]);
        int m = args.length - 1;
        KernelHoldModel[] models = new KernelHoldModel[m];
        for (int i = 0; i < m; i++) {
            models[i] = new KernelHoldModel(1024, args[i + 1]);
        }
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        int rounds = (int) (seconds / 0.05 / m);
        double[][] r = new double[m][rounds];
        for (int warm = 0; warm < 2; warm++) {
            for (int k = 0; k < rounds; k++) {
                for (int i = 0; i < m; i++) {
                    long t0 = mx.getCurrentThreadCpuTime();
                    long n = 0;
                    while (mx.getCurrentThreadCpuTime() - t0 < 50_000_000L) {
                        models[i].run(HoldModel.BATCH);
                        n += HoldModel.BATCH;
                    }
                    r[i][k] = n * 1e3 / (mx.getCurrentThreadCpuTime() - t0);
                }
            }
        }
        for (int i = 0; i < m; i++) {
            Arrays.sort(r[i]);
            System.out.printf("%-14s median %5.1f  p90 %5.1f  max %5.1f M/s%n", args[i + 1], r[i][rounds / 2],
                    r[i][rounds * 9 / 10], r[i][rounds - 1]);
        }
    }
}
