package dev.rdmasim.bench;

import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.pcie.LinkBench;
import dev.rdmasim.driver.HostPair;
import dev.rdmasim.driver.WriteStream;
import dev.rdmasim.kernel.Simulator;
import java.util.List;

/**
 * A fixed number of WRITEs after a fixed warm-up, for counting instructions rather than timing them. Run under
 * {@code valgrind --tool=cachegrind --cache-sim=yes} twice with the same warm-up and two counts: the difference of
 * the totals over the difference of the counts is what one WRITE costs in instructions, data references and
 * (simulated) first-level cache misses, free of the JIT's warm-up and of the host's drift, which wall-clock figures
 * on a shared machine never are. Run it with {@code -Xbatch}: valgrind runs one thread at a time, so a background
 * compiler would finish at points that vary from run to run, and the code counted with them. {@code
 * bench/count-instructions} does all this and prints the figures per WRITE.
 *
 * <pre>
 * java -Xbatch -cp bench/target/benchmarks.jar dev.rdmasim.bench.CountedWrites model|floor|link WARMUP COUNT
 *     [BYTES DEPTH [KEY=VALUE...]]
 * </pre>
 *
 * <p>{@code model} is the {@link AdapterWriteBench} workload (two adapters, 64 B WRITEs, 128 outstanding, unless
 * BYTES and DEPTH say otherwise) on the default profile, with any {@code KEY=VALUE} settings applied (as {@code
 * perf --set} takes them: e.g. {@code pcie.mps=1024B}), so that one count can be split by what it scales with;
 * {@code floor} is {@link WriteFloorBench}'s byte work alone; {@code link} is {@link LinkBench}'s workload, one
 * direction of the PCIe link alone, where WARMUP and COUNT are TLPs (rounded up to whole invocations of the
 * benchmark) rather than WRITEs: the link's own share of what a TLP costs in the model.
 */
public final class CountedWrites {
    private CountedWrites() {
    }

    public static void main(String[] args) {
        if (args.length != 3 && args.length < 5) {
            System.err.println("usage: CountedWrites model|floor|link WARMUP COUNT [BYTES DEPTH [KEY=VALUE...]]");
            System.exit(2);
        }
        long warmup = Long.parseLong(args[1]);
        long count = Long.parseLong(args[2]);
        int bytes = args.length > 3 ? Integer.parseInt(args[3]) : AdapterWriteBench.BYTES;
        int depth = args.length > 3 ? Integer.parseInt(args[4]) : AdapterWriteBench.DEPTH;
        long t0;
        String summary;
        switch (args[0]) {
            case "model" -> {
                Profile profile = Profile.defaults().withOverrides(List.of(args).subList(Math.min(5, args.length),
                        args.length));
                Model m = new Model(profile, bytes, depth);
                m.run(warmup);
                long events0 = m.sim.eventsExecuted();
                t0 = System.nanoTime();
                m.run(count);
                summary = "events " + (m.sim.eventsExecuted() - events0) + ", completed " + m.stream.completed();
            }
            case "floor" -> {
                if (args.length > 3) {
                    throw new IllegalArgumentException("the floor runs 64 B WRITEs on the default profile only");
                }
                WriteFloorBench f = new WriteFloorBench();
                f.setUp();
                long check = floor(f, warmup);
                t0 = System.nanoTime();
                check += floor(f, count);
                summary = "check " + check;
            }
            case "link" -> {
                if (args.length > 3) {
                    throw new IllegalArgumentException("the link runs LinkBench's 256 B writes only");
                }
                LinkBench l = new LinkBench();
                l.setUp();
                link(l, warmup);
                t0 = System.nanoTime();
                link(l, count);
                // The count script reads the TLPs handed over, which a last invocation may take a few beyond.
                summary = "completed " + l.received();
            }
            default -> throw new IllegalArgumentException("model, floor or link, not " + args[0]);
        }
        double ns = (System.nanoTime() - t0) / (double) Math.max(1, count);
        System.out.printf("%s: %d %s after %d, %.1f ns each (wall clock, for orientation), %s%n",
                args[0], count, args[0].equals("link") ? "TLPs" : "WRITEs", warmup, ns, summary);
    }

    /** Two adapters streaming WRITEs, run a given number of completions at a time. */
    static final class Model {
        final Simulator sim = new Simulator(1);
        final WriteStream stream;
        private long target;

        Model(Profile profile, int bytes, int depth) {
            HostPair pair = HostPair.create(sim, profile);
            stream = new WriteStream(pair.a(), pair.b(), bytes, depth, 1, 1, false);
            stream.start();
        }

        /** Runs until {@code writes} more WRITEs have completed. */
        void run(long writes) {
            target += writes;
            stream.stopWhenCompleted(target);
            sim.run();
        }
    }

    /** Runs the link until at least {@code tlps} more TLPs have been handed over. */
    private static void link(LinkBench l, long tlps) {
        long target = l.received() + tlps;
        while (l.received() < target) {
            l.tlps();
        }
    }

    private static long floor(WriteFloorBench f, long writes) {
        long check = 0;
        for (long i = 0; i < writes; i++) {
            check += f.write();
        }
        return check;
    }
}
