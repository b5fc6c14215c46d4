package dev.rdmasim.adapter.nic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.format.AccessFlags;
import dev.rdmasim.adapter.format.ControlSegment;
import dev.rdmasim.adapter.format.Cqe;
import dev.rdmasim.adapter.format.Doorbells;
import dev.rdmasim.adapter.format.SendWqeBuilder;
import dev.rdmasim.adapter.format.WqeOpcode;
import dev.rdmasim.kernel.Simulator;
import org.junit.jupiter.api.Test;

/**
 * The connection-scalability effect: once the active QPs outnumber the QP-context cache, every
 * request misses, each miss is a DMA read of context memory, and the message rate falls.
 */
class QpScalingTest {
    static final int ALL = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;

    /** Messages per simulated microsecond with {@code qps} QPs each keeping one 64 B write in flight. */
    private static double rate(int qps) {
        Simulator sim = new Simulator(1);
        Profile profile = Profile.defaults().with("nic.qpcCacheEntries", "256").with("nic.qpcCacheWays", "8");
        TestHost[] p = TestHost.pair(sim, profile, 1 << 20, ALL);
        TestHost a = p[0];
        TestHost b = p[1];
        int logBbs = 2;
        long[] sq = new long[qps + TestHost.QPN + 1];
        long[] db = new long[qps + TestHost.QPN + 1];
        int[] pi = new int[qps + TestHost.QPN + 1];
        byte[][] mirror = new byte[qps + TestHost.QPN + 1][];
        for (int q = TestHost.QPN + 1; q <= qps + TestHost.QPN - 1; q++) {
            for (TestHost h : p) {
                long ring = h.mem.allocate(64L << logBbs, 4096);
                long rec = h.mem.allocate(8, 64);
                h.nic.createQp(q, new QpConfig(TestHost.PD, 1, 1, ring, logBbs, h.rqBase, TestHost.LOG_RQ, 0, rec, 4, 1, 220, ALL));
                if (h == a) {
                    sq[q] = ring;
                    db[q] = rec;
                    mirror[q] = new byte[64 << logBbs];
                }
            }
            a.nic.connectQp(q, q, b.nic.mac, b.nic.ip, 100, 5000);
            b.nic.connectQp(q, q, a.nic.mac, a.nic.ip, 5000, 100);
        }
        PENDING.clear();
        a.nic.host().setMmioRetry(() -> drain(a));
        int[] completions = {0};
        a.nic.addLifecycleListener((n, qpn, idx, op, bytes, syn, stamps) -> {
            completions[0]++;
            if (qpn > TestHost.QPN) {
                post(a, qpn, sq[qpn], db[qpn], mirror[qpn], logBbs, pi, b);
            }
        });
        for (int q = TestHost.QPN + 1; q <= qps + TestHost.QPN - 1; q++) {
            post(a, q, sq[q], db[q], mirror[q], logBbs, pi, b);
        }
        long warm = 200_000_000L;
        long window = 400_000_000L;
        sim.runUntil(warm);
        int before = completions[0];
        long polled = 0;
        while (sim.now() < warm + window && sim.step()) {
            if (a.poll() != null) {
                polled++;
            }
        }
        if (qps > 256) {
            // Evicted contexts go back to context memory: that is PCIe traffic too.
            assertThat(sim.stats().toText()).containsPattern("nicA\\.ctx\\.contextWriteBacks\\s+[1-9]");
        }
        return (completions[0] - before) / (window / 1e6);
    }

    private static void post(TestHost a, int q, long ring, long db, byte[] mirror, int logBbs, int[] pi, TestHost b) {
        SendWqeBuilder wb = new SendWqeBuilder(mirror, 0, logBbs);
        wb.begin(pi[q] & 0xFFFF, WqeOpcode.RDMA_WRITE, q, 0, 0).remoteAddress(b.buf + q * 64L, b.key).data(a.buf, 64, a.key);
        int bbs = wb.finish();
        int ctrl = wb.lastCtrlOffset();
        int slot = pi[q] & ((1 << logBbs) - 1);
        a.mem.write(ring + slot * 64L, mirror, slot * 64, 64 * bbs);
        pi[q] += bbs;
        a.mem.putIntBE(db + 4, pi[q] & 0xFFFF);
        byte[] bell = java.util.Arrays.copyOfRange(mirror, ctrl, ctrl + 8);
        PENDING.add(new Object[] {q, bell});
        drain(a);
    }

    /** Doorbells the CPU could not issue yet because the posted-write queue was full. */
    private static final java.util.ArrayDeque<Object[]> PENDING = new java.util.ArrayDeque<>();

    private static void drain(TestHost a) {
        while (!PENDING.isEmpty()) {
            Object[] d = PENDING.peek();
            if (!a.nic.host().mmioWrite(Doorbells.sqDoorbellOffset((Integer) d[0]), (byte[]) d[1], 0, 8)) {
                return;
            }
            PENDING.poll();
        }
    }

    @Test
    void messageRateDropsWhenActiveQpsOutnumberTheContextCache() {
        double few = rate(64);
        double many = rate(2048);
        // Measured 41.5 and 28.2 Mmsg/s (2026-11-26, calibrated defaults).
        assertThat(many).as("%.1f Mmsg/s with 63 QPs, %.1f with 2047", few, many).isLessThan(few * 0.8);
        assertThat(few).isPositive();
    }
}
