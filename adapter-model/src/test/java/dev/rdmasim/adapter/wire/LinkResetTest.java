package dev.rdmasim.adapter.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.stats.Stat;
import dev.rdmasim.kernel.stats.StatsGroup;
import dev.rdmasim.kernel.stats.TimeAverage;
import dev.rdmasim.kernel.wave.SignalFilter;
import dev.rdmasim.kernel.wave.VcdWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.collections.impl.list.mutable.primitive.LongArrayList;
import org.junit.jupiter.api.Test;

/**
 * A reset in the middle of a stalled direction with a frame on the line and two waiting: the line's busy level and the
 * transmit queue drop to zero at the reset instant, the stalled signal falls, and a frame sent afterwards is timed as
 * on a new link.
 */
class LinkResetTest {
    private static final long SLOT = (8 + 1000 + 4 + 12) * 80L;

    private static TimeAverage average(Simulator sim, String group, String name) {
        for (StatsGroup g : sim.stats().groups()) {
            if (g.path().equals(group)) {
                for (Stat s : g.stats()) {
                    if (s.name().equals(name)) {
                        return (TimeAverage) s;
                    }
                }
            }
        }
        throw new AssertionError("no statistic " + group + "." + name);
    }

    @Test
    void aResetIdlesTheLineEmptiesTheQueueAndEndsTheStall() {
        Simulator sim = new Simulator(1);
        StringWriter out = new StringWriter();
        VcdWriter vcd = new VcdWriter(out, sim, SignalFilter.parse("link.aToB.stalled"));
        sim.attachWave(vcd);
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(100, 0, 4));
        boolean[] accept = {false};
        List<Long> got = new ArrayList<>();
        LongArrayList arrivals = new LongArrayList();
        link.b().connectReceiver(f -> {
            if (!accept[0]) {
                return false;
            }
            got.add(f.sequence());
            arrivals.add(sim.now());
            return Pump.consume(f);
        });
        for (int i = 0; i < 4; i++) {
            Frame f = link.a().acquire();
            f.length(1000);
            link.a().send(f);
        }
        // Frame 0 is refused at SLOT; frame 1, on the line since then, ends at 2 SLOT; frames 2 and 3 wait.
        long resetAt = SLOT + SLOT / 2;
        sim.event("reset", () -> {
            assertThat(link.aToB().stalled()).isTrue();
            link.reset();
            assertThat(link.aToB().stalled()).isFalse();
        }).schedule(resetAt);
        long sendAt = 10 * SLOT + 7;
        sim.event("send", () -> {
            accept[0] = true;
            Frame f = link.a().acquire();
            f.length(1000);
            link.a().send(f);
        }).schedule(sendAt);
        sim.event("end", () -> { }).schedule(20 * SLOT);
        sim.run();
        vcd.close();

        assertThat(got).as("sequence numbers start again after the reset").containsExactly(0L);
        assertThat(arrivals.toArray()).containsExactly(sendAt + SLOT);
        double span = 20 * SLOT;
        assertThat(link.aToB().busyFraction()).isEqualTo((resetAt + SLOT) / span);
        // txQueue: 3 until frame 1 starts at SLOT, then 2 until the reset, then nothing.
        assertThat(average(sim, "link.aToB", "txQueue").average()).isEqualTo((3.0 * SLOT + 2.0 * (resetAt - SLOT)) / span);
        assertThat(link.aToB().refusals()).isEqualTo(1);
        assertThat(Dump.values(out.toString(), "stalled")).containsExactly(0L, 1L, 0L);
    }

    /** The successive values of one single-bit signal in a dump with only that signal. */
    static final class Dump {
        static List<Long> values(String vcd, String name) {
            String id = null;
            List<Long> v = new ArrayList<>();
            for (String line : vcd.split("\n")) {
                String[] w = line.split(" ");
                if (line.startsWith("$var") && w[4].equals(name)) {
                    id = w[3];
                } else if (id != null && line.length() == 1 + id.length() && line.substring(1).equals(id)
                        && (line.charAt(0) == '0' || line.charAt(0) == '1')) {
                    v.add((long) (line.charAt(0) - '0'));
                }
            }
            return v;
        }
    }
}
