package dev.rdmasim.kernel.hw;

/**
 * Offers items 0..total-1 in order, stalling for a random number of cycles before an offer with
 * probability {@code stallProbability}. Random draws happen only at decision points, so how often
 * the module is woken never changes what it draws.
 */
final class TestProducer extends ClockedModule {
    final OutPort<Integer> out = outPort("out");
    private final int total;
    private final double stallProbability;
    private final int maxStall;
    private final RegLong sent = regLong("sent", 0);
    private final RegLong resumeAt = regLong("resumeAt", 0);
    /** Cycle of each offer's first appearance, for latency checks. */
    final long[] offeredAtCycle;

    TestProducer(Module parent, String name, ClockDomain clock, int total, double stallProbability, int maxStall) {
        super(parent, name, clock);
        this.total = total;
        this.stallProbability = stallProbability;
        this.maxStall = maxStall;
        this.offeredAtCycle = new long[total];
    }

    long sent() {
        return sent.get();
    }

    @Override
    protected void evaluate() {
        boolean fired = out.fire();
        long n = sent.get() + (fired ? 1 : 0);
        sent.set(n);
        if (out.valid() && !fired) {
            return; // holding the current offer until it is taken
        }
        if (n >= total || cycle() < resumeAt.get()) {
            return;
        }
        if (stallProbability > 0 && random().nextDouble() < stallProbability) {
            int stall = 1 + random().nextInt(maxStall);
            resumeAt.set(cycle() + stall);
            wakeIn(stall);
            return;
        }
        offeredAtCycle[(int) n] = cycle() + 1;
        out.offer((int) n);
    }
}
