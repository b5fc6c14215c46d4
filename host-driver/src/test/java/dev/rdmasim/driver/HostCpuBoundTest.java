package dev.rdmasim.driver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.adapter.pcie.PcieConfig;
import dev.rdmasim.adapter.pcie.PcieLink;
import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.hw.Module;
import org.junit.jupiter.api.Test;

/** The host CPU's work queue is at its limit from a refused post until it has drained to half. */
class HostCpuBoundTest {
    @Test
    void fullFromTheRefusalUntilHalfTheQueueIsDone() {
        Simulator sim = new Simulator(1);
        HostMemory memory = new HostMemory("host");
        PcieLink link = new PcieLink(sim, "pcie", PcieConfig.defaults(), memory);
        Module host = new Module(sim, "hostA") {
        };
        HostCpu cpu = new HostCpu(host, "cpu", memory, link.host(), 4);
        long word = memory.allocate(64, 64);
        sim.event("post", () -> {
            for (int i = 0; i < 4; i++) {
                cpu.storeWord(word, i, 10_000); // done at 10, 20, 30 and 40 ns
            }
            cpu.kick();
            assertThat(cpu.hasRoom(1)).isFalse();
            cpu.refused();
        }).schedule(5_000);
        sim.run();
        // Refused at 5 ns; two items left at 25 ns (the second one done): half the queue.
        assertThat(StatsProbe.counter(sim, "hostA.cpu.queueFullTime")).isEqualTo(25_000 - 5_000);
        assertThat(StatsProbe.formula(sim, "hostA.cpu.queueFullFraction")).isEqualTo(20_000 / 45_000.0);
    }
}
