package dev.rdmasim.traces.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.adapter.config.Profile;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PerfArgsTest {
    private static final Profile P = Profile.defaults();

    @Test
    void everyWayOfWritingAFlagGivesTheSameOptions() {
        PerfOptions expected = PerfOptions.builder(PerfTest.WRITE_BW, P).seed(7).size(64).iterations(200).txDepth(16)
                .inlineSize(0).qps(2).postList(4).cqMod(2).mtu(2048).build();
        for (String words : List.of("-s 64 -n 200 -t 16 -I 0 -q 2 -l 4 -Q 2 -m 2048",
                "--size 64 --iters 200 --tx-depth 16 --inline_size 0 --qp 2 --post_list 4 --cq-mod 2 --mtu 2048",
                "-s=64 --iters=200 -t=16 -I=0 --qp=2 -l 4 -Q=2 --mtu=2048")) {
            assertThat(PerfArgs.parse(PerfTest.WRITE_BW, P, 7, PerfArgs.split(words))).as(words).isEqualTo(expected);
        }
        assertThat(PerfArgs.parse(PerfTest.SEND_BW, P, 1, List.of("-a", "-r", "32")).sizes()).hasSize(23);
        assertThat(PerfArgs.parse(PerfTest.SEND_BW, P, 1, List.of())).isEqualTo(PerfOptions.builder(PerfTest.SEND_BW, P).build());
    }

    @Test
    void valuesKeepTheFlagsByShortNameInTheirOrder() {
        Map<String, String> v = PerfArgs.values(List.of("--iters", "10", "-a", "-t=4"));
        assertThat(v).containsExactly(Map.entry("-n", "10"), Map.entry("-a", "true"), Map.entry("-t", "4"));
        assertThat(PerfArgs.split("  -s 64\t-n  10 ")).containsExactly("-s", "64", "-n", "10");
        assertThat(PerfArgs.split(" ")).isEmpty();
    }

    @Test
    void mistakesNameTheFlag() {
        String[][] cases = {
            {"--bogus 1", "unknown perf flag '--bogus' (valid: -s, -a, -n, -t, -r, -I, -q, -l, -Q, -m)"},
            {"-i 64", "unknown perf flag '-i'; did you mean '-I'? (valid: -s, -a, -n, -t, -r, -I, -q, -l, -Q, -m)"},
            {"-s", "-s needs a value (BYTES)"},
            {"-s 4KiB", "-s takes a whole number (BYTES), got '4KiB'"},
            {"-n 99999999999", "-n takes a whole number (N), got '99999999999'"},
            {"-a=1", "-a takes no value, got '-a=1'"},
            {"-s 64 --size 128", "-s is given twice"},
            {"64", "expected a perf flag such as -s or --size, got '64'"},
            {"-a -s 64", "-a runs every size: give -a or -s, not both"},
            {"-t 0", "-t must be between 1 and ndk.maxInitiatorQueueDepth"},
        };
        for (String[] c : cases) {
            assertThatThrownBy(() -> PerfArgs.parse(PerfTest.WRITE_BW, P, 1, PerfArgs.split(c[0])))
                    .as(c[0]).isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith(c[1]);
        }
    }

    @Test
    void theTableHasEachFlagOnceWithItsLongName() {
        assertThat(PerfArgs.flags()).extracting(PerfArgs.Flag::name).doesNotHaveDuplicates()
                .containsExactly("-s", "-a", "-n", "-t", "-r", "-I", "-q", "-l", "-Q", "-m");
        assertThat(PerfArgs.find("--tx-depth").name()).isEqualTo("-t");
        assertThat(PerfArgs.find("-a").takesValue()).isFalse();
        assertThat(PerfArgs.find("--nope")).isNull();
    }
}
