package dev.rdmasim.traces.replay;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.traces.Topology;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Path;
import org.HdrHistogram.Histogram;

/**
 * {@code summary.json}: what the replay did (simulated time, completions by status, bytes moved,
 * throughput, latency percentiles from post to completion) and every block's statistics.
 */
final class Summary {
    private Summary() {
    }

    static void write(Path file, String trace, ReplayOptions options, String[] hostNames, Topology topology,
            ReplayResult r, Histogram latency, long late, java.util.Map<String, Long> notifications, Simulator sim)
            throws IOException {
        ObjectMapper m = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = m.createObjectNode();
        root.put("trace", trace);
        root.put("seed", options.seed());
        ObjectNode hosts = root.putObject("hosts");
        for (int h = 0; h < 2; h++) {
            Profile p = topology.host(h).adapter().profile();
            ObjectNode host = hosts.putObject(hostNames[h] != null ? hostNames[h] : h == 0 ? "A" : "B");
            host.put("adapter", topology.host(h).adapter().name());
            host.put("profile", p.name());
            ObjectNode diff = host.putObject("differences_from_default");
            p.differencesFrom(Profile.defaults()).forEach(diff::put);
        }
        root.put("sim_time_ps", r.simTimePs());
        root.put("first_call_ps", r.firstCallPs());
        root.put("events", r.events());
        root.put("calls", r.calls());
        root.put("calls_late", late);
        ObjectNode comp = root.putObject("completions");
        comp.put("total", r.completions());
        ObjectNode by = comp.putObject("by_status");
        r.statusCounts().forEach(by::put);
        root.put("bytes_moved", r.bytes());
        root.put("throughput_gbps", r.gbps());
        root.put("throughput_description", "bytes of the initiator requests the adapters retired successfully (signaled or not) over first_call_ps .. sim_time_ps");
        ObjectNode lat = root.putObject("latency_ns");
        lat.put("description", "post to completion taken, initiator requests that succeeded");
        lat.put("count", latency.getTotalCount());
        if (latency.getTotalCount() > 0) {
            lat.put("min", (double) latency.getMinValue());
            lat.put("mean", latency.getMean());
            lat.put("p50", (double) latency.getValueAtPercentile(50));
            lat.put("p90", (double) latency.getValueAtPercentile(90));
            lat.put("p99", (double) latency.getValueAtPercentile(99));
            lat.put("p99_9", (double) latency.getValueAtPercentile(99.9));
            lat.put("max", (double) latency.getMaxValue());
        }
        ObjectNode cqs = root.putObject("cq_notifications");
        notifications.forEach(cqs::put);
        StringWriter stats = new StringWriter();
        sim.stats().writeJson(stats);
        root.set("stats", m.readTree(stats.toString()));
        m.writeValue(file.toFile(), root);
    }
}
