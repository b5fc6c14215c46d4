package dev.rdmasim.sweep.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.sweep.Point;
import dev.rdmasim.sweep.PointExecutorProvider;
import dev.rdmasim.sweep.PointResult;
import dev.rdmasim.sweep.hazelcast.TestCluster.Fake;
import dev.rdmasim.sweep.hazelcast.TestCluster.Log;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

class HazelcastExecutorProviderTest {
    @Test
    void theSweepFindsTheEngineByName() {
        List<String> names = new ArrayList<>();
        for (PointExecutorProvider p : ServiceLoader.load(PointExecutorProvider.class)) {
            names.add(p.name());
            if (p.name().equals("hazelcast")) {
                assertThat(p).isInstanceOf(HazelcastExecutorProvider.class);
            }
        }
        assertThat(names).containsOnlyOnce("hazelcast");
    }

    @Test
    void membersMustBeHostAndPort() {
        PointExecutorProvider p = new HazelcastExecutorProvider();
        assertThatThrownBy(() -> p.create(2, List.of("10.0.0.2:5701", "10.0.0.3")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("member '10.0.0.3' is not host:port (e.g. 10.0.0.2:5701)");
        assertThatThrownBy(() -> p.create(2, List.of("node7:99999")))
                .hasMessage("member 'node7:99999' is not host:port (e.g. 10.0.0.2:5701)");
        assertThat(WorkerOptions.checkMembers(List.of("node7:5701", "[::1]:5702", "10.0.0.2:1")))
                .containsExactly("node7:5701", "[::1]:5702", "10.0.0.2:1");
    }

    @Test
    void withoutMembersAnEmbeddedMemberRunsJobsPointsAtOnce() {
        Log.reset();
        List<Point> points = TestCluster.points(12);
        List<PointResult> results = new ArrayList<>();
        try (HazelcastExecutor ex = HazelcastExecutor.embedded("rdmasim", 3, new Fake(40))) {
            assertThat(ex.parallelism()).isEqualTo(3);
            assertThat(ex.describe()).isEqualTo("hazelcast, embedded member, 3 jobs");
            ex.execute(points, results::add);
            assertThat(ex.lastMaxInFlight()).isEqualTo(3);
        }
        results.sort(Comparator.comparingInt(r -> r.point().index()));
        assertThat(results).isEqualTo(points.stream().map(TestCluster::expected).toList());
        assertThat(Log.starts()).hasSize(12).allMatch(s -> s.contains("@rdmasim-embedded-"));
        assertThat(Log.MAX_TOTAL).hasValue(3);
    }

    @Test
    void embeddedMembersKeepToThemselves() {
        var config = ClusterSetup.embeddedConfig("rdmasim", 2);
        assertThat(config.getClusterName()).startsWith("rdmasim-embedded-");
        assertThat(config.getNetworkConfig().getInterfaces().getInterfaces()).containsExactly("127.0.0.1");
        var join = config.getNetworkConfig().getJoin();
        assertThat(join.getMulticastConfig().isEnabled()).isFalse();
        assertThat(join.getTcpIpConfig().isEnabled()).isFalse();
        assertThat(join.getAutoDetectionConfig().isEnabled()).isFalse();
        assertThat(config.getProperty("hazelcast.phone.home.enabled")).isEqualTo("false");
    }
}
