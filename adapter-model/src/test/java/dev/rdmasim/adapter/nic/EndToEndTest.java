package dev.rdmasim.adapter.nic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.format.AccessFlags;
import dev.rdmasim.adapter.format.Cqe;
import dev.rdmasim.adapter.format.CqeSyndrome;
import dev.rdmasim.adapter.format.Doorbells;
import dev.rdmasim.adapter.format.WqeOpcode;
import dev.rdmasim.kernel.Simulator;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class EndToEndTest {
    static final int ALL = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;

    /** Seeded random bytes: payloads whose arrival a test can check byte for byte. */
    static byte[] pattern(long seed, int len) {
        byte[] b = new byte[len];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    /** Every completion the host's CQ holds now, in order. */
    static List<byte[]> drain(TestHost h) {
        List<byte[]> out = new ArrayList<>();
        for (byte[] c = h.poll(); c != null; c = h.poll()) {
            out.add(c);
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 64, 1000, 1024, 4096, 5000, 65536, 1 << 20})
    void rdmaWriteLandsExactlyAtTheTarget(int len) {
        Simulator sim = new Simulator(1);
        TestHost[] p = TestHost.pair(sim, Profile.defaults(), 2 << 20, ALL);
        TestHost a = p[0];
        TestHost b = p[1];
        byte[] data = pattern(len, len);
        a.mem.write(a.buf, data, 0, len);
        long target = b.buf + 4096 + 3;
        long before = b.mem.digest(b.buf, b.bufSize);
        a.post(WqeOpcode.RDMA_WRITE, target, b.key, a.buf, len, false, true);
        sim.runUntil(2_000_000_000L);
        List<byte[]> cqes = drain(a);
        assertThat(cqes).hasSize(1);
        assertThat(Cqe.opcode(cqes.get(0), 0)).as("CQE opcode").isEqualTo(Cqe.REQ);
        assertThat(Cqe.byteCount(cqes.get(0), 0)).isEqualTo(len);
        assertThat(b.mem.equalsRange(target, data, 0, len)).isTrue();
        // Nothing else changed: the bytes around the target are still zero.
        byte[] zero = new byte[4096 + 3];
        assertThat(b.mem.equalsRange(b.buf, zero, 0, zero.length)).isTrue();
        assertThat(b.mem.equalsRange(target + len, zero, 0, 4096)).isTrue();
        if (len == 0) {
            assertThat(b.mem.digest(b.buf, b.bufSize)).isEqualTo(before);
        }
    }

    /**
     * A WRITE or READ whose pages need more translation lines than the translation cache holds at once: the
     * responder checks the RETH's range against the key alone and looks translations up packet by packet, so it
     * completes with every byte in place (it used to ask for the whole range's translations in one check, which
     * never fitted and refilled lines for ever).
     */
    @ParameterizedTest
    @ValueSource(ints = {WqeOpcode.RDMA_WRITE, WqeOpcode.RDMA_READ})
    void aMessageLargerThanTheTranslationCacheCompletes(int opcode) {
        Simulator sim = new Simulator(1);
        Profile small = Profile.defaults().withOverrides(List.of("nic.mttCacheEntries=8", "nic.mttCacheWays=8"));
        TestHost[] p = TestHost.pair(sim, small, 2 << 20, ALL);
        int len = 1 << 20; // 256 pages of 4 KiB: 32 translation lines, 4 times the cache
        byte[] data = pattern(7, len);
        boolean write = opcode == WqeOpcode.RDMA_WRITE;
        TestHost src = write ? p[0] : p[1];
        TestHost dst = write ? p[1] : p[0];
        src.mem.write(src.buf, data, 0, len);
        p[0].post(opcode, p[1].buf, p[1].key, p[0].buf, len, false, true);
        sim.runUntil(50_000_000_000L);
        List<byte[]> cqes = drain(p[0]);
        assertThat(cqes).hasSize(1);
        assertThat(Cqe.opcode(cqes.get(0), 0)).isEqualTo(Cqe.REQ);
        assertThat(dst.mem.equalsRange(dst.buf, data, 0, len)).isTrue();
    }

    @Test
    void inlineWriteCompletesAboutOneDmaReadSooner() {
        // Both measure a second write after a first one has warmed the caches (the steady path).
        long[] t = {warmWriteTime(Profile.defaults(), false), warmWriteTime(Profile.defaults(), true)};
        long saved = t[0] - t[1];
        // One 64 B DMA read round trip on the default profile is roughly 0.5-0.7 us.
        assertThat(saved).as("non-inline %d ps, inline %d ps", t[0], t[1]).isBetween(400_000L, 900_000L);
    }

    /**
     * The parser does its work when the WQE arrives and gives the request a ready time at the end of its cycles;
     * nothing of the request may leave before then. So on an idle pair every extra parse cycle delays the
     * completion by exactly one cycle, for a payload read (non-inline) and for the packet itself (inline).
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void parseCyclesDelayEverythingAfterTheParserExactly(boolean inline) {
        long base = warmWriteTime(4, inline);
        long slow = warmWriteTime(404, inline);
        // 400 cycles of the 500 MHz core clock.
        assertThat(slow - base).isEqualTo(400 * 2_000L);
    }

    /** Likewise the CQE writer: its CQE write may not leave before the writer's cycles are over. */
    @Test
    void cqeCyclesDelayTheCompletionExactly() {
        Profile base = Profile.defaults();
        long fast = warmWriteTime(base.with(dev.rdmasim.adapter.config.Parameters.NIC_CQE_CYCLES, 4L), false);
        long slow = warmWriteTime(base.with(dev.rdmasim.adapter.config.Parameters.NIC_CQE_CYCLES, 254L), false);
        assertThat(slow - fast).isEqualTo(250 * 2_000L);
    }

    /**
     * The receive pipeline works a frame out when it arrives, for the instant its cycles end: on an idle pair every
     * extra pipeline cycle delays a write twice (the request at the responder, the ACK at the requester), exactly.
     */
    @Test
    void receiveCyclesDelayAWriteExactlyTwice() {
        Profile base = Profile.defaults();
        long fast = warmWriteTime(base.with(dev.rdmasim.adapter.config.Parameters.NIC_RX_PACKET_CYCLES, 5L), false);
        long slow = warmWriteTime(base.with(dev.rdmasim.adapter.config.Parameters.NIC_RX_PACKET_CYCLES, 105L), false);
        assertThat(slow - fast).isEqualTo(2 * 100 * 2_000L);
        // The payload itself passes one pipeline, at the responder.
        long fastLanding = warmWriteLanding(base.with(dev.rdmasim.adapter.config.Parameters.NIC_RX_PACKET_CYCLES, 5L));
        long slowLanding = warmWriteLanding(base.with(dev.rdmasim.adapter.config.Parameters.NIC_RX_PACKET_CYCLES, 105L));
        assertThat(slowLanding - fastLanding).isEqualTo(100 * 2_000L);
    }

    /** A pair whose caches one completed 64 B write has warmed, so a second one measures the steady path. */
    private static TestHost[] warmPair(Profile profile) {
        Simulator sim = new Simulator(1);
        TestHost[] p = TestHost.pair(sim, profile, 1 << 20, ALL);
        p[0].mem.write(p[0].buf, pattern(1, 64), 0, 64);
        p[0].post(WqeOpcode.RDMA_WRITE, p[1].buf, p[1].key, p[0].buf, 64, false, true);
        sim.runUntil(100_000_000L);
        assertThat(drain(p[0])).hasSize(1);
        return p;
    }

    /**
     * Time from posting a warm 64 B write until its bytes are in the responder's memory: the instant the root
     * complex applies the write, which a write observer sees (memory read between events would only show it at the
     * next event, since a write nobody watches is applied without one).
     */
    private static long warmWriteLanding(Profile profile) {
        TestHost[] p = warmPair(profile);
        Simulator sim = p[0].sim;
        long start = sim.now();
        long[] landed = {-1};
        long target = p[1].buf + 64;
        p[1].nic.host().setWriteObserver((addr, len) -> {
            if (landed[0] < 0 && addr <= target && target < addr + len) {
                landed[0] = sim.now();
            }
        });
        p[0].mem.write(p[0].buf + 64, pattern(2, 64), 0, 64);
        p[0].post(WqeOpcode.RDMA_WRITE, p[1].buf + 64, p[1].key, p[0].buf + 64, 64, false, true);
        sim.run();
        assertThat(landed[0]).as("the payload landed").isNotNegative();
        assertThat(p[1].mem.equalsRange(target, pattern(2, 64), 0, 64)).isTrue();
        return landed[0] - start;
    }

    /**
     * A receive pipeline slower than the wire refuses frames while busy and has the link offer them again when it
     * frees, whether or not its busy flag is traced; nothing is lost or reordered, and tracing changes nothing.
     */
    @Test
    void aSlowReceivePipelinePushesBackAndLosesNothing() {
        List<String> untraced = slowPipelineRun(false);
        List<String> traced = slowPipelineRun(true);
        assertThat(untraced).hasSize(40).isEqualTo(traced);
    }

    private static List<String> slowPipelineRun(boolean traced) {
        Simulator sim = new Simulator(1);
        if (traced) {
            sim.attachWave(new dev.rdmasim.kernel.wave.VcdWriter(java.io.Writer.nullWriter(), sim,
                    dev.rdmasim.kernel.wave.SignalFilter.ALL));
        }
        TestHost[] p = TestHost.pair(sim, Profile.defaults()
                .with(dev.rdmasim.adapter.config.Parameters.NIC_RX_PACKET_CYCLES, 200L), 1 << 20, ALL);
        List<String> lifecycles = new ArrayList<>();
        p[0].nic.addLifecycleListener((nic, qpn, wqe, op, bytes, syndrome, stamps) ->
                lifecycles.add(wqe + " " + java.util.Arrays.toString(stamps)));
        int n = 40;
        for (int i = 0; i < n; i++) {
            p[0].mem.write(p[0].buf + i * 4096L, pattern(500 + i, 2000), 0, 2000);
            p[0].post(WqeOpcode.RDMA_WRITE, p[1].buf + i * 4096L, p[1].key, p[0].buf + i * 4096L, 2000, false, true);
        }
        sim.runUntil(5_000_000_000L);
        List<byte[]> cqes = drain(p[0]);
        assertThat(cqes).hasSize(n);
        for (int i = 0; i < n; i++) {
            assertThat(Cqe.syndrome(cqes.get(i), 0)).isZero();
            assertThat(Cqe.wqeCounter(cqes.get(i), 0)).isEqualTo(i);
            assertThat(p[1].mem.equalsRange(p[1].buf + i * 4096L, pattern(500 + i, 2000), 0, 2000)).isTrue();
        }
        assertThat(TestHost.lastLink.aToB().refusals()).isPositive();
        return lifecycles;
    }

    /**
     * Engines that take work when it arrives (parser, packetizer, CQE writer) take it at once only when idle:
     * a burst queues behind them one item at a time, so no DMA request or frame waits long for its ready time
     * while holding a link slot or buffer.
     */
    @Test
    void aBurstIsTakenOneItemAtATime() {
        Simulator sim = new Simulator(1);
        TestHost[] p = TestHost.pair(sim, Profile.defaults(), 1 << 20, ALL);
        for (int i = 0; i < 64; i++) {
            p[0].post(WqeOpcode.RDMA_WRITE, p[1].buf + i * 64L, p[1].key, p[0].buf + i * 64L, 64, i % 2 == 0, true);
        }
        sim.runUntil(1_000_000_000L);
        assertThat(drain(p[0])).hasSize(64);
        // One CQE write waits in the DMA channel at most, as when the writer had an event per CQE; taking the
        // whole burst at once would leave several waiting for their ready times while holding link slots.
        assertThat(timeAverage(sim, "nicA.pcie.dma", "cqe_queued").max()).isLessThanOrEqualTo(1);
    }

    private static dev.rdmasim.kernel.stats.TimeAverage timeAverage(Simulator sim, String group, String name) {
        dev.rdmasim.kernel.stats.StatsGroup g = sim.stats().groups().stream()
                .filter(x -> x.path().equals(group)).findFirst().orElseThrow();
        g.refresh();
        return g.stats().stream().filter(st -> st instanceof dev.rdmasim.kernel.stats.TimeAverage)
                .map(st -> (dev.rdmasim.kernel.stats.TimeAverage) st)
                .filter(st -> st.fullName().endsWith("." + name)).findFirst().orElseThrow();
    }

    private static long warmWriteTime(long parseCycles, boolean inline) {
        return warmWriteTime(Profile.defaults()
                .with(dev.rdmasim.adapter.config.Parameters.NIC_WQE_PARSE_CYCLES, parseCycles), inline);
    }

    private static long warmWriteTime(Profile profile, boolean inline) {
        TestHost[] p = warmPair(profile);
        Simulator sim = p[0].sim;
        long start = sim.now();
        p[0].post(WqeOpcode.RDMA_WRITE, p[1].buf + 64, p[1].key, p[0].buf, 64, inline, true);
        long done = -1;
        while (done < 0 && sim.step()) {
            if (p[0].poll() != null) {
                done = sim.now();
            }
        }
        assertThat(p[1].mem.equalsRange(p[1].buf + 64, pattern(1, 64), 0, 64)).isTrue();
        return done - start;
    }

    @Test
    void sendIsScatteredIntoThePostedReceiveAndBothSidesComplete() {
        Simulator sim = new Simulator(1);
        TestHost[] p = TestHost.pair(sim, Profile.defaults(), 1 << 20, ALL);
        byte[] data = pattern(9, 3000);
        p[0].mem.write(p[0].buf, data, 0, data.length);
        p[1].postRecv(p[1].buf + 100, 4000);
        p[0].post(WqeOpcode.SEND, -1, 0, p[0].buf, data.length, false, true);
        sim.runUntil(1_000_000_000L);
        List<byte[]> req = drain(p[0]);
        List<byte[]> rsp = drain(p[1]);
        assertThat(req).hasSize(1);
        assertThat(Cqe.opcode(req.get(0), 0)).isEqualTo(Cqe.REQ);
        assertThat(rsp).hasSize(1);
        assertThat(Cqe.opcode(rsp.get(0), 0)).isEqualTo(Cqe.RESP_SEND);
        assertThat(Cqe.byteCount(rsp.get(0), 0)).isEqualTo(3000);
        assertThat(p[1].mem.equalsRange(p[1].buf + 100, data, 0, data.length)).isTrue();
    }

    @Test
    void readFetchesRemoteBytes() {
        Simulator sim = new Simulator(1);
        TestHost[] p = TestHost.pair(sim, Profile.defaults(), 1 << 20, ALL);
        byte[] data = pattern(5, 10000);
        p[1].mem.write(p[1].buf + 8192, data, 0, data.length);
        p[0].post(WqeOpcode.RDMA_READ, p[1].buf + 8192, p[1].key, p[0].buf + 16, data.length, false, true);
        sim.runUntil(1_000_000_000L);
        List<byte[]> req = drain(p[0]);
        assertThat(req).hasSize(1);
        assertThat(Cqe.opcode(req.get(0), 0)).isEqualTo(Cqe.REQ);
        assertThat(p[0].mem.equalsRange(p[0].buf + 16, data, 0, data.length)).isTrue();
    }

    @Test
    void manyWritesCompleteInOrder() {
        Simulator sim = new Simulator(1);
        TestHost[] p = TestHost.pair(sim, Profile.defaults(), 1 << 20, ALL);
        SplittableRandom rnd = new SplittableRandom(3);
        int n = 40;
        for (int i = 0; i < n; i++) {
            int len = 1 + rnd.nextInt(3000);
            p[0].mem.write(p[0].buf + i * 4096L, pattern(i, len), 0, len);
            p[0].post(WqeOpcode.RDMA_WRITE, p[1].buf + i * 4096L, p[1].key, p[0].buf + i * 4096L, len, false, true);
        }
        sim.runUntil(5_000_000_000L);
        List<byte[]> cqes = drain(p[0]);
        assertThat(cqes).hasSize(n);
        int expectIndex = 0;
        for (byte[] c : cqes) {
            assertThat(Cqe.opcode(c, 0)).isEqualTo(Cqe.REQ);
            assertThat(Cqe.wqeCounter(c, 0)).isEqualTo(expectIndex & 0xFFFF);
            expectIndex += 1; // 1-BB WQEs (control + raddr + data = 48 B)
        }
    }

    /**
     * The payload writer lends a received frame's bytes to the TLPs of its DMA writes, which read them only when host
     * memory takes them; the frame buffer goes back to the sender as soon as the last TLP has left, long before that
     * when host writes take 10 us. Buffers reused for new frames while earlier TLPs still read their old bytes must
     * leave those bytes alone: every WRITE, of sizes from one byte to many packets, lands byte for byte, and spare
     * byte arrays were needed (the case happened).
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void writesLandWhileTheirFrameBuffersAreReusedBeforeHostMemoryTakesThem(long seed) {
        Simulator sim = new Simulator(seed);
        Profile slow = Profile.defaults().withOverrides(List.of("pcie.hostWriteLatency=10us"));
        TestHost[] p = TestHost.pair(sim, slow, 4 << 20, ALL);
        SplittableRandom rnd = new SplittableRandom(seed);
        int n = 60;
        int[] lens = new int[n];
        for (int i = 0; i < n; i++) {
            lens[i] = rnd.nextInt(4) == 0 ? 1 + rnd.nextInt(60_000) : 1 + rnd.nextInt(3000);
            p[0].mem.write(p[0].buf + i * 65536L, pattern(seed * 1000 + i, lens[i]), 0, lens[i]);
            p[0].post(WqeOpcode.RDMA_WRITE, p[1].buf + i * 65536L, p[1].key, p[0].buf + i * 65536L, lens[i], false,
                    true);
        }
        sim.runUntil(20_000_000_000L);
        assertThat(drain(p[0])).hasSize(n);
        for (int i = 0; i < n; i++) {
            assertThat(p[1].mem.equalsRange(p[1].buf + i * 65536L, pattern(seed * 1000 + i, lens[i]), 0, lens[i]))
                    .as("WRITE %d of %d B", i, lens[i]).isTrue();
        }
        assertThat(TestHost.lastLink.a().extraByteArrays()).isPositive();
    }

    /**
     * Transmit slots stay occupied until their frame starts on the wire and are freed lazily: untraced, a release
     * event exists only while the pump waits for a slot; traced, one runs at every release. With one to three slots
     * the pump waits often. Multi-packet writes of random sizes must land byte for byte and complete in order, never
     * hold more slots than exist, and every request's lifecycle must be the same picosecond for picosecond whether
     * or not the waveform is traced.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3})
    void writesLandWithFewTransmitSlotsTracedOrNot(int txSlots) {
        List<String> untraced = fewSlotsRun(txSlots, false);
        List<String> traced = fewSlotsRun(txSlots, true);
        assertThat(untraced).hasSize(30).isEqualTo(traced);
    }

    private static List<String> fewSlotsRun(int txSlots, boolean traced) {
        Simulator sim = new Simulator(1);
        if (traced) {
            sim.attachWave(new dev.rdmasim.kernel.wave.VcdWriter(java.io.Writer.nullWriter(), sim,
                    dev.rdmasim.kernel.wave.SignalFilter.ALL));
        }
        TestHost[] p = TestHost.pair(sim, Profile.defaults().with(dev.rdmasim.adapter.config.Parameters.NIC_TX_SLOTS,
                (long) txSlots), 1 << 20, ALL);
        List<String> lifecycles = new ArrayList<>();
        p[0].nic.addLifecycleListener((nic, qpn, wqe, op, bytes, syndrome, stamps) ->
                lifecycles.add(wqe + " " + syndrome + " " + java.util.Arrays.toString(stamps)));
        SplittableRandom rnd = new SplittableRandom(txSlots);
        int n = 30;
        byte[][] sent = new byte[n][];
        for (int i = 0; i < n; i++) {
            int len = 1 + rnd.nextInt(9000);
            sent[i] = pattern(100 + i, len);
            p[0].mem.write(p[0].buf + i * 16384L, sent[i], 0, len);
            p[0].post(WqeOpcode.RDMA_WRITE, p[1].buf + i * 16384L, p[1].key, p[0].buf + i * 16384L, len, false, true);
        }
        sim.runUntil(5_000_000_000L);
        List<byte[]> cqes = drain(p[0]);
        assertThat(cqes).hasSize(n);
        for (int i = 0; i < n; i++) {
            assertThat(Cqe.syndrome(cqes.get(i), 0)).isZero();
            assertThat(Cqe.wqeCounter(cqes.get(i), 0)).isEqualTo(i);
            assertThat(p[1].mem.equalsRange(p[1].buf + i * 16384L, sent[i], 0, sent[i].length)).isTrue();
            // Nothing beyond the message was written.
            long rest = 16384 - sent[i].length;
            assertThat(p[1].mem.digest(p[1].buf + i * 16384L + sent[i].length, rest))
                    .isEqualTo(new dev.rdmasim.adapter.host.HostMemory("zero").digest(0, rest));
        }
        dev.rdmasim.kernel.stats.StatsGroup tx = sim.stats().groups().stream()
                .filter(g -> g.path().equals("nicA.tx")).findFirst().orElseThrow();
        tx.refresh();
        long maxSlots = tx.stats().stream().filter(st -> st instanceof dev.rdmasim.kernel.stats.TimeAverage)
                .map(st -> (dev.rdmasim.kernel.stats.TimeAverage) st)
                .filter(st -> st.fullName().endsWith("slotsInUse")).findFirst().orElseThrow().max();
        assertThat(maxSlots).isEqualTo(txSlots);
        return lifecycles;
    }

    @Test
    void badRemoteKeyIsARemoteAccessErrorAndLeavesTheTargetUnchanged() {
        Simulator sim = new Simulator(1);
        TestHost[] p = TestHost.pair(sim, Profile.defaults(), 1 << 20, ALL);
        p[0].mem.write(p[0].buf, pattern(2, 512), 0, 512);
        long before = p[1].mem.digest(p[1].buf, p[1].bufSize);
        p[0].post(WqeOpcode.RDMA_WRITE, p[1].buf, p[1].key ^ 0x100, p[0].buf, 512, false, true);
        p[0].post(WqeOpcode.RDMA_WRITE, p[1].buf, p[1].key, p[0].buf, 512, false, true);
        sim.runUntil(1_000_000_000L);
        List<byte[]> cqes = drain(p[0]);
        assertThat(cqes).hasSize(2);
        assertThat(Cqe.opcode(cqes.get(0), 0)).isEqualTo(Cqe.REQ_ERR);
        assertThat(Cqe.syndrome(cqes.get(0), 0)).isEqualTo(CqeSyndrome.REMOTE_ACCESS);
        assertThat(Cqe.syndrome(cqes.get(1), 0)).isEqualTo(CqeSyndrome.WR_FLUSH);
        assertThat(p[1].mem.digest(p[1].buf, p[1].bufSize)).isEqualTo(before);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void retransmissionUnderFrameLossLosesAndDuplicatesNothing(long seed) {
        Simulator sim = new Simulator(seed);
        // A lost last ACK is only recovered by the timer: use a short one so the run stays short.
        TestHost[] p = TestHost.pair(sim, Profile.defaults().with("transport.ackTimeout", "100us"), 1 << 20, ALL);
        TestHost.lastLink.aToB().setFaults(0.01, 0.0);
        TestHost.lastLink.bToA().setFaults(0.01, 0.0);
        int n = 60;
        SplittableRandom rnd = new SplittableRandom(seed);
        int[] lens = new int[n];
        for (int i = 0; i < n; i++) {
            lens[i] = 1 + rnd.nextInt(8000);
            p[0].mem.write(p[0].buf + i * 8192L, pattern(seed * 1000 + i, lens[i]), 0, lens[i]);
            p[0].post(WqeOpcode.RDMA_WRITE, p[1].buf + i * 8192L, p[1].key, p[0].buf + i * 8192L, lens[i], false, true);
        }
        sim.runUntil(20_000_000_000L);
        List<byte[]> cqes = drain(p[0]);
        assertThat(cqes).hasSize(n);
        for (int i = 0; i < n; i++) {
            assertThat(Cqe.opcode(cqes.get(i), 0)).as("CQE %d", i).isEqualTo(Cqe.REQ);
            assertThat(p[1].mem.equalsRange(p[1].buf + i * 8192L, pattern(seed * 1000 + i, lens[i]), 0, lens[i])).isTrue();
        }
        long drops = TestHost.lastLink.aToB().framesDropped() + TestHost.lastLink.bToA().framesDropped();
        assertThat(drops).as("the test must actually lose frames").isPositive();
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 1024, 1025, 4096 * 3 + 7, 1 << 20})
    void sendsOfAnySizeLandInTheReceiveBuffer(int len) {
        Simulator sim = new Simulator(1);
        TestHost[] p = TestHost.pair(sim, Profile.defaults(), 4 << 20, ALL);
        byte[] data = pattern(len + 7, len);
        p[0].mem.write(p[0].buf, data, 0, len);
        p[1].postRecv(p[1].buf + (2 << 20), (1 << 20) + 64);
        p[0].post(WqeOpcode.SEND, -1, 0, p[0].buf, len, false, true);
        sim.runUntil(2_000_000_000L);
        List<byte[]> rsp = drain(p[1]);
        assertThat(drain(p[0])).hasSize(1);
        assertThat(rsp).hasSize(1);
        assertThat(Cqe.opcode(rsp.get(0), 0)).isEqualTo(Cqe.RESP_SEND);
        assertThat(Cqe.byteCount(rsp.get(0), 0)).isEqualTo(len);
        assertThat(p[1].mem.equalsRange(p[1].buf + (2 << 20), data, 0, len)).isTrue();
        assertThat(p[1].mem.equalsRange(p[1].buf + (2 << 20) + len, new byte[64], 0, 64)).isTrue();
    }

    @Test
    void writeBeyondTheRegionIsARemoteAccessErrorAndChangesNothing() {
        Simulator sim = new Simulator(1);
        TestHost[] p = TestHost.pair(sim, Profile.defaults(), 1 << 20, ALL);
        p[0].mem.write(p[0].buf, pattern(4, 4096), 0, 4096);
        long before = p[1].mem.digest(p[1].buf - 8192, p[1].bufSize + 16384);
        // Starts inside the region, ends 1 byte past it.
        p[0].post(WqeOpcode.RDMA_WRITE, p[1].buf + p[1].bufSize - 4095, p[1].key, p[0].buf, 4096, false, true);
        sim.runUntil(1_000_000_000L);
        List<byte[]> cqes = drain(p[0]);
        assertThat(cqes).hasSize(1);
        assertThat(Cqe.syndrome(cqes.get(0), 0)).isEqualTo(CqeSyndrome.REMOTE_ACCESS);
        assertThat(p[1].mem.digest(p[1].buf - 8192, p[1].bufSize + 16384)).isEqualTo(before);
        assertThat(p[0].nic.qpState(TestHost.QPN)).isEqualTo(QpState.ERROR);
        // Requests posted to a QP in error complete at once, flushed, and send nothing.
        long frames = TestHost.lastLink.aToB().framesSent();
        p[0].post(WqeOpcode.RDMA_WRITE, p[1].buf, p[1].key, p[0].buf, 16, false, false);
        sim.runUntil(sim.now() + 100_000_000L);
        List<byte[]> flushed = drain(p[0]);
        assertThat(flushed).hasSize(1);
        assertThat(Cqe.syndrome(flushed.get(0), 0)).isEqualTo(CqeSyndrome.WR_FLUSH);
        assertThat(TestHost.lastLink.aToB().framesSent()).isEqualTo(frames);
    }

    @Test
    void modifyQpFollowsTheStateMachine() {
        Simulator sim = new Simulator(1);
        TestHost[] p = TestHost.pair(sim, Profile.defaults(), 1 << 20, ALL);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> p[0].nic.modifyQp(TestHost.QPN, QpState.INIT))
                .hasMessageContaining("cannot move from READY_TO_SEND to INIT");
        p[0].nic.modifyQp(TestHost.QPN, QpState.ERROR);
        assertThat(p[0].nic.qpState(TestHost.QPN)).isEqualTo(QpState.ERROR);
    }

    @Test
    void writeToAReadOnlyRegionIsARemoteAccessError() {
        Simulator sim = new Simulator(1);
        TestHost[] p = TestHost.pair(sim, Profile.defaults(), 1 << 20, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ);
        p[0].mem.write(p[0].buf, pattern(4, 100), 0, 100);
        long before = p[1].mem.digest(p[1].buf, p[1].bufSize);
        p[0].post(WqeOpcode.RDMA_WRITE, p[1].buf, p[1].key, p[0].buf, 100, false, true);
        sim.runUntil(1_000_000_000L);
        List<byte[]> cqes = drain(p[0]);
        assertThat(cqes).hasSize(1);
        assertThat(Cqe.syndrome(cqes.get(0), 0)).isEqualTo(CqeSyndrome.REMOTE_ACCESS);
        assertThat(p[1].mem.digest(p[1].buf, p[1].bufSize)).isEqualTo(before);
    }

    @Test
    void sendLargerThanTheReceiveBufferFailsBothSides() {
        Simulator sim = new Simulator(1);
        TestHost[] p = TestHost.pair(sim, Profile.defaults(), 1 << 20, ALL);
        p[1].postRecv(p[1].buf, 100);
        p[0].post(WqeOpcode.SEND, -1, 0, p[0].buf, 2000, false, true);
        sim.runUntil(1_000_000_000L);
        List<byte[]> req = drain(p[0]);
        List<byte[]> rsp = drain(p[1]);
        assertThat(req).hasSize(1);
        assertThat(Cqe.syndrome(req.get(0), 0)).isEqualTo(CqeSyndrome.REMOTE_INVAL_REQ);
        assertThat(rsp).hasSize(1);
        assertThat(Cqe.opcode(rsp.get(0), 0)).isEqualTo(Cqe.RESP_ERR);
        assertThat(Cqe.syndrome(rsp.get(0), 0)).isEqualTo(CqeSyndrome.LOCAL_LENGTH);
    }

    @Test
    void responderErrorFlushesEveryPostedReceive() {
        Simulator sim = new Simulator(1);
        TestHost[] p = TestHost.pair(sim, Profile.defaults(), 1 << 20, ALL);
        for (int i = 0; i < 4; i++) {
            p[1].postRecv(p[1].buf + i * 1024L, 100);
        }
        p[0].post(WqeOpcode.SEND, -1, 0, p[0].buf, 2000, false, true);
        sim.runUntil(1_000_000_000L);
        List<byte[]> rsp = drain(p[1]);
        assertThat(rsp).hasSize(4);
        assertThat(Cqe.syndrome(rsp.get(0), 0)).isEqualTo(CqeSyndrome.LOCAL_LENGTH);
        for (int i = 1; i < 4; i++) {
            assertThat(Cqe.syndrome(rsp.get(i), 0)).isEqualTo(CqeSyndrome.WR_FLUSH);
            assertThat(Cqe.wqeCounter(rsp.get(i), 0)).isEqualTo(i);
        }
    }

    @Test
    void sendWithoutAReceiveIsRetriedAfterRnrAndSucceedsOnceOneIsPosted() {
        Simulator sim = new Simulator(1);
        TestHost[] p = TestHost.pair(sim, Profile.defaults(), 1 << 20, ALL);
        byte[] data = pattern(8, 256);
        p[0].mem.write(p[0].buf, data, 0, 256);
        p[0].post(WqeOpcode.SEND, -1, 0, p[0].buf, 256, false, true);
        sim.runUntil(20_000_000L);
        assertThat(drain(p[0])).isEmpty();
        p[1].postRecv(p[1].buf, 256);
        sim.runUntil(sim.now() + 2_000_000_000L);
        List<byte[]> req = drain(p[0]);
        assertThat(req).hasSize(1);
        assertThat(Cqe.opcode(req.get(0), 0)).isEqualTo(Cqe.REQ);
        assertThat(p[1].mem.equalsRange(p[1].buf, data, 0, 256)).isTrue();
        assertThat(sim.stats().toText()).containsPattern("nicB\\.rx\\.rnrNaks\\s+[1-9]");
    }

    @Test
    void cqOverflowIsDetectedAndReported() {
        Simulator sim = new Simulator(1);
        TestHost[] p = TestHost.pair(sim, Profile.defaults(), 1 << 20, ALL);
        int entries = 1 << TestHost.LOG_CQ;
        for (int i = 0; i < entries + 4; i++) {
            p[0].post(WqeOpcode.RDMA_WRITE, p[1].buf, p[1].key, p[0].buf, 8, true, true);
            sim.runUntil(sim.now() + 20_000_000L);
        }
        // Nobody polled: the ring filled and the next CQE overflowed it.
        assertThat(p[0].nic.qpState(TestHost.QPN)).isEqualTo(QpState.ERROR);
        assertThat(sim.stats().toText()).containsPattern("nicA\\.cqe\\.overflows\\s+[1-9]");
        assertThat(drain(p[0])).hasSize(entries);
    }

    @Test
    void armedCqRaisesOneInterruptPerArmWithModeration() {
        Simulator sim = new Simulator(1);
        TestHost[] p = TestHost.pair(sim, Profile.defaults(), 1 << 20, ALL);
        List<Long> irqs = new ArrayList<>();
        p[0].nic.host().setInterruptHandler((vector, data) -> irqs.add(sim.now()));
        p[0].nic.moderateCq(1, 4, 50_000_000L);
        arm(p[0], sim);
        for (int i = 0; i < 3; i++) {
            p[0].post(WqeOpcode.RDMA_WRITE, p[1].buf, p[1].key, p[0].buf, 8, true, true);
        }
        sim.runUntil(10_000_000L);
        assertThat(drain(p[0])).hasSize(3);
        assertThat(irqs).as("3 CQEs < count 4: held until the period").isEmpty();
        sim.runUntil(100_000_000L);
        assertThat(irqs).hasSize(1);
        // Without a new arm, more CQEs raise nothing.
        p[0].post(WqeOpcode.RDMA_WRITE, p[1].buf, p[1].key, p[0].buf, 8, true, true);
        sim.runUntil(200_000_000L);
        assertThat(irqs).hasSize(1);
    }

    private static void arm(TestHost h, Simulator sim) {
        int word = dev.rdmasim.adapter.format.Doorbells.armWord(0, dev.rdmasim.adapter.format.Doorbells.ARM_CMD_ANY, (int) h.cqCi);
        byte[] v = new byte[8];
        dev.rdmasim.adapter.format.BigEndian.putI64(v, 0, dev.rdmasim.adapter.format.Doorbells.cqArmDoorbell(word, 1));
        assertThat(h.nic.host().mmioWrite(Doorbells.cqArmOffset(TestHost.QPN), v, 0, 8)).isTrue();
    }

    @Test
    void lifecycleStampsAreInPipelineOrder() {
        Simulator sim = new Simulator(1);
        TestHost[] p = TestHost.pair(sim, Profile.defaults(), 1 << 20, ALL);
        List<long[]> seen = new ArrayList<>();
        p[0].nic.addLifecycleListener((n, qpn, idx, op, bytes, syn, stamps) -> seen.add(stamps.clone()));
        p[0].post(WqeOpcode.RDMA_WRITE, p[1].buf, p[1].key, p[0].buf, 5000, false, true);
        sim.runUntil(1_000_000_000L);
        assertThat(seen).hasSize(1);
        long[] s = seen.get(0);
        Stage[] order = {Stage.DOORBELL, Stage.WQE_FETCHED, Stage.PAYLOAD_READ, Stage.FIRST_PACKET, Stage.LAST_PACKET,
            Stage.REMOTE_PLACED, Stage.ACKED, Stage.CQE_WRITTEN};
        for (int i = 0; i < order.length; i++) {
            assertThat(s[order[i].ordinal()]).as(order[i].name()).isPositive();
            if (i > 0) {
                assertThat(s[order[i].ordinal()]).as(order[i] + " after " + order[i - 1])
                        .isGreaterThanOrEqualTo(s[order[i - 1].ordinal()]);
            }
        }
    }

    @Test
    void armingACqThatAlreadyHoldsUnconsumedCqesFiresAtOnce() {
        Simulator sim = new Simulator(1);
        TestHost[] p = TestHost.pair(sim, Profile.defaults(), 1 << 20, ALL);
        List<Long> irqs = new ArrayList<>();
        p[0].nic.host().setInterruptHandler((vector, data) -> irqs.add(sim.now()));
        p[0].post(WqeOpcode.RDMA_WRITE, p[1].buf, p[1].key, p[0].buf, 8, true, true);
        sim.runUntil(10_000_000L);
        assertThat(irqs).isEmpty();
        arm(p[0], sim); // consumer index 0, one CQE waiting
        sim.runUntil(20_000_000L);
        assertThat(irqs).hasSize(1);
        assertThat(drain(p[0])).hasSize(1);
        // Consumed: arming again waits for the next CQE.
        arm(p[0], sim);
        sim.runUntil(30_000_000L);
        assertThat(irqs).hasSize(1);
        p[0].post(WqeOpcode.RDMA_WRITE, p[1].buf, p[1].key, p[0].buf, 8, true, true);
        sim.runUntil(40_000_000L);
        assertThat(irqs).hasSize(2);
    }

    @Test
    void readIntoMemoryOutsideTheLocalRegionIsALocalProtectionError() {
        Simulator sim = new Simulator(1);
        TestHost[] p = TestHost.pair(sim, Profile.defaults(), 1 << 20, ALL);
        long before = p[0].mem.digest(p[0].buf + p[0].bufSize - 64, 8192);
        p[0].post(WqeOpcode.RDMA_READ, p[1].buf, p[1].key, p[0].buf + p[0].bufSize - 64, 4096, false, true);
        sim.runUntil(1_000_000_000L);
        List<byte[]> cqes = drain(p[0]);
        assertThat(cqes).hasSize(1);
        assertThat(Cqe.opcode(cqes.get(0), 0)).isEqualTo(Cqe.REQ_ERR);
        assertThat(Cqe.syndrome(cqes.get(0), 0)).isEqualTo(CqeSyndrome.LOCAL_PROT);
        assertThat(p[0].mem.digest(p[0].buf + p[0].bufSize - 64, 8192)).isEqualTo(before);
    }

    @Test
    void sourceOutsideTheLocalRegionIsALocalProtectionErrorAndSendsNothing() {
        Simulator sim = new Simulator(1);
        TestHost[] p = TestHost.pair(sim, Profile.defaults(), 1 << 20, ALL);
        long before = p[1].mem.digest(p[1].buf, p[1].bufSize);
        p[0].post(WqeOpcode.RDMA_WRITE, p[1].buf, p[1].key, p[0].buf + p[0].bufSize - 10, 100, false, true);
        sim.runUntil(1_000_000_000L);
        List<byte[]> cqes = drain(p[0]);
        assertThat(cqes).hasSize(1);
        assertThat(Cqe.syndrome(cqes.get(0), 0)).isEqualTo(CqeSyndrome.LOCAL_PROT);
        assertThat(TestHost.lastLink.aToB().framesSent()).isZero();
        assertThat(p[1].mem.digest(p[1].buf, p[1].bufSize)).isEqualTo(before);
    }

    @Test
    void aDeadLinkExhaustsTheRetriesAndFailsTheRequest() {
        Simulator sim = new Simulator(1);
        Profile profile = Profile.defaults().withOverrides(List.of("transport.ackTimeout=10us", "transport.retryCount=3"));
        TestHost[] p = TestHost.pair(sim, profile, 1 << 20, ALL);
        TestHost.lastLink.aToB().setFaults(1.0, 0.0);
        p[0].post(WqeOpcode.RDMA_WRITE, p[1].buf, p[1].key, p[0].buf, 100, false, true);
        p[0].post(WqeOpcode.RDMA_WRITE, p[1].buf, p[1].key, p[0].buf, 100, false, true);
        sim.runUntil(1_000_000_000L);
        List<byte[]> cqes = drain(p[0]);
        assertThat(cqes).hasSize(2);
        assertThat(Cqe.syndrome(cqes.get(0), 0)).isEqualTo(CqeSyndrome.TRANSPORT_RETRY_EXC);
        assertThat(Cqe.syndrome(cqes.get(1), 0)).isEqualTo(CqeSyndrome.WR_FLUSH);
        // The first send plus three retries.
        assertThat(TestHost.lastLink.aToB().framesSent()).isEqualTo(4 * 2);
        assertThat(sim.stats().toText()).containsPattern("nicA\\.req\\.timeouts\\s+4");
    }

    @Test
    void loopbackCarriesAWriteBetweenTwoQpsOfOneAdapter() {
        Simulator sim = new Simulator(1);
        TestHost h = new TestHost(sim, "nicA", Profile.defaults(), 0, 1 << 20, ALL);
        dev.rdmasim.adapter.wire.EthernetLink loop = dev.rdmasim.adapter.wire.EthernetLink.loopback(sim, "loop",
                new dev.rdmasim.adapter.wire.EthernetLink.Config(100, 0, 64));
        h.nic.attach(loop.a());
        long ring = h.mem.allocate(64L << 6, 4096);
        long rec = h.mem.allocate(8, 64);
        h.nic.createQp(TestHost.QPN + 1, new QpConfig(TestHost.PD, 1, 1, ring, 6, h.rqBase, TestHost.LOG_RQ, 0, rec, 4, 1, 220, ALL));
        h.nic.connectQp(TestHost.QPN, TestHost.QPN + 1, h.nic.mac(), h.nic.ip(), 10, 900);
        h.nic.connectQp(TestHost.QPN + 1, TestHost.QPN, h.nic.mac(), h.nic.ip(), 900, 10);
        byte[] data = pattern(42, 3000);
        h.mem.write(h.buf, data, 0, data.length);
        h.post(WqeOpcode.RDMA_WRITE, h.buf + 65536, h.key, h.buf, data.length, false, true);
        sim.runUntil(1_000_000_000L);
        List<byte[]> cqes = drain(h);
        assertThat(cqes).hasSize(1);
        assertThat(Cqe.opcode(cqes.get(0), 0)).isEqualTo(Cqe.REQ);
        assertThat(h.mem.equalsRange(h.buf + 65536, data, 0, data.length)).isTrue();
        assertThat(loop.aToB().framesSent()).isGreaterThanOrEqualTo(2); // the data and its ACK
    }

    @Test
    void outstandingReadsAreLimitedByTheOrd() {
        Simulator sim = new Simulator(1);
        TestHost[] p = TestHost.pair(sim, Profile.defaults().with("transport.maxOutboundReads", "2"), 1 << 20, ALL);
        for (int i = 0; i < 8; i++) {
            p[1].mem.write(p[1].buf + i * 4096L, pattern(100 + i, 4096), 0, 4096);
            p[0].post(WqeOpcode.RDMA_READ, p[1].buf + i * 4096L, p[1].key, p[0].buf + i * 4096L, 4096, false, true);
        }
        int maxSeen = 0;
        Qp qp = p[0].nic.qp(TestHost.QPN);
        while (sim.now() < 1_000_000_000L && sim.step()) {
            int n = 0;
            for (int i = 0; i < qp.req.sent(); i++) {
                Wr w = qp.req.wr(i);
                if (w.opcode == WqeOpcode.RDMA_READ && w.responses < w.packets) {
                    n++;
                }
            }
            maxSeen = Math.max(maxSeen, n);
        }
        assertThat(maxSeen).isEqualTo(2);
        assertThat(drain(p[0])).hasSize(8);
        for (int i = 0; i < 8; i++) {
            assertThat(p[0].mem.equalsRange(p[0].buf + i * 4096L, pattern(100 + i, 4096), 0, 4096)).isTrue();
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 4})
    void theResponderAnswersAtMostItsIrdReadsAtOnce(int ird) {
        Simulator sim = new Simulator(1);
        Profile profile = Profile.defaults().withOverrides(List.of("transport.maxInboundReads=" + ird, "transport.maxOutboundReads=8"));
        TestHost[] p = TestHost.pair(sim, profile, 1 << 20, ALL);
        for (int i = 0; i < 8; i++) {
            p[1].mem.write(p[1].buf + i * 8192L, pattern(200 + i, 5000), 0, 5000);
            p[0].post(WqeOpcode.RDMA_READ, p[1].buf + i * 8192L, p[1].key, p[0].buf + i * 8192L, 5000, false, true);
        }
        Qp responder = p[1].nic.qp(TestHost.QPN);
        int maxSeen = 0;
        while (sim.now() < 1_000_000_000L && sim.step()) {
            maxSeen = Math.max(maxSeen, responder.resp.reads());
        }
        assertThat(maxSeen).isEqualTo(ird);
        List<byte[]> cqes = drain(p[0]);
        assertThat(cqes).hasSize(8);
        assertThat(cqes).allSatisfy(c -> assertThat(Cqe.opcode(c, 0)).isEqualTo(Cqe.REQ));
        for (int i = 0; i < 8; i++) {
            assertThat(p[0].mem.equalsRange(p[0].buf + i * 8192L, pattern(200 + i, 5000), 0, 5000)).isTrue();
        }
    }
}
