package dev.rdmasim.adapter.nic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.format.AccessFlags;
import dev.rdmasim.adapter.format.Cqe;
import dev.rdmasim.adapter.format.WqeOpcode;
import dev.rdmasim.kernel.Simulator;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Seeded random mixes of WRITE, inline WRITE, SEND and READ of random sizes through an adapter pair
 * squeezed everywhere (tiny DMA queues, few read tags, small WQE cache and inline buffer, frame
 * loss), checked by a scoreboard: every byte at its destination, every request completed once,
 * in posting order, successfully.
 */
class RandomTrafficTest {
    static final int ALL = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;

    @ParameterizedTest
    @ValueSource(longs = {11, 12, 13, 14})
    void everyRequestCompletesInOrderWithItsBytesInPlace(long seed) {
        Profile squeezed = Profile.defaults().withOverrides(List.of(
                "nic.dmaReadQueue=2", "nic.dmaWriteQueue=2", "pcie.readTags=4", "nic.wqeCacheEntries=16",
                "nic.inlineBufferBytes=512", "nic.wqePrefetchDepth=2", "link.mtu=1024", "transport.ackTimeout=200us"));
        Simulator sim = new Simulator(seed);
        TestHost[] p = TestHost.pair(sim, squeezed, 4 << 20, ALL);
        TestHost a = p[0];
        TestHost b = p[1];
        TestHost.lastLink.aToB().setFaults(0.005, 0.005);
        TestHost.lastLink.bToA().setFaults(0.005, 0.005);
        SplittableRandom rnd = new SplittableRandom(seed);
        int n = 120;
        int[] op = new int[n];
        long[] src = new long[n];
        long[] dst = new long[n];
        byte[][] data = new byte[n][];
        int sends = 0;
        for (int i = 0; i < n; i++) {
            int kind = rnd.nextInt(4);
            int len = kind == 1 ? rnd.nextInt(200) : rnd.nextInt(6000);
            data[i] = new byte[len];
            rnd.nextBytes(data[i]);
            long slot = i * 8192L;
            switch (kind) {
                case 0, 1 -> { // WRITE a -> b (1 = inline)
                    a.mem.write(a.buf + slot, data[i], 0, len);
                    src[i] = a.buf + slot;
                    dst[i] = b.buf + slot;
                    op[i] = kind == 1 ? -WqeOpcode.RDMA_WRITE : WqeOpcode.RDMA_WRITE;
                }
                case 2 -> { // SEND a -> b into the next receive
                    a.mem.write(a.buf + slot, data[i], 0, len);
                    src[i] = a.buf + slot;
                    dst[i] = b.buf + (2 << 20) + sends * 8192L;
                    b.postRecv(dst[i], 8192);
                    sends++;
                    op[i] = WqeOpcode.SEND;
                }
                default -> { // READ b -> a
                    b.mem.write(b.buf + slot, data[i], 0, len);
                    src[i] = b.buf + slot;
                    dst[i] = a.buf + (2 << 20) + slot;
                    op[i] = WqeOpcode.RDMA_READ;
                }
            }
        }
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            boolean inline = op[i] < 0;
            int opcode = Math.abs(op[i]);
            switch (opcode) {
                case WqeOpcode.RDMA_WRITE -> a.post(opcode, dst[i], b.key, src[i], data[i].length, inline, true);
                case WqeOpcode.SEND -> a.post(opcode, -1, 0, src[i], data[i].length, false, true);
                default -> a.post(opcode, src[i], b.key, dst[i], data[i].length, false, true);
            }
            order.add(i);
            if (rnd.nextInt(8) == 0) {
                sim.runUntil(sim.now() + rnd.nextInt(2_000_000));
            }
        }
        sim.runUntil(sim.now() + 50_000_000_000L);
        List<byte[]> cqes = new ArrayList<>();
        for (byte[] c = a.poll(); c != null; c = a.poll()) {
            cqes.add(c);
        }
        assertThat(cqes).as("requester CQEs; %s; peer %s; now %d", a.nic.describeQp(TestHost.QPN), b.nic.describeQp(TestHost.QPN), sim.now()).hasSize(n);
        int prev = -1;
        for (byte[] c : cqes) {
            assertThat(Cqe.opcode(c, 0)).as("CQE %s syndrome 0x%x", Cqe.wqeCounter(c, 0), Cqe.syndrome(c, 0)).isEqualTo(Cqe.REQ);
            int counter = Cqe.wqeCounter(c, 0);
            assertThat(counter).isGreaterThan(prev);
            prev = counter;
        }
        long faults = TestHost.lastLink.aToB().framesDropped() + TestHost.lastLink.aToB().framesCorrupted()
                + TestHost.lastLink.bToA().framesDropped() + TestHost.lastLink.bToA().framesCorrupted();
        assertThat(faults).as("the run must actually lose or corrupt frames").isPositive();
        int recvCqes = 0;
        for (byte[] c = b.poll(); c != null; c = b.poll()) {
            assertThat(Cqe.opcode(c, 0)).isEqualTo(Cqe.RESP_SEND);
            recvCqes++;
        }
        assertThat(recvCqes).isEqualTo(sends);
        for (int i = 0; i < n; i++) {
            TestHost at = Math.abs(op[i]) == WqeOpcode.RDMA_READ ? a : b;
            assertThat(at.mem.equalsRange(dst[i], data[i], 0, data[i].length)).as("request %d (%d B)", i, data[i].length).isTrue();
        }
    }
}
