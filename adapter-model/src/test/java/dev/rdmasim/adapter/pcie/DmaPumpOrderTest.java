package dev.rdmasim.adapter.pcie;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.Simulator;
import org.junit.jupiter.api.Test;

/**
 * A read callback that submits the next read, inside the link's delivery event. The pump that issues the new read
 * must run after the callback and after every event already pending at that instant, exactly as a zero-delay event
 * would; when nothing else is pending it runs at the delivery event's tail and no pump event is executed.
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
            first.read(ADDR, new byte[64], 0, 64, cb, 1);
            assertThat(ch.submit(first)).isTrue();
            if (probeAtPs > 0) {
                // Armed 1 ps early, the probe is scheduled after the delivery but before anything the delivery asks for.
                Event probe = sim.event("probe", () -> issuedSeenByProbe = link.dma().readTlpsIssued());
                sim.event("arm", () -> probe.schedule(probeAtPs)).schedule(probeAtPs - 1);
            }
            sim.run();
        }
    }

    @Test
    void pumpRunsAfterTheCallbackAndAfterEventsPendingAtTheSameInstant() {
        Run alone = new Run(0);
        long t = alone.firstDonePs;
        assertThat(alone.issuedInsideCallback).isEqualTo(1); // not issued inside the client's callback
        assertThat(alone.link.dma().readTlpsIssued()).isEqualTo(2);
        // The second read is issued at the instant the first completed: it takes exactly as long.
        assertThat(alone.secondDonePs).isEqualTo(2 * t);

        Run probed = new Run(t);
        assertThat(probed.firstDonePs).isEqualTo(t);
        assertThat(probed.issuedInsideCallback).isEqualTo(1);
        assertThat(probed.issuedSeenByProbe).isEqualTo(1); // the pending probe ran before the pump
        assertThat(probed.secondDonePs).isEqualTo(2 * t);
        // Arm and probe, plus the pump, which had to be an event of its own this time.
        assertThat(probed.sim.eventsExecuted() - alone.sim.eventsExecuted()).isEqualTo(3);
    }
}
