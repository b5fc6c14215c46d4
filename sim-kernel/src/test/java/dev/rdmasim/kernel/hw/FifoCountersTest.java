package dev.rdmasim.kernel.hw;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.Stat;
import dev.rdmasim.kernel.stats.TimeAverage;
import dev.rdmasim.kernel.wave.SignalFilter;
import dev.rdmasim.kernel.wave.VcdWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A queue's statistics: items that entered (stored or bypassed), cycles spent full, and occupancy. */
class FifoCountersTest {

    private static Stat stat(Module m, String name) {
        for (Stat s : m.stats().stats()) {
            if (s.name().equals(name)) {
                return s;
            }
        }
        throw new AssertionError("no statistic " + name);
    }

    @ParameterizedTest(name = "depth {0} flow {1} pipe {2} consumer stalls {3}")
    @CsvSource({
        "4, false, false, 0.0",
        "4, false, false, 0.6",
        "1, true, false, 0.0",
        "1, true, false, 0.5",
        "2, false, true, 0.0",
        "2, false, true, 0.7",
        "8, false, false, 0.9"
    })
    void countersAgreeWithWhatWentThrough(int depth, boolean flow, boolean pipe, double stall) {
        Simulator sim = new Simulator(3);
        Top top = new Top(sim);
        ClockDomain clk = ClockDomain.ofMHz(sim, "clk", 1000);
        int total = 500;
        TestProducer p = new TestProducer(top, "p", clk, total, 0, 1);
        Fifo<Integer> f = new Fifo<>(top, "q", clk, depth, 1, flow, pipe);
        TestConsumer c = new TestConsumer(top, "c", clk, stall, 6);
        c.expected = total;
        Channels.connect(p.out, f.enq);
        Channels.connect(f.deq, c.in);
        p.wake();
        sim.run();
        assertThat(c.items.size()).isEqualTo(total);
        for (int i = 0; i < total; i++) {
            assertThat(c.items.get(i)).isEqualTo(i);
        }
        assertThat(f.size()).isZero();
        assertThat(((Counter) stat(f, "enqueued")).value()).isEqualTo(total);
        TimeAverage occupancy = (TimeAverage) stat(f, "occupancy");
        assertThat(occupancy.level()).isZero();
        long full = ((Counter) stat(f, "fullCycles")).value();
        if (stall == 0) {
            // An always-ready consumer: a flow queue never stores, the others never hold more than one, so
            // none is ever full.
            assertThat(occupancy.max()).isEqualTo(flow ? 0 : 1);
            assertThat(full).isZero();
        } else {
            // A stalling consumer backs the queue up to its depth, for at least the stalls' length.
            assertThat(occupancy.max()).isEqualTo(depth);
            assertThat(full).isPositive().isLessThan(sim.now() / 1000);
            assertThat(occupancy.average()).isBetween(0.0, (double) depth);
        }
    }

    @Test
    void resetEmptiesTheOccupancyStatisticAndSignal() {
        Simulator sim = new Simulator(1);
        StringWriter out = new StringWriter();
        VcdWriter vcd = new VcdWriter(out, sim::now, SignalFilter.ALL);
        sim.attachWave(vcd);
        Top top = new Top(sim);
        ClockDomain clk = ClockDomain.ofMHz(sim, "clk", 1000);
        TestProducer p = new TestProducer(top, "p", clk, 20, 0, 1);
        Fifo<Integer> f = new Fifo<>(top, "q", clk, 3, 1, false, false);
        Channels.connect(p.out, f.enq);
        Channels.connect(f.deq, new ResetTest.Blocked(top, "c", clk).in);
        p.wake();
        sim.run();
        TimeAverage occupancy = (TimeAverage) stat(f, "occupancy");
        assertThat(occupancy.level()).isEqualTo(3);
        top.reset();
        assertThat(f.size()).isZero();
        assertThat(occupancy.level()).isZero();
        vcd.close();
        List<Long> count = HwWaveAndChecksTest.parse(out.toString()).get("top.q.count");
        assertThat(count).containsExactly(0L, 1L, 2L, 3L, 0L);
    }
}
