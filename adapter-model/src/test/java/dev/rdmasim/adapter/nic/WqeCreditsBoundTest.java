package dev.rdmasim.adapter.nic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.Stat;
import org.junit.jupiter.api.Test;

/** The WQE cache and the inline buffer report the time they are at their limit exactly. */
class WqeCreditsBoundTest {
    private static long counter(WqeCredits c, String name) {
        c.stats().refresh();
        for (Stat s : c.stats().stats()) {
            if (s.name().equals(name)) {
                return ((Counter) s).value();
            }
        }
        throw new AssertionError("no statistic " + name);
    }

    @Test
    void theCacheIsFullWhileNoBlockIsFreeAndTheInlineBufferWhileTheParserWaits() {
        BlockHarness h = new BlockHarness(1);
        WqeCredits c = new WqeCredits(h.top, new WqeCredits.Params(8, 1024));
        h.sim.event("reserve", () -> {
            c.reserveWqeCache(5);
            c.reserveWqeCache(3); // the last free block: full from here
        }).schedule(100_000);
        h.sim.event("releaseSome", () -> c.releaseWqeCache(2)).schedule(350_000);
        h.sim.event("fillAgain", () -> c.reserveWqeCache(2)).schedule(400_000);
        h.sim.event("stall", () -> c.inlineWaiting(true)).schedule(500_000);
        h.sim.event("releaseAll", () -> c.releaseWqeCache(8)).schedule(520_000);
        h.sim.event("resume", () -> c.inlineWaiting(false)).schedule(900_000);
        h.sim.event("end", () -> { }).schedule(2_000_000);
        h.sim.run();
        // Full 100..350 ns and 400..520 ns.
        assertThat(counter(c, "wqeCacheFullTime")).isEqualTo(250_000 + 120_000);
        assertThat(counter(c, "inlineFullTime")).isEqualTo(400_000);
    }
}
