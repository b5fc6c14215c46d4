package dev.rdmasim.kernel.hw;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.Stat;
import dev.rdmasim.kernel.wave.SignalFilter;
import dev.rdmasim.kernel.wave.VcdWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A clock-domain crossing's counters, size and occupancy waveform agree with what went through it. */
class AsyncFifoCountersTest {

    private static long counter(Simulator sim, String group, String name) {
        Stat s = sim.stats().groups().stream().filter(g -> g.path().equals(group)).findFirst().orElseThrow()
                .stats().stream().filter(st -> st.name().equals(name)).findFirst().orElseThrow();
        return ((Counter) s).value();
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void countersSizeAndWaveformFollowTheItems(long seed) {
        Simulator sim = new Simulator(seed);
        StringWriter out = new StringWriter();
        VcdWriter vcd = new VcdWriter(out, sim::now, SignalFilter.ALL);
        sim.attachWave(vcd);
        Top top = new Top(sim);
        ClockDomain w = ClockDomain.ofMHz(sim, "w", 300);
        ClockDomain r = ClockDomain.ofMHz(sim, "r", 200);
        int total = 300;
        int depth = 4;
        TestProducer p = new TestProducer(top, "p", w, total, 0.2, 3);
        TestConsumer c = new TestConsumer(top, "c", r, 0.6, 4);
        c.expected = total;
        AsyncFifo<Integer> f = new AsyncFifo<>(top, "x", w, r, depth, 2);
        Channels.connect(p.out, f.enq);
        Channels.connect(f.deq, c.in);
        assertThat(f.depth()).isEqualTo(depth);
        long[] maxSize = {0};
        for (int i = 1; i < 400; i++) {
            sim.event("look" + i, () -> maxSize[0] = Math.max(maxSize[0], f.size())).schedule(i * 7_000L);
        }
        p.wake();
        c.wake();
        sim.run();
        vcd.close();
        assertThat(c.items.size()).isEqualTo(total);
        assertThat(counter(sim, "top.x_wr", "written")).isEqualTo(total);
        assertThat(counter(sim, "top.x_rd", "read")).isEqualTo(total);
        assertThat(f.size()).isZero();
        assertThat(maxSize[0]).isBetween(1L, (long) depth);
        List<Long> occ = HwWaveAndChecksTest.parse(out.toString()).get("top.x_wr.count");
        assertThat(occ.get(occ.size() - 1)).isZero();
        assertThat(occ.stream().mapToLong(Long::longValue).max().orElseThrow()).isBetween(1L, (long) depth);
        assertThat(occ.stream().mapToLong(Long::longValue).min().orElseThrow()).isZero();
    }
}
