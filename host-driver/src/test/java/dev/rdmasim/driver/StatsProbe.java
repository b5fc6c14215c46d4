package dev.rdmasim.driver;

import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.Formula;
import dev.rdmasim.kernel.stats.Stat;
import dev.rdmasim.kernel.stats.StatsGroup;

/** Reads a statistic by its full name (e.g. {@code nicA.blueflames}) for assertions. */
final class StatsProbe {
    private StatsProbe() {
    }

    static long counter(Simulator sim, String fullName) {
        Stat s = find(sim, fullName);
        if (s instanceof Counter c) {
            return c.value();
        }
        throw new AssertionError(fullName + " is not a counter");
    }

    static double formula(Simulator sim, String fullName) {
        Stat s = find(sim, fullName);
        if (s instanceof Formula f) {
            return f.value();
        }
        throw new AssertionError(fullName + " is not a formula");
    }

    private static Stat find(Simulator sim, String fullName) {
        for (StatsGroup g : sim.stats().groups()) {
            for (Stat s : g.stats()) {
                if (s.fullName().equals(fullName)) {
                    return s;
                }
            }
        }
        throw new AssertionError("no statistic " + fullName);
    }
}
