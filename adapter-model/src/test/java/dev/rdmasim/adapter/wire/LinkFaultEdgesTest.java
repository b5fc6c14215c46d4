package dev.rdmasim.adapter.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.kernel.Simulator;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Fault injection at its edges: where a flipped bit may land (the bytes the ICRC covers in a RoCE frame, anywhere in
 * any other frame), probabilities at 0 and 1 and just outside, new probabilities applying only to frames that start
 * after the change, and a receiver that breaks the refusal contract.
 */
class LinkFaultEdgesTest {
    private static final int BTH_BIT = 42 * 8;
    private static final int ICRC_END_BIT = 58 * 8;

    /** Sends {@code frames} frames, each corrupted, and returns the bit positions flipped on arrival. */
    private static TreeSet<Integer> flippedBits(long seed, int frames, Filler filler) {
        Simulator sim = new Simulator(seed);
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(100, 0, 16));
        link.aToB().setFaults(0, 1);
        List<byte[]> sent = new ArrayList<>();
        link.addTap((t, d, n) -> sent.add(Arrays.copyOf(d, n)));
        TreeSet<Integer> flipped = new TreeSet<>();
        link.b().connectReceiver(f -> {
            byte[] was = sent.get((int) f.sequence());
            assertThat(f.length()).isEqualTo(was.length);
            int diffs = 0;
            for (int i = 0; i < was.length; i++) {
                int x = (was[i] ^ f.data()[i]) & 0xFF;
                if (x != 0) {
                    assertThat(Integer.bitCount(x)).isEqualTo(1);
                    flipped.add(i * 8 + Integer.numberOfTrailingZeros(x));
                    diffs++;
                }
            }
            assertThat(diffs).as("frame %d has one bit flipped", f.sequence()).isEqualTo(1);
            f.release();
            return true;
        });
        RoceWriter w = new RoceWriter();
        Pump.start(link.a(), frames, (f, i) -> filler.fill(f, w, i));
        sim.run();
        assertThat(link.aToB().framesCorrupted()).isEqualTo(frames);
        assertThat(link.aToB().framesDelivered()).isEqualTo(frames);
        return flipped;
    }

    interface Filler {
        void fill(Frame f, RoceWriter w, int index);
    }

    @Test
    void inARoceFrameEveryBitFromTheBthToTheIcrcEndCanFlipExceptBthByte4AndNoOther() {
        // Empty SEND ONLY frames: 58 bytes up to the ICRC, sent bare or with the 2 bytes of Ethernet padding.
        TreeSet<Integer> flipped = flippedBits(7, 3_000, (f, w, i) -> {
            EthernetLinkTest.fill(f, w, i, 0);
            f.length(i % 2 == 0 ? 58 : 60);
        });
        TreeSet<Integer> expected = new TreeSet<>();
        for (int bit = BTH_BIT; bit < ICRC_END_BIT; bit++) {
            if (bit / 8 != 42 + 4) {
                expected.add(bit);
            }
        }
        assertThat(flipped).isEqualTo(expected);
    }

    @Test
    void inAFrameTooShortForRoceOrNotIpv4AnyBitCanFlip() {
        // 57 bytes of an IPv4 frame: one short of the smallest RoCE frame.
        TreeSet<Integer> shortOnes = flippedBits(8, 1_000, (f, w, i) -> {
            EthernetLinkTest.fill(f, w, i, 0);
            f.length(57);
        });
        assertThat(shortOnes.first()).isLessThan(BTH_BIT);
        assertThat(shortOnes.last()).isLessThan(57 * 8);
        // An IPv6 ethertype: not parsed, the whole frame is fair game.
        TreeSet<Integer> ipv6 = flippedBits(9, 1_000, (f, w, i) -> {
            EthernetLinkTest.fill(f, w, i, 100);
            f.data()[12] = (byte) 0x86;
            f.data()[13] = (byte) 0xDD;
        });
        assertThat(ipv6.first()).isLessThan(BTH_BIT);
        assertThat(ipv6.last()).isGreaterThanOrEqualTo(ICRC_END_BIT).isLessThan((58 + 100) * 8);
        assertThat(ipv6.subSet(42 * 8 + 32, 42 * 8 + 40)).as("BTH byte 4 is not spared").isNotEmpty();
    }

    @Test
    void probabilitiesHoldTheirEndsAndRefuseAnythingOutside() {
        Simulator sim = new Simulator(1);
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(100, 0, 4));
        LinkDirection d = link.aToB();
        d.setFaults(1, 0);
        d.setFaults(0, 1);
        d.setFaults(0.25, 0.75);
        d.setFaults(0, 0);
        assertThatThrownBy(() -> d.setFaults(1.000001, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("drop probability must be in [0, 1], got 1.000001");
        assertThatThrownBy(() -> d.setFaults(Double.NaN, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("drop probability must be in [0, 1], got NaN");
        assertThatThrownBy(() -> d.setFaults(0, 1.000001)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("corrupt probability must be in [0, 1 - drop], got 1.000001 with drop 0.0");
        assertThatThrownBy(() -> d.setFaults(0, -0.5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("corrupt probability must be in [0, 1 - drop], got -0.5 with drop 0.0");
        assertThatThrownBy(() -> d.setFaults(0, Double.NaN)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> d.setFaults(0.5, 0.5000001)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("corrupt probability must be in [0, 1 - drop], got 0.5000001 with drop 0.5");
    }

    @Test
    void withDropProbabilityOneEveryFrameIsLostAndItsBufferReturns() {
        Simulator sim = new Simulator(3);
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(100, 0, 4));
        link.aToB().setFaults(1, 0);
        int[] got = {0};
        link.b().connectReceiver(f -> ++got[0] > 0 && Pump.consume(f));
        RoceWriter w = new RoceWriter();
        Pump.start(link.a(), 50, (f, i) -> EthernetLinkTest.fill(f, w, i, 10));
        sim.run();
        assertThat(got[0]).isZero();
        assertThat(link.aToB().framesDropped()).isEqualTo(50);
        assertThat(link.aToB().framesSent()).isEqualTo(50);
        assertThat(link.aToB().framesCorrupted()).isZero();
        assertThat(link.a().freeBuffers()).isEqualTo(4);
    }

    /**
     * New probabilities apply from the instant they are set: frames that started before keep the fate drawn under the
     * old ones, even though (with no tap and a long cable) nothing has looked at the line since they started.
     */
    @Test
    void newProbabilitiesApplyOnlyToFramesStartingAfterTheChange() {
        Simulator sim = new Simulator(5);
        long slot = (8 + 1000 + 4 + 12) * 80L;
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(100, 10 * slot, 16));
        List<Long> got = new ArrayList<>();
        link.b().connectReceiver(f -> got.add(f.sequence()) && Pump.consume(f));
        for (int i = 0; i < 10; i++) {
            Frame f = link.a().acquire();
            f.length(1000);
            link.a().send(f);
        }
        long[] seen = new long[2];
        // Each read is alone at its instant, so that nothing else has brought the line up to date before it.
        sim.event("change", () -> link.aToB().setFaults(1, 0)).schedule(3 * slot + 10);
        sim.event("bytes", () -> seen[0] = link.aToB().bytesSent()).schedule(5 * slot + 10);
        sim.event("frames", () -> seen[1] = link.aToB().framesSent()).schedule(7 * slot + 10);
        sim.run();
        assertThat(seen).containsExactly(6_000, 8);
        assertThat(got).containsExactly(0L, 1L, 2L, 3L);
        assertThat(link.aToB().framesDropped()).isEqualTo(6);
    }

    @Test
    void aReceiverThatRefusesAFrameItReleasedFailsLoudly() {
        Simulator sim = new Simulator(1);
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(100, 0, 2));
        link.b().connectReceiver(f -> {
            f.release();
            return false;
        });
        Frame f = link.a().acquire();
        f.length(100);
        link.a().send(f);
        assertThatThrownBy(sim::run).isInstanceOf(IllegalStateException.class)
                .hasMessage("receiver at link.b refused link.a.frame[0] but released it");
    }
}
