package dev.rdmasim.adapter.pcie;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.Simulator;
import org.junit.jupiter.api.Test;

/**
 * When the DMA engine turns submissions into TLPs. A submission from a client's own event issues at once, inside
 * {@code submit}. A read callback that submits the next read runs inside the link's delivery event: the new read is
 * issued at that event's tail, after the callback, never in the middle of it, and without an event of its own, even
 * when other events are pending at the same instant.
 */
class DmaPumpOrderTest {
    private static final long ADDR = 0x4000;

    private static final class Run {
        final Simulator sim = new Simulator(1);
        final PcieLink link = new PcieLink(sim, "pcie", PcieConfig.defaults(), new HostMemory("host"));
        final DmaChannel ch = link.dma().addChannel("rd", 4);
        final DmaRequest first = new DmaRequest();
        final DmaRequest second = new DmaRequest();
        long firstDonePs = -1;
        long secondDonePs = -1;
        long issuedInsideSubmit = -1;
        long issuedInsideCallback = -1;
        long issuedSeenByProbe = -1;

        Run(long probeAtPs) {
            DmaCallback cb = new DmaCallback() {
                @Override
                public void readDone(DmaRequest r) {
                    if (r == first) {
                        firstDonePs = sim.now();
                        second.read(ADDR + 64, new byte[64], 0, 64, this, 2);
                        assertThat(ch.submit(second)).isTrue();
                        issuedInsideCallback = link.dma().readTlpsIssued();
                    } else {
                        secondDonePs = sim.now();
                    }
                }
            };
            sim.event("client", () -> {
                first.read(ADDR, new byte[64], 0, 64, cb, 1);
                assertThat(ch.submit(first)).isTrue();
                issuedInsideSubmit = link.dma().readTlpsIssued();
            }).schedule(0);
            if (probeAtPs > 0) {
                // Armed 1 ps early, the probe is scheduled after the delivery but before anything the delivery asks for.
                Event probe = sim.event("probe", () -> issuedSeenByProbe = link.dma().readTlpsIssued());
                sim.event("arm", () -> probe.schedule(probeAtPs)).schedule(probeAtPs - 1);
            }
            sim.run();
        }
    }

    @Test
    void submissionsIssueAtOnceOrAtTheTailOfTheLinkEventWithoutEventsOfTheirOwn() {
        Run alone = new Run(0);
        long t = alone.firstDonePs;
        assertThat(alone.issuedInsideSubmit).isEqualTo(1);
        assertThat(alone.issuedInsideCallback).isEqualTo(1); // not issued inside the client's callback
        assertThat(alone.link.dma().readTlpsIssued()).isEqualTo(2);
        // The second read is issued at the instant the first completed: it takes exactly as long.
        assertThat(alone.secondDonePs).isEqualTo(2 * t);
        // The client's event and one delivery per TLP (two MRd, two CplD): nothing else.
        assertThat(alone.sim.eventsExecuted()).isEqualTo(5);

        Run probed = new Run(t);
        assertThat(probed.firstDonePs).isEqualTo(t);
        assertThat(probed.issuedInsideCallback).isEqualTo(1);
        assertThat(probed.issuedSeenByProbe).isEqualTo(2); // the delivery's tail ran before the pending probe
        assertThat(probed.secondDonePs).isEqualTo(2 * t);
        assertThat(probed.sim.eventsExecuted() - alone.sim.eventsExecuted()).isEqualTo(2); // arm and probe
    }
}
