package dev.rdmasim.adapter.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.hw.Module;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.collections.impl.list.mutable.primitive.LongArrayList;
import org.junit.jupiter.api.Test;

/**
 * The link brings its lazily timed lines up to date before a tap is added and before a reset: a new tap sees only the
 * frames that start after it was added, and frames that started before a reset stay counted. The frames here have a
 * long cable ahead of them, so no arrival has looked at the line when the tap or reset comes.
 */
class LinkCatchUpTest {
    private static final long SLOT = (8 + 1000 + 4 + 12) * 80L;

    private static EthernetLink queued(Simulator sim, int frames) {
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(100, 100 * SLOT, 16));
        for (int i = 0; i < frames; i++) {
            Frame f = link.a().acquire();
            f.length(1000);
            link.a().send(f);
        }
        return link;
    }

    @Test
    void aTapAddedMidRunSeesOnlyTheFramesStartingAfterIt() {
        Simulator sim = new Simulator(1);
        EthernetLink link = queued(sim, 10);
        List<Long> got = new ArrayList<>();
        link.b().connectReceiver(f -> got.add(f.sequence()) && Pump.consume(f));
        LongArrayList tapped = new LongArrayList();
        sim.event("tap", () -> link.addTap((t, d, n) -> tapped.add(t))).schedule(3 * SLOT + 10);
        sim.run();
        assertThat(tapped.toArray()).containsExactly(4 * SLOT, 5 * SLOT, 6 * SLOT, 7 * SLOT, 8 * SLOT, 9 * SLOT);
        assertThat(got).hasSize(10);
    }

    @Test
    void aResetKeepsTheFramesThatStartedBeforeItCountedAndReturnsEveryBuffer() {
        Simulator sim = new Simulator(1);
        EthernetLink link = queued(sim, 4);
        List<Long> got = new ArrayList<>();
        link.b().connectReceiver(f -> got.add(f.sequence()) && Pump.consume(f));
        long[] sentAtReset = {-1};
        sim.event("reset", () -> {
            link.reset();
            sentAtReset[0] = link.aToB().framesSent();
        }).schedule(2 * SLOT + 10);
        sim.run();
        assertThat(sentAtReset[0]).isEqualTo(3);
        assertThat(got).isEmpty();
        assertThat(link.a().freeBuffers()).isEqualTo(16);
        assertThat(link.aToB().stalled()).isFalse();
    }

    @Test
    void aLinkBuiltUnderAModuleIsNamedBelowItAndReportsItsConfiguration() {
        Simulator sim = new Simulator(1);
        Module top = new Module(sim, "nic") {
        };
        EthernetLink.Phy phy = new EthernetLink.Phy(EthernetLink.Fec.RS544, 30_000, 40_000);
        EthernetLink.Config config = new EthernetLink.Config(200, 5_000, 3, phy);
        EthernetLink cable = EthernetLink.cable(top, "port", config);
        assertThat(cable.fullName()).isEqualTo("nic.port");
        assertThat(cable.a().fullName()).isEqualTo("nic.port.a");
        assertThat(cable.b().fullName()).isEqualTo("nic.port.b");
        assertThat(cable.bToA().fullName()).isEqualTo("nic.port.bToA");
        assertThat(cable.config()).isSameAs(config);
        assertThat(cable.rateGbps()).isEqualTo(200);
        assertThat(cable.propagationPs()).isEqualTo(5_000);
        assertThat(cable.phy()).isSameAs(phy);
        assertThat(cable.a().bufferCount()).isEqualTo(3);
        assertThat(cable.b().freeBuffers()).isEqualTo(3);
        EthernetLink lo = EthernetLink.loopback(top, "lo", config);
        assertThat(lo.isLoopback()).isTrue();
        assertThat(lo.aToB().fullName()).isEqualTo("nic.lo.loop");
        assertThat(EthernetLink.Fec.RS544.dataBits()).isEqualTo(5120);
        assertThat(EthernetLink.Fec.RS272.dataBits()).isEqualTo(2560);
        assertThat(EthernetLink.Fec.NONE.dataBits()).isZero();
        assertThat(EthernetLink.Fec.RS528.key()).isEqualTo("rs528");

        // The configured PHY times every frame: 200 Gb/s, 1000 bytes = 40960 ps on the line, then the codeword wait.
        List<Long> arrivals = new ArrayList<>();
        cable.b().connectReceiver(f -> arrivals.add(sim.now()) && Pump.consume(f));
        Frame f = cable.a().acquire();
        f.length(1000);
        cable.a().send(f);
        sim.run();
        long codeword = 5120 * 1000 / 200;
        long end = (1000 + 24) * 40L;
        long decodable = (end + codeword - 1) / codeword * codeword;
        assertThat(arrivals).containsExactly(decodable + 30_000 + 5_000 + 40_000);
    }

    @Test
    void aLoopbackHasOneDirectionAndOneEndpoint() {
        EthernetLink lo = EthernetLink.loopback(new Simulator(1), "lo", new EthernetLink.Config(100, 0, 1));
        assertThatThrownBy(lo::bToA).isInstanceOf(IllegalStateException.class)
                .hasMessage("lo is a loopback: it has only one direction, aToB()");
        assertThatThrownBy(lo::b).isInstanceOf(IllegalStateException.class)
                .hasMessage("lo is a loopback: it has only endpoint a");
        assertThat(lo.a().outgoing()).isSameAs(lo.aToB());
        assertThat(lo.a().incoming()).isSameAs(lo.aToB());
        EthernetLink cable = EthernetLink.cable(new Simulator(1), "c", new EthernetLink.Config(100, 0, 1));
        assertThat(cable.isLoopback()).isFalse();
        assertThat(cable.a().outgoing()).isSameAs(cable.aToB());
        assertThat(cable.b().incoming()).isSameAs(cable.aToB());
        assertThat(cable.b().outgoing()).isSameAs(cable.bToA());
        assertThat(cable.a().incoming()).isSameAs(cable.bToA());
        assertThat(cable.aToB().from()).isSameAs(cable.a());
        assertThat(cable.aToB().to()).isSameAs(cable.b());
    }
}
