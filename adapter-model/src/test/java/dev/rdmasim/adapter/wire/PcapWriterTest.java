package dev.rdmasim.adapter.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.kernel.Simulator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
    void lengthsFrom0ToTheSnapLengthAndTimeZeroAreAcceptedAndNothingOutside() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PcapWriter w = new PcapWriter(bytes);
        byte[] big = new byte[PcapWriter.SNAPLEN + 1];
        assertThatThrownBy(() -> w.write(0, big, 0, PcapWriter.SNAPLEN + 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("frame length must be 0..65535, got 65536");
        assertThatThrownBy(() -> w.write(0, big, 0, -1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("frame length must be 0..65535, got -1");
        assertThatThrownBy(() -> w.write(-1, big, 0, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("timestamp must be >= 0 ps, got -1");
        assertThat(w.framesWritten()).isZero();
        w.write(0, big, 0, 0);
        w.write(3_000_999_999_999_999L, big, 0, PcapWriter.SNAPLEN);
        assertThat(w.framesWritten()).isEqualTo(2);
        assertThat(w.lastTimestampNs()).isEqualTo(3_000_999_999_999L);
        w.close();
        ByteBuffer b = ByteBuffer.wrap(bytes.toByteArray()).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(b.limit()).isEqualTo(24 + 16 + 16 + PcapWriter.SNAPLEN);
        assertThat(b.getInt(24 + 8)).as("captured length of the empty frame").isZero();
        assertThat(b.getInt(40)).as("seconds").isEqualTo(3_000);
        assertThat(b.getInt(44)).as("nanoseconds").isEqualTo(999_999_999);
        assertThat(b.getInt(48)).isEqualTo(PcapWriter.SNAPLEN);
        assertThat(b.getInt(52)).isEqualTo(PcapWriter.SNAPLEN);
    }

    @Test
    void recordsAreBufferedUntilFlushAndAFailingStreamNamesTheRecord() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PcapWriter w = new PcapWriter(bytes);
        w.write(1_000, new byte[] {1, 2, 3, 4}, 0, 4);
        assertThat(bytes.size()).as("nothing reaches the stream before a flush").isZero();
        w.flush();
        assertThat(bytes.size()).isEqualTo(24 + 16 + 4);
        w.close();

        int[] accepted = {0};
        OutputStream failing = new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                throw new IOException("disk full");
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                if (accepted[0] > 0) {
                    throw new IOException("disk full");
                }
                accepted[0] += len;
            }
        };
        PcapWriter f = new PcapWriter(failing);
        byte[] frame = new byte[PcapWriter.SNAPLEN];
        f.write(0, frame, 0, 10);
        // A full-size frame does not fit beside the buffered bytes, which then go out (the stream takes them);
        // the next record pushes out that frame, which the stream refuses.
        f.write(0, frame, 0, PcapWriter.SNAPLEN);
        assertThatThrownBy(() -> f.write(0, frame, 0, PcapWriter.SNAPLEN)).isInstanceOf(UncheckedIOException.class)
                .hasMessage("cannot write pcap record 2").hasRootCauseMessage("disk full");
        assertThat(f.framesWritten()).isEqualTo(2);
    }

    @Test
    void openCreatesOrTruncatesTheFile(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("c.pcap");
        Files.write(file, new byte[1000]);
        try (PcapWriter w = PcapWriter.open(file)) {
            w.write(0, new byte[] {7}, 0, 1);
        }
        assertThat(Files.size(file)).isEqualTo(24 + 16 + 1);
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
