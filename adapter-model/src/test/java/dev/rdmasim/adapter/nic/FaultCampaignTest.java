package dev.rdmasim.adapter.nic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.format.AccessFlags;
import dev.rdmasim.adapter.format.Cqe;
import dev.rdmasim.adapter.format.WqeOpcode;
import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.Simulator;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Seeded fault campaign: mixed SEND, WRITE, inline WRITE, READ and WRITE-then-READ-back of the same
 * range, of sizes from empty to several packets, with up to 16 requests outstanding on one QP, over a
 * link that drops and corrupts 0 to 30 % of the frames each way. Every request must complete
 * successfully, once, in posting order, with every destination byte right; a run that ends with
 * requests outstanding and nothing left to happen fails on the adapter's invariant. At MTU 256 B some
 * requests are 32 to 64 KiB: messages of 128 to 256 packets, as long as the PSN window or twice as long.
 */
class FaultCampaignTest {
    static final int ALL = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;
    static final int REQUESTS = 96;
    static final int DEPTH = 16;
    /** A transfer of 128 packets or more at the small MTU: from this many bytes, up to twice as many. */
    static final int LONG = 32 << 10;

    static Stream<Arguments> campaign() {
        double[][] faults = {{0, 0}, {0.1, 0}, {0.3, 0}, {0, 0.1}, {0, 0.3}, {0.15, 0.15}};
        List<Arguments> cases = new ArrayList<>();
        for (double[] f : faults) {
            for (long seed = 1; seed <= 3; seed++) {
                cases.add(Arguments.of(1024, f[0], f[1], seed));
            }
        }
        // A small MTU: long messages span the whole PSN window (transport.maxUnackedPsns, 128), under light and heavy
        // loss; one seed each, as their long messages make these runs the campaign's longest.
        double[][] smallMtuCases = {{0.02, 0, 1}, {0.1, 0, 2}, {0, 0.05, 1}, {0.05, 0.05, 2}};
        for (double[] c : smallMtuCases) {
            cases.add(Arguments.of(256, c[0], c[1], (long) c[2]));
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "mtu {0} drop {1} corrupt {2} seed {3}")
    @MethodSource("campaign")
    void everyRequestCompletesInOrderWithEveryByteRight(int mtu, double drop, double corrupt, long seed) {
        Profile profile = Profile.defaults().withOverrides(List.of("transport.ackTimeout=100us", "link.mtu=" + mtu));
        // Each request has a slot of its own in the source, receive and read-back areas, as large as its largest size.
        boolean longOnes = mtu < 1024;
        long slotSize = longOnes ? 2 * LONG : 16384;
        long recvArea = longOnes ? REQUESTS * slotSize : 2L << 20;
        long readBack = longOnes ? 2 * REQUESTS * slotSize : 4L << 20;
        Simulator sim = new Simulator(seed);
        TestHost[] p = TestHost.pair(sim, profile, longOnes ? 3 * REQUESTS * slotSize : 8L << 20, ALL);
        TestHost a = p[0];
        TestHost b = p[1];
        TestHost.lastLink.aToB().setFaults(drop, corrupt);
        TestHost.lastLink.bToA().setFaults(drop, corrupt);
        SplittableRandom rnd = new SplittableRandom(seed * 7919 + (long) (drop * 1000) * 31 + (long) (corrupt * 1000));

        int[] op = new int[REQUESTS];
        boolean[] inline = new boolean[REQUESTS];
        long[] local = new long[REQUESTS];
        long[] remote = new long[REQUESTS];
        byte[][] data = new byte[REQUESTS][];
        long[] check = new long[REQUESTS];
        boolean[] checkAtA = new boolean[REQUESTS];
        for (int i = 0; i < REQUESTS; i++) {
            long slot = i * slotSize;
            int kind = rnd.nextInt(5);
            if (kind == 4 && i > 0 && op[i - 1] == WqeOpcode.RDMA_WRITE && !inline[i - 1]) {
                // Read back what the previous WRITE put there: the responder must have executed it first.
                op[i] = WqeOpcode.RDMA_READ;
                data[i] = data[i - 1];
                remote[i] = remote[i - 1];
                local[i] = readBack + slot;
                check[i] = a.buf + local[i];
                checkAtA[i] = true;
                continue;
            }
            int len = kind == 1 ? rnd.nextInt(221) : rnd.nextInt(3) == 0 ? rnd.nextInt(1100) : rnd.nextInt(9000);
            if (longOnes && kind != 1 && rnd.nextInt(4) == 0) {
                len = LONG + rnd.nextInt(LONG + 1);
            }
            data[i] = new byte[len];
            rnd.nextBytes(data[i]);
            switch (kind) {
                case 0, 1, 4 -> {
                    op[i] = WqeOpcode.RDMA_WRITE;
                    inline[i] = kind == 1;
                    local[i] = slot;
                    remote[i] = slot;
                    a.mem.write(a.buf + slot, data[i], 0, len);
                    check[i] = b.buf + slot;
                }
                case 2 -> {
                    op[i] = WqeOpcode.SEND;
                    local[i] = slot;
                    a.mem.write(a.buf + slot, data[i], 0, len);
                    check[i] = b.buf + recvArea + slot;
                }
                default -> {
                    op[i] = WqeOpcode.RDMA_READ;
                    remote[i] = slot;
                    local[i] = readBack + slot;
                    b.mem.write(b.buf + slot, data[i], 0, len);
                    check[i] = a.buf + local[i];
                    checkAtA[i] = true;
                }
            }
        }

        List<byte[]> cqes = new ArrayList<>();
        int sends = 0;
        int recvCqes = 0;
        int posted = 0;
        while (cqes.size() < REQUESTS) {
            while (posted < REQUESTS && posted - cqes.size() < DEPTH) {
                int i = posted++;
                int len = data[i].length;
                switch (op[i]) {
                    case WqeOpcode.SEND -> {
                        b.postRecv(b.buf + recvArea + local[i], (int) slotSize);
                        sends++;
                        a.post(WqeOpcode.SEND, -1, 0, a.buf + local[i], len, false, true);
                    }
                    case WqeOpcode.RDMA_WRITE -> a.post(WqeOpcode.RDMA_WRITE, b.buf + remote[i], b.key, a.buf + local[i], len,
                            inline[i], true);
                    default -> a.post(WqeOpcode.RDMA_READ, b.buf + remote[i], b.key, a.buf + local[i], len, false, true);
                }
            }
            sim.run(500);
            for (byte[] c = a.poll(); c != null; c = a.poll()) {
                cqes.add(c);
            }
            for (byte[] c = b.poll(); c != null; c = b.poll()) {
                assertThat(Cqe.opcode(c, 0)).as("receive CQE syndrome 0x%x", Cqe.syndrome(c, 0)).isEqualTo(Cqe.RESP_SEND);
                recvCqes++;
            }
            boolean canPost = posted < REQUESTS && posted - cqes.size() < DEPTH;
            if (sim.pendingEvents() == 0 && !canPost) {
                // Nothing left to happen: every request must have completed, or the adapter names the stuck QP.
                a.nic.checkNothingOutstanding();
                b.nic.checkNothingOutstanding();
                assertThat(cqes).as("completions once the simulation ran out of events").hasSize(REQUESTS);
            }
        }
        int prev = -1;
        for (byte[] c : cqes) {
            assertThat(Cqe.opcode(c, 0)).as("CQE %d syndrome 0x%x", Cqe.wqeCounter(c, 0), Cqe.syndrome(c, 0)).isEqualTo(Cqe.REQ);
            assertThat(Cqe.wqeCounter(c, 0)).isGreaterThan(prev);
            prev = Cqe.wqeCounter(c, 0);
        }
        assertThat(recvCqes).isEqualTo(sends);
        for (int i = 0; i < REQUESTS; i++) {
            TestHost at = checkAtA[i] ? a : b;
            assertThat(at.mem.equalsRange(check[i], data[i], 0, data[i].length)).as("request %d (op %d, %d B)", i, op[i],
                    data[i].length).isTrue();
        }
        long dropped = TestHost.lastLink.aToB().framesDropped() + TestHost.lastLink.bToA().framesDropped();
        long corrupted = TestHost.lastLink.aToB().framesCorrupted() + TestHost.lastLink.bToA().framesCorrupted();
        assertThat(dropped > 0).as("frames dropped").isEqualTo(drop > 0);
        assertThat(corrupted > 0).as("frames corrupted").isEqualTo(corrupt > 0);
        // A corrupted frame fails its ICRC check and is discarded: it is resent like a lost one.
        long discarded = counter(sim, "nicA.rx", "dropped") + counter(sim, "nicB.rx", "dropped");
        assertThat(discarded).as("frames discarded by the receivers").isGreaterThanOrEqualTo(corrupted);
        assertThat(counter(sim, "nicA.req", "rewinds") > 0).as("go-back-N rewinds").isEqualTo(drop + corrupt > 0);
    }

    @Test
    void aQpHoldingRequestsIsNamedWhenNothingIsLeftToHappen() {
        Simulator sim = new Simulator(1);
        TestHost[] p = TestHost.pair(sim, Profile.defaults(), 1 << 20, ALL);
        p[0].post(WqeOpcode.RDMA_WRITE, p[1].buf, p[1].key, p[0].buf, 3000, false, true);
        // 500 ns: past the doorbell's way to the adapter (MMIO path and PCIe), before the payload read returns.
        sim.runUntil(sim.now() + 500_000);
        // The WRITE is announced and on its way: a caller that found no event left now would have a stuck QP.
        assertThatThrownBy(() -> p[0].nic.checkNothingOutstanding()).isInstanceOf(InvariantViolation.class)
                .hasMessageContaining("QP " + TestHost.QPN + " READY_TO_SEND");
        sim.run();
        assertThat(p[0].poll()).isNotNull();
        p[0].nic.checkNothingOutstanding();
        p[1].nic.checkNothingOutstanding();
    }

    private static long counter(Simulator sim, String group, String name) {
        dev.rdmasim.kernel.stats.StatsGroup g = sim.stats().groups().stream().filter(x -> x.path().equals(group))
                .findFirst().orElseThrow();
        g.refresh();
        return g.stats().stream().filter(st -> st instanceof dev.rdmasim.kernel.stats.Counter && st.name().equals(name))
                .map(st -> ((dev.rdmasim.kernel.stats.Counter) st).value()).findFirst().orElseThrow();
    }
}
