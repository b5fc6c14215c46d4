package dev.rdmasim.driver;

import static dev.rdmasim.driver.StatsProbe.counter;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.config.Parameters;
import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.format.Cqe;
import dev.rdmasim.adapter.format.WqeOpcode;
import dev.rdmasim.kernel.Simulator;
import org.junit.jupiter.api.Test;

/**
 * Effects Kalia et al. (ATC 2016) measured, checked as outcomes of the mechanism: nothing here or in
 * the model computes them.
 */
class KaliaEffectsTest {
    private static final long US = 1_000_000L;

    private static long[] responderDma(Simulator sim) {
        return new long[] {counter(sim, "nicB.pcie.dma.writeRequests"), counter(sim, "nicB.pcie.up.tlpsMWr"),
                counter(sim, "nicB.pcie.dma.readRequests"), counter(sim, "nicB.pcie.dma.rqFetch_submitted")};
    }

    @Test
    void inboundWriteCostsOneDmaWriteAndARecvCostsTwoPlusTheReceiveWqeRead() {
        Simulator sim = new Simulator(1);
        HostPair p = HostPair.create(sim, Profile.defaults());
        HostPair.Side a = p.a();
        HostPair.Side b = p.b();
        SgeList sge = new SgeList(1).set(a.mr(), 0, 64);
        // Warm the responder's key and QP context caches with one WRITE and one SEND first.
        assertThat(b.rq().post(0, new SgeList(1).set(b.mr(), 4096, 64))).isTrue();
        assertThat(a.sq().post(0, WqeOpcode.RDMA_WRITE, SendQueue.SIGNALED, 0, b.mr().address(), b.mr().rkey(), sge)).isTrue();
        assertThat(a.sq().post(1, WqeOpcode.SEND, SendQueue.SIGNALED, 0, 0, 0, sge)).isTrue();
        sim.runUntil(100 * US);
        while (a.cq().poll() != null) {
            continue;
        }
        assertThat(b.cq().poll()).isNotNull();

        long[] before = responderDma(sim);
        assertThat(a.sq().post(2, WqeOpcode.RDMA_WRITE, SendQueue.SIGNALED, 0, b.mr().address() + 64, b.mr().rkey(), sge)).isTrue();
        sim.runUntil(200 * US);
        long[] afterWrite = responderDma(sim);
        assertThat(a.cq().poll()).isNotNull();
        assertThat(afterWrite[0] - before[0]).as("DMA writes at the responder for a 64 B WRITE").isEqualTo(1);
        assertThat(afterWrite[1] - before[1]).as("MWr TLPs at the responder for a 64 B WRITE").isEqualTo(1);
        assertThat(afterWrite[2] - before[2]).as("DMA reads at the responder for a WRITE").isZero();
        assertThat(b.cq().poll()).as("an inbound WRITE leaves no CQE").isNull();

        assertThat(b.rq().post(1, new SgeList(1).set(b.mr(), 8192, 64))).isTrue();
        sim.runUntil(300 * US);
        long[] beforeSend = responderDma(sim);
        assertThat(a.sq().post(3, WqeOpcode.SEND, SendQueue.SIGNALED, 0, 0, 0, sge)).isTrue();
        sim.runUntil(400 * US);
        long[] afterSend = responderDma(sim);
        assertThat(a.cq().poll()).isNotNull();
        Completion recv = b.cq().poll();
        assertThat(recv).isNotNull();
        assertThat(recv.opcode()).isEqualTo(Cqe.RESP_SEND);
        assertThat(afterSend[0] - beforeSend[0]).as("DMA writes at the responder for a 64 B SEND: payload + CQE").isEqualTo(2);
        assertThat(afterSend[1] - beforeSend[1]).as("MWr TLPs at the responder for a 64 B SEND").isEqualTo(2);
        assertThat(afterSend[3] - beforeSend[3]).as("receive-side reads: doorbell record and receive WQE").isEqualTo(2);
        assertThat(afterSend[2] - beforeSend[2]).as("every responder read is a receive-side read").isEqualTo(afterSend[3] - beforeSend[3]);
        System.out.printf("responder DMA, 64 B: WRITE %d writes %d reads; SEND %d writes %d reads%n",
                afterWrite[0] - before[0], afterWrite[2] - before[2], afterSend[0] - beforeSend[0], afterSend[2] - beforeSend[2]);
    }

    /** WRITEs per simulated second in steady state for one posting style. */
    private static double writeRate(Profile profile, int batch, boolean blueFlame) {
        Simulator sim = new Simulator(1);
        HostPair p = HostPair.create(sim, profile);
        p.a().sq().setBlueFlame(blueFlame);
        WriteStream s = new WriteStream(p.a(), p.b(), 64, 128, batch, 16, false);
        s.start();
        sim.runUntil(20 * US); // warm up: caches filled, pipeline full
        long c0 = s.completed();
        long t0 = sim.now();
        sim.runUntil(t0 + 100 * US);
        return (s.completed() - c0) * 1e12 / (sim.now() - t0);
    }

    @Test
    void whenMmioLimitsPostingOneDoorbellPerBatchBeatsOnePerWqe() {
        // Kalia's regime: the CPU's MMIO path (not building WQEs) is the posting bottleneck. A 64 B
        // non-inline WRITE is one BB, so a BlueFlame post is one 64 B chunk and a doorbell one 8 B store.
        long build = 5_000;
        long mmio = 150_000;
        Profile mmioBound = Profile.defaults().with(Parameters.HOST_WQE_BUILD_TIME, build)
                .with(Parameters.HOST_MMIO_STORE_TIME, mmio).with(Parameters.HOST_WC_FLUSH_TIME, mmio)
                .with(Parameters.HOST_WC_BARRIER_TIME, 0L); // the chunk's cost is the whole BlueFlame post here
        double batched = writeRate(mmioBound, 16, false);
        double doorbells = writeRate(mmioBound, 1, false);
        double blueFlame = writeRate(mmioBound, 1, true);
        System.out.printf("64 B WRITEs, MMIO 150 ns: batch of 16 per doorbell %.2f M/s, doorbell per WQE %.2f M/s, "
                + "BlueFlame per WQE %.2f M/s%n", batched / 1e6, doorbells / 1e6, blueFlame / 1e6);
        // Unbatched, the CPU spends build + one MMIO per WQE (plus its polls): that bounds the rate.
        double cpuBound = 1e12 / (build + mmio);
        assertThat(doorbells).isBetween(0.8 * cpuBound, 1.01 * cpuBound);
        assertThat(blueFlame).isBetween(0.8 * cpuBound, 1.01 * cpuBound);
        // One MMIO per 16 WQEs lifts the CPU bound far above the adapter's; the batch rate is the adapter's.
        assertThat(batched).isGreaterThan(1.5 * doorbells).isGreaterThan(1.5 * blueFlame);
    }
}
