package dev.rdmasim.kernel;

/**
 * What the events of one name cost while {@link Simulator#timeEvents timed}: how many ran and the host time their
 * actions took, everything the action did included (the blocks it called, the events it scheduled).
 *
 * @param name   the event name, e.g. {@code nicA.pcie.down.deliver}
 * @param count  how many times events of that name ran
 * @param hostNs host nanoseconds spent in their actions
 */
public record EventCost(String name, long count, long hostNs) {
    /** Host nanoseconds per run. */
    public double nsEach() {
        return count == 0 ? 0 : (double) hostNs / count;
    }
}
