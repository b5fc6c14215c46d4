package dev.rdmasim.sweep.hazelcast;

import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.config.Config;
import dev.rdmasim.sweep.Point;
import dev.rdmasim.sweep.PointResult;
import dev.rdmasim.sweep.Workload;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** Loopback workers with fast timings, and a fake point function that records where and how often it ran. */
final class TestCluster {
    private TestCluster() {
    }

    /** A cluster name no other test (or stray worker) uses. */
    static String uniqueName() {
        return "test-" + UUID.randomUUID();
    }

    static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A worker on 127.0.0.1 that advertises {@code jobs} but has {@code threads} executor threads, so that a test can
     * tell the submitter's bound from the executor's, named {@code name} (its executor threads carry the name).
     */
    static Worker worker(String cluster, String name, List<String> members, int jobs, int threads) {
        Config c = ClusterSetup.memberConfig(new WorkerOptions(cluster, "127.0.0.1", freePort(), members, jobs));
        c.setInstanceName(name);
        c.getExecutorConfig(ClusterSetup.EXECUTOR).setPoolSize(threads);
        c.setProperty("hazelcast.wait.seconds.before.join", "0");
        c.setProperty("hazelcast.heartbeat.interval.seconds", "1");
        c.setProperty("hazelcast.max.no.heartbeat.seconds", "5");
        c.setProperty("hazelcast.partition.count", "7");
        c.getNetworkConfig().getJoin().getTcpIpConfig().setConnectionTimeoutSeconds(1);
        return Worker.start(c);
    }

    static ClientConfig client(String cluster, List<String> members) {
        ClientConfig c = ClusterSetup.clientConfig(cluster, members);
        c.getConnectionStrategyConfig().getConnectionRetryConfig().setClusterConnectTimeoutMillis(3_000);
        c.setProperty("hazelcast.client.heartbeat.timeout", "5000");
        return c;
    }

    static List<Point> points(int n) {
        List<Point> out = new ArrayList<>();
        Workload w = Workload.perf("write_bw", List.of("-n", "100"));
        for (int i = 0; i < n; i++) {
            out.add(new Point(i, List.of("qp.initiatorQueueDepth", "-s"), List.of(Integer.toString(1 + i % 7),
                    Integer.toString(64 << (i % 5))), w, "default", null, List.of(), 0, 1000 + i));
        }
        return out;
    }

    /** What {@link Fake} gives for {@code p}, computed here without any cluster. */
    static PointResult expected(Point p) {
        long h = p.seed() * 31 + p.values().hashCode();
        return new PointResult(p, List.of(new PointResult.Metric("bandwidth", "bit/s", (h & 0xffff) * 1e6),
                new PointResult.Metric("index", "", p.index())),
                List.of(new PointResult.Metric("sq", "", (h % 97) / 97.0)), 0);
    }

    /** What the members did, kept statically: members run in this JVM, and tasks arrive as deserialised copies. */
    static final class Log {
        static final ConcurrentLinkedQueue<String> STARTS = new ConcurrentLinkedQueue<>();
        static final ConcurrentHashMap<String, AtomicInteger> RUNNING = new ConcurrentHashMap<>();
        static final ConcurrentHashMap<String, AtomicInteger> MAX_RUNNING = new ConcurrentHashMap<>();
        static final AtomicInteger TOTAL = new AtomicInteger();
        static final AtomicInteger MAX_TOTAL = new AtomicInteger();
        static final ConcurrentHashMap<String, AtomicInteger> STARTED = new ConcurrentHashMap<>();
        /** Held points wait for this (or for their thread's interruption). */
        static volatile CountDownLatch release = new CountDownLatch(1);

        static void reset() {
            release.countDown();
            release = new CountDownLatch(1);
            STARTED.clear();
            STARTS.clear();
            RUNNING.clear();
            MAX_RUNNING.clear();
            TOTAL.set(0);
            MAX_TOTAL.set(0);
        }

        /** {@code index@member} of each start. */
        static List<String> starts() {
            return List.copyOf(STARTS);
        }

        static int maxRunning(String member) {
            AtomicInteger m = MAX_RUNNING.get(member);
            return m == null ? 0 : m.get();
        }
    }

    /** The member running the calling thread: Hazelcast names its threads {@code hz.INSTANCE.…}. */
    static String member() {
        String t = Thread.currentThread().getName();
        int start = t.indexOf("hz.") < 0 ? -1 : t.indexOf("hz.") + 3;
        int end = start < 0 ? -1 : t.indexOf('.', start);
        return end < 0 ? "?" : t.substring(start, end);
    }

    /**
     * A deterministic stand-in for the simulation: {@link #expected}, after {@code millis} of sleep; the point with
     * index {@code failing} throws instead; on member {@code holdOn}, every point after its first {@code holdAfter}
     * waits until the member dies (its thread is interrupted) or the log is reset (or 20 s), so that a test can kill a member
     * with points surely running there.
     */
    record Fake(long millis, int failing, String holdOn, int holdAfter) implements PointFunction {
        private static final long serialVersionUID = 1L;

        Fake(long millis) {
            this(millis, -1, null, 0);
        }

        Fake(long millis, int failing) {
            this(millis, failing, null, 0);
        }

        @Override
        public PointResult apply(Point p) {
            String member = member();
            Log.STARTS.add(p.index() + "@" + member);
            int before = Log.STARTED.computeIfAbsent(member, k -> new AtomicInteger()).getAndIncrement();
            AtomicInteger running = Log.RUNNING.computeIfAbsent(member, k -> new AtomicInteger());
            int here = running.incrementAndGet();
            Log.MAX_RUNNING.computeIfAbsent(member, k -> new AtomicInteger()).accumulateAndGet(here, Math::max);
            Log.MAX_TOTAL.accumulateAndGet(Log.TOTAL.incrementAndGet(), Math::max);
            try {
                if (member.equals(holdOn) && before >= holdAfter) {
                    // Bounded, so that a test that never kills the member fails instead of hanging.
                    Log.release.await(20, TimeUnit.SECONDS);
                } else if (millis > 0) {
                    Thread.sleep(millis);
                }
                if (p.index() == failing) {
                    throw new IllegalStateException("queue depth " + p.values().get(0) + " is cursed");
                }
                return expected(p);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            } finally {
                Log.TOTAL.decrementAndGet();
                running.decrementAndGet();
            }
        }
    }
}
