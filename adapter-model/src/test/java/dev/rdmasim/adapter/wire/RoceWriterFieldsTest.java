package dev.rdmasim.adapter.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Writer details other tests leave alone: an unsupported opcode refused up front, the opcode and payload offset it
 * reports, the IPv4 identification counting up and wrapping at 16 bits, and a UD frame written over a dirty buffer.
 */
class RoceWriterFieldsTest {

    @Test
    void anUnsupportedOpcodeIsRefusedAndTheCurrentOneIsReportedWithItsPayloadOffset() {
        RoceWriter w = new RoceWriter();
        assertThatThrownBy(() -> w.bth(0x12, 1, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("opcode 0x12 is not a supported opcode");
        assertThatThrownBy(() -> w.bth(0x63, 1, 1)).hasMessage("opcode 0x63 is not a supported opcode");
        assertThat(w.bth(Opcode.RDMA_WRITE_ONLY_IMM, 1, 1).opcode()).isEqualTo(Opcode.RDMA_WRITE_ONLY_IMM);
        assertThat(w.payloadOffset()).isEqualTo(54 + 16 + 4);
        assertThat(w.bth(Opcode.UD_SEND_ONLY, 1, 1).opcode()).isEqualTo(Opcode.UD_SEND_ONLY);
        assertThat(w.payloadOffset()).isEqualTo(54 + 8);
        assertThat(w.bth(Opcode.SEND_ONLY, 1, 1).payloadOffset()).isEqualTo(54);
    }

    @Test
    void theIdentificationCountsUpPerFrameAndWrapsAt16Bits() {
        RoceWriter w = new RoceWriter().identification(0xFFFE);
        RoceReader r = new RoceReader();
        byte[] f = new byte[Frame.CAPACITY];
        int[] expected = {0xFFFE, 0xFFFF, 0, 1, 2};
        for (int id : expected) {
            int len = w.bth(Opcode.SEND_ONLY, 1, 1).write(f, 8);
            assertThat(r.wrap(f, len)).isEqualTo(FrameCheck.VALID);
            assertThat(r.identification()).isEqualTo(id);
        }
    }

    @Test
    void aUdFrameOverADirtyBufferClearsTheDethReservedByteAndKeepsTheAckRequest() {
        byte[] f = new byte[Frame.CAPACITY];
        Arrays.fill(f, (byte) 0xFF);
        RoceWriter w = new RoceWriter();
        int len = w.bth(Opcode.UD_SEND_ONLY, 1, 77).ackRequest(true).deth(0x8001_0000, 0xABCDEF).write(f, 0);
        RoceReader r = new RoceReader();
        assertThat(r.wrap(f, len)).isEqualTo(FrameCheck.VALID);
        assertThat(r.ackRequest()).isTrue();
        assertThat(r.dethQkey()).isEqualTo(0x8001_0000);
        assertThat(r.dethSourceQp()).isEqualTo(0xABCDEF);
        assertThat(f[54 + 4]).as("DETH reserved byte").isZero();
        assertThat(f[42 + 8] & 0xFF).as("BTH byte 8: A set, reserved bits clear").isEqualTo(0x80);
    }
}
