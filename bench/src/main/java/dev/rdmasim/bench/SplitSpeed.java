package dev.rdmasim.bench;

import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.driver.HostPair;
import dev.rdmasim.driver.WriteStream;
import dev.rdmasim.kernel.Partitions;
import dev.rdmasim.kernel.Simulator;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * The two-host WRITE stream of {@link AdapterSpeed} with priority flow control on the cable, run three ways: on one
 * simulator ({@code one}), split over two partitions on one thread ({@code split1}) and on two ({@code split2})
 * ({@link HostPair#createSplit}). It runs slices of simulated time and reports the slowdown of each (wall time over
 * simulated time), best and median after a warm-up, and the windows per simulated microsecond.
 *
 * <pre>java -XX:+UseParallelGC -cp bench/target/benchmarks.jar dev.rdmasim.bench.SplitSpeed [seconds] [bytes] [depth] [one|split1|split2]...</pre>
 */
public final class SplitSpeed {
    private static final long SLICE_PS = 200_000_000L; // 200 us of simulated time
    private static final int WARMUP_SLICES = 10;

    private SplitSpeed() {
    }

    public static void main(String[] args) {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        int bytes = args.length > 1 ? Integer.parseInt(args[1]) : 1 << 20;
        int depth = args.length > 2 ? Integer.parseInt(args[2]) : 16;
        List<String> modes = args.length > 3 ? List.of(args).subList(3, args.length) : List.of("one", "split1", "split2");
        for (String mode : modes) {
            run(mode, seconds, bytes, depth);
        }
    }

    private static void run(String mode, int seconds, int bytes, int depth) {
        Profile profile = Profile.defaults().with("link.flowControl", "pfc");
        Simulator simA = new Simulator(1);
        boolean split = !mode.equals("one");
        int threads = mode.equals("split2") ? 2 : 1;
        Simulator simB = split ? new Simulator(1) : simA;
        Partitions parts = split ? new Partitions(List.of(simA, simB)) : null;
        HostPair pair = split ? HostPair.createSplit(parts, simA, simB, profile) : HostPair.create(simA, profile);
        WriteStream stream = new WriteStream(pair.a(), pair.b(), bytes, depth, 1, 1, false);
        stream.start();
        List<Double> slowdowns = new ArrayList<>();
        long until = 0;
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        long windows0 = 0;
        long written0 = 0;
        long simPs = 0;
        for (int i = 0; i < WARMUP_SLICES || System.nanoTime() < end; i++) {
            if (i == WARMUP_SLICES) {
                windows0 = split ? parts.windows() : 0;
                written0 = stream.completed();
                simPs = 0;
            }
            until += SLICE_PS;
            long t0 = System.nanoTime();
            if (split) {
                parts.runUntil(until, threads);
            } else {
                simA.runUntil(until);
            }
            long wall = System.nanoTime() - t0;
            if (i >= WARMUP_SLICES) {
                slowdowns.add(wall * 1000.0 / SLICE_PS);
                simPs += SLICE_PS;
            }
        }
        Collections.sort(slowdowns);
        double best = slowdowns.get(0);
        double median = slowdowns.get(slowdowns.size() / 2);
        long writes = stream.completed() - written0;
        System.out.printf(Locale.US, "%-7s %d B x %d: slowdown best %.1fx, median %.1fx over %d slices; %.2f GB/s simulated"
                + "%s%n", mode, bytes, depth, best, median, slowdowns.size(), writes * (double) bytes / (simPs / 1000.0),
                split ? String.format(Locale.US, ", %.2f windows per simulated us",
                        (parts.windows() - windows0) / (simPs / 1e6)) : "");
    }
}
