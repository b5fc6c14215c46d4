package dev.rdmasim.sweep;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.sweep.PointResult.Metric;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class PointRunnerTest {
    private static Map<String, Double> byName(List<Metric> metrics) {
        return metrics.stream().collect(Collectors.toMap(Metric::name, Metric::value, (a, b) -> a,
                java.util.LinkedHashMap::new));
    }

    private static Point only(SweepSpec s, int index) {
        return s.points().get(index);
    }

    @Test
    void aBandwidthPointReportsPerftestsFiguresAndEveryBlocksBusyFraction() {
        SweepSpec s = SweepSpec.perf("write_bw", List.of("-s", "1024", "-n", "200")).param("qp.initiatorQueueDepth=2,32")
                .build();
        PointResult shallow = PointRunner.run(only(s, 0));
        PointResult deep = PointRunner.run(only(s, 1));
        assertThat(deep.metrics()).extracting(Metric::name).containsExactly("bw_avg_gbps", "bw_peak_gbps",
                "msg_rate_mpps", "lat_p50_us", "lat_p99_us", "lat_p999_us", "sim_time_ps");
        assertThat(deep.metrics()).extracting(Metric::unit).containsExactly("Gb/s", "Gb/s", "Mpps", "us", "us", "us", "ps");
        Map<String, Double> m = byName(deep.metrics());
        // Bandwidth and message rate describe the same 1 KiB messages.
        assertThat(m.get("msg_rate_mpps") * 1024 * 8 / 1e3).isCloseTo(m.get("bw_avg_gbps"),
                org.assertj.core.data.Percentage.withPercentage(1e-9));
        assertThat(m.get("bw_avg_gbps")).as("a deeper queue keeps the link busier")
                .isGreaterThan(byName(shallow.metrics()).get("bw_avg_gbps"));
        assertThat(deep.busy()).extracting(Metric::name).contains("hostA.cpu", "hostB.cpu", "nicA.tx", "nicB.rx",
                "wire.aToB", "wire.bToA", "nicA.pcie.up").doesNotHaveDuplicates();
        assertThat(deep.busy()).allSatisfy(b -> {
            assertThat(b.unit()).isEqualTo("fraction");
            assertThat(b.value()).isBetween(0.0, 1.0);
        });
        Metric top = deep.bottleneck();
        assertThat(deep.busy()).allSatisfy(b -> assertThat(b.value()).isLessThanOrEqualTo(top.value()));
        assertThat(byName(deep.busy()).get("wire.aToB")).as("the client's data goes A to B")
                .isGreaterThan(byName(deep.busy()).get("wire.bToA"));
        assertThat(deep.wallSeconds()).isPositive();
    }

    /**
     * Busy fractions cover the measured part only: 2000 small WRITEs at depth 128 keep the client's CPU busy almost
     * all the time they take (about 250 us: each post costs the WQE build and two BlueFlame chunks), though the
     * connection setup before them, with its firmware commands, is about as long and leaves the CPU mostly idle.
     */
    @Test
    void busyFractionsLeaveTheSetupOut() {
        SweepSpec s = SweepSpec.perf("write_bw", List.of("-s", "64", "-n", "2000", "-t", "128")).build();
        PointResult r = PointRunner.run(only(s, 0));
        double runPs = byName(r.metrics()).get("sim_time_ps");
        assertThat(runPs).isLessThan(400e6);
        assertThat(r.bottleneck().name()).isEqualTo("hostA.cpu");
        assertThat(r.bottleneck().value()).isGreaterThan(0.8);
        // The server only answers (no CPU work but its setup), so it is idle over the window.
        assertThat(byName(r.busy()).get("hostB.cpu")).isLessThan(0.05);
    }

    @Test
    void aLatencyPointReportsPerftestsLatencyFigures() {
        SweepSpec s = SweepSpec.perf("send_lat", List.of("-n", "20")).param("-s=8").build();
        PointResult r = PointRunner.run(only(s, 0));
        assertThat(r.metrics()).extracting(Metric::name).containsExactly("t_min_us", "t_max_us", "t_typical_us",
                "t_avg_us", "t_stdev_us", "t_p99_us", "t_p999_us", "sim_time_ps");
        Map<String, Double> m = byName(r.metrics());
        assertThat(m.get("t_min_us")).isPositive().isLessThanOrEqualTo(m.get("t_typical_us"));
    }

    @Test
    void aTracePointTakesTheQpValuesOnItsQpLines() {
        SweepSpec s = new SweepSpec.Builder(Workload.trace("t.trace", SweepSpecTest.TRACE))
                .param("qp.initiatorQueueDepth=4,8").build();
        PointResult four = PointRunner.run(only(s, 0));
        PointResult eight = PointRunner.run(only(s, 1));
        assertThat(eight.metrics()).extracting(Metric::name).containsExactly("sim_time_ps", "calls", "completions",
                "completions_success", "bytes_moved", "throughput_gbps", "latency_p50_ns", "latency_p99_ns");
        assertThat(byName(eight.metrics())).containsEntry("completions_success", 8.0).containsEntry("bytes_moved", 512.0);
        // At depth 4, four of the eight writes posted at once find the queue full.
        Map<String, Double> m4 = byName(four.metrics());
        assertThat(m4).containsEntry("completions_success", 4.0).containsEntry("bytes_moved", 256.0)
                .containsEntry("completions", 8.0);
        assertThat(four.busy()).extracting(Metric::name).contains("nicA.tx", "hostA.cpu");
    }

    @Test
    void aFailingPointIsASweepFailureNamingIt() {
        SweepSpec s = SweepSpec.perf("write_bw", List.of("-s", "64", "-n", "10")).param("link.dropProbability=1").build();
        assertThatThrownBy(() -> PointRunner.run(only(s, 0))).isInstanceOf(SweepFailure.class)
                .hasMessageStartingWith("point 0 (link.dropProbability=1) failed: ").hasMessageContaining("NdkConnect");
    }

    @Test
    void aPointTravelsAsBytesAndRunsTheSameElsewhere() throws Exception {
        SweepSpec s = SweepSpec.perf("write_bw", List.of("-s", "64", "-n", "100")).set("link.dropProbability=0.01")
                .param("qp.inlineDataSize=64").seed(3).build();
        Point p = only(s, 0);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(p);
        }
        Point copy;
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            copy = (Point) in.readObject();
        }
        assertThat(copy).isEqualTo(p);
        PointResult here = PointRunner.run(p);
        PointResult there = PointRunner.run(copy);
        assertThat(there.metrics()).isEqualTo(here.metrics());
        assertThat(there.busy()).isEqualTo(here.busy());
    }
}
