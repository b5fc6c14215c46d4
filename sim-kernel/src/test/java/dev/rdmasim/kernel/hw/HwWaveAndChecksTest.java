package dev.rdmasim.kernel.hw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.wave.SignalFilter;
import dev.rdmasim.kernel.wave.VcdWriter;
import java.io.StringWriter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What registers, ports and queues show in the waveform, how registers read before and after commit, and the
 * construction and connection mistakes that must fail loudly.
 */
class HwWaveAndChecksTest {

    /** Each signal's successive values in a dump, by hierarchical name. */
    static Map<String, List<Long>> parse(String vcd) {
        Map<String, String> names = new HashMap<>();
        Map<String, List<Long>> values = new LinkedHashMap<>();
        Deque<String> scope = new ArrayDeque<>();
        for (String line : vcd.split("\n")) {
            String[] w = line.split(" ");
            if (line.startsWith("$scope")) {
                scope.addLast(w[2]);
            } else if (line.startsWith("$upscope")) {
                scope.removeLast();
            } else if (line.startsWith("$var")) {
                String name = String.join(".", scope) + "." + w[4];
                names.put(w[3], name);
                values.put(name, new ArrayList<>());
            } else if (line.startsWith("b")) {
                values.get(names.get(w[1])).add(Long.parseUnsignedLong(w[0].substring(1), 2));
            } else if ((line.startsWith("0") || line.startsWith("1")) && names.containsKey(line.substring(1))) {
                values.get(names.get(line.substring(1))).add((long) (line.charAt(0) - '0'));
            }
        }
        return values;
    }

    /** Counts cycles in registers of every kind; reads them before and after commit. */
    static final class Counting extends ClockedModule {
        final RegLong n = regLong("n", 5).trace(8);
        final RegBool odd = regBool("odd", true).trace();
        final Reg<String> label = reg("label", "start");
        final List<String> seen = new ArrayList<>();

        Counting(Module parent, ClockDomain clock) {
            super(parent, "count", clock);
        }

        @Override
        protected void evaluate() {
            long v = n.get() + 1;
            n.set(v);
            odd.set((v & 1) == 1);
            label.set("c" + v);
            seen.add(n.get() + "/" + n.next() + " " + odd.get() + "/" + odd.next() + " " + label.get() + "/"
                    + label.next());
            if (v < 8) {
                wake();
            }
        }
    }

    @Test
    void registersReadTheOldValueUntilCommitAndTraceEveryCommittedValue() {
        Simulator sim = new Simulator();
        StringWriter out = new StringWriter();
        VcdWriter vcd = new VcdWriter(out, sim::now, SignalFilter.ALL);
        sim.attachWave(vcd);
        Top top = new Top(sim);
        ClockDomain clk = ClockDomain.ofPeriod(sim, "clk", 1_000);
        Counting m = new Counting(top, clk);
        sim.event("go", m::wake).schedule(0);
        sim.run();
        vcd.close();
        assertThat(m.seen).containsExactly("5/6 true/false start/c6", "6/7 false/true c6/c7", "7/8 true/false c7/c8");
        Map<String, List<Long>> v = parse(out.toString());
        assertThat(v.get("top.count.n")).containsExactly(5L, 6L, 7L, 8L);
        assertThat(v.get("top.count.odd")).containsExactly(1L, 0L, 1L, 0L);
    }

    @Test
    void queueCountAndHandshakesAppearInTheWaveform() {
        Simulator sim = new Simulator(9);
        StringWriter out = new StringWriter();
        VcdWriter vcd = new VcdWriter(out, sim::now, SignalFilter.ALL);
        sim.attachWave(vcd);
        Top top = new Top(sim);
        ClockDomain clk = ClockDomain.ofMHz(sim, "clk", 1000);
        int total = 200;
        int depth = 3;
        TestProducer p = new TestProducer(top, "p", clk, total, 0, 1);
        Fifo<Integer> f = new Fifo<>(top, "q", clk, depth, 1, false, false);
        TestConsumer c = new TestConsumer(top, "c", clk, 0.7, 5);
        c.expected = total;
        Channels.connect(p.out, f.enq);
        Channels.connect(f.deq, c.in);
        p.wake();
        sim.run();
        vcd.close();
        assertThat(c.items.size()).isEqualTo(total);
        Map<String, List<Long>> v = parse(out.toString());
        List<Long> count = v.get("top.q.count");
        // Starts at 0, moves one item at a time, reaches the depth under back-pressure and ends empty.
        assertThat(count.get(0)).isZero();
        for (int i = 1; i < count.size(); i++) {
            assertThat(Math.abs(count.get(i) - count.get(i - 1))).isEqualTo(1);
        }
        assertThat(count).contains((long) depth);
        assertThat(count.stream().mapToLong(Long::longValue).max().orElseThrow()).isEqualTo(depth);
        assertThat(count.get(count.size() - 1)).isZero();
        // The queue's own ports are combinational and have no signals; the registered ones of the producer and
        // consumer start low, change every time they are written to a new value, and end as left.
        List<Long> valid = v.get("top.p.out_valid");
        List<Long> ready = v.get("top.c.in_ready");
        assertThat(valid.get(0)).isZero();
        assertThat(valid.get(valid.size() - 1)).isZero();
        assertThat(ready.get(ready.size() - 1)).isOne();
        for (List<Long> s : List.of(valid, ready)) {
            for (int i = 1; i < s.size(); i++) {
                assertThat(s.get(i)).as("a change line only for a change").isNotEqualTo(s.get(i - 1));
            }
        }
        assertThat(ready.size()).as("the stalling consumer toggles ready").isGreaterThan(10);
    }

    @Test
    void constructionMistakesFailLoudly() {
        Simulator sim = new Simulator();
        Top top = new Top(sim);
        ClockDomain clk = ClockDomain.ofPeriod(sim, "clk", 1_000);
        ClockDomain other = ClockDomain.ofPeriod(sim, "other", 1_500);
        assertThatThrownBy(() -> new Fifo<Integer>(top, "a", clk, 0, 1, false, false))
                .hasMessageContaining("depth must be at least 1, got 0");
        assertThatThrownBy(() -> new Fifo<Integer>(top, "b", clk, 1, 0, false, false))
                .hasMessageContaining("latency must be at least 1 cycle, got 0");
        assertThatThrownBy(() -> new Fifo<Integer>(top, "c", clk, 2, 2, true, false))
                .hasMessageContaining("flow (same-cycle bypass) cannot be combined with latency 2");
        assertThatThrownBy(() -> new AsyncFifo<Integer>(top, "d", clk, other, 0, 2))
                .hasMessageContaining("depth must be at least 1, got 0");
        assertThatThrownBy(() -> new AsyncFifo<Integer>(top, "e", clk, other, 2, 0))
                .hasMessageContaining("at least one synchronizer stage is needed, got 0");
        Fifo<Integer> ok = new Fifo<>(top, "ok", clk, 2, 3, false, true);
        assertThat(ok.depth()).isEqualTo(2);
        assertThat(ok.latency()).isEqualTo(3);
        Simulator sim2 = new Simulator();
        ClockDomain foreign = ClockDomain.ofPeriod(sim2, "foreign", 1_000);
        assertThatThrownBy(() -> new ClockDomainTest.Probe(top, "f", foreign))
                .hasMessageContaining("clock 'foreign' belongs to another simulator");
        ClockedModule twice = new ClockedModule(top, "twice", clk) {
            {
                outPort("x");
                regLong("r", 0);
            }

            @Override
            protected void evaluate() {
            }
        };
        assertThatThrownBy(() -> twice.outPort("x")).hasMessageContaining("already has a port named 'x'");
        assertThatThrownBy(() -> twice.regBool("r", false)).hasMessageContaining("already has a register named 'r'");
    }

    /** One state element of every kind. */
    static final class Everything extends ClockedModule {
        final Reg<String> reg = reg("reg", "a");
        final RegBool flag = regBool("flag", false);
        final Inbox<String> inbox = new Inbox<>(this, "inbox", 1);
        final InPort<Integer> in = inPort("in", false);
        final OutPort<Integer> out = outPort("out");

        Everything(Module parent, ClockDomain clock) {
            super(parent, "all", clock);
        }

        @Override
        protected void evaluate() {
        }
    }

    @Test
    void everyKindOfStateRefusesWritesOutsideEvaluate() {
        Simulator sim = new Simulator();
        Top top = new Top(sim);
        ClockDomain clk = ClockDomain.ofPeriod(sim, "clk", 1_000);
        Everything e = new Everything(top, clk);
        String phase = "may only be written in evaluate(), not in phase IDLE";
        assertThatThrownBy(() -> e.reg.set("b")).hasMessageContaining("'reg' " + phase);
        assertThatThrownBy(() -> e.flag.set(true)).hasMessageContaining("'flag' " + phase);
        assertThatThrownBy(() -> e.inbox.take()).hasMessageContaining("'inbox' " + phase);
        assertThatThrownBy(() -> e.in.setReady(true)).hasMessageContaining("'in' " + phase);
        assertThatThrownBy(() -> e.out.offer(1)).hasMessageContaining("'out' " + phase);
        assertThatThrownBy(() -> e.out.retract()).hasMessageContaining("'out' " + phase);
        assertThat(e.reg.get()).isEqualTo("a");
        assertThat(e.reg.next()).isEqualTo("a");
        assertThat(e.flag.next()).isFalse();
        assertThat(e.inbox.capacity()).isEqualTo(1);
        assertThat(e.inbox.size()).isZero();
    }

    @Test
    void portsConnectOnlyOnceAndOnlyWithinOneClock() {
        Simulator sim = new Simulator();
        Top top = new Top(sim);
        ClockDomain clk = ClockDomain.ofPeriod(sim, "clk", 1_000);
        ClockDomain other = ClockDomain.ofPeriod(sim, "other", 1_500);
        TestProducer p = new TestProducer(top, "p", clk, 1, 0, 1);
        TestConsumer c = new TestConsumer(top, "c", clk, 0, 1);
        TestConsumer c2 = new TestConsumer(top, "c2", clk, 0, 1);
        TestProducer p2 = new TestProducer(top, "p2", clk, 1, 0, 1);
        TestConsumer slow = new TestConsumer(top, "slow", other, 0, 1);
        assertThat(p.out.connected()).isFalse();
        assertThat(c.in.connected()).isFalse();
        assertThatThrownBy(() -> Channels.connect(p.out, slow.in)).hasMessageContaining("use an AsyncFifo");
        Channels.connect(p.out, c.in);
        assertThat(p.out.connected()).isTrue();
        assertThat(c.in.connected()).isTrue();
        assertThatThrownBy(() -> Channels.connect(p.out, c2.in))
                .hasMessageContaining("port '" + p.out.fullName() + "' is already connected");
        assertThatThrownBy(() -> Channels.connect(p2.out, c.in))
                .hasMessageContaining("port '" + c.in.fullName() + "' is already connected");
        assertThat(p.out.fullName()).isEqualTo("top.p.out");
        assertThat(c.in.fullName()).isEqualTo("top.c.in");
    }
}
