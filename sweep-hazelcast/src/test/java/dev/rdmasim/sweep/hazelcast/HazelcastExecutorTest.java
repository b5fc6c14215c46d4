package dev.rdmasim.sweep.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.core.HazelcastInstance;
import dev.rdmasim.sweep.Point;
import dev.rdmasim.sweep.PointResult;
import dev.rdmasim.sweep.PointExecutor;
import dev.rdmasim.sweep.PointExecutorProvider;
import dev.rdmasim.sweep.Sweep;
import dev.rdmasim.sweep.SweepSpec;
import dev.rdmasim.sweep.SweepFailure;
import dev.rdmasim.sweep.Workload;
import dev.rdmasim.sweep.hazelcast.TestCluster.Fake;
import dev.rdmasim.sweep.hazelcast.TestCluster.Log;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two workers on loopback (each advertising 2 jobs but having 6 threads, so only the submitter's bound keeps it at 2)
 * and a client, shared by the tests; the member-loss test adds a third worker and kills it, so it runs last.
 * The executors under test use the shared client ({@link HazelcastExecutor#on}); closing them leaves it running.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HazelcastExecutorTest {
    private static final String CLUSTER = TestCluster.uniqueName();
    private static Worker a;
    private static Worker b;
    private static HazelcastInstance client;

    @BeforeAll
    static void startCluster() {
        a = TestCluster.worker(CLUSTER, "a", List.of(), 2, 6);
        b = TestCluster.worker(CLUSTER, "b", List.of(a.address()), 2, 6);
        client = HazelcastClient.newHazelcastClient(TestCluster.client(CLUSTER, List.of(a.address())));
    }

    @AfterAll
    static void stopCluster() {
        client.shutdown();
        b.instance().getLifecycleService().terminate();
        a.instance().getLifecycleService().terminate();
    }

    @BeforeEach
    void resetLog() {
        Log.reset();
    }

    /** Runs {@code points} with {@code function}, checking that the sink is called on this thread, one at a time. */
    private static List<PointResult> run(List<Point> points, PointFunction function, AtomicInteger overlaps) {
        List<PointResult> results = new ArrayList<>();
        AtomicInteger inSink = new AtomicInteger();
        Thread caller = Thread.currentThread();
        try (HazelcastExecutor ex = executor(function)) {
            ex.execute(points, r -> {
                if (inSink.incrementAndGet() > 1 || Thread.currentThread() != caller) {
                    overlaps.incrementAndGet();
                }
                results.add(r);
                inSink.decrementAndGet();
            });
        }
        return results;
    }

    private static HazelcastExecutor executor(PointFunction function) {
        return HazelcastExecutor.on(client, CLUSTER, function);
    }

    private static List<PointResult> sorted(List<PointResult> results) {
        List<PointResult> s = new ArrayList<>(results);
        s.sort(Comparator.comparingInt(r -> r.point().index()));
        return s;
    }

    @Test
    @Order(1)
    void everyResultArrivesOnceOnTheCallingThreadAndEqualsTheLocalComputation() {
        List<Point> points = TestCluster.points(40);
        AtomicInteger overlaps = new AtomicInteger();
        List<PointResult> results = run(points, new Fake(15), overlaps);

        assertThat(overlaps).hasValue(0);
        assertThat(results).hasSize(40);
        assertThat(sorted(results)).isEqualTo(points.stream().map(TestCluster::expected).toList());
        // Both workers ran points, each point ran once.
        List<String> starts = Log.starts();
        assertThat(starts).hasSize(40);
        assertThat(starts).anyMatch(s -> s.endsWith("@a")).anyMatch(s -> s.endsWith("@b"));
        assertThat(executor(new Fake(0)).describe()).isEqualTo("hazelcast, 2 members, 4 jobs, cluster '" + CLUSTER + "'");
    }

    @Test
    @Order(2)
    void keepsNoMoreTasksInFlightThanTheWorkersAdvertise() {
        List<Point> points = TestCluster.points(24);
        try (HazelcastExecutor ex = executor(new Fake(60))) {
            assertThat(ex.parallelism()).isEqualTo(4);
            List<PointResult> results = new ArrayList<>();
            ex.execute(points, results::add);
            assertThat(results).hasSize(24);
            // The workers have 6 threads each, so running more than 2 would show if the submitter sent more.
            assertThat(Log.maxRunning("a")).isEqualTo(2);
            assertThat(Log.maxRunning("b")).isEqualTo(2);
            assertThat(Log.MAX_TOTAL).hasValue(4);
            assertThat(ex.lastMaxInFlight()).isEqualTo(4);
            assertThat(ex.lastResubmitted()).isZero();
        }
    }

    @Test
    @Order(3)
    void aFailingPointFailsTheSweepNamingThePointAndTheMember() {
        List<Point> points = TestCluster.points(30);
        List<PointResult> results = new ArrayList<>();
        try (HazelcastExecutor ex = executor(new Fake(10, 13))) {
            SweepFailure f = catchThrowableOfType(SweepFailure.class, () -> ex.execute(points, results::add));
            assertThat(f).isNotNull();
            String ranOn = Log.starts().stream().filter(s -> s.startsWith("13@")).findFirst().orElseThrow();
            String address = ranOn.endsWith("@a") ? a.address() : b.address();
            assertThat(f.getMessage()).isEqualTo("point 13 (qp.initiatorQueueDepth=7 -s=512) failed on member "
                    + address + ": java.lang.IllegalStateException: queue depth 7 is cursed");
            RemoteFailure cause = (RemoteFailure) f.getCause();
            assertThat(cause.className()).isEqualTo("java.lang.IllegalStateException");
            assertThat(cause.originalMessage()).isEqualTo("queue depth 7 is cursed");
            assertThat(cause.getStackTrace()).anyMatch(e -> e.getClassName().equals(Fake.class.getName()));
            // What was reported before the failure is correct and stays reported; the failed point is not among it.
            assertThat(results).allMatch(r -> r.equals(TestCluster.expected(r.point())))
                    .noneMatch(r -> r.point().index() == 13);
            // The executor is still usable.
            List<PointResult> again = new ArrayList<>();
            ex.execute(points.subList(0, 5), again::add);
            assertThat(sorted(again)).isEqualTo(points.subList(0, 5).stream().map(TestCluster::expected).toList());
        }
    }

    @Test
    @Order(3)
    void aFailureOfTheRunnerKeepsItsTextAndGainsTheMember() {
        PointFunction runnerFails = p -> {
            throw new SweepFailure("point " + p.index() + " (" + p.describe() + ") failed: pcie.mps = 300: must be 128B..4KiB");
        };
        try (HazelcastExecutor ex = executor(runnerFails)) {
            SweepFailure f = catchThrowableOfType(SweepFailure.class, () -> ex.execute(TestCluster.points(1), r -> { }));
            assertThat(f.getMessage()).matches("\\Qpoint 0 (qp.initiatorQueueDepth=1 -s=64) failed: pcie.mps = 300: must be"
                    + " 128B..4KiB (on member 127.0.0.1:\\E(" + port(a) + "|" + port(b) + ")\\)");
            assertThat(((RemoteFailure) f.getCause()).className()).isEqualTo(SweepFailure.class.getName());
        }
    }

    private static String port(Worker w) {
        return w.address().substring(w.address().lastIndexOf(':') + 1);
    }

    @Test
    @Order(4)
    void aFunctionThatCannotTravelFailsClearly() {
        Object notSerializable = new Object();
        PointFunction bad = p -> {
            assertThat(notSerializable).isNotNull();
            return TestCluster.expected(p);
        };
        try (HazelcastExecutor ex = executor(bad)) {
            assertThatThrownBy(() -> ex.execute(TestCluster.points(3), r -> { }))
                    .isInstanceOf(SweepFailure.class)
                    .hasMessageStartingWith("cannot send point 0 (qp.initiatorQueueDepth=1 -s=64) to member 127.0.0.1:")
                    .hasMessageContaining("Serializ");
        }
    }

    /** A sweep on the cluster writes the bytes a local run writes: results.csv, results.json, sweep.json. */
    @Test
    @Order(5)
    void aSweepOnTheClusterWritesWhatALocalRunWrites(@TempDir Path dir) throws IOException {
        SweepSpec spec = SweepSpec.perf("write_bw", List.of("-n", "200", "-s", "64"))
                .param("qp.initiatorQueueDepth=1..16*4").param("qp.inlineDataSize=0,64").build();
        Sweep.Progress quiet = (done, total, rate, left) -> { };
        try (PointExecutor local = PointExecutorProvider.named("local").create(1, List.of())) {
            Sweep.run(spec, dir.resolve("local"), local, quiet, List.of());
        }
        try (HazelcastExecutor cluster = executor(PointFunction.RUNNER)) {
            Sweep.Outcome o = Sweep.run(spec, dir.resolve("cluster"), cluster, quiet, List.of());
            assertThat(o.ran()).isEqualTo(6);
        }
        for (String f : List.of(Sweep.RESULTS_CSV, Sweep.RESULTS_JSON, Sweep.SPEC_FILE)) {
            assertThat(Files.readAllBytes(dir.resolve("cluster").resolve(f))).as(f)
                    .isEqualTo(Files.readAllBytes(dir.resolve("local").resolve(f)));
        }
    }

    @Test
    @Order(6)
    void aWorkerJoiningMidSweepGetsPointsAndWhenItDiesTheOthersRunThem() throws Exception {
        List<Point> points = TestCluster.points(60);
        List<PointResult> results = new ArrayList<>();
        List<Worker> joined = new ArrayList<>();
        Thread killer = new Thread(() -> joined.get(0).instance().getLifecycleService().terminate());
        // c answers its first two points, then holds the next ones until it is killed.
        try (HazelcastExecutor ex = executor(new Fake(60, -1, "c", 2))) {
            ex.execute(points, r -> {
                results.add(r);
                if (results.size() == 2) {
                    joined.add(TestCluster.worker(CLUSTER, "c", List.of(a.address()), 2, 2));
                } else if (killer.getState() == Thread.State.NEW
                        && Log.starts().stream().filter(s -> s.endsWith("@c")).count() == 4) {
                    killer.start();
                }
            });
            killer.join();

            assertThat(sorted(results)).isEqualTo(points.stream().map(TestCluster::expected).toList());
            assertThat(killer.getState()).isEqualTo(Thread.State.TERMINATED);
            // Points started on c and never answered from there ran again on a or b.
            Map<Integer, List<String>> where = new HashMap<>();
            for (String s : Log.starts()) {
                String[] parts = s.split("@");
                where.computeIfAbsent(Integer.parseInt(parts[0]), k -> new ArrayList<>()).add(parts[1]);
            }
            Set<Integer> rerun = new HashSet<>();
            where.forEach((index, members) -> {
                if (members.size() > 1) {
                    rerun.add(index);
                    assertThat(members.get(0)).isEqualTo("c");
                    assertThat(members.subList(1, members.size())).doesNotContain("c");
                }
            });
            assertThat(where).hasSize(60);
            assertThat(rerun).hasSize(2);
            assertThat(ex.lastResubmitted()).isEqualTo(rerun.size());
            assertThat(Log.maxRunning("c")).isEqualTo(2);
            assertThat(ex.lastMaxInFlight()).isEqualTo(6);
            // The cluster settles back to a and b.
            awaitParallelism(ex, 4);
        }
    }

    private static void awaitParallelism(HazelcastExecutor ex, int jobs) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (ex.parallelism() != jobs && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(ex.parallelism()).isEqualTo(jobs);
    }
}
