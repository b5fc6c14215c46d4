package dev.rdmasim.adapter.pcie;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.Simulator;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The DMA port driven as blocks drive it: bursts of writes sent through a shallow channel with random pauses, and a
 * scoreboard that every write leaves once, in send order, with its bytes in host memory; the port's backlog never
 * holds more than the client put in flight; the ready callback comes only once the backlog has drained.
 */
class DmaPortTest {

    private static final class Client implements DmaCallback {
        final SplittableRandom rnd;
        final DmaPort port;
        final Event tick;
        final int total;
        final int inFlightLimit;
        final ArrayDeque<DmaRequest> idle = new ArrayDeque<>();
        final List<byte[]> data = new ArrayList<>();
        final List<Long> addr = new ArrayList<>();
        int sent;
        int nextLeaving;
        int readyCalls;
        int maxHeld;
        int heldAtReady = -1;
        boolean sawBlocked;

        Client(Simulator sim, SplittableRandom rnd, DmaChannel ch, int total, int inFlightLimit) {
            this.rnd = rnd;
            this.total = total;
            this.inFlightLimit = inFlightLimit;
            port = new DmaPort(ch, inFlightLimit);
            tick = sim.event("client.tick", this::onTick);
            for (int i = 0; i < inFlightLimit; i++) {
                idle.add(new DmaRequest());
            }
            port.onReady(() -> {
                readyCalls++;
                heldAtReady = Math.max(heldAtReady, port.held());
                if (!tick.scheduled()) {
                    tick.scheduleIn(0);
                }
            });
        }

        void onTick() {
            // A burst: everything idle goes out at once, so the shallow channel refuses and the port holds the rest.
            int burst = 1 + rnd.nextInt(inFlightLimit);
            while (burst-- > 0 && sent < total && !idle.isEmpty()) {
                DmaRequest r = idle.poll();
                int len = 1 + rnd.nextInt(rnd.nextInt(4) == 0 ? 3000 : 200);
                byte[] d = new byte[len];
                rnd.nextBytes(d);
                long a = 0x4000_0000L + (long) sent * 4096;
                data.add(d);
                addr.add(a);
                r.write(a, d, 0, len, this, sent, false);
                sent++;
                if (!port.send(r)) {
                    sawBlocked = true;
                }
                maxHeld = Math.max(maxHeld, port.held());
            }
            if (sent < total && !tick.scheduled()) {
                tick.scheduleIn(rnd.nextInt(3) == 0 ? rnd.nextLong(2_000_000) : rnd.nextLong(20_000));
            }
        }

        @Override
        public void writeSent(DmaRequest r) {
            assertThat(r.cookie()).as("writes leave in the order they were sent").isEqualTo(nextLeaving);
            nextLeaving++;
            idle.add(r);
            if (sent < total && !tick.scheduled()) {
                tick.scheduleIn(rnd.nextLong(100_000));
            }
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5})
    void burstsThroughAShallowChannelLoseDuplicateAndReorderNothing(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        Simulator sim = new Simulator(seed);
        HostMemory mem = new HostMemory("host");
        PcieConfig cfg = PcieOrderingTest.randomConfig(rnd).withQueues(1, 4);
        PcieLink link = new PcieLink(sim, "pcie", cfg, mem);
        Client c = new Client(sim, rnd, link.dma().addChannel("w", 1 + rnd.nextInt(2)), 300, 4 + rnd.nextInt(5));
        c.tick.schedule(0);
        sim.run();

        assertThat(c.nextLeaving).as("every write left").isEqualTo(300);
        assertThat(c.idle).hasSize(c.inFlightLimit);
        for (int i = 0; i < c.data.size(); i++) {
            assertThat(mem.equalsRange(c.addr.get(i), c.data.get(i), 0, c.data.get(i).length)).as("write %d", i).isTrue();
        }
        assertThat(c.sawBlocked).as("the channel pushed back").isTrue();
        assertThat(c.maxHeld).isLessThanOrEqualTo(c.inFlightLimit);
        assertThat(c.readyCalls).as("the client heard the channel free").isPositive();
        assertThat(c.heldAtReady).as("ready only once the backlog drained").isZero();
        assertThat(c.port.blocked()).isFalse();
    }

    /** A request the channel takes at once goes through without the ready callback. */
    @Test
    void takenAtOnceMeansNoRetry() {
        Simulator sim = new Simulator(1);
        PcieLink link = new PcieLink(sim, "pcie", PcieConfig.defaults(), new HostMemory("host"));
        DmaPort port = new DmaPort(link.dma().addChannel("w", 4), 2);
        int[] ready = {0};
        port.onReady(() -> ready[0]++);
        DmaCallback cb = new DmaCallback() {
            @Override
            public void writeSent(DmaRequest r) {
            }
        };
        assertThat(port.send(new DmaRequest().write(0x1000, new byte[8], 0, 8, cb, 0, false))).isTrue();
        assertThat(port.offer(new DmaRequest().write(0x2000, new byte[8], 0, 8, cb, 1, false))).isTrue();
        sim.run();
        assertThat(ready[0]).isZero();
        assertThat(port.blocked()).isFalse();
    }

    /** An offer that the channel refuses is not kept: the client hears ready later and offers again. */
    @Test
    void refusedOfferIsNotHeldAndReadyFollows() {
        Simulator sim = new Simulator(1);
        PcieLink link = new PcieLink(sim, "pcie", PcieConfig.defaults(), new HostMemory("host"));
        DmaPort port = new DmaPort(link.dma().addChannel("w", 1), 1);
        List<String> log = new ArrayList<>();
        DmaCallback cb = new DmaCallback() {
            @Override
            public void writeSent(DmaRequest r) {
                log.add("sent " + r.cookie());
            }
        };
        // The engine takes requests as fast as the link lets it: offer until the one-deep channel refuses.
        int n = 0;
        while (port.offer(new DmaRequest().write(0x1000L * (n + 1), new byte[256], 0, 256, cb, n, false))) {
            n++;
            assertThat(n).as("a one-deep channel must fill up").isLessThan(64);
        }
        int refused = n;
        DmaRequest retry = new DmaRequest().write(0x1000L * (refused + 1), new byte[256], 0, 256, cb, refused, false);
        assertThat(port.blocked()).as("a refused offer is the client's to retry").isFalse();
        assertThat(port.channel().name()).isEqualTo("w");
        assertThat(port).hasToString("port pcie.dma.w (0 held)");
        port.onReady(() -> {
            log.add("ready");
            assertThat(port.offer(retry)).isTrue();
        });
        sim.run();
        assertThat(log).contains("ready").endsWith("sent " + refused);
        assertThat(log.stream().filter(e -> e.startsWith("sent"))).hasSize(refused + 1);
    }

    /** With no backlog room, a refused send is an invariant violation naming the channel, not a lost request. */
    @Test
    void overflowingTheBacklogFailsLoudly() {
        Simulator sim = new Simulator(1);
        PcieLink link = new PcieLink(sim, "pcie", PcieConfig.defaults(), new HostMemory("host"));
        DmaPort port = new DmaPort(link.dma().addChannel("events", 1), 0);
        DmaCallback cb = new DmaCallback() {
            @Override
            public void writeSent(DmaRequest r) {
            }
        };
        assertThatThrownBy(() -> {
            for (int i = 0; i < 64; i++) {
                port.send(new DmaRequest().write(0x1000L * (i + 1), new byte[256], 0, 256, cb, i, false));
            }
        })
                .isInstanceOf(InvariantViolation.class).hasMessageContaining("events");
    }

    /**
     * A port whose client never asked to hear ready still resubmits what it holds once the channel frees (the tags
     * keep the channel full: one read tag, a channel of one); a null ready action means none.
     */
    @Test
    void heldRequestsGoOutWithoutAReadyActionAndBlockedCountsThem() {
        Simulator sim = new Simulator(1);
        PcieLink link = new PcieLink(sim, "pcie", PcieConfig.defaults().withReadTags(1), new HostMemory("host"));
        assertThatThrownBy(() -> new DmaPort(link.dma().addChannel("bad", 1), -1)).hasMessageContaining("backlog");
        DmaPort port = new DmaPort(link.dma().addChannel("r", 1), 3);
        List<Long> done = new ArrayList<>();
        DmaCallback cb = new DmaCallback() {
            @Override
            public void readDone(DmaRequest r) {
                done.add(r.cookie());
            }
        };
        boolean[] taken = new boolean[4];
        for (int i = 0; i < 4; i++) {
            taken[i] = port.send(new DmaRequest().read(0x1000L * (i + 1), new byte[64], 0, 64, cb, i));
        }
        // The first takes the tag, the second the channel's slot; the port holds the other two.
        assertThat(taken).containsExactly(true, true, false, false);
        assertThat(port.held()).isEqualTo(2);
        assertThat(port.blocked()).isTrue();
        sim.run();
        assertThat(done).containsExactly(0L, 1L, 2L, 3L);
        assertThat(port.held()).isZero();
        assertThat(port.blocked()).isFalse();

        DmaPort quiet = new DmaPort(link.dma().addChannel("q", 1), 2);
        quiet.onReady(null);
        for (int i = 0; i < 3; i++) {
            quiet.send(new DmaRequest().read(0x9000L + 0x1000L * i, new byte[64], 0, 64, cb, 10 + i));
        }
        sim.run();
        assertThat(done).endsWith(10L, 11L, 12L);
    }
}
