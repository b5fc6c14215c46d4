package dev.rdmasim.driver;

import static dev.rdmasim.driver.StatsProbe.counter;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.config.Parameters;
import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.format.Cqe;
import dev.rdmasim.adapter.format.WqeOpcode;
import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.kernel.Simulator;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The responder fetches receive WQEs ahead, several per read: a burst of SENDs into many posted receives costs a
 * doorbell-record read and a few ring reads, not a read per SEND, and every SEND still lands in its own buffer
 * with its completion naming its WQE, in order.
 */
class ReceivePrefetchTest {
    private static final long US = 1_000_000L;
    private static final int SENDS = 96;

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void aBurstOfSendsReadsReceiveWqesInBatches(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        int prefetch = 1 << (3 + rnd.nextInt(4)); // 8 .. 64
        Simulator sim = new Simulator(seed);
        HostPair p = HostPair.create(sim, Profile.defaults().with(Parameters.NIC_RQ_PREFETCH_DEPTH, (long) prefetch),
                1 << 20, 9, 8, 7);
        HostPair.Side a = p.a();
        HostPair.Side b = p.b();
        int[] sizes = new int[SENDS];
        for (int i = 0; i < SENDS; i++) {
            assertThat(b.rq().post(100 + i, new SgeList(1).set(b.mr(), 16384 + i * 128, 128))).isTrue();
            sizes[i] = 1 + rnd.nextInt(128);
            a.driver().memory().fill(a.mr().address() + i * 128, sizes[i], (byte) (i + 1));
        }
        sim.runUntil(sim.now() + 50 * US); // B's CPU has stored the receives and their doorbell record
        long fetchesBefore = counter(sim, "nicB.pcie.dma.rqFetch_submitted");
        for (int i = 0; i < SENDS; i++) {
            assertThat(a.sq().post(i, WqeOpcode.SEND, i % 8 == 7 ? SendQueue.SIGNALED : 0, 0, 0, 0,
                    new SgeList(1).set(a.mr(), i * 128, sizes[i]))).isTrue();
        }
        sim.runUntil(sim.now() + 400 * US);
        assertThat(counter(sim, "nicB.rx.rnrNaks")).isZero();
        HostMemory mem = b.driver().memory();
        for (int i = 0; i < SENDS; i++) {
            Completion c = b.cq().poll();
            assertThat(c).as("receive completion %d", i).isNotNull();
            assertThat(c.opcode()).isEqualTo(Cqe.RESP_SEND);
            assertThat(c.wrId()).isEqualTo(100 + i);
            assertThat(c.byteCount()).isEqualTo(sizes[i]);
            for (int k = 0; k < sizes[i]; k++) {
                assertThat(mem.getByte(b.mr().address() + 16384 + i * 128 + k)).isEqualTo((byte) (i + 1));
            }
        }
        assertThat(b.cq().poll()).isNull();
        long reads = counter(sim, "nicB.pcie.dma.rqFetch_submitted") - fetchesBefore;
        // One doorbell-record read, then reads of up to min(prefetch, 512 B / 16 B) WQEs, topped up at half.
        int perRead = Math.min(prefetch, 32);
        assertThat(reads).as("receive-side reads for %d SENDs, prefetch %d", SENDS, prefetch)
                .isLessThanOrEqualTo(1 + 2L * SENDS / (perRead / 2) + 1).isGreaterThanOrEqualTo(1 + SENDS / perRead);
    }
}
