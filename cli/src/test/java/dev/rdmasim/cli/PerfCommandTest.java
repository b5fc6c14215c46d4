package dev.rdmasim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PerfCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();


    private static List<JsonNode> lines(String out) throws Exception {
        List<JsonNode> l = new ArrayList<>();
        for (String line : out.strip().split("\n")) {
            l.add(JSON.readTree(line));
        }
        return l;
    }

    @Test
    void bandwidthJsonHasOneObjectPerSizeWithTheDocumentedKeys() throws Exception {
        Cli r = Cli.run("perf", "write_bw", "-s", "4096", "-n", "200", "-t", "32", "--json");
        assertThat(r.code()).as(r.err()).isZero();
        List<JsonNode> objs = lines(r.out());
        assertThat(objs).hasSize(1);
        JsonNode o = objs.get(0);
        List<String> keys = new ArrayList<>();
        o.fieldNames().forEachRemaining(keys::add);
        assertThat(keys).containsExactly("test", "bytes", "iterations", "bw_peak_gbps", "bw_avg_gbps",
                "msg_rate_mpps", "lat_p50_us", "lat_p99_us", "lat_p999_us", "sim_time_ps", "wall_s");
        assertThat(o.get("test").asText()).isEqualTo("write_bw");
        assertThat(o.get("bytes").asInt()).isEqualTo(4096);
        assertThat(o.get("iterations").asInt()).isEqualTo(200);
        assertThat(o.get("bw_avg_gbps").asDouble()).isBetween(10.0, 100.0);
        assertThat(o.get("bw_peak_gbps").asDouble()).isGreaterThanOrEqualTo(o.get("bw_avg_gbps").asDouble());
        // Message rate and average bandwidth describe the same run.
        assertThat(o.get("msg_rate_mpps").asDouble() * 4096 * 8 / 1e3)
                .isCloseTo(o.get("bw_avg_gbps").asDouble(), org.assertj.core.data.Percentage.withPercentage(1e-6));
        assertThat(o.get("sim_time_ps").asLong()).isPositive();
    }

    @Test
    void latencyJsonHasTheLatencyKeysForEverySize() throws Exception {
        Cli r = Cli.run("perf", "send_lat", "-n", "20", "--json", "--profile", "default", "--set", "host.pollTime=10ns");
        assertThat(r.code()).as(r.err()).isZero();
        JsonNode o = lines(r.out()).get(0);
        List<String> keys = new ArrayList<>();
        o.fieldNames().forEachRemaining(keys::add);
        assertThat(keys).containsExactly("test", "bytes", "iterations", "t_min_us", "t_max_us", "t_typical_us",
                "t_avg_us", "t_stdev_us", "t_p99_us", "t_p999_us", "sim_time_ps", "wall_s");
        assertThat(o.get("bytes").asInt()).isEqualTo(2);
        assertThat(o.get("t_min_us").asDouble()).isPositive().isLessThanOrEqualTo(o.get("t_typical_us").asDouble());
    }

    @Test
    void sameSeedAndOptionsGiveTheSameJsonExceptWallTime() throws Exception {
        String[] args = {"perf", "send_bw", "-s", "2048", "-n", "100", "-t", "16", "-Q", "4", "--seed", "5", "--json",
            "--set", "link.dropProbability=0.001"};
        List<JsonNode> a = lines(Cli.run(args).out());
        List<JsonNode> b = lines(Cli.run(args).out());
        for (List<JsonNode> l : List.of(a, b)) {
            assertThat(l.get(0).get("wall_s").asDouble()).isPositive();
            ((ObjectNode) l.get(0)).remove("wall_s");
        }
        assertThat(a).isEqualTo(b);
    }

    @Test
    void tableFollowsPerftestsLayout() {
        Cli r = Cli.run("perf", "read_lat", "-s", "64", "-n", "30");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("RDMA_Read Latency Test", "Profile         : default", "Number of qps   : 1",
                "Mtu             : 1024[B]", "Max inline data: 0[B]",
                " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]"
                        + "   99% percentile[usec]   99.9% percentile[usec]");
        assertThat(r.out()).containsPattern("(?m)^ 64 +30 +\\d+\\.\\d{3} ");
        Cli w = Cli.run("perf", "write_bw", "-s", "1024", "-n", "64", "-l", "8", "-m", "2048", "-q", "2");
        assertThat(w.code()).as(w.err()).isZero();
        assertThat(w.out()).contains("RDMA_Write BW Test", "Number of qps   : 2", "CQ Moderation  : 8",
                "Post List      : 8", "Mtu             : 2048[B]",
                " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]");
        assertThat(w.out()).containsPattern(
                "(?m)^ 1024 +128 +\\d+\\.\\d\\d +\\d+\\.\\d\\d +\\d+\\.\\d{6} +\\d+\\.\\d{3} +\\d+\\.\\d{3} +\\d+\\.\\d{3}$");
    }

    /**
     * The line after the table names what limits the run: two transmit slots hold 64 KiB WRITEs to a quarter of
     * the link with no block busy half the time, so the slots are named; with the default 128 the link is busy; a
     * latency test waits on round trips. JSON output has no such line.
     */
    @Test
    void theTableIsFollowedByWhatLimitsTheRun() {
        Cli slots = Cli.run("perf", "write_bw", "-s", "65536", "-n", "300", "--set", "nic.txSlots=2");
        assertThat(slots.code()).as(slots.err()).isZero();
        assertThat(slots.out()).containsPattern(
                "(?m)^-+\\n limited by      : nicA\\.tx: transmit slots full \\d+\\.\\d % of the time$");
        Cli link = Cli.run("perf", "write_bw", "-s", "65536", "-n", "300");
        assertThat(link.out()).containsPattern("(?m)^ limited by      : wire\\.aToB busy \\d+\\.\\d % of the time$");
        Cli lat = Cli.run("perf", "write_lat", "-n", "50");
        assertThat(lat.out()).containsPattern("(?m)^ limited by      : latency-bound \\(busiest \\S+ busy \\d+\\.\\d %"
                + " of the time\\)$");
        Cli json = Cli.run("perf", "write_bw", "-s", "65536", "-n", "50", "--json", "--set", "nic.txSlots=2");
        assertThat(json.out()).doesNotContain("limited by");
    }

    @Test
    void badFlagsAreOneLineErrorsWithExitStatus2() {
        String[][] cases = {
            {"unknown test 'write_bandwidth'", "perf", "write_bandwidth"},
            {"-s must be between 1 and 8388608 bytes, got 0", "perf", "write_bw", "-s", "0"},
            {"-t must be between 1 and", "perf", "write_bw", "-t", "0"},
            {"-m must be one of 256, 512, 1024, 2048, 4096, got 300", "perf", "write_bw", "-m", "300"},
            {"-q must be 1 for latency tests", "perf", "send_lat", "-q", "2"},
            {"give -a or -s, not both", "perf", "write_bw", "-a", "-s", "64"},
            {"-I must be 0 for read tests", "perf", "read_bw", "-I", "64"},
            {"unknown profile", "perf", "write_bw", "--profile", "nosuch"},
        };
        for (String[] c : cases) {
            String[] args = java.util.Arrays.copyOfRange(c, 1, c.length);
            Cli r = Cli.run(args);
            assertThat(r.code()).as(String.join(" ", args)).isEqualTo(2);
            assertThat(r.err()).as(String.join(" ", args)).startsWith("rdmasim: ").contains(c[0]);
            assertThat(r.err().strip().lines().count()).as("one line: " + r.err()).isEqualTo(1);
            assertThat(r.out()).isEmpty();
        }
    }

    @Test
    void aRunThatFailsReportsWhyWithExitStatus1() {
        Cli r = Cli.run("perf", "write_bw", "-n", "10", "--set", "link.dropProbability=1");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).startsWith("rdmasim: perf write_bw failed: ").contains("NdkConnect");
    }
}
