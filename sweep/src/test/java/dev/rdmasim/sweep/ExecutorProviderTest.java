package dev.rdmasim.sweep;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExecutorProviderTest {
    @Test
    void theLocalEngineIsFoundByName() {
        assertThat(PointExecutorProvider.available()).extracting(PointExecutorProvider::name).contains("local");
        PointExecutorProvider local = PointExecutorProvider.named("local");
        assertThat(local).isInstanceOf(LocalExecutorProvider.class);
        try (PointExecutor e = local.create(3, List.of())) {
            assertThat(e.parallelism()).isEqualTo(3);
            assertThat(e.describe()).isEqualTo("local, 3 threads");
        }
        assertThatThrownBy(() -> PointExecutorProvider.named("spark"))
                .hasMessageStartingWith("unknown executor 'spark'; available: ").hasMessageContaining("local");
        assertThatThrownBy(() -> local.create(2, List.of("10.0.0.1:5701"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the local executor runs on this machine only; members are for a distributed executor "
                        + "such as hazelcast");
        assertThatThrownBy(() -> local.create(0, List.of())).hasMessage("jobs must be at least 1, got 0");
    }

    @Test
    void afterAFailureNoFurtherPointStartsAndFinishedOnesAreStillReported() {
        // Point 0 fails at once (every frame dropped); with one thread, the points behind it never start.
        SweepSpec s = SweepSpec.perf("write_bw", List.of("-n", "10")).param("link.dropProbability=1,0").param("-s=64,128")
                .build();
        List<PointResult> got = new ArrayList<>();
        try (PointExecutor e = new LocalExecutor(1)) {
            assertThatThrownBy(() -> e.execute(s.points(), got::add)).isInstanceOf(SweepFailure.class)
                    .hasMessageStartingWith("point 0 (link.dropProbability=1 -s=64) failed: ");
        }
        assertThat(got).isEmpty();
        // Failing last, after the others were reported.
        SweepSpec last = SweepSpec.perf("write_bw", List.of("-s", "64", "-n", "10")).param("link.dropProbability=0,1")
                .build();
        List<PointResult> both = new ArrayList<>();
        try (PointExecutor e = new LocalExecutor(1)) {
            assertThatThrownBy(() -> e.execute(last.points(), both::add)).isInstanceOf(SweepFailure.class)
                    .hasMessageStartingWith("point 1 (link.dropProbability=1) failed: ");
        }
        assertThat(both).extracting(r -> r.point().index()).containsExactly(0);
    }
}
