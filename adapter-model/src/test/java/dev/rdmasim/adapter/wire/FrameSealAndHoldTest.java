package dev.rdmasim.adapter.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.Simulator;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * A frame built by {@link RoceWriter#write(Frame, byte[], int, int)} is sealed, and a reader takes its ICRC as right
 * instead of computing it again. Every change to the frame's bytes that the model makes ends the seal: a resize by the
 * sender, the link's corruption, recycling. Test runs have assertions on, under which a sealed frame's ICRC is still
 * computed and must match, so a change that forgot to end the seal fails loudly. A frame whose bytes the receiver
 * still needs (holds) cannot be released.
 */
class FrameSealAndHoldTest {

    private static RoceWriter writer() {
        RoceWriter w = new RoceWriter();
        w.macs(0x0200_0000_0001L, 0x0200_0000_0002L).ipv4(0x0A00_0001, 0x0A00_0002).udpSourcePort(0xC001)
                .bth(Opcode.SEND_ONLY, 0x11, 5);
        return w;
    }

    @Test
    void aFrameTheWriterBuiltIsSealedUntilItsSenderResizesItOrItIsRecycled() {
        Simulator sim = new Simulator(1);
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(100, 0, 2));
        Frame f = link.a().acquire();
        assertThat(f.icrcSealed()).isFalse();
        writer().write(f, new byte[100], 0, 100);
        assertThat(f.icrcSealed()).isTrue();
        int len = f.length();
        f.length(len);
        assertThat(f.icrcSealed()).as("a resize, even to the same length, ends the seal").isFalse();
        writer().write(f, new byte[100], 0, 100);
        f.release();
        Frame again = link.a().acquire();
        assertThat(again).isSameAs(f);
        assertThat(again.icrcSealed()).as("a recycled frame starts unsealed").isFalse();
    }

    @Test
    void aSealedFrameIsValidAndReadsTheSameAsWhenItsIcrcIsComputed() {
        Simulator sim = new Simulator(1);
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(100, 0, 2));
        Frame f = link.a().acquire();
        byte[] payload = new byte[77];
        new Random(5).nextBytes(payload);
        writer().write(f, payload, 0, payload.length);
        RoceReader sealedRead = new RoceReader();
        RoceReader computed = new RoceReader();
        assertThat(sealedRead.wrap(f)).isEqualTo(FrameCheck.VALID);
        assertThat(computed.wrap(f.data(), f.length())).isEqualTo(FrameCheck.VALID);
        assertThat(sealedRead.icrc()).isEqualTo(computed.icrc());
        assertThat(sealedRead.payloadLength()).isEqualTo(77);
        assertThat(sealedRead.psn()).isEqualTo(5);
    }

    @Test
    void aByteChangedBehindTheSealFailsLoudlyUnderAssertions() {
        // Surefire runs tests with assertions enabled; in a normal run the reader would trust the seal.
        assertThat(RoceReader.class.desiredAssertionStatus()).isTrue();
        Simulator sim = new Simulator(1);
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(100, 0, 2));
        Frame f = link.a().acquire();
        writer().write(f, new byte[64], 0, 64);
        f.data()[RoceLayout.BTH_OFFSET + 20] ^= 1; // in the payload: only the ICRC can notice
        RoceReader r = new RoceReader();
        assertThatThrownBy(() -> r.wrap(f)).isInstanceOf(InvariantViolation.class)
                .hasMessageContaining("sealed by its writer has a wrong ICRC");
        // The same bytes through the unsealed path are simply a bad frame.
        assertThat(r.wrap(f.data(), f.length())).isEqualTo(FrameCheck.BAD_ICRC);
    }

    /** Sealed frames sent over a link that corrupts some of them: each corrupted one is caught, the rest are valid. */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void theLinksCorruptionEndsTheSealSoTheReceiverComputesAndCatchesIt(long seed) {
        Simulator sim = new Simulator(seed);
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(100, 0, 8));
        link.aToB().setFaults(0, 0.5);
        RoceReader reader = new RoceReader();
        List<FrameCheck> verdicts = new ArrayList<>();
        int[] sealedOnArrival = {0};
        link.b().connectReceiver(f -> {
            if (f.icrcSealed()) {
                sealedOnArrival[0]++;
            }
            verdicts.add(reader.wrap(f));
            f.release();
            return true;
        });
        RoceWriter w = writer();
        Random rnd = new Random(seed);
        int frames = 400;
        Pump.start(link.a(), frames, (f, i) -> {
            byte[] payload = new byte[rnd.nextInt(1025)];
            rnd.nextBytes(payload);
            w.write(f, payload, 0, payload.length);
        });
        sim.run();
        long corrupted = link.aToB().framesCorrupted();
        assertThat(corrupted).isBetween(150L, 250L);
        assertThat(verdicts).hasSize(frames);
        assertThat(verdicts.stream().filter(v -> v != FrameCheck.VALID).count()).isEqualTo(corrupted);
        assertThat(sealedOnArrival[0]).isEqualTo(frames - corrupted);
    }

    @Test
    void aFrameWithHoldsOnItsBytesCannotBeReleasedUntilTheLastHoldEnds() {
        Simulator sim = new Simulator(1);
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(100, 0, 2));
        Frame f = link.a().acquire();
        f.hold();
        f.hold();
        assertThatThrownBy(f::release).isInstanceOf(InvariantViolation.class).hasMessageContaining("2 hold(s)");
        assertThat(f.unhold()).isFalse();
        assertThatThrownBy(f::release).isInstanceOf(InvariantViolation.class).hasMessageContaining("1 hold(s)");
        assertThat(f.unhold()).isTrue();
        assertThatThrownBy(f::unhold).isInstanceOf(InvariantViolation.class)
                .hasMessageContaining("unheld more often than held");
        f.release();
        assertThat(link.a().acquire()).isSameAs(f);
    }
}
