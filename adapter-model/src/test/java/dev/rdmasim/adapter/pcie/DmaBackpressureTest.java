package dev.rdmasim.adapter.pcie;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.Simulator;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DmaBackpressureTest {
    private static final long READ_REGION = 0x7000_0000L;
    private static final int READ_REGION_SIZE = 1 << 16;

    static byte pattern(long addr) {
        return (byte) (addr * 0x9E3779B1L >>> 24);
    }

    /**
     * A client that submits a fixed number of requests with random stalls: it holds finished requests for a random
     * time before looking at them, and pauses between submissions. Scoreboard: every request completes once, in
     * submission order per kind, with the right bytes.
     */
    private static final class Client implements DmaCallback {
        final SplittableRandom rnd;
        final DmaChannel ch;
        final long writeBase;
        final int total;
        final double readShare;
        final Event tick;
        final ArrayDeque<DmaRequest> idle = new ArrayDeque<>();
        final ArrayDeque<DmaRequest> finished = new ArrayDeque<>();
        final List<byte[]> writeData = new ArrayList<>();
        final List<Long> writeAddr = new ArrayList<>();
        long seq;
        long nextReadDone;
        long nextWriteDone;
        final List<Long> readSeqs = new ArrayList<>();
        final List<Long> writeSeqs = new ArrayList<>();
        final List<Long> appliedSeqs = new ArrayList<>();
        int nextApplied;
        int completions;
        int refusals;
        boolean waitingRetry;
        DmaRequest pending;

        Client(Simulator sim, SplittableRandom rnd, DmaChannel ch, long writeBase, int total, double readShare) {
            this.rnd = rnd;
            this.ch = ch;
            this.writeBase = writeBase;
            this.total = total;
            this.readShare = readShare;
            this.tick = sim.event(ch.name() + ".tick", this::onTick);
            for (int i = 0; i < 5; i++) {
                idle.add(new DmaRequest());
            }
            ch.setRetry(() -> {
                waitingRetry = false;
                if (!tick.scheduled()) {
                    tick.scheduleIn(0);
                }
            });
        }

        void onTick() {
            // Look at completions held back by the stall.
            while (!finished.isEmpty()) {
                check(finished.poll());
            }
            if (waitingRetry) {
                return;
            }
            if (pending == null && seq < total && !idle.isEmpty()) {
                pending = prepare(idle.poll());
            }
            if (pending != null) {
                if (ch.submit(pending)) {
                    pending = null;
                } else {
                    refusals++;
                    waitingRetry = true;
                    return;
                }
            }
            if (seq < total || !finished.isEmpty()) {
                tick.scheduleIn(rnd.nextInt(4) == 0 ? rnd.nextLong(3_000_000) : rnd.nextLong(50_000));
            }
        }

        DmaRequest prepare(DmaRequest r) {
            long s = seq++;
            int len = 1 + rnd.nextInt(rnd.nextInt(4) == 0 ? 5000 : 300);
            if (rnd.nextDouble() < readShare) {
                long addr = READ_REGION + rnd.nextInt(READ_REGION_SIZE - len);
                readSeqs.add(s);
                return r.read(addr, new byte[len + 8], 4, len, this, s);
            }
            byte[] data = new byte[len];
            rnd.nextBytes(data);
            long addr = writeBase + s * 8192 + rnd.nextInt(100);
            writeData.add(data);
            writeAddr.add(addr);
            writeSeqs.add(s);
            boolean notify = rnd.nextBoolean();
            if (notify) {
                appliedSeqs.add(s);
            }
            return r.write(addr, data, 0, len, this, s, notify);
        }

        /** Verifies a read's bytes once the client gets round to it, and recycles the request. */
        void check(DmaRequest r) {
            if (r.kind() == DmaRequest.Kind.READ) {
                byte[] b = r.buffer();
                for (int i = 0; i < r.length(); i++) {
                    if (b[4 + i] != pattern(r.hostAddress() + i)) {
                        throw new AssertionError("read " + r + " byte " + i + " wrong");
                    }
                }
                assertThat(b[3]).isZero();
                assertThat(b[4 + r.length()]).isZero();
            }
            completions++;
            idle.add(r);
        }

        void done(DmaRequest r) {
            assertThat(r.inEngine()).isFalse();
            finished.add(r);
            if (!tick.scheduled()) {
                tick.scheduleIn(rnd.nextLong(1_000_000));
            }
        }

        @Override
        public void readDone(DmaRequest r) {
            assertThat(r.cookie()).as("reads of %s complete in order", ch.name())
                    .isEqualTo(readSeqs.get((int) nextReadDone++));
            done(r);
        }

        @Override
        public void writeSent(DmaRequest r) {
            assertThat(r.cookie()).as("writes of %s leave in order", ch.name())
                    .isEqualTo(writeSeqs.get((int) nextWriteDone++));
            if (!r.notifyApplied()) {
                done(r);
            } else {
                assertThat(r.inEngine()).as("a write waiting for 'applied' stays in the engine").isTrue();
            }
        }

        @Override
        public void writeApplied(DmaRequest r) {
            assertThat(r.cookie()).as("writes of %s apply in order", ch.name())
                    .isEqualTo(appliedSeqs.get(nextApplied++));
            done(r);
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {11, 12, 13})
    void stallingClientsLoseDuplicateAndReorderNothing(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        Simulator sim = new Simulator(seed);
        HostMemory mem = new HostMemory("host");
        for (long a = READ_REGION; a < READ_REGION + READ_REGION_SIZE; a++) {
            mem.putByte(a, pattern(a));
        }
        PcieConfig cfg = PcieOrderingTest.randomConfig(rnd).withReadTags(1 + rnd.nextInt(8)).withQueues(1, 4);
        PcieLink link = new PcieLink(sim, "pcie", cfg, mem);
        List<Client> clients = List.of(
                new Client(sim, rnd, link.dma().addChannel("writer", 2), 0x1_0000_0000L, 150, 0.0),
                new Client(sim, rnd, link.dma().addChannel("reader", 2), 0, 150, 1.0),
                new Client(sim, rnd, link.dma().addChannel("mixed", 3), 0x2_0000_0000L, 150, 0.5));
        for (Client c : clients) {
            c.tick.schedule(0);
        }
        sim.run();

        for (Client c : clients) {
            assertThat(c.completions).as(c.ch.name()).isEqualTo(150);
            assertThat(c.idle).hasSize(5);
            for (int i = 0; i < c.writeData.size(); i++) {
                byte[] d = c.writeData.get(i);
                assertThat(mem.equalsRange(c.writeAddr.get(i), d, 0, d.length)).isTrue();
            }
        }
        assertThat(clients.stream().mapToInt(c -> c.refusals).sum()).as("queues pushed back").isPositive();
        assertThat(link.dma().tagsInUse()).isZero();
    }

    @Test
    void steadyStateAllocatesNoNewTlps() {
        Simulator sim = new Simulator(1);
        PcieLink link = new PcieLink(sim, "pcie", PcieConfig.defaults(), new HostMemory("host"));
        StreamClient reads = new StreamClient(sim, link.dma().addChannel("rd", 64), true, 1000, 0x10_0000L, 1, 3000);
        StreamClient writes = new StreamClient(sim, link.dma().addChannel("wr", 16), false, 700, 0x90_0000L, 1, 100_000);
        reads.start();
        writes.start();
        sim.runUntil(50_000_000L);
        int warm = link.tlpsAllocated();
        com.sun.management.ThreadMXBean mx =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long before = mx.getCurrentThreadAllocatedBytes();
        long events = sim.eventsExecuted();
        long tlps = tlps(link);
        long payload = link.down().payloadBytes() + link.up().payloadBytes();
        sim.runUntil(500_000_000L);
        long allocated = mx.getCurrentThreadAllocatedBytes() - before;
        assertThat(link.tlpsAllocated()).isEqualTo(warm);
        assertThat(link.down().payloadBytes() + link.up().payloadBytes() - payload).isGreaterThan(1_000_000);
        // Tens of thousands of TLPs and events went by; one object per TLP would be far beyond this slack.
        assertThat(tlps(link) - tlps).isGreaterThan(20_000);
        assertThat(sim.eventsExecuted() - events).isGreaterThan(20_000);
        assertThat(allocated).as("bytes allocated in steady state").isLessThan(16_384);
    }

    private static long tlps(PcieLink link) {
        return link.dma().readTlpsIssued() + link.dma().writeTlpsIssued() + link.dma().completionsReceived();
    }

    @Test
    void completionsAreCutAtRcbBoundaries() {
        byte[] buf = new byte[300];
        for (boolean chunks : new boolean[] {true, false}) {
            Simulator sim = new Simulator(1);
            HostMemory mem = new HostMemory("host");
            for (int i = 0; i < 300; i++) {
                mem.putByte(0x1010 + i, (byte) i);
            }
            PcieLink link = new PcieLink(sim, "pcie", PcieConfig.defaults().withRcb(64, chunks), mem);
            DmaRequest r = new DmaRequest().read(0x1010, buf, 0, 300, new DmaCallback() {
                @Override
                public void readDone(DmaRequest req) {
                }
            }, 0);
            assertThat(link.dma().addChannel("rd", 1).submit(r)).isTrue();
            sim.run();
            // RCB 64: 48 to the boundary, then 64-byte pieces (4 x 64 = 256, 300 - 48 - 192 = 60 left); with MPS
            // pieces: 240 to the boundary at 256, then 60.
            assertThat(link.dma().completionsReceived()).isEqualTo(chunks ? 5 : 2);
            assertThat(link.down().wireBytes() - link.down().overheadBytes()).isEqualTo(300 + (chunks ? 5 : 2) * 20);
            for (int i = 0; i < 300; i++) {
                assertThat(buf[i]).isEqualTo((byte) i);
            }
            assertThat(Arrays.equals(buf, new byte[300])).isFalse();
        }
    }
}
