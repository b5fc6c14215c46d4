package dev.rdmasim.adapter.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.testing.ExternalTool;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Wireshark's own InfiniBand dissector decodes what the link captured. Skipped when tshark is not installed. */
class TsharkDecodeTest {

    /** Runs tshark; null if it exits with an error (e.g. a field this version does not know). */
    static List<String> run(Path dir, List<String> command) throws IOException, InterruptedException {
        Path out = dir.resolve("tshark.out");
        Process p = new ProcessBuilder(command).redirectOutput(out.toFile())
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("tshark finished").isTrue();
        return p.exitValue() == 0 ? Files.readAllLines(out, StandardCharsets.UTF_8) : null;
    }

    static List<String> decode(Path tshark, Path dir, Path file, List<String> fields) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(tshark.toString(), "-r", file.toString(), "-o", "ip.check_checksum:TRUE",
                "-T", "fields", "-E", "separator=|", "-E", "occurrence=f"));
        for (String f : fields) {
            cmd.add("-e");
            cmd.add(f);
        }
        return run(dir, cmd);
    }

    @Test
    void tsharkDecodesEveryHeaderField(@TempDir Path dir) throws Exception {
        Path tshark = ExternalTool.tshark();
        Path file = dir.resolve("link.pcap");

        Simulator sim = new Simulator(1);
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(100, 5_000, 8));
        int[] icrcs = new int[5];
        int[] tapped = {0};
        try (PcapWriter pcap = PcapWriter.open(file)) {
            link.addTap(pcap);
            link.addTap((t, d, n) -> icrcs[tapped[0]++] = Icrc.load(d, 14 + RoceLayout.u16(d, 16) - 4));
            link.a().connectReceiver(Pump::consume);
            link.b().connectReceiver(Pump::consume);
            RoceWriter fromA = new RoceWriter().macs(0x0200_0000_000AL, 0x0200_0000_000BL).ipv4(0x0A00_0001, 0x0A00_0002);
            RoceWriter fromB = new RoceWriter().macs(0x0200_0000_000BL, 0x0200_0000_000AL).ipv4(0x0A00_0002, 0x0A00_0001);
            send(sim, link.a(), 1_000_000, fromA.bth(Opcode.SEND_ONLY, 0x000123, 100).ackRequest(true), 33);
            send(sim, link.a(), 2_000_000, fromA.bth(Opcode.RDMA_WRITE_FIRST, 0x000123, 101).ackRequest(false)
                    .reth(0x1122_3344_5566_7788L, 0xCAFE, 8192), 4096);
            send(sim, link.b(), 3_000_000, fromB.bth(Opcode.ACKNOWLEDGE, 0x000456, 101).aeth(Aeth.nak(2), 7), 0);
            send(sim, link.b(), 4_000_000, fromB.bth(Opcode.RDMA_READ_RESPONSE_ONLY, 0x000456, 102).aeth(Aeth.ack(31), 9), 10);
            send(sim, link.a(), 5_000_000, fromA.bth(Opcode.SEND_ONLY_IMM, 0xABCDEF, 0xFFFFFF).immediate(0xDEADBEEF), 8);
            sim.run();
        }
        assertThat(tapped[0]).isEqualTo(5);

        List<String> fields = new ArrayList<>(List.of("frame.time_epoch", "ip.checksum.status", "udp.dstport",
                "infiniband.bth.opcode", "infiniband.bth.destqp", "infiniband.bth.psn", "infiniband.bth.a",
                "infiniband.bth.padcnt", "infiniband.reth.va", "infiniband.reth.r_key", "infiniband.reth.dmalen",
                "infiniband.aeth.syndrome", "infiniband.aeth.msn", "infiniband.immdt", "infiniband.invariant.crc"));
        // Wireshark 4.0 shows the ICRC without judging it; if a later dissector offers a verdict, hold it to it.
        fields.add("infiniband.invariant.crc.status");
        List<String> lines = decode(tshark, dir, file, fields);
        boolean verdict = lines != null;
        if (!verdict) {
            fields.remove(fields.size() - 1);
            lines = decode(tshark, dir, file, fields);
        }
        assertThat(lines).as("tshark decoded the capture").isNotNull();
        assertThat(lines).hasSize(5);
        String[][] rows = lines.stream().map(l -> l.split("\\|", -1)).toArray(String[][]::new);

        String[][] expected = {
            // time_epoch, ip checksum good, port, opcode, destqp, psn, A, pad, va, rkey, dmalen, syndrome, msn, immdt
            {"0.000001000", "1", "4791", "4", "0x000123", "100", "1", "3", "", "", "", "", "", ""},
            {"0.000002000", "1", "4791", "6", "0x000123", "101", "0", "0", "0x1122334455667788", "0x0000cafe", "8192", "", "", ""},
            {"0.000003000", "1", "4791", "17", "0x000456", "101", "0", "0", "", "", "", "98", "7", ""},
            {"0.000004000", "1", "4791", "16", "0x000456", "102", "0", "2", "", "", "", "31", "9", ""},
            {"0.000005000", "1", "4791", "5", "0xabcdef", "16777215", "0", "0", "", "", "", "", "", "deadbeef"},
        };
        for (int i = 0; i < 5; i++) {
            for (int c = 0; c < expected[i].length; c++) {
                assertThat(rows[i][c]).as("frame %d field %s", i + 1, fields.get(c)).isEqualTo(expected[i][c]);
            }
            // The dissector reads the four ICRC bytes as a big-endian number; the CRC value is stored LSB first.
            assertThat(Long.decode(rows[i][14])).as("frame %d ICRC", i + 1)
                    .isEqualTo(Integer.toUnsignedLong(Integer.reverseBytes(icrcs[i])));
            if (verdict) {
                assertThat(rows[i][15]).as("frame %d ICRC verdict", i + 1).isEqualTo("1");
            }
        }
    }

    @Test
    void tsharkDecodesThePfcPauseFrames(@TempDir Path dir) throws Exception {
        Path tshark = ExternalTool.tshark();
        Path file = dir.resolve("pfc.pcap");
        Simulator sim = new Simulator(1);
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(100, 5_000, 8, EthernetLink.Phy.NONE,
                EthernetLink.Pfc.pfc(1, 0, 4_321)));
        link.b().macAddress(0x0200_0000_000BL);
        boolean[] refused = {false};
        Event retry = sim.event("retry", () -> link.b().retryDelivery());
        link.b().connectReceiver(f -> {
            if (!refused[0]) {
                refused[0] = true; // the first frame: XOFF at once, XON at the retry
                retry.schedule(2_000_000);
                return false;
            }
            return Pump.consume(f);
        });
        try (PcapWriter pcap = PcapWriter.open(file)) {
            link.addTap(pcap);
            RoceWriter fromA = new RoceWriter().macs(0x0200_0000_000BL, 0x0200_0000_000AL).ipv4(0x0A00_0001, 0x0A00_0002);
            send(sim, link.a(), 0, fromA.bth(Opcode.SEND_ONLY, 0x000123, 100), 100);
            sim.run();
        }
        List<String> lines = decode(tshark, dir, file, List.of("eth.src", "eth.dst", "eth.type", "macc.opcode",
                "macc.cbfc.enbv", "macc.cbfc.pause_time.c3"));
        assertThat(lines).as("tshark decoded the capture").isNotNull();
        assertThat(lines).containsExactly(
                "02:00:00:00:00:0a|02:00:00:00:00:0b|0x0800|||",
                "02:00:00:00:00:0b|01:80:c2:00:00:01|0x8808|0x0101|0x0008|4321",
                "02:00:00:00:00:0b|01:80:c2:00:00:01|0x8808|0x0101|0x0008|0");
    }

    private static void send(Simulator sim, LinkEndpoint from, long atPs, RoceWriter w, int payload) {
        Frame f = from.acquire();
        f.length(w.write(f.data(), new byte[payload], 0, payload));
        Event e = sim.event("send@" + atPs, () -> from.send(f));
        e.schedule(atPs);
    }
}
