package dev.rdmasim.adapter.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The RoCEv2 UDP source-port range, and the smallest frame buffer the writer accepts. */
class RoceWriterLimitsTest {

    @Test
    void entropyPortsStayInTheDynamicRangeAndSpreadOverIt() {
        SplittableRandom rnd = new SplittableRandom(42);
        Set<Integer> ports = new HashSet<>();
        int[] bitSet = new int[14];
        int n = 8_192;
        for (int i = 0; i < n; i++) {
            int src = rnd.nextInt(1 << 24);
            int dst = rnd.nextInt(1 << 24);
            int p = RoceWriter.entropyPort(src, dst);
            assertThat(p).isBetween(0xC000, 0xFFFF);
            assertThat(RoceWriter.entropyPort(src, dst)).as("one connection, one port").isEqualTo(p);
            ports.add(p);
            for (int b = 0; b < 14; b++) {
                bitSet[b] += (p >>> b) & 1;
            }
        }
        // 8192 draws over 16384 ports leave about 6450 distinct ones when the spread is even.
        assertThat(ports.size()).isGreaterThan(6_000);
        for (int b = 0; b < 14; b++) {
            assertThat(bitSet[b]).as("bit %d", b).isBetween(n * 45 / 100, n * 55 / 100);
        }
    }

    @Test
    void consecutiveQueuePairsGetDifferentPorts() {
        // QPs are numbered consecutively; both QP numbers must move the port, and so must the mixing of high bits.
        Set<Integer> bySource = new HashSet<>();
        Set<Integer> byDest = new HashSet<>();
        Set<Integer> highOnly = new HashSet<>();
        for (int q = 0; q < 256; q++) {
            bySource.add(RoceWriter.entropyPort(0x100 + q, 0x200));
            byDest.add(RoceWriter.entropyPort(0x100, 0x200 + q));
            highOnly.add(RoceWriter.entropyPort(q << 16, 0));
        }
        assertThat(bySource).hasSizeGreaterThan(240);
        assertThat(byDest).hasSizeGreaterThan(240);
        assertThat(highOnly).hasSizeGreaterThan(200);
    }

    @Test
    void theChosenPortIsWrittenToTheUdpHeader() {
        RoceWriter w = new RoceWriter().bth(Opcode.SEND_ONLY, 5, 0);
        byte[] f = new byte[RoceLayout.MAX_FRAME];
        int port = RoceWriter.entropyPort(3, 5);
        int len = w.udpSourcePort(port).write(f, 16);
        RoceReader r = new RoceReader();
        assertThat(r.wrap(f, len)).isEqualTo(FrameCheck.VALID);
        assertThat(r.udpSourcePort()).isEqualTo(port);
        assertThat(new RoceReader().wrap(f, len)).isEqualTo(FrameCheck.VALID);
        assertThatThrownBy(() -> w.udpSourcePort(0x10000)).hasMessageContaining("udpSourcePort");
        assertThatThrownBy(() -> w.udpSourcePort(-1)).hasMessageContaining("udpSourcePort");
    }

    @ParameterizedTest(name = "opcode {0}")
    @ValueSource(ints = {Opcode.SEND_ONLY, Opcode.SEND_ONLY_IMM, Opcode.RDMA_WRITE_ONLY_IMM, Opcode.RDMA_WRITE_MIDDLE,
        Opcode.RDMA_READ_RESPONSE_ONLY, Opcode.ACKNOWLEDGE, Opcode.RDMA_READ_REQUEST, Opcode.UD_SEND_ONLY})
    void aFrameBufferOfExactlyTheNeededSizeIsEnoughAndOneByteLessIsNot(int opcode) {
        boolean payload = opcode != Opcode.ACKNOWLEDGE && opcode != Opcode.RDMA_READ_REQUEST;
        int[] lengths = payload ? new int[] {0, 1, 2, 3, 4, 5, 17, 63, 1023, RoceLayout.MAX_PAYLOAD} : new int[] {0};
        for (int len : lengths) {
            RoceWriter w = new RoceWriter().bth(opcode, 9, 1);
            int pad = -len & 3;
            int headers = RoceLayout.EXT_OFFSET + Opcode.extensionBytes(opcode);
            int needed = Math.max(RoceLayout.ETH_MIN_FRAME, headers + len + pad + RoceLayout.ICRC);
            byte[] exact = new byte[needed];
            byte[] data = new byte[len];
            java.util.Arrays.fill(data, (byte) 0x5A);
            assertThat(w.write(exact, data, 0, len)).as("length %d", len).isEqualTo(needed);
            assertThat(new RoceReader().wrap(exact, needed)).as("length %d", len).isEqualTo(FrameCheck.VALID);
            assertThatThrownBy(() -> w.write(new byte[needed - 1], data, 0, len))
                    .as("length %d", len).hasMessage("frame buffer of " + (needed - 1)
                            + " bytes is too small; need " + needed);
        }
    }
}
