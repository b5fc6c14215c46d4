package dev.rdmasim.driver;

import static dev.rdmasim.driver.StatsProbe.counter;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.adapter.config.Parameters;
import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.format.WqeOpcode;
import dev.rdmasim.adapter.wire.EthernetLink;
import dev.rdmasim.kernel.Simulator;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Several host cores ({@code host.cores}): QP placement, parallel posting, the shared MMIO posted queue. */
class HostCoresTest {
    private static final long RUN = 200_000_000L; // 200 us of simulated time
    private static final int BUFFER = 1 << 20;

    /** Two cabled hosts; host A has {@code qps} QPs (QP i on core {@code placement[i]}, or the driver's choice). */
    private record Rig(Simulator sim, HostDriver a, HostDriver b, QueuePair[] qa, CompletionQueue[] cqa,
            MemoryRegion mra, MemoryRegion mrb) {
    }

    private static Rig rig(long seed, Profile profile, int qps, int... placement) {
        Simulator sim = new Simulator(seed);
        Host ha = new Host(sim, "hostA", "nicA", profile, 0x02_00_00_00_00_01L, 0x0A00_0001);
        Host hb = new Host(sim, "hostB", "nicB", profile, 0x02_00_00_00_00_02L, 0x0A00_0002);
        EthernetLink link = HostPair.cable(sim, "wire", profile);
        ha.attach(link.a());
        hb.attach(link.b());
        HostDriver a = ha.driver();
        HostDriver b = hb.driver();
        int pda = a.allocatePd();
        int pdb = b.allocatePd();
        MemoryRegion mra = a.registerMemory(pda, a.allocate(BUFFER), BUFFER, HostPair.ALL_ACCESS);
        MemoryRegion mrb = b.registerMemory(pdb, b.allocate(BUFFER), BUFFER, HostPair.ALL_ACCESS);
        QueuePair[] qa = new QueuePair[qps];
        CompletionQueue[] cqa = new CompletionQueue[qps];
        CompletionQueue cqb = b.createCq(10);
        for (int i = 0; i < qps; i++) {
            cqa[i] = a.createCq(8);
            QpOptions o = QpOptions.of(cqa[i], pda, HostPair.ALL_ACCESS);
            qa[i] = a.createQp(placement.length > 0 ? o.withCore(placement[i]) : o);
            QueuePair qb = b.createQp(QpOptions.of(cqb, pdb, HostPair.ALL_ACCESS));
            qa[i].connect(qb);
        }
        return new Rig(sim, a, b, qa, cqa, mra, mrb);
    }

    private static Profile cores(Profile p, int n) {
        return p.with(Parameters.HOST_CORES, (long) n);
    }

    private static byte[] pattern(long seed, int len) {
        byte[] b = new byte[len];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    @Test
    void oneCoreKeepsItsNameAndSeveralAreNumbered() {
        Rig one = rig(1, Profile.defaults(), 2);
        assertThat(one.a().coreCount()).isEqualTo(1);
        assertThat(one.a().cpu().fullName()).isEqualTo("hostA.cpu");
        assertThat(one.qa()[1].core()).isSameAs(one.a().cpu());
        Rig three = rig(1, cores(Profile.defaults(), 3), 3);
        assertThat(three.a().cpu()).isSameAs(three.a().core(0));
        assertThat(three.a().core(2).fullName()).isEqualTo("hostA.cpu2");
        assertThatThrownBy(() -> three.a().core(3)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("host.cores");
    }

    /** By default QP i of a driver posts on core i mod cores; its CQ (created first) follows it. */
    @Test
    void qpsGoRoundRobinOverTheCoresUnlessPlaced() {
        Rig r = rig(1, cores(Profile.defaults(), 3), 5);
        for (int i = 0; i < 5; i++) {
            assertThat(r.qa()[i].core()).as("QP %d", i).isSameAs(r.a().core(i % 3));
            assertThat(r.cqa()[i].core()).as("CQ %d", i).isSameAs(r.a().core(i % 3));
        }
        Rig placed = rig(1, cores(Profile.defaults(), 3), 3, 2, 2, 0);
        assertThat(placed.qa()[0].core()).isSameAs(placed.a().core(2));
        assertThat(placed.qa()[1].core()).isSameAs(placed.a().core(2));
        assertThat(placed.qa()[2].core()).isSameAs(placed.a().core(0));
        // A CQ placed explicitly stays where it was put.
        CompletionQueue cq = placed.a().createCq(4);
        cq.setCore(1);
        placed.a().createQp(QpOptions.of(cq, placed.mra().pd(), HostPair.ALL_ACCESS).withCore(2));
        assertThat(cq.core()).isSameAs(placed.a().core(1));
        assertThatThrownBy(() -> placed.a().createQp(QpOptions.of(cq, placed.mra().pd(), HostPair.ALL_ACCESS).withCore(3)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("core 3");
    }

    /**
     * Core 0 has a long queue of posts on QP 0 when QP 1 posts once: on its own core that doorbell reaches the
     * adapter beside core 0's first, long before core 0 is done; on one core it waits behind core 0's work.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void secondCorePostsWhileTheFirstIsBusy(int n) {
        long build = 1_000_000; // 1 us per WQE
        long store = 50_000;
        Profile prof = cores(Profile.defaults(), n).with(Parameters.HOST_WQE_BUILD_TIME, build)
                .with(Parameters.HOST_MMIO_STORE_TIME, store);
        Rig r = rig(7, prof, 2);
        Simulator sim = r.sim();
        int k = 8;
        int len = 512;
        long t0 = sim.now();
        for (int q = 0; q < 2; q++) {
            r.qa()[q].sq().setBlueFlame(false);
            for (int i = 0; i < (q == 0 ? k : 1); i++) {
                long off = (q * k + i) * 4096L;
                r.a().memory().write(r.mra().address() + off, pattern(q * 100 + i, len), 0, len);
                SgeList sge = new SgeList(1).set(r.mra(), off, len);
                assertThat(r.qa()[q].sq().post(q * 100 + i, WqeOpcode.RDMA_WRITE, SendQueue.SIGNALED, 0,
                        r.mrb().address() + off, r.mrb().rkey(), sge)).isTrue();
            }
        }
        long core0Done = r.qa()[0].core().freeAt();
        while (counter(sim, "nicA.db.doorbells") < 2) {
            assertThat(sim.step()).isTrue();
        }
        long secondDoorbell = sim.now();
        if (n == 2) {
            assertThat(core0Done).isEqualTo(t0 + k * (build + store));
            assertThat(counter(sim, "hostA.cpu1.mmioWrites")).isEqualTo(1);
            assertThat(secondDoorbell).isLessThan(t0 + 2 * (build + store)).isLessThan(core0Done);
            assertThat(r.qa()[0].core().queuedItems()).isPositive();
            assertThat(counter(sim, "hostA.cpu1.busyTime")).isEqualTo(build + store);
            assertThat(counter(sim, "hostA.cpu0.busyTime")).isEqualTo(k * (build + store));
        } else {
            assertThat(core0Done).isEqualTo(t0 + (k + 1) * (build + store));
            assertThat(secondDoorbell).isGreaterThanOrEqualTo(t0 + 2 * (build + store));
        }
        sim.runUntil(RUN);
        for (int q = 0; q < 2; q++) {
            int posts = q == 0 ? k : 1;
            List<Long> ids = new ArrayList<>();
            for (Completion c = r.cqa()[q].poll(); c != null; c = r.cqa()[q].poll()) {
                assertThat(c.isError()).isFalse();
                ids.add(c.wrId());
            }
            assertThat(ids).hasSize(posts);
            for (int i = 0; i < posts; i++) {
                assertThat(ids.get(i)).isEqualTo(q * 100L + i);
                long off = (q * k + i) * 4096L;
                assertThat(r.b().memory().equalsRange(r.mrb().address() + off, pattern(q * 100 + i, len), 0, len))
                        .as("QP %d write %d", q, i).isTrue();
            }
        }
    }

    /**
     * A slow PCIe link and free stores on four cores: the root complex's posted queue fills and several cores stall
     * on it. Each refusal is one stall of the core whose store it was; every store lands, every WRITE arrives
     * whole, and two runs of the same seed agree on every core's figures.
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void coresShareTheMmioPostedQueueAndLoseNothing(long seed) {
        String first = sharedQueueRun(seed);
        assertThat(sharedQueueRun(seed)).isEqualTo(first);
    }

    /**
     * Four cores each with the same long queue of BlueFlame writes and a posted queue too small for them: the
     * cores take turns at the room it frees, so they finish together (a fixed retry order would let the first core
     * through and hold the last one back until the others were done).
     */
    @Test
    void aSaturatedPostedQueueIsSharedEvenly() {
        int n = 4;
        Profile prof = cores(Profile.defaults(), n).with(Parameters.PCIE_GEN, 1L).with(Parameters.PCIE_LANES, 1L)
                .with(Parameters.HOST_WQE_BUILD_TIME, 0L).with(Parameters.HOST_WC_FLUSH_TIME, 0L)
                .with(Parameters.HOST_MMIO_STORE_TIME, 0L);
        Rig r = rig(5, prof, n);
        Simulator sim = r.sim();
        byte[] d = pattern(5, 100);
        int per = 60;
        for (int i = 0; i < per; i++) {
            for (int q = 0; q < n; q++) {
                assertThat(r.qa()[q].sq().postInline(i, WqeOpcode.RDMA_WRITE, i == per - 1 ? SendQueue.SIGNALED : 0,
                        0, r.mrb().address() + q * 4096L, r.mrb().rkey(), d, 0, d.length)).isTrue();
            }
        }
        long start = sim.now();
        long[] doneAt = new long[n];
        int left = n;
        while (left > 0) {
            assertThat(sim.step()).isTrue();
            for (int c = 0; c < n; c++) {
                if (doneAt[c] == 0 && r.a().core(c).queuedItems() == 0) {
                    doneAt[c] = sim.now();
                    left--;
                }
            }
        }
        long first = java.util.Arrays.stream(doneAt).min().orElseThrow();
        long last = java.util.Arrays.stream(doneAt).max().orElseThrow();
        assertThat(last - first).as("cores finished at %s", java.util.Arrays.toString(doneAt))
                .isLessThan((last - start) / 5);
        long s0 = counter(sim, "hostA.cpu0.stalls");
        for (int c = 1; c < n; c++) {
            assertThat(counter(sim, "hostA.cpu" + c + ".stalls")).as("core %d", c)
                    .isBetween(s0 * 8 / 10, s0 * 12 / 10);
        }
    }

    private static String sharedQueueRun(long seed) {
        int n = 4;
        Profile prof = cores(Profile.defaults(), n).with(Parameters.PCIE_GEN, 1L).with(Parameters.PCIE_LANES, 1L)
                .with(Parameters.HOST_WQE_BUILD_TIME, 0L).with(Parameters.HOST_WC_FLUSH_TIME, 0L)
                .with(Parameters.HOST_MMIO_STORE_TIME, 0L);
        Rig r = rig(seed, prof, n);
        Simulator sim = r.sim();
        SplittableRandom rnd = new SplittableRandom(seed);
        int per = 40;
        int[][] lens = new int[n][per];
        // Interleave the posts of the cores, as parallel threads would.
        for (int i = 0; i < per; i++) {
            for (int q = 0; q < n; q++) {
                lens[q][i] = 1 + rnd.nextInt(150);
                byte[] d = pattern(seed * 10_000 + q * 1000 + i, lens[q][i]);
                assertThat(r.qa()[q].sq().postInline(i, WqeOpcode.RDMA_WRITE, i % 10 == 9 ? SendQueue.SIGNALED : 0,
                        0, r.mrb().address() + (q * per + i) * 256L, r.mrb().rkey(), d, 0, lens[q][i])).isTrue();
            }
        }
        long chunks = counter(sim, "hostA.blueflameChunks");
        sim.runUntil(20 * RUN);
        long stalls = 0;
        long writes = 0;
        int stalledCores = 0;
        StringBuilder figures = new StringBuilder();
        for (int c = 0; c < n; c++) {
            String core = "hostA.cpu" + c;
            long s = counter(sim, core + ".stalls");
            stalls += s;
            writes += counter(sim, core + ".mmioWrites");
            stalledCores += s > 0 ? 1 : 0;
            assertThat(counter(sim, core + ".stallTime") > 0).isEqualTo(s > 0);
            assertThat(r.a().core(c).stalled()).isFalse();
            assertThat(r.a().core(c).queuedItems()).isZero();
            figures.append(core).append(' ').append(s).append(' ').append(counter(sim, core + ".stallTime"))
                    .append(' ').append(counter(sim, core + ".mmioWrites")).append('\n');
        }
        assertThat(stalledCores).as("cores that stalled").isGreaterThan(1);
        assertThat(stalls).isEqualTo(counter(sim, "nicA.pcie.rc.mmioRefusals")).isPositive();
        assertThat(writes).isEqualTo(chunks).isEqualTo(counter(sim, "nicA.pcie.rc.mmioWrites"));
        for (int q = 0; q < n; q++) {
            int retired = 0;
            for (Completion c = r.cqa()[q].poll(); c != null; c = r.cqa()[q].poll()) {
                assertThat(c.isError()).isFalse();
                retired += c.retired();
            }
            assertThat(retired).as("QP %d", q).isEqualTo(per);
            for (int i = 0; i < per; i++) {
                assertThat(r.b().memory().equalsRange(r.mrb().address() + (q * per + i) * 256L,
                        pattern(seed * 10_000 + q * 1000 + i, lens[q][i]), 0, lens[q][i]))
                        .as("QP %d write %d", q, i).isTrue();
            }
        }
        return figures.toString();
    }
}
