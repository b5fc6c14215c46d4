package dev.rdmasim.adapter.pcie;

import static dev.rdmasim.adapter.pcie.DmaBoundsTest.counter;
import static dev.rdmasim.adapter.pcie.DmaBoundsTest.stat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.stats.TimeAverage;
import org.eclipse.collections.impl.list.mutable.primitive.LongArrayList;
import org.junit.jupiter.api.Test;

/**
 * A request's own rules, as a client meets them: what {@code read}/{@code write}/{@code notBefore} refuse, that a
 * request in the engine cannot be prepared again or submitted twice, and what a channel records of a submission.
 */
class DmaRequestTest {
    private static final DmaCallback READS = new DmaCallback() {
        @Override
        public void readDone(DmaRequest request) {
        }
    };

    @Test
    void preparationRefusesEmptyAndWrappingTransfers() {
        byte[] buf = new byte[64];
        assertThatThrownBy(() -> new DmaRequest().read(0x1000, buf, 0, 0, READS, 0)).hasMessageContaining("length");
        assertThatThrownBy(() -> new DmaRequest().read(-16, buf, 0, 17, READS, 0)).hasMessageContaining("wraps");
        // The last 16 bytes of the address space do not wrap.
        assertThat(new DmaRequest().read(-16, buf, 0, 16, READS, 0).hostAddress()).isEqualTo(-16);
        assertThat(new DmaRequest().read(0x1000, buf, 0, 1, READS, 0).length()).isEqualTo(1);
    }

    @Test
    void readyTimesMustBeSetUpAndNotNegative() {
        assertThatThrownBy(() -> new DmaRequest().notBefore(0)).hasMessageContaining("before read");
        DmaRequest r = new DmaRequest().read(0x1000, new byte[64], 0, 64, READS, 7);
        assertThatThrownBy(() -> r.notBefore(-1)).hasMessageContaining(">= 0 ps");
        assertThat(r.notBefore(0)).isSameAs(r);
        assertThat(r).hasToString("READ[0x1000+64 cookie=7]");
    }

    @Test
    void aRequestInTheEngineCannotBeReusedOrSubmittedTwice() {
        Simulator sim = new Simulator(1);
        PcieLink link = new PcieLink(sim, "pcie", PcieConfig.defaults(), new HostMemory("host"));
        DmaChannel ch = link.dma().addChannel("rd", 4);
        assertThat(ch.name()).isEqualTo("rd");
        byte[] buf = new byte[64];
        LongArrayList done = new LongArrayList();
        DmaCallback cb = new DmaCallback() {
            @Override
            public void readDone(DmaRequest request) {
                done.add(sim.now());
            }
        };
        DmaRequest r = new DmaRequest().read(0x1000, buf, 0, 64, cb, 0);
        assertThatThrownBy(() -> ch.submit(new DmaRequest())).hasMessageContaining("before read");
        sim.event("submit", () -> {
            assertThat(ch.submit(r)).isTrue();
            assertThatThrownBy(() -> ch.submit(r)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("submitted twice");
            assertThatThrownBy(() -> r.read(0x2000, buf, 0, 64, cb, 1)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("still in the engine");
            assertThatThrownBy(() -> r.notBefore(5_000_000)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("still in the engine");
        }).schedule(1_000);
        sim.run();
        assertThat(done.size()).isEqualTo(1);
        // Done, the request may be prepared again; the first read was the only one counted.
        assertThat(r.inEngine()).isFalse();
        assertThat(r.read(0x2000, buf, 0, 64, cb, 1).cookie()).isEqualTo(1);
        assertThat(counter(sim, "pcie.dma.rd_submitted")).isEqualTo(1);
        assertThat(counter(sim, "pcie.dma.rd_refused")).isZero();
    }

    @Test
    void aChannelRecordsSubmissionTimeReadyTimeRefusalsAndOccupancy() {
        Simulator sim = new Simulator(1);
        PcieLink link = new PcieLink(sim, "pcie", PcieConfig.defaults().withReadTags(1), new HostMemory("host"));
        DmaChannel ch = link.dma().addChannel("rd", 1);
        DmaRequest[] rs = new DmaRequest[3];
        for (int i = 0; i < rs.length; i++) {
            rs[i] = new DmaRequest().read(0x1000 + 4096L * i, new byte[64], 0, 64, READS, i);
        }
        rs[0].notBefore(10_000_000);
        boolean[] taken = new boolean[3];
        // The first read takes the only tag at once and leaves the queue; the second waits in it for the tag (and
        // behind the first's ready time); the third finds the queue full.
        sim.event("submit", () -> {
            for (int i = 0; i < 3; i++) {
                taken[i] = ch.submit(rs[i]);
            }
        }).schedule(1_000);
        int[] queuedMid = new int[1];
        sim.event("look", () -> queuedMid[0] = ch.queued()).schedule(5_000_000);
        sim.run();
        assertThat(taken).containsExactly(true, true, false);
        assertThat(queuedMid[0]).isEqualTo(1);
        assertThat(rs[0].submitPs()).isEqualTo(1_000);
        assertThat(rs[0].readyPs()).isEqualTo(10_000_000);
        assertThat(rs[1].submitPs()).isEqualTo(1_000);
        assertThat(rs[1].readyPs()).isEqualTo(10_000_000);
        assertThat(counter(sim, "pcie.dma.rd_submitted")).isEqualTo(2);
        assertThat(counter(sim, "pcie.dma.rd_refused")).isEqualTo(1);
        TimeAverage queued = (TimeAverage) stat(sim, "pcie.dma.rd_queued");
        assertThat(queued.max()).isEqualTo(1);
        assertThat(queued.level()).as("empty once the second read has left it").isZero();
        assertThat(queued.average()).isGreaterThan(0.5);
    }
}
