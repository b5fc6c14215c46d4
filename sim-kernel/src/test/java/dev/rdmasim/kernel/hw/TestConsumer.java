package dev.rdmasim.kernel.hw;

import org.eclipse.collections.impl.list.mutable.primitive.IntArrayList;
import org.eclipse.collections.impl.list.mutable.primitive.LongArrayList;

/**
 * Takes items when ready and logs (item, cycle). Readiness is redrawn at random intervals: ready with
 * probability {@code 1 - stallProbability}, for 1..maxRun cycles, until {@code expected} items have
 * arrived; then it stays ready and stops waking itself, so the simulation can run dry.
 */
final class TestConsumer extends ClockedModule {
    final InPort<Integer> in;
    private final double stallProbability;
    private final int maxRun;
    private final RegLong nextDecision;
    final IntArrayList items = new IntArrayList();
    final LongArrayList cycles = new LongArrayList();
    long expected = Long.MAX_VALUE;

    TestConsumer(Module parent, String name, ClockDomain clock, double stallProbability, int maxRun) {
        super(parent, name, clock);
        this.stallProbability = stallProbability;
        this.maxRun = maxRun;
        this.in = inPort("in", true);
        this.nextDecision = regLong("nextDecision", stallProbability > 0 ? 0 : Long.MAX_VALUE);
    }

    @Override
    protected void evaluate() {
        if (in.fire()) {
            items.add(in.bits());
            cycles.add(cycle());
        }

        if (items.size() >= expected) {
            in.setReady(true);
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
