package dev.rdmasim.adapter.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.kernel.Simulator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class PcapWriterTest {

    @Test
    void writesANanosecondPcapHeaderAndRecordsByteForByte() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PcapWriter w = new PcapWriter(bytes)) {
            w.write(1_500_000_007_999L, new byte[] {9, 8, 7, 6, 5}, 1, 3);
            assertThat(w.framesWritten()).isEqualTo(1);
            assertThat(w.lastTimestampNs()).isEqualTo(1_500_000_007L);
        }
        assertThat(HexFormat.of().formatHex(bytes.toByteArray())).isEqualTo(
                "4d3cb2a1" + "0200" + "0400" + "00000000" + "00000000" + "ffff0000" + "01000000"
                + "01000000" + "0765cd1d" + "03000000" + "03000000" + "080706");
        ByteBuffer b = ByteBuffer.wrap(bytes.toByteArray()).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(b.getInt(0)).isEqualTo(0xa1b23c4d);
        assertThat(b.getInt(28)).isEqualTo(500_000_007);
    }

    @Test
    void closingTwiceIsHarmlessAndWritingAfterCloseFails() throws IOException {
        PcapWriter w = new PcapWriter(new ByteArrayOutputStream());
        w.close();
        w.close();
        assertThatThrownBy(() -> w.write(0, new byte[1], 0, 1)).hasMessageContaining("closed");
        PcapWriter open = new PcapWriter(new ByteArrayOutputStream());
        assertThatThrownBy(() -> open.write(-1, new byte[1], 0, 1)).hasMessageContaining(">= 0");
    }

    @Test
    void aCaptureOfAFaultyLinkIsTheSameBytesEveryRun() throws IOException {
        byte[] first = capture(42);
        assertThat(capture(42)).isEqualTo(first);
        assertThat(capture(43)).isNotEqualTo(first);
    }

    /** Frames as sent (the link's tap) and as received (corrupted ones included) in one capture. */
    private static byte[] capture(long seed) throws IOException {
        Simulator sim = new Simulator(seed);
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(100, 0, 8));
        link.aToB().setFaults(0.2, 0.2);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PcapWriter pcap = new PcapWriter(bytes);
        link.addTap(pcap);
        link.b().connectReceiver(f -> {
            pcap.write(sim.now(), f.data(), 0, f.length());
            f.release();
            return true;
        });
        RoceWriter w = new RoceWriter();
        Pump.start(link.a(), 100, (f, i) -> EthernetLinkTest.fill(f, w, i, 1000));
        sim.run();
        pcap.close();
        long records = 100 + link.aToB().framesDelivered();
        assertThat(link.aToB().framesDropped()).isPositive();
        assertThat(pcap.framesWritten()).isEqualTo(records);
        byte[] out = bytes.toByteArray();
        assertThat(out).hasSize((int) (24 + records * (16 + 1058)));
        return out;
    }
}
