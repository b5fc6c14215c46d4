package dev.rdmasim.adapter.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.Simulator;
import java.util.SplittableRandom;
import org.eclipse.collections.impl.list.mutable.primitive.LongArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The port's physical layer: a frame is usable at the far MAC when the FEC codeword holding its last bit has arrived
 * whole, plus the transmit and receive PHY latencies; it is a pipeline, so it delays frames and never changes when
 * they start on the line (the rate is the line's).
 */
class PhyPipelineTest {

    private static final int RATE = 100;
    private static final long PROP = 7_000;

    /** Frames sent at the given instants with the given payloads; returns the instants they reached endpoint b. */
    private static long[] run(EthernetLink.Phy phy, long[] at, int[] payload) {
        Simulator sim = new Simulator(1);
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(RATE, PROP, 1024, phy));
        LongArrayList arrivals = new LongArrayList();
        link.b().connectReceiver(f -> {
            assertThat(f.arrivalPs()).isEqualTo(sim.now());
            arrivals.add(sim.now());
            f.release();
            return true;
        });
        link.a().connectReceiver(f -> true);
        RoceWriter w = new RoceWriter();
        for (int i = 0; i < at.length; i++) {
            int k = i;
            Event e = sim.event("send" + i, () -> {
                Frame f = link.a().acquire();
                EthernetLinkTest.fill(f, w, k, payload[k]);
                link.a().send(f);
            });
            e.schedule(at[i]);
        }
        sim.run();
        return arrivals.toArray();
    }

    /** The end of a frame's line slot, from first principles, for one frame sent alone at {@code t}. */
    private static long slotEnd(long t, int payload) {
        return t + (long) EthernetLinkTest.wirePs(payload + 54 + 4, RATE);
    }

    @Test
    void withoutFecAFrameWaitsOnlyForThePipelines() {
        long[] a = run(new EthernetLink.Phy(EthernetLink.Fec.NONE, 40_000, 55_000), new long[] {1_000_000}, new int[] {100});
        assertThat(a).containsExactly(slotEnd(1_000_000, 100) + 40_000 + PROP + 55_000);
    }

    /** RS(528,514) at 100 Gb/s: codewords of 5120 MAC bits, 51.2 ns, back to back from time zero. */
    @Test
    void aFrameWaitsForTheEndOfTheCodewordHoldingItsLastBit() {
        long cw = 51_200;
        // A 100-byte payload frame takes 182 byte times on the line and ends at 1_014_560 ps: in codeword 19
        // (972.8..1024 ns).
        long end = slotEnd(1_000_000, 100);
        assertThat(end).isEqualTo(1_014_560);
        long[] a = run(new EthernetLink.Phy(EthernetLink.Fec.RS528, 10_000, 20_000), new long[] {1_000_000}, new int[] {100});
        assertThat(a).containsExactly(20 * cw + 10_000 + PROP + 20_000);
        // Ending exactly on a codeword boundary costs no wait: sent at 1024 ns - 182 byte times = 1_009_440 ps.
        long[] b = run(new EthernetLink.Phy(EthernetLink.Fec.RS528, 10_000, 20_000), new long[] {1_009_440}, new int[] {100});
        assertThat(b).containsExactly(20 * cw + 10_000 + PROP + 20_000);
    }

    @Test
    void theLowLatencyCodeHalvesTheCodeword() {
        assertThat(EthernetLink.Fec.RS272.dataBits() * 2).isEqualTo(EthernetLink.Fec.RS528.dataBits());
        assertThat(EthernetLink.Fec.RS544.dataBits()).isEqualTo(EthernetLink.Fec.RS528.dataBits());
        // The same frame as above ends in RS(272,257) codeword 39 (998.4..1024 ns): here the boundary is the same.
        long[] a = run(new EthernetLink.Phy(EthernetLink.Fec.RS272, 0, 0), new long[] {1_000_000}, new int[] {100});
        assertThat(a).containsExactly(1_024_000 + PROP);
        // One that ends at 990 ns waits to 1024 ns with RS(528,514) but only to 998.4 ns with RS(272,257).
        long[] b528 = run(new EthernetLink.Phy(EthernetLink.Fec.RS528, 0, 0), new long[] {975_440}, new int[] {100});
        long[] b272 = run(new EthernetLink.Phy(EthernetLink.Fec.RS272, 0, 0), new long[] {975_440}, new int[] {100});
        assertThat(b528).containsExactly(1_024_000 + PROP);
        assertThat(b272).containsExactly(998_400 + PROP);
    }

    /**
     * Seeded: frames of random sizes at random instants, many back to back. With the PHY, every frame starts exactly
     * when it starts without it (the pipeline never pushes back on the line), arrives in order, and its delay over
     * the bare link is the pipelines plus its codeword wait, which is under one codeword period.
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5})
    void thePipelineAddsLatencyAndNeverChangesTheLineTiming(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        int n = 200;
        long[] at = new long[n];
        int[] payload = new int[n];
        long t = 0;
        for (int i = 0; i < n; i++) {
            t += rnd.nextInt(3) == 0 ? rnd.nextLong(200_000) : 0;
            at[i] = t;
            payload[i] = rnd.nextInt(1025);
        }
        EthernetLink.Fec fec = EthernetLink.Fec.values()[1 + rnd.nextInt(3)];
        long tx = rnd.nextLong(100_000);
        long rx = rnd.nextLong(100_000);
        long[] bare = run(EthernetLink.Phy.NONE, at, payload);
        long[] phy = run(new EthernetLink.Phy(fec, tx, rx), at, payload);
        long cw = fec.dataBits() * 1000L / RATE;
        assertThat(phy).hasSize(n);
        for (int i = 0; i < n; i++) {
            long end = bare[i] - PROP; // the bare link's arrival is the slot end plus the cable
            long wait = phy[i] - tx - rx - PROP - end;
            assertThat(wait).as("frame %d waits for its codeword's end only", i).isBetween(0L, cw - 1);
            assertThat((end + wait) % cw).as("frame %d is decoded on a codeword boundary", i).isZero();
            if (i > 0) {
                assertThat(phy[i]).as("in order").isGreaterThanOrEqualTo(phy[i - 1]);
            }
        }
    }

    @Test
    void profileNamesAndRejections() {
        for (EthernetLink.Fec f : EthernetLink.Fec.values()) {
            assertThat(EthernetLink.Fec.of(f.key())).isSameAs(f);
        }
        assertThatThrownBy(() -> EthernetLink.Fec.of("rs999")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("none, rs528, rs544, rs272");
        assertThatThrownBy(() -> new EthernetLink.Phy(EthernetLink.Fec.NONE, -1, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new EthernetLink.Config(100, 0, 4, null)).isInstanceOf(NullPointerException.class);
    }
}
