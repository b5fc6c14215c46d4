package dev.rdmasim.kernel.demo;

import dev.rdmasim.kernel.hw.ClockDomain;
import dev.rdmasim.kernel.hw.ClockedModule;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.hw.OutPort;
import dev.rdmasim.kernel.hw.RegLong;
import dev.rdmasim.kernel.stats.Counter;

/** Offers {@code total} tokens, pausing 1..maxGap cycles before an offer with probability {@code gapProbability}. */
final class Source extends ClockedModule {
    final OutPort<Token> out = outPort("out");
    private final long total;
    private final double gapProbability;
    private final int maxGap;
    private final RegLong sent = regLong("sent", 0).trace(32);
    private final RegLong resumeAt = regLong("resumeAt", 0);
    private final Counter sentStat = stats().counter("sent", "tokens", "tokens handed to the pipeline");
    private final Counter gapCycles = stats().counter("gapCycles", "cycles", "cycles the source chose to pause");

    Source(Module parent, String name, ClockDomain clock, long total, double gapProbability, int maxGap) {
        super(parent, name, clock);
        this.total = total;
        this.gapProbability = gapProbability;
        this.maxGap = maxGap;
    }

    @Override
    protected void evaluate() {
        boolean fired = out.fire();
        long n = sent.get() + (fired ? 1 : 0);
        sent.set(n);
        if (fired) {
            sentStat.inc();
        }
        if ((out.valid() && !fired) || n >= total || cycle() < resumeAt.get()) {
            return;
        }
        if (random().nextDouble() < gapProbability) {
            int gap = 1 + random().nextInt(maxGap);
            gapCycles.add(gap);
            resumeAt.set(cycle() + gap);
            wakeIn(gap);
            return;
        }
        // The token becomes visible at the next edge; stamp it with that time.
        out.offer(new Token(n, clock().edgeTime(cycle() + 1)));
    }
}
