package dev.rdmasim.bench;

import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.driver.HostPair;
import dev.rdmasim.driver.WriteStream;
import dev.rdmasim.kernel.EventCost;
import dev.rdmasim.kernel.Simulator;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A quick look at the adapter's simulation speed without JMH: the {@link AdapterWriteBench} workload run in
 * quarter-second slices, reporting simulator events per WRITE (exact, machine-independent) and the best and
 * median slice rate after a warm-up. On a shared host the best slice is the steadiest wall-clock figure, since
 * interference only ever slows a slice down. JMH stays the reference for recorded figures.
 *
 * <p>With a size and depth it measures large messages too, and then also reports the slowdown: the benchmark
 * thread's CPU time over the simulated time it covered ({@code 1048576 16}: 1 MiB WRITEs, 16 outstanding).
 *
 * <p>With {@code -Drdmasim.eventCosts=true} it also times every event's action over the measured slices
 * ({@link Simulator#timeEvents}) and prints, by event name, how many run per WRITE and the host time they take: where
 * each WRITE's microseconds go. The timing itself slows the run, so the rates printed beside it are not figures.
 *
 * <pre>java -XX:+UseParallelGC -cp bench/target/benchmarks.jar dev.rdmasim.bench.AdapterSpeed [seconds] [batch] [signalEvery] [inline] [bytes] [depth]</pre>
 */
public final class AdapterSpeed {
    private static final long SLICE_NS = 250_000_000L;
    private static final int WARMUP_SLICES = 8;

    private AdapterSpeed() {
    }

    public static void main(String[] args) {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        int batch = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        int signalEvery = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        boolean inline = args.length > 3 && Boolean.parseBoolean(args[3]);
        int bytes = args.length > 4 ? Integer.parseInt(args[4]) : AdapterWriteBench.BYTES;
        int depth = args.length > 5 ? Integer.parseInt(args[5]) : AdapterWriteBench.DEPTH;
        // WRITEs per run of the simulator: about as much work per step for large messages as for small ones.
        int step = Math.max(1, (int) ((long) AdapterWriteBench.OPS * AdapterWriteBench.BYTES / bytes));
        Simulator sim = new Simulator(1);
        HostPair pair = HostPair.create(sim, Profile.defaults());
        WriteStream stream = new WriteStream(pair.a(), pair.b(), bytes, depth, batch, signalEvery, inline);
        stream.start();
        long target = 0;
        List<Double> rates = new ArrayList<>();
        List<Double> cpuPerWrite = new ArrayList<>();
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long measuredWrites = 0;
        long measuredEvents = 0;
        long measuredSimPs = 0;
        long measuredCpuNs = 0;
        int slices = Math.max(WARMUP_SLICES + 1, seconds * 4);
        boolean eventCosts = Boolean.getBoolean("rdmasim.eventCosts");
        for (int i = 0; i < slices; i++) {
            if (eventCosts && i == WARMUP_SLICES) {
                sim.timeEvents(true);
                sim.resetEventCosts();
            }
            long writes0 = stream.completed();
            long events0 = sim.eventsExecuted();
            long sim0 = sim.now();
            long t0 = System.nanoTime();
            long cpu0 = threads.getCurrentThreadCpuTime();
            while (System.nanoTime() - t0 < SLICE_NS) {
                target += step;
                stream.stopWhenCompleted(target);
                sim.run();
            }
            long elapsed = System.nanoTime() - t0;
            long cpu = threads.getCurrentThreadCpuTime() - cpu0;
            if (i >= WARMUP_SLICES) {
                long writes = stream.completed() - writes0;
                rates.add(writes / (elapsed / 1e9));
                cpuPerWrite.add(cpu / (double) writes);
                measuredWrites += writes;
                measuredEvents += sim.eventsExecuted() - events0;
                measuredSimPs += sim.now() - sim0;
                measuredCpuNs += cpu;
            }
        }
        Collections.sort(rates);
        Collections.sort(cpuPerWrite);
        System.out.printf("events per WRITE %.2f%n", (double) measuredEvents / measuredWrites);
        System.out.printf("WRITEs/s best %.0f, median %.0f (%d slices of 250 ms after %d warm-up slices)%n",
                rates.get(rates.size() - 1), rates.get(rates.size() / 2), rates.size(), WARMUP_SLICES);
        System.out.printf("thread CPU per WRITE best %.0f ns, median %.0f ns%n", cpuPerWrite.get(0),
                cpuPerWrite.get(cpuPerWrite.size() / 2));
        System.out.printf("%d B WRITEs, depth %d: simulated time per WRITE %.1f ns, events per KiB %.1f, slowdown (thread"
                + " CPU / simulated time) %.1fx%n", bytes, depth, measuredSimPs / 1000.0 / measuredWrites,
                measuredEvents * 1024.0 / ((double) measuredWrites * bytes), measuredCpuNs * 1000.0 / measuredSimPs);
        if (eventCosts) {
            printEventCosts(sim, measuredWrites);
        }
    }

    private static void printEventCosts(Simulator sim, long writes) {
        System.out.printf("%nby event, per WRITE (host time inside each event's action, two clock reads included):%n");
        System.out.printf("%-40s %10s %12s %10s%n", "event", "per WRITE", "ns per WRITE", "ns each");
        long events = 0;
        long ns = 0;
        for (EventCost c : sim.eventCosts()) {
            events += c.count();
            ns += c.hostNs();
            if (c.count() * 1000 >= writes) { // at least one in a thousand WRITEs
                System.out.printf("%-40s %10.3f %12.0f %10.0f%n", c.name(), (double) c.count() / writes,
                        (double) c.hostNs() / writes, c.nsEach());
            }
        }
        System.out.printf("%-40s %10.3f %12.0f%n", "all events", (double) events / writes, (double) ns / writes);
    }
}
