package dev.rdmasim.adapter.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.Stat;
import dev.rdmasim.kernel.stats.StatsGroup;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** An endpoint's frame buffers report the time every one of them is in use, to the picosecond. */
class BufferBoundTest {
    private static long counter(Simulator sim, String fullName) {
        for (StatsGroup g : sim.stats().groups()) {
            g.refresh();
            for (Stat s : g.stats()) {
                if (s.fullName().equals(fullName)) {
                    return ((Counter) s).value();
                }
            }
        }
        throw new AssertionError("no statistic " + fullName);
    }

    @Test
    void buffersAreFullFromTheLastAcquireToTheFirstRelease() {
        Simulator sim = new Simulator(1);
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(100, 0, 2));
        List<Frame> held = new ArrayList<>();
        // The receiver holds what arrives; the test gives the frames back at chosen instants.
        link.b().connectReceiver(f -> held.add(f));
        link.a().connectReceiver(f -> true);
        RoceWriter w = new RoceWriter();
        sim.event("first", () -> {
            Frame f = link.a().acquire();
            EthernetLinkTest.fill(f, w, 0, 100);
            link.a().send(f);
        }).schedule(1_000_000);
        sim.event("second", () -> {
            Frame f = link.a().acquire();
            EthernetLinkTest.fill(f, w, 1, 100);
            link.a().send(f);
            assertThat(link.a().acquire()).as("both buffers in use").isNull();
        }).schedule(3_000_000);
        sim.event("releaseOne", () -> held.remove(0).release()).schedule(10_000_000);
        sim.event("releaseOther", () -> held.remove(0).release()).schedule(12_000_000);
        sim.event("end", () -> { }).schedule(20_000_000);
        sim.run();
        // Full from the second acquire (3 us) to the first release (10 us); the second release changes nothing.
        assertThat(counter(sim, "link.a.buffersFullTime")).isEqualTo(7_000_000);
        assertThat(counter(sim, "link.b.buffersFullTime")).isZero();
    }
}
