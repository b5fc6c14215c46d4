package dev.rdmasim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PciePerfCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode json(Cli r) throws Exception {
        assertThat(r.code()).as(r.err()).isZero();
        return JSON.readTree(r.out());
    }

    @Test
    void readJsonHasTheIssueKeysAndFiguresOfTheProfile() throws Exception {
        JsonNode o = json(Cli.run("perf", "pcie_read", "-s", "256", "-n", "500", "--json"));
        for (String key : new String[] {"test", "bytes", "iterations", "bw_gbps", "lat_ns_median", "sim_time_ps", "wall_s"}) {
            assertThat(o.has(key)).as(key).isTrue();
        }
        assertThat(o.get("test").asText()).isEqualTo("pcie_read");
        assertThat(o.get("bytes").asInt()).isEqualTo(256);
        assertThat(o.get("iterations").asLong()).isEqualTo(500);
        assertThat(o.get("window").asInt()).isEqualTo(256);
        // Gen3 x16 at MPS 256: 256 B completions carry 20 B of header, 113.70 x 256 / 276 Gb/s.
        assertThat(o.get("bw_gbps").asDouble()).isBetween(103.0, 107.0);
        assertThat(o.get("lat_ns_median").asDouble()).isGreaterThanOrEqualTo(430 + 2 * 60);
        assertThat(o.get("sim_time_ps").asLong()).isPositive();
        assertThat(o.get("verified_bytes").asLong()).isEqualTo((500 + 500) * 256L);
    }

    @Test
    void writeJsonHasNoLatencyAndSetChangesTheLink() throws Exception {
        JsonNode base = json(Cli.run("perf", "pcie_write", "-s", "256", "-n", "400", "--json"));
        assertThat(base.has("lat_ns_median")).isFalse();
        assertThat(base.get("test").asText()).isEqualTo("pcie_write");
        // Half the lanes, half the bandwidth (same MPS and spec DLLP table row for x8 gives 52.92 Gb/s).
        JsonNode x8 = json(Cli.run("perf", "pcie_write", "-s", "256", "-n", "400", "--set", "pcie.lanes=8", "--json"));
        assertThat(x8.get("bw_gbps").asDouble()).isCloseTo(52.92, org.assertj.core.api.Assertions.within(52.92 * 0.03));
        assertThat(x8.get("bw_gbps").asDouble()).isLessThan(base.get("bw_gbps").asDouble() * 0.55);
    }

    @Test
    void sweepPrintsOneRowPerSizeAndAJsonArray() throws Exception {
        Cli table = Cli.run("perf", "pcie_read", "-a", "-n", "200", "--profile", "cx3-like");
        assertThat(table.code()).as(table.err()).isZero();
        assertThat(table.out()).contains("pcie_read", "profile cx3-like", "PCIe Gen3 x8", "bw_gbps", "lat_ns_median");
        List<String> sizes = new ArrayList<>();
        for (String line : table.out().split("\n")) {
            String[] cols = line.trim().split(" +");
            if (cols.length == 7 && cols[0].matches("[0-9]+")) {
                sizes.add(cols[0]);
                assertThat(cols[1]).isEqualTo("200");
            }
        }
        assertThat(sizes).containsExactly("64", "128", "256", "512", "1024", "2048", "4096");
        JsonNode arr = json(Cli.run("perf", "pcie_write", "-a", "-n", "100", "--json"));
        assertThat(arr.isArray()).isTrue();
        assertThat(arr.size()).isEqualTo(7);
        assertThat(arr.get(6).get("bytes").asInt()).isEqualTo(4096);
    }

    @Test
    void mistakesAreOneLineAndExitTwo() {
        String[][] cases = {
            {"pcie_read", "-s", "32"},
            {"pcie_read", "-s", "65537"},
            {"pcie_rw"},
            {"pcie_write", "--window", "2000"},
            {"pcie_write", "-n", "1"},
            {"pcie_write", "-a", "-s", "128"},
            {"pcie_read", "--profile", "cx9-like"},
            {"pcie_read", "--set", "pcie.mps=100"},
        };
        String[] expected = {"64..65536", "65537", "pcie_read, pcie_write", "--window must be 1..1024",
            "iterations must be at least 2", "-s and -a", "unknown profile 'cx9-like'", "pcie.mps = 100"};
        for (int i = 0; i < cases.length; i++) {
            String[] args = new String[cases[i].length + 1];
            args[0] = "perf";
            System.arraycopy(cases[i], 0, args, 1, cases[i].length);
            Cli r = Cli.run(args);
            assertThat(r.code()).as(String.join(" ", args)).isEqualTo(2);
            assertThat(r.err()).as(String.join(" ", args)).contains(expected[i]).doesNotContain("\tat ");
            assertThat(r.err().strip().lines().count()).as(String.join(" ", args)).isEqualTo(1);
            assertThat(r.out()).isEmpty();
        }
    }
}
