package dev.rdmasim.sweep.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.client.HazelcastClient;
import com.hazelcast.config.Config;
import com.hazelcast.core.HazelcastInstance;
import dev.rdmasim.sweep.PointResult;
import dev.rdmasim.sweep.SweepFailure;
import dev.rdmasim.sweep.hazelcast.TestCluster.Fake;
import dev.rdmasim.sweep.hazelcast.TestCluster.Log;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * One worker, plus a member that runs another rdmasim build and must never get a point; the worker leaves in the
 * last test, so nothing can run the rest of that sweep.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HazelcastClusterLossTest {
    private static final String CLUSTER = TestCluster.uniqueName();
    private static final String OTHER_BUILD = "sha256:0123456789abcdef01234567";
    private static Worker worker;
    /** The worker's address, taken while it runs: once it has left, a closed member no longer answers. */
    private static String workerAddress;
    private static Worker stranger;
    private static HazelcastInstance client;
    private static HazelcastExecutor executor;

    @BeforeAll
    static void startCluster() {
        worker = TestCluster.worker(CLUSTER, "w", List.of(), 2, 2);
        workerAddress = worker.address();
        Config other = ClusterSetup.memberConfig(new WorkerOptions(CLUSTER, "127.0.0.1", TestCluster.freePort(),
                List.of(worker.address()), 4));
        other.setInstanceName("stranger");
        other.setProperty("hazelcast.wait.seconds.before.join", "0");
        other.setProperty("hazelcast.partition.count", "7");
        other.getMemberAttributeConfig().setAttribute(ClusterSetup.BUILD_ATTRIBUTE, OTHER_BUILD);
        stranger = Worker.start(other);
        executor = HazelcastExecutor.connect(TestCluster.client(CLUSTER, List.of(stranger.address())), new Fake(20));
        client = HazelcastClient.getAllHazelcastClients().iterator().next();
    }

    @AfterAll
    static void stopCluster() {
        executor.close();
        stranger.instance().getLifecycleService().terminate();
        worker.instance().getLifecycleService().terminate();
    }

    @BeforeEach
    void resetLog() {
        Log.reset();
    }

    @Test
    @Order(1)
    void aMemberOfAnotherBuildGetsNoPoints() {
        assertThat(worker.members()).containsExactly(worker.address(), stranger.address());
        assertThat(executor.parallelism()).isEqualTo(2);
        assertThat(executor.describe()).isEqualTo("hazelcast, 1 member, 2 jobs, cluster '" + CLUSTER + "'");
        List<PointResult> results = new ArrayList<>();
        executor.execute(TestCluster.points(4), results::add);
        assertThat(results).hasSize(4);
        assertThat(Log.starts()).hasSize(4).allMatch(s -> s.endsWith("@w"));
    }

    @Test
    @Order(2)
    void whenTheLastWorkerLeavesTheSweepFailsSayingWhy() {
        List<PointResult> results = new ArrayList<>();
        Thread leave = new Thread(worker::close);
        long start = System.nanoTime();
        // w answers one point and holds the others until it leaves.
        HazelcastExecutor holding = HazelcastExecutor.on(client, CLUSTER, new Fake(0, -1, "w", 1));
        SweepFailure f = catchThrowableOfType(SweepFailure.class, () -> holding.execute(TestCluster.points(10), r -> {
            results.add(r);
            if (results.size() == 1) {
                leave.start(); // graceful: the worker interrupts its running points and leaves
            }
        }));
        assertThat(f).isNotNull();
        assertThat((System.nanoTime() - start) / 1e9).isLessThan(8);
        assertThat(f.getMessage())
                .startsWith("no rdmasim worker left in cluster '" + CLUSTER + "' to run ")
                .endsWith(" of 10 points: " + workerAddress + " " + lostBecause(f.getMessage()) + "; "
                        + stranger.address() + " runs another rdmasim build (" + OTHER_BUILD
                        + "; this machine runs development): give every machine the same rdmasim jar");
        assertThat(lostBecause(f.getMessage())).matches("interrupted its tasks \\(shutting down\\)|left the cluster"
                + "|was lost \\(.*\\)");
        assertThat(results).hasSize(1);
    }

    /** The reason the worker was written off, from the failure's text. */
    private static String lostBecause(String message) {
        String after = message.substring(message.indexOf(workerAddress + " ") + workerAddress.length() + 1);
        return after.substring(0, after.indexOf("; " + stranger.address()));
    }

    @Test
    @Order(3)
    void connectingToNoWorkerFailsClearly() {
        int port = TestCluster.freePort();
        ClientConfig config = TestCluster.client(CLUSTER, List.of("127.0.0.1:" + port));
        config.getConnectionStrategyConfig().getConnectionRetryConfig().setClusterConnectTimeoutMillis(1_000);
        SweepFailure f = catchThrowableOfType(SweepFailure.class, () -> HazelcastExecutor.connect(config, new Fake(0)));
        assertThat(f).hasMessage("no worker of cluster '" + CLUSTER + "' answered at 127.0.0.1:" + port + " within 1 s:"
                + " are the workers running ('rdmasim worker') with the same --cluster-name, and their ports open?");
    }
}
