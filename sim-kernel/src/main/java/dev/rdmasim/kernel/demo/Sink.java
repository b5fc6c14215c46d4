package dev.rdmasim.kernel.demo;

import dev.rdmasim.kernel.hw.ClockDomain;
import dev.rdmasim.kernel.hw.ClockedModule;
import dev.rdmasim.kernel.hw.InPort;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.hw.RegLong;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.Histogram;

/** Takes tokens when ready (stalling at random until all have arrived), checks their order, records latency. */
final class Sink extends ClockedModule {
    final InPort<Token> in = inPort("in", true);
    private final double stallProbability;
    private final int maxRun;
    private final RegLong nextDecision = regLong("nextDecision", 0);
    private final RegLong expected = regLong("expected", 0);
    private final Counter received = stats().counter("received", "tokens", "tokens taken from the pipeline");
    private final Histogram latency = stats().histogram("latency", "ps", "time from a token's offer to its receipt");

    private final long expectedTotal;

    Sink(Module parent, String name, ClockDomain clock, long expectedTotal, double stallProbability, int maxRun) {
        super(parent, name, clock);
        this.expectedTotal = expectedTotal;
        this.stallProbability = stallProbability;
        this.maxRun = maxRun;
    }

    long received() {
        return received.value();
    }

    Histogram latency() {
        return latency;
    }

    @Override
    protected void evaluate() {
        if (in.fire()) {
            Token t = in.bits();
            if (t.id() != expected.get()) {
                throw new dev.rdmasim.kernel.InvariantViolation("sink expected token " + expected.get() + " but got " + t.id());
            }
            expected.set(t.id() + 1);
            received.inc();
            latency.record(clock().edgeTime(cycle()) - t.createdPs());
        }
        if (expected.next() >= expectedTotal) {
            // Everything arrived: stop the random-readiness process so the clock can go idle.
            return;
        }
        if (cycle() >= nextDecision.get()) {
            boolean ready = random().nextDouble() >= stallProbability;
            int run = 1 + random().nextInt(maxRun);
            in.setReady(ready);
            nextDecision.set(cycle() + run);
            wakeIn(run);
        }
    }
}
