package dev.rdmasim.traces.replay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.kernel.testing.ExternalTool;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replay's waveform and packet capture open in the tools they are for: GTKWave's vcd2fst converts the VCD,
 * and Wireshark's dissector (tshark) decodes the capture: the WRITE's frames with its payload bytes, the ACK,
 * and the connection manager's datagrams. Skipped when a tool is not installed (CI installs both and requires them).
 */
class ReplayOutputReadersTest {
    @TempDir
    Path dir;

    private List<String> run(List<String> command) throws IOException, InterruptedException {
        Path out = dir.resolve("tool.out");
        Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectErrorStream(false)
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as(command.get(0) + " finished").isTrue();
        assertThat(p.exitValue()).as(String.join(" ", command)).isZero();
        return Files.readAllLines(out, StandardCharsets.UTF_8);
    }

    private ReplayOptions outputs(String name) {
        return new ReplayOptions(dir.resolve(name), "default", List.of(), 1, true, "", true, true);
    }

    @Test
    void gtkwaveConvertsTheWaveform() throws Exception {
        Path vcd2fst = ExternalTool.vcd2fst();
        ReplayResult r = Replay.run(ReplayExamplesTest.EXAMPLES.resolve("quickstart.trace"), outputs("wave"));
        Path fst = dir.resolve("wave.fst");
        run(List.of(vcd2fst.toString(), r.vcd().toString(), fst.toString()));
        assertThat(Files.size(fst)).isPositive();
        assertThat(Files.readString(r.vcd())).contains("$scope module nicA $end").contains("$enddefinitions $end");
    }

    @Test
    void tsharkDecodesTheWriteItsPayloadTheAckAndTheCmMessages() throws Exception {
        Path tshark = ExternalTool.tshark();
        ReplayResult r = Replay.run(ReplayExamplesTest.EXAMPLES.resolve("quickstart.trace"), outputs("pcap"));
        List<String> rows = run(List.of(tshark.toString(), "-r", r.pcap().toString(), "-T", "fields", "-E",
                "separator=|", "-E", "occurrence=f", "-e", "infiniband.bth.opcode", "-e", "data.data", "-e",
                "infiniband.reth.dmalen"));
        List<Integer> opcodes = new ArrayList<>();
        StringBuilder payload = new StringBuilder();
        for (String row : rows) {
            String[] f = row.split("\\|", -1);
            opcodes.add(Integer.decode(f[0]));
            if (Integer.decode(f[0]) >= 6 && Integer.decode(f[0]) <= 8) {
                payload.append(f[1].replace(":", ""));
            }
        }
        // The CM's UD datagrams (0x64: REQ, REP, RTU) come first; then RDMA WRITE First, Middle, Middle, Last of the
        // 4 KiB at a 1 KiB MTU, and the ACK (0x11).
        assertThat(opcodes).containsSubsequence(0x64, 0x64, 0x64, 0x06, 0x07, 0x07, 0x08, 0x11);
        byte[] expected = new byte[4096];
        new SplittableRandom(1).nextBytes(expected);
        assertThat(payload.toString()).isEqualToIgnoringCase(HexFormat.of().formatHex(expected));
        assertThat(rows.stream().filter(x -> x.endsWith("|4096")).count()).as("the RETH carries the DMA length").isEqualTo(1);
    }
}
