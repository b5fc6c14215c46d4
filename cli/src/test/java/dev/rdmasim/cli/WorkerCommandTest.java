package dev.rdmasim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.rdmasim.sweep.Point;
import dev.rdmasim.sweep.PointResult;
import dev.rdmasim.sweep.Workload;
import dev.rdmasim.sweep.hazelcast.HazelcastExecutor;
import dev.rdmasim.sweep.hazelcast.PointFunction;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class WorkerCommandTest {
    /** A stand-in for the simulation: the point's seed and index as metrics. */
    record Echo() implements PointFunction {
        private static final long serialVersionUID = 1L;

        @Override
        public PointResult apply(Point p) {
            return new PointResult(p, List.of(new PointResult.Metric("seed", "", p.seed()),
                    new PointResult.Metric("thread", "", Thread.currentThread().getName().contains("rdmasim-worker-") ? 1 : 0)),
                    List.of(), 0);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Test
    void aWorkerRunsPointsUntilItIsShutDown() throws Exception {
        int port = freePort();
        String cluster = "worker-test-" + UUID.randomUUID();
        AtomicReference<Cli> run = new AtomicReference<>();
        Thread command = new Thread(() -> run.set(Cli.run("worker", "--port", Integer.toString(port), "--jobs", "3",
                "--cluster-name", cluster, "--bind", "127.0.0.1")));
        command.start();
        HazelcastInstance member = null;
        for (int i = 0; i < 300 && member == null && command.isAlive(); i++) {
            member = Hazelcast.getHazelcastInstanceByName("rdmasim-worker-" + port);
            Thread.sleep(50);
        }
        assertThat(member).as("worker started").isNotNull();

        Workload w = Workload.perf("write_bw", List.of("-n", "100"));
        List<Point> points = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            points.add(new Point(i, List.of("-s"), List.of(Integer.toString(64 << i)), w, "default", null, List.of(), 0, 7 + i));
        }
        List<PointResult> results = new ArrayList<>();
        try (HazelcastExecutor ex = HazelcastExecutor.connect(cluster, List.of("127.0.0.1:" + port), new Echo())) {
            assertThat(ex.parallelism()).isEqualTo(3);
            ex.execute(points, results::add);
        }
        results.sort(Comparator.comparingInt(r -> r.point().index()));
        assertThat(results).extracting(PointResult::point).isEqualTo(points);
        assertThat(results).allSatisfy(r -> {
            assertThat(r.metrics().get(0).value()).isEqualTo(r.point().seed());
            assertThat(r.metrics().get(1).value()).as("ran on the worker's threads").isEqualTo(1);
        });

        member.shutdown(); // as Ctrl-C does, through the command's shutdown hook
        command.join(20_000);
        assertThat(command.isAlive()).isFalse();
        Cli r = run.get();
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out().lines().toList()).containsExactly(
                "rdmasim worker listening on 127.0.0.1:" + port + " (cluster '" + cluster + "', 3 jobs)",
                "members: 127.0.0.1:" + port,
                "run sweeps here with: --executor hazelcast --members 127.0.0.1:" + port,
                "rdmasim worker stopped");
    }

    @Test
    void badOptionsAreOneLineAndExitTwo() throws Exception {
        Cli jobs = Cli.run("worker", "--jobs", "0");
        assertThat(jobs.code()).isEqualTo(2);
        assertThat(jobs.err().strip()).isEqualTo("rdmasim: jobs must be at least 1, got 0");

        Cli members = Cli.run("worker", "--members", "10.0.0.2:5701,node7");
        assertThat(members.code()).isEqualTo(2);
        assertThat(members.err().strip()).isEqualTo("rdmasim: member 'node7' is not host:port (e.g. 10.0.0.2:5701)");

        Cli port = Cli.run("worker", "--port", "70000");
        assertThat(port.code()).isEqualTo(2);
        assertThat(port.err().strip()).isEqualTo("rdmasim: port must be 1..65535, got 70000");

        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int p = taken.getLocalPort();
            Cli busy = Cli.run("worker", "--port", Integer.toString(p), "--bind", "127.0.0.1",
                    "--cluster-name", "worker-test-" + UUID.randomUUID());
            assertThat(busy.code()).as(busy.err()).isEqualTo(2);
            assertThat(busy.err()).startsWith("rdmasim: cannot start a worker on port " + p + " of 127.0.0.1: ")
                    .doesNotContain("\tat ");
            assertThat(busy.out()).isEmpty();
        }
    }
}
