package dev.rdmasim.adapter.pcie;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.kernel.Simulator;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Channels share the link round-robin, one TLP per turn: with several channels holding requests, the TLPs on the link
 * take the channels in cyclic order, skipping channels with nothing queued, and a pump stopped by the link's credits
 * resumes with the channel after the last one that went.
 */
class DmaRoundRobinTest {
    private static final long REGION = 1L << 20;

    /**
     * Channels (some of them never used) submit writes of one to four TLPs each, all at instant 0, through a link with
     * few transmit credits; returns the channel of each write TLP in the order the host received them. The last
     * channel submits first, one write of more TLPs than there are credits: it issues until the credits run out, so
     * every other submission finds the link full and the engine's later turns start from channel 0 with all the
     * requests queued.
     */
    private static List<Integer> run(long seed, int channels, int[] busy, int[] requestsEach, int credits) {
        Simulator sim = new Simulator(seed);
        PcieConfig base = PcieConfig.defaults();
        PcieConfig cfg = new PcieConfig(base.gen(), base.lanes(), base.mps(), base.mrrs(), base.rcb(), base.rcbChunks(),
                base.addr64(), base.ecrc(), base.readTags(), base.hostReadLatencyPs(), base.hostWriteLatencyPs(),
                base.mmioLatencyPs(), base.linkLatencyPs(), base.ackLimit(), base.fcUpdateLimit(), credits,
                base.mmioQueueDepth(), base.msixBase(), base.msixSize());
        PcieLink link = new PcieLink(sim, "pcie", cfg, new HostMemory("host"));
        List<Integer> order = new ArrayList<>();
        link.up().connect(link.dma().linkEnd, new TlpTap(link.host().linkEnd, t -> {
            if (t.kind == TlpKind.MWR) {
                order.add((int) (t.address / REGION) - 1);
            }
        }));
        List<DmaChannel> all = new ArrayList<>();
        for (int c = 0; c < channels; c++) {
            all.add(link.dma().addChannel("c" + c, 64));
        }
        SplittableRandom rnd = new SplittableRandom(seed);
        int[] sent = {0};
        DmaCallback none = new DmaCallback() {
            @Override
            public void writeSent(DmaRequest r) {
                sent[0]++;
            }
        };
        int mps = cfg.mps();
        sim.event("clients", () -> {
            int blocker = channels - 1;
            int len = (credits + 1 + rnd.nextInt(4)) * mps;
            assertThat(all.get(blocker).submit(new DmaRequest().write(channels * REGION, new byte[len], 0, len, none, 0,
                    false))).isTrue();
            for (int k = 0; k < busy.length; k++) {
                int c = busy[k];
                long at = (c + 1) * REGION;
                for (int r = 0; r < requestsEach[k]; r++) {
                    int n = 1 + rnd.nextInt(4 * mps);
                    // On a 1 KiB boundary, so a request never crosses a page: exactly ceil(n / mps) TLPs.
                    assertThat(all.get(c).submit(new DmaRequest().write(at, new byte[n], 0, n, none, r, false))).isTrue();
                    at += 4L * mps;
                }
            }
        }).schedule(0);
        sim.run();
        int requests = 1;
        for (int n : requestsEach) {
            requests += n;
        }
        assertThat(sent[0]).as("every write was sent").isEqualTo(requests);
        return order;
    }

    /**
     * The order round-robin gives, worked out from the TLP counts alone: the blocker's first {@code issued} TLPs
     * (those it issued inside its own submission), then one TLP per turn, channels in index order from 0, skipping
     * those with nothing left.
     */
    private static List<Integer> expected(List<Integer> seen, int issued) {
        int[] left = new int[64];
        for (int c : seen) {
            left[c]++;
        }
        List<Integer> out = new ArrayList<>(seen.subList(0, issued));
        for (int c : out) {
            left[c]--;
        }
        int next = 0;
        while (out.size() < seen.size()) {
            for (int i = 0; i < 64; i++) {
                int c = (next + i) % 64;
                if (left[c] > 0) {
                    left[c]--;
                    out.add(c);
                    next = c + 1;
                    break;
                }
            }
        }
        return out;
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void tlpsTakeTheBusyChannelsInCyclicOrderWhateverTheCredits(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed * 31);
        int channels = 4 + rnd.nextInt(8);
        // Two to four busy channels below the blocker (the last one), each with its own number of requests.
        int busyCount = 2 + rnd.nextInt(3);
        int[] busy = rnd.ints(0, channels - 1).distinct().limit(busyCount).sorted().toArray();
        int[] requests = new int[busy.length];
        for (int k = 0; k < busy.length; k++) {
            requests[k] = 1 + rnd.nextInt(6);
        }
        int credits = 1 + rnd.nextInt(3);
        List<Integer> seen = run(seed, channels, busy, requests, credits);
        // The blocker issues until the credits run out: one TLP per credit, and one more, since the first starts on
        // the idle link at once and frees its credit in the same instant.
        assertThat(seen.subList(0, credits + 1)).containsOnly(channels - 1);
        assertThat(seen.get(credits + 1)).isEqualTo(busy[0]);
        assertThat(seen).as("channels %s with %s requests, %d credits", java.util.Arrays.toString(busy),
                java.util.Arrays.toString(requests), credits).isEqualTo(expected(seen, credits + 1));
        for (int c : busy) {
            assertThat(seen).contains(c);
        }
    }

    @Test
    void busyChannelsAlternateOneTlpAtATimeAndDropOutWhenEmpty() {
        // Channels 1, 3 and 4 of six (5 is the blocker); channel 3 has one request only.
        List<Integer> seen = run(11, 6, new int[] {1, 3, 4}, new int[] {3, 1, 3}, 1);
        assertThat(seen.subList(0, 2)).containsExactly(5, 5);
        assertThat(seen.subList(2, 6)).containsExactly(1, 3, 4, 5);
        assertThat(seen).isEqualTo(expected(seen, 2));
    }

    @Test
    void anEngineHoldsAtMostSixtyFourChannels() {
        Simulator sim = new Simulator(1);
        PcieLink link = new PcieLink(sim, "pcie", PcieConfig.defaults(), new HostMemory("host"));
        for (int c = 0; c < 64; c++) {
            link.dma().addChannel("c" + c, 1);
        }
        assertThatThrownBy(() -> link.dma().addChannel("one-more", 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("pcie.dma: at most 64 channels, adding 'one-more'");
    }
}
