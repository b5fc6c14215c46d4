package dev.rdmasim.sweep;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.sweep.report.Plots;
import dev.rdmasim.sweep.report.Report;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped example sweep runs as the README and its header describe it: inline data pays off while the queue
 * is shallow and stops paying off from depth 64, and the client's CPU is the busiest block.
 */
class ExampleSweepTest {
    private static final Path EXAMPLE = Path.of("..", "traces", "examples", "sweeps", "write-depth-inline.yaml");

    @Test
    void depthByInlineForSmallWrites(@TempDir Path dir) throws IOException {
        SweepSpec spec = SweepFile.read(EXAMPLE);
        assertThat(spec.size()).isEqualTo(18);
        Sweep.Outcome o;
        try (PointExecutor e = new LocalExecutor(2)) {
            o = Sweep.run(spec, dir, e, (done, total, rate, left) -> { }, List.of(Plots::write, Report::write));
        }
        Map<String, Double> rate = new HashMap<>();
        for (PointResult r : o.results().results()) {
            String key = r.point().values().get(0) + "/" + r.point().values().get(1);
            rate.put(key, r.metrics().stream().filter(m -> m.name().equals("msg_rate_mpps")).findFirst()
                    .orElseThrow().value());
            assertThat(r.bottleneck().name()).as("bottleneck at %s", key).isEqualTo("hostA.cpu");
            int depth = Integer.parseInt(r.point().values().get(0));
            if (depth == 1) {
                assertThat(r.bottleneck().value()).as("at depth 1 the CPU mostly waits").isLessThan(0.2);
            } else if (depth == 256) {
                assertThat(r.bottleneck().value()).as("at depth 256 the CPU is the limit").isGreaterThan(0.95);
            }
        }
        // At small depths inline saves about a PCIe read round trip per request (the payload read): at depth 1,
        // where the rate is one over the request's latency, the difference of the periods is that round trip.
        double saved = 1 / rate.get("1/0") - 1 / rate.get("1/64");
        assertThat(saved).as("us saved per request by inline at depth 1").isBetween(0.4, 0.7);
        for (int depth : new int[] {2, 4, 8}) {
            assertThat(rate.get(depth + "/64")).as("depth %d", depth).isGreaterThan(1.2 * rate.get(depth + "/0"));
        }
        // Deep queues: the posting core is the limit, and an inline 64 B WQE is one more BlueFlame chunk for it.
        for (int depth : new int[] {64, 128, 256}) {
            assertThat(rate.get(depth + "/0")).as("depth %d", depth).isGreaterThan(1.03 * rate.get(depth + "/64"));
        }
        assertThat(Files.readString(dir.resolve("report.md"))).contains("0 (larger inline sizes gain nothing)");
        assertThat(dir.resolve("throughput-vs-depth.png")).exists();
    }
}
