package dev.rdmasim.adapter.wire;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The frame lengths the reader accepts at the edges: the smallest RoCE frame with and without Ethernet padding, one byte
 * short of it, and trailing bytes, which are padding only up to the 60-byte minimum.
 */
class FrameLengthEdgesTest {

    @Test
    void theSmallestFrameIsValidBareOrPaddedTo60AndNotOneByteShorter() {
        byte[] f = new byte[Frame.CAPACITY];
        RoceWriter w = new RoceWriter();
        w.bth(Opcode.SEND_ONLY, 3, 9);
        assertThat(w.write(f, 0)).as("58 bytes padded to the Ethernet minimum").isEqualTo(60);
        RoceReader r = new RoceReader();
        assertThat(r.wrap(f, 60)).isEqualTo(FrameCheck.VALID);
        assertThat(r.wrap(f, 59)).isEqualTo(FrameCheck.VALID);
        assertThat(r.wrap(f, 58)).isEqualTo(FrameCheck.VALID);
        assertThat(r.payloadLength()).isZero();
        assertThat(r.psn()).isEqualTo(9);
        assertThat(r.wrap(f, 57)).isEqualTo(FrameCheck.TRUNCATED);
        assertThat(r.wrap(f, 61)).as("a byte past the padding").isEqualTo(FrameCheck.BAD_LENGTH);
    }

    @Test
    void aFrameOfAtLeast60BytesMayCarryNoTrailingByte() {
        byte[] f = new byte[Frame.CAPACITY];
        RoceWriter w = new RoceWriter();
        w.bth(Opcode.ACKNOWLEDGE, 3, 9).aeth(Aeth.ack(5), 77);
        assertThat(w.write(f, 0)).isEqualTo(62);
        RoceReader r = new RoceReader();
        assertThat(r.wrap(f, 62)).isEqualTo(FrameCheck.VALID);
        assertThat(r.wrap(f, 63)).isEqualTo(FrameCheck.BAD_LENGTH);
        assertThat(r.wrap(f, 61)).isEqualTo(FrameCheck.BAD_LENGTH);

        w.bth(Opcode.SEND_ONLY, 3, 10);
        assertThat(w.write(f, 4)).as("62 bytes, above the minimum: no padding").isEqualTo(62);
        assertThat(r.wrap(f, 62)).isEqualTo(FrameCheck.VALID);
        assertThat(r.payloadLength()).isEqualTo(4);
        assertThat(r.wrap(f, 63)).isEqualTo(FrameCheck.BAD_LENGTH);

        w.bth(Opcode.SEND_ONLY, 3, 11);
        assertThat(w.write(f, 2)).as("58 + 2 payload + 2 pad: exactly 62, no Ethernet padding").isEqualTo(62);
        assertThat(r.wrap(f, 62)).isEqualTo(FrameCheck.VALID);
        assertThat(r.payloadLength()).isEqualTo(2);
    }
}
