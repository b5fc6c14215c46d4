package dev.rdmasim.adapter.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.Stat;
import dev.rdmasim.kernel.stats.StatsGroup;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The frame lengths the reader accepts at the edges: the smallest RoCE frame with and without Ethernet padding, one byte
 * short of it, trailing bytes, which are padding only up to the 60-byte minimum, and a UDP length that disagrees with
 * the IPv4 length; and the verdict counters the reader keeps.
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

    /** The UDP length must agree with the IPv4 total length; the length checks come before the ICRC. */
    @Test
    void aUdpLengthThatDisagreesWithTheIpLengthIsABadLengthNotABadIcrc() {
        byte[] f = new byte[Frame.CAPACITY];
        RoceWriter w = new RoceWriter();
        int len = w.bth(Opcode.SEND_ONLY, 3, 9).write(f, 100);
        RoceReader r = new RoceReader();
        assertThat(r.wrap(f, len)).isEqualTo(FrameCheck.VALID);
        int udpLength = RoceLayout.u16(f, 38);
        assertThat(udpLength).isEqualTo(len - 34);
        for (int wrong : new int[] {udpLength - 4, udpLength + 4}) {
            RoceLayout.put16(f, 38, wrong);
            assertThat(r.wrap(f, len)).as("UDP length %d", wrong).isEqualTo(FrameCheck.BAD_LENGTH);
        }
        RoceLayout.put16(f, 38, udpLength);
        assertThat(r.wrap(f, len)).isEqualTo(FrameCheck.VALID);
    }

    /** Each verdict has its counter in the reader's statistics, named and described for the dump. */
    @Test
    void eachVerdictCounterIsNamedAndDescribed() {
        StatsGroup g = new StatsGroup("rx", new Simulator(1));
        RoceReader r = new RoceReader(g);
        byte[] f = new byte[Frame.CAPACITY];
        int len = new RoceWriter().bth(Opcode.SEND_ONLY, 3, 9).write(f, 4);
        r.wrap(f, len);
        f[len - 1] ^= 1;
        r.wrap(f, len);
        Map<String, Stat> byName = new HashMap<>();
        for (Stat s : g.stats()) {
            byName.put(s.name(), s);
        }
        assertThat(byName).hasSize(FrameCheck.values().length);
        Stat icrc = byName.get("rxBadIcrc");
        assertThat(icrc.description()).isEqualTo("frames whose invariant CRC does not verify");
        assertThat(icrc.unit()).isEqualTo("frames");
        assertThat(((Counter) icrc).value()).isEqualTo(1);
        assertThat(byName.get("rxValid").description()).isEqualTo("frames that passed every check");
        assertThat(((Counter) byName.get("rxValid")).value()).isEqualTo(1);
        assertThat(byName.get("rxBadTransportVersion").description())
                .isEqualTo("BTHs with a transport header version other than 0");
    }
}

