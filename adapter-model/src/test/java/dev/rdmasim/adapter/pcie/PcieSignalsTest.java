package dev.rdmasim.adapter.pcie;

import static dev.rdmasim.adapter.pcie.DmaBoundsTest.counter;
import static dev.rdmasim.adapter.pcie.DmaBoundsTest.stat;
import static dev.rdmasim.adapter.pcie.LinkTransmitterReferenceTest.levels;
import static dev.rdmasim.kernel.testing.VcdChanges.parseTimed;
import static dev.rdmasim.kernel.testing.VcdChanges.steps;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.stats.TimeAverage;
import dev.rdmasim.kernel.wave.SignalFilter;
import dev.rdmasim.kernel.wave.VcdWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two DMA clients with random reads and writes, every signal traced, both directions of the link tapped. From what
 * crosses the link alone, a scoreboard works out what the engine and the root complex must show: the read tags held
 * from each read TLP's issue to its last completion, each channel's queue from a submission to the issue of the
 * request's last TLP, the reads the root complex works on from the request's arrival for the host read latency,
 * and every device write committed to host memory in arrival order the host write latency after it arrives (at once
 * when a read arrives first). Those levels must be the waveform's at every instant and the statistics' at
 * checkpoints; the data read and written must be the bytes of host memory and of the writers.
 */
class PcieSignalsTest {

    /** One client request of the script and what crossed the link for it. */
    private static final class Req {
        final int id;
        final boolean read;
        final int channel;
        final long address;
        final byte[] data;
        long submitPs = -1;
        long popPs = -1;
        boolean done;

        Req(int id, boolean read, int channel, long address, byte[] data) {
            this.id = id;
            this.read = read;
            this.channel = channel;
            this.address = address;
            this.data = data;
        }
    }

    /** A read request as the root complex got it, and the completions that answered it. */
    private static final class Mrd {
        final long arrivePs;
        final long dueOver;
        int completions;

        Mrd(long arrivePs, long dueOver) {
            this.arrivePs = arrivePs;
            this.dueOver = dueOver;
        }
    }

    private record Write(long address, int length, long timePs) {
    }

    private record Check(long timePs, long readsServed, long completions, int pendingReads, int committing) {
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6})
    void signalsAndStatisticsFollowWhatCrossesTheLink(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        long writeLatency = seed == 1 ? 0 : rnd.nextLong(3_000_000);
        PcieConfig cfg = PcieConfig.defaults().withReadTags(2 + rnd.nextInt(6)).withHostWriteLatency(writeLatency);
        long readLatency = cfg.hostReadLatencyPs();
        Simulator sim = new Simulator(seed);
        StringWriter out = new StringWriter();
        VcdWriter vcd = new VcdWriter(out, sim::now, SignalFilter.ALL);
        sim.attachWave(vcd);
        HostMemory mem = new HostMemory("host");
        PcieLink link = new PcieLink(sim, "pcie", cfg, mem);
        DmaChannel[] ch = {link.dma().addChannel("a", 1 + rnd.nextInt(3)), link.dma().addChannel("b", 1 + rnd.nextInt(3))};

        // The script: requests to their own 64 KiB region each, some crossing a 4 KiB page.
        List<Req> script = new ArrayList<>();
        for (int i = 0; i < 80; i++) {
            int len = 1 + rnd.nextInt(rnd.nextInt(4) == 0 ? 2000 : 300);
            long addr = 0x100000L + 0x10000L * i + rnd.nextInt(4096);
            byte[] data = new byte[len];
            for (int k = 0; k < len; k++) {
                data[k] = (byte) rnd.nextInt(256);
            }
            boolean read = rnd.nextBoolean();
            if (read) {
                mem.write(addr, data, 0, len);
            }
            script.add(new Req(i, read, rnd.nextInt(2), addr, data));
        }

        // Taps: read requests and writes as the root complex gets them, completions as the engine gets them.
        List<long[]> tagLevel = new ArrayList<>();
        List<long[]> pendingLevel = new ArrayList<>();
        List<Mrd> mrds = new ArrayList<>();
        Mrd[] byTag = new Mrd[cfg.readTags()];
        List<long[]> arrivedWrites = new ArrayList<>(); // {address, length, arrival}
        List<Write> expectedCommits = new ArrayList<>();
        List<long[]> committing = new ArrayList<>(); // {address, length, due}
        link.up().connect(link.dma().linkEnd, new TlpTap(link.host().linkEnd, t -> {
            long now = sim.now();
            Req r = owner(script, t.address());
            if (t.kind() == TlpKind.MRD) {
                assertThat(t.wireBytes()).isEqualTo(cfg.requestOverheadBytes());
                tagLevel.add(new long[] {t.readyPs, 1});
                pendingLevel.add(new long[] {now, 1});
                pendingLevel.add(new long[] {now + readLatency, -1});
                Mrd m = new Mrd(now, now + readLatency);
                mrds.add(m);
                byTag[t.tag()] = m;
                if (t.address() + t.length() == r.address + r.data.length) {
                    r.popPs = t.readyPs;
                }
                // The read is ordered behind the writes that reached the root complex before it.
                for (long[] w : committing) {
                    expectedCommits.add(new Write(w[0], (int) w[1], Math.min(w[2], now)));
                }
                committing.clear();
            } else {
                assertThat(t.kind()).isEqualTo(TlpKind.MWR);
                assertThat(t.wireBytes()).isEqualTo(cfg.requestOverheadBytes() + t.length());
                int off = (int) (t.address() - r.address);
                assertThat(Arrays.copyOfRange(t.payload(), 0, t.length()))
                        .isEqualTo(Arrays.copyOfRange(r.data, off, off + t.length()));
                if (t.last) {
                    r.popPs = t.readyPs;
                }
                arrivedWrites.add(new long[] {t.address(), t.length(), now});
                committing.removeIf(w -> {
                    if (w[2] <= now) {
                        expectedCommits.add(new Write(w[0], (int) w[1], w[2]));
                        return true;
                    }
                    return false;
                });
                committing.add(new long[] {t.address(), t.length(), now + writeLatency});
            }
        }));
        link.down().connect(link.host().linkEnd, new TlpTap(link.dma().linkEnd, t -> {
            assertThat(t.kind()).isEqualTo(TlpKind.CPLD);
            assertThat(t.wireBytes()).isEqualTo(cfg.completionOverheadBytes() + t.length());
            Mrd m = byTag[t.tag()];
            m.completions++;
            if (t.length() == t.byteCount()) {
                tagLevel.add(new long[] {sim.now(), -1});
            }
        }));
        List<Write> commits = new ArrayList<>();
        link.host().setWriteObserver((addr, len) -> commits.add(new Write(addr, len, sim.now())));

        DmaCallback cb = new DmaCallback() {
            @Override
            public void readDone(DmaRequest request) {
                script.get((int) request.cookie()).done = true;
            }

            @Override
            public void writeSent(DmaRequest request) {
                script.get((int) request.cookie()).done = true;
            }
        };
        int[] next = {0};
        Runnable[] push = new Runnable[1];
        Event tick = sim.event("client", () -> push[0].run());
        push[0] = () -> {
            int burst = 1 + rnd.nextInt(4);
            while (burst-- > 0 && next[0] < script.size()) {
                Req r = script.get(next[0]);
                byte[] buf = r.read ? new byte[r.data.length] : r.data;
                DmaRequest d = r.read ? new DmaRequest().read(r.address, buf, 0, buf.length, cb, r.id)
                        : new DmaRequest().write(r.address, buf, 0, buf.length, cb, r.id, false);
                if (!ch[r.channel].submit(d)) {
                    break;
                }
                r.submitPs = sim.now();
                if (r.read) {
                    readBuffers.put(r.id, buf);
                }
                next[0]++;
            }
            if (next[0] < script.size()) {
                tick.scheduleIn(rnd.nextInt(3) == 0 ? 0 : rnd.nextLong(300_000));
            }
        };
        tick.schedule(0);

        // Checkpoints at odd instants, between the link's events (which fall on whole picoseconds too, so a
        // checkpoint that meets one is left out below).
        List<Check> checks = new ArrayList<>();
        for (int i = 1; i <= 40; i++) {
            long t = i * 1_000_003L + rnd.nextInt(1000);
            sim.event("check" + i, () -> checks.add(new Check(sim.now(), counter(sim, "pcie.rc.readsServed"),
                    counter(sim, "pcie.rc.completions"), link.host().pendingReads(), link.host().writesCommitting())))
                    .schedule(t);
        }
        sim.run();
        vcd.close();
        committing.forEach(w -> expectedCommits.add(new Write(w[0], (int) w[1], w[2])));

        for (Req r : script) {
            assertThat(r.done).as("request %d done", r.id).isTrue();
            if (r.read) {
                assertThat(readBuffers.get(r.id)).as("bytes read by %d", r.id).isEqualTo(r.data);
            } else {
                byte[] got = new byte[r.data.length];
                mem.read(r.address, got, 0, got.length);
                assertThat(got).as("bytes written by %d", r.id).isEqualTo(r.data);
            }
        }
        assertThat(commits).as("writes committed").containsExactlyElementsOf(expectedCommits);

        Map<String, List<long[]>> wave = parseTimed(out.toString());
        assertThat(steps(wave.get("pcie.dma.tagsInUse"))).as("tags").containsExactlyElementsOf(levels(tagLevel));
        assertThat(steps(wave.get("pcie.rc.pendingReads"))).as("pending reads")
                .containsExactlyElementsOf(levels(pendingLevel));
        for (int c = 0; c < 2; c++) {
            List<long[]> queue = new ArrayList<>();
            for (Req r : script) {
                if (r.channel == c) {
                    queue.add(new long[] {r.submitPs, 1});
                    queue.add(new long[] {r.popPs, -1});
                }
            }
            String name = c == 0 ? "a" : "b";
            assertThat(steps(wave.get("pcie.dma." + name + "_queued"))).as("queue of %s", name)
                    .containsExactlyElementsOf(levels(queue));
        }

        // The reads the root complex works on, over the whole run, and at each checkpoint.
        long end = sim.now();
        double area = 0;
        for (Mrd m : mrds) {
            area += m.dueOver - m.arrivePs;
        }
        TimeAverage pending = (TimeAverage) stat(sim, "pcie.rc.pendingReads");
        assertThat(pending.average()).isCloseTo(area / end, within(1e-9));
        assertThat(pending.max()).isEqualTo(maxLevel(pendingLevel));
        int compared = 0;
        for (Check c : checks) {
            long t = c.timePs;
            if (mrds.stream().anyMatch(m -> m.arrivePs == t || m.dueOver == t)
                    || arrivedWrites.stream().anyMatch(w -> w[2] == t || w[2] + writeLatency == t)) {
                continue;
            }
            compared++;
            assertThat(c.readsServed).as("reads served at %d", t)
                    .isEqualTo(mrds.stream().filter(m -> m.dueOver <= t).count());
            assertThat(c.completions).as("completions at %d", t)
                    .isEqualTo(mrds.stream().filter(m -> m.dueOver <= t).mapToLong(m -> m.completions).sum());
            assertThat(c.pendingReads).as("pending reads at %d", t)
                    .isEqualTo(mrds.stream().filter(m -> m.arrivePs < t && m.dueOver > t).count());
            assertThat(c.committing).as("writes committing at %d", t).isEqualTo(
                    arrivedWrites.stream().filter(w -> w[2] < t).count()
                            - expectedCommits.stream().filter(w -> w.timePs < t).count());
        }
        assertThat(compared).isGreaterThan(20);
    }

    private final Map<Integer, byte[]> readBuffers = new HashMap<>();

    private static Req owner(List<Req> script, long address) {
        Req r = script.get((int) ((address - 0x100000L) >>> 16));
        assertThat(address).isBetween(r.address, r.address + r.data.length - 1);
        return r;
    }

    /** The highest level, counting at one instant the -1 steps before the +1 steps. */
    private static long maxLevel(List<long[]> deltas) {
        List<long[]> sorted = new ArrayList<>(deltas);
        sorted.sort(Comparator.<long[]>comparingLong(d -> d[0]).thenComparingLong(d -> d[1]));
        long level = 0;
        long max = 0;
        for (long[] d : sorted) {
            level += d[1];
            max = Math.max(max, level);
        }
        return max;
    }
}
