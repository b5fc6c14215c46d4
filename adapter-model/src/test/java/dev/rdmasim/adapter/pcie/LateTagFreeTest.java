package dev.rdmasim.adapter.pcie;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.kernel.EventCost;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.Simulator;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A read cut into several read requests frees the tags of all but its last without a delivery event of their own,
 * unless a read waits for a tag: then the completions that free one come in events again, at the instants the
 * reference (every TLP in an event) gives.
 */
class LateTagFreeTest {
    private record Run(long endPs, long windowPs, String stats, long deliveries, long tagStalls, long mrds,
            long reads) {
    }

    private static Run stream(int tags, int size, int mrrs, int depth, boolean eventPerTlp) {
        Simulator sim = new Simulator(7);
        PcieLink link = new PcieLink(sim, "pcie", PcieConfig.defaults().withReadTags(tags).withMrrs(mrrs),
                new HostMemory("host"));
        link.setEventPerTlp(eventPerTlp);
        DmaChannel ch = link.dma().addChannel("rd", depth);
        StreamClient client = new StreamClient(sim, ch, true, size, 0x10_0000L, 50, 400);
        sim.timeEvents(true);
        client.start();
        sim.run();
        long deliveries = sim.eventCosts().stream().filter(c -> c.name().equals("pcie.down.deliver"))
                .mapToLong(EventCost::count).sum();
        DmaEngine dma = link.dma();
        String stats = sim.stats().toText();
        long stalls = stats.lines().filter(l -> l.startsWith("pcie.dma.tagStalls ")).map(l -> l.split("\\s+")[1])
                .mapToLong(Long::parseLong).findFirst().orElseThrow();
        return new Run(sim.now(), client.windowEndPs() - client.windowStartPs(), stats, deliveries,
                stalls, dma.readTlpsIssued(), dma.completionsReceived());
    }

    @ParameterizedTest(name = "{0} tags, {1} B reads cut at {2} B, {3} queued")
    @CsvSource({"64, 4096, 512, 8", "32, 1024, 512, 16", "3, 4096, 512, 8", "5, 4096, 128, 4", "1, 2048, 256, 2",
        "2, 8192, 1024, 16"})
    void tagsFreedLateChangeNoTimingAndSaveTheirEvents(int tags, int size, int mrrs, int depth) {
        Run reference = stream(tags, size, mrrs, depth, true);
        Run late = stream(tags, size, mrrs, depth, false);
        assertThat(late.endPs).as("end of the run").isEqualTo(reference.endPs);
        assertThat(late.windowPs).as("measured window").isEqualTo(reference.windowPs);
        assertThat(late.stats).as("statistics").isEqualTo(reference.stats);
        assertThat(late.mrds).as("read requests issued").isEqualTo(reference.mrds);
        // The reference delivers every completion in an event.
        assertThat(reference.deliveries).isEqualTo(reference.reads);
        int perRead = size / mrrs;
        long issued = late.mrds / perRead;
        if (late.tagStalls == 0) {
            // Nobody waits for a tag: one delivery per DMA read request completed (its last completion); up to
            // `depth` requests were still in flight when the run stopped.
            assertThat(late.deliveries).isBetween(issued - depth, issued);
        } else if (mrrs > PcieConfig.defaults().mps()) {
            // Reads wait for tags: the completions that free one come in events, the others (a read request answered
            // in several) still do not.
            assertThat(late.deliveries).isGreaterThan(issued).isLessThan(reference.deliveries);
        } else {
            // One completion per read request, each freeing a tag someone waits for: all in events.
            assertThat(late.deliveries).isEqualTo(reference.deliveries);
        }
    }

    @ParameterizedTest(name = "{0} tags")
    @CsvSource({"2", "3", "6"})
    void aReadThatFindsNoTagIsExercisedHere(int tags) {
        // The stalled case above must really stall, or it tests nothing the first case does not.
        assertThat(stream(tags, 4096, 512, 8, false).tagStalls).isPositive();
    }

    /** What a run of {@link #bursts} shows: each read's completion instant, the statistics, the events. */
    private record Bursts(List<String> done, long endPs, String stats, long events, long hurried) {
    }

    /**
     * Reads of random sizes (one to 32 read requests) submitted in bursts at random gaps, so reads come to wait for a
     * tag while completions taken late are on their way: those must then come in events.
     */
    private static Bursts bursts(long seed, boolean eventPerTlp) {
        SplittableRandom rnd = new SplittableRandom(seed);
        Simulator sim = new Simulator(seed);
        int[] mrrs = {128, 256, 512, 1024};
        PcieConfig cfg = PcieConfig.defaults().withReadTags(2 + rnd.nextInt(12)).withMrrs(mrrs[rnd.nextInt(4)])
                .withMps(rnd.nextBoolean() ? 128 : 256);
        PcieLink link = new PcieLink(sim, "pcie", cfg, new HostMemory("host"));
        link.setEventPerTlp(eventPerTlp);
        DmaChannel ch = link.dma().addChannel("rd", 8);
        List<String> done = new ArrayList<>();
        byte[] buf = new byte[8 * 32768];
        DmaRequest[] reqs = new DmaRequest[8];
        boolean[] busy = new boolean[8];
        int[] left = {600};
        DmaCallback cb = new DmaCallback() {
            @Override
            public void readDone(DmaRequest r) {
                done.add(sim.now() + " " + r.cookie() + " " + r.length());
                busy[(int) r.cookie() % 8] = false;
            }
        };
        Event[] gen = new Event[1];
        gen[0] = sim.event("gen", () -> {
            int burst = 1 + rnd.nextInt(4);
            for (int i = 0; i < 8 && burst > 0 && left[0] > 0; i++) {
                if (!busy[i]) {
                    int len = 1 + rnd.nextInt(rnd.nextBoolean() ? 1024 : 32768);
                    long addr = 0x20_0000L + rnd.nextInt(1 << 20);
                    reqs[i] = new DmaRequest().read(addr, buf, i * 32768, len, cb, 8L * (600 - left[0]) + i);
                    assertThat(ch.submit(reqs[i])).isTrue();
                    busy[i] = true;
                    left[0]--;
                    burst--;
                }
            }
            if (left[0] > 0) {
                gen[0].scheduleIn(rnd.nextInt(4) == 0 ? 0 : rnd.nextLong(3_000_000));
            }
        });
        gen[0].schedule(0);
        sim.run();
        assertThat(done).hasSize(600);
        return new Bursts(done, sim.now(), sim.stats().toText(), sim.eventsExecuted(), link.dma().tagFreesHurried);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void readsThatComeToWaitForATagGetItWhenTheReferenceDoes(long seed) {
        Bursts reference = bursts(seed, true);
        Bursts late = bursts(seed, false);
        assertThat(late.done).as("read completions").isEqualTo(reference.done);
        assertThat(late.endPs).as("end of the run").isEqualTo(reference.endPs);
        assertThat(late.stats).as("statistics").isEqualTo(reference.stats);
        assertThat(late.events).as("events").isLessThan(reference.events);
    }

    @org.junit.jupiter.api.Test
    void theBurstsDoMakeReadsWaitWhileTagsAreFreedLate() {
        long hurried = 0;
        for (long seed = 1; seed <= 8; seed++) {
            hurried += bursts(seed, false).hurried;
        }
        assertThat(hurried).as("completions taken late, then delivered in events for a read waiting").isPositive();
    }

    /**
     * The engine's tag figures and statistics, read between events, the one named by {@code first} first: each must
     * bring the engine up to date on its own.
     */
    private static String lookMidRun(Simulator sim, DmaEngine dma, int first) {
        StringBuilder b = new StringBuilder().append(sim.now());
        for (int k = 0; k < 5; k++) {
            switch ((first + k) % 5) {
                case 0 -> b.append(" inUse ").append(dma.tagsInUse());
                case 1 -> b.append(" max ").append(dma.maxTagsInUse());
                case 2 -> b.append(" avg ").append(dma.averageTagsInUse());
                case 3 -> b.append(" cplds ").append(dma.completionsReceived());
                default -> b.append('\n').append(sim.stats().toText());
            }
        }
        return b.toString();
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {11, 12, 13})
    void tagsFreedLateAreSeenFreeByAnyoneLookingBetweenEvents(long seed) {
        // Completions taken late have arrived, unseen, when a caller looks: each look must hand them over first, so
        // it reads what the reference (every completion in an event) reads at the same instant.
        Simulator[] sims = new Simulator[2];
        DmaEngine[] dmas = new DmaEngine[2];
        for (int i = 0; i < 2; i++) {
            sims[i] = new Simulator(7);
            PcieLink link = new PcieLink(sims[i], "pcie", PcieConfig.defaults().withReadTags(32).withMrrs(256),
                    new HostMemory("host"));
            link.setEventPerTlp(i == 0);
            dmas[i] = link.dma();
            new StreamClient(sims[i], link.dma().addChannel("rd", 3), true, 2048, 0x10_0000L, 1, 300).start();
        }
        SplittableRandom rnd = new SplittableRandom(seed);
        long t = 0;
        int looks = 0;
        java.util.Set<Integer> inUseSeen = new java.util.TreeSet<>();
        while (t < 60_000_000L) {
            // Odd picoseconds: never the instant of an arrival on the default link's byte grid.
            t += 2 * rnd.nextLong(150_000) + 1;
            sims[0].runUntil(t);
            sims[1].runUntil(t);
            int first = looks % 5;
            String reference = lookMidRun(sims[0], dmas[0], first);
            assertThat(lookMidRun(sims[1], dmas[1], first)).as("look %d at %d ps", looks, t).isEqualTo(reference);
            inUseSeen.add(dmas[0].tagsInUse());
            looks++;
        }
        assertThat(looks).isGreaterThan(300);
        assertThat(inUseSeen).as("looks fall between tags freed and the next reads").hasSizeGreaterThan(3);
        assertThat(sims[1].eventsExecuted()).as("completions taken late").isLessThan(sims[0].eventsExecuted());
    }
}
