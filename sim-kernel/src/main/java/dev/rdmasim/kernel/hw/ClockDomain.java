package dev.rdmasim.kernel.hw;

import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.Time;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * A clock: a period in integer picoseconds and a phase, plus the scheduler of the clocked modules
 * that run on it.
 *
 * <p><b>Time and cycles.</b> Edge {@code n} is at {@code phase + n * period}. Cycles and times are
 * both {@code long}s, so every conversion goes through a method whose name says which way it goes.
 * Frequencies whose period is not a whole number of picoseconds are rounded to the nearest
 * picosecond (as gem5 does with its integer ticks); {@link #frequencyHz()} reports the rounded clock.
 *
 * <p><b>Scheduling.</b> The domain keeps one edge event, scheduled only while some module has
 * work: idle modules cost nothing. At an edge the domain (1) latches which ready/valid channels fire,
 * waking the other end of every firing channel so both sides see the transfer, (2) calls
 * {@link ClockedModule#evaluate()} on every awake module, (3) commits them all. Because evaluation
 * reads only committed state, results do not depend on evaluation order; {@link
 * #shuffleEvaluationOrder(long)} permutes the order every cycle to prove it.
 *
 * <p>A {@linkplain ClockedModule#wake() wake-up} from outside this domain's own edge processing
 * (a transaction-level event, another clock domain) targets the first edge strictly after the
 * current time, so coincident edges of different domains never race.
 */
public final class ClockDomain {
    /** Edge events run after ordinary events of the same picosecond. */
    public static final int EDGE_PRIORITY = 1000;
    private static final int INDEX_BITS = 20;
    private static final long MAX_CYCLE = (1L << (63 - INDEX_BITS)) - 1;

    private final Simulator sim;
    private final String name;
    private final long periodPs;
    private final long phasePs;
    /** The last edge {@link #edgeAtOrAfter} answered (edge 0 before any): a cache, not state of the clock. */
    private long lastEdgePs;
    private final Event edgeEvent;
    private final List<ClockedModule> members = new ArrayList<>();
    private final LongMinHeap timedWakes = new LongMinHeap();

    private ClockedModule[] current = new ClockedModule[16];
    private int currentCount;
    private ClockedModule[] next = new ClockedModule[16];
    private int nextCount;
    /** Cycle number of the edge in {@code next}, or -1 while nothing is waiting for the next edge. */
    private long nextCycle = -1;

    private Phase phase = Phase.IDLE;
    private long cycle = -1;
    private long edgesProcessed;
    private long evaluations;
    private SplittableRandom shuffle;

    private ClockDomain(Simulator sim, String name, long periodPs, long phasePs) {
        this.sim = Objects.requireNonNull(sim, "sim");
        this.name = Objects.requireNonNull(name, "name");
        if (periodPs <= 0) {
            throw new IllegalArgumentException("clock '" + name + "': period must be positive, got " + periodPs + " ps");
        }
        if (phasePs < 0 || phasePs >= periodPs) {
            throw new IllegalArgumentException("clock '" + name + "': phase " + phasePs
                    + " ps must be in [0, period " + periodPs + " ps)");
        }
        this.periodPs = periodPs;
        this.phasePs = phasePs;
        this.lastEdgePs = phasePs;
        this.edgeEvent = sim.event(name + ".edge", EDGE_PRIORITY, this::onEdge);
    }

    /** A clock with the given period in picoseconds and zero phase. */
    public static ClockDomain ofPeriod(Simulator sim, String name, long periodPs) {
        return new ClockDomain(sim, name, periodPs, 0);
    }

    /** A clock with the given period and phase (offset of edge 0) in picoseconds. */
    public static ClockDomain ofPeriod(Simulator sim, String name, long periodPs, long phasePs) {
        return new ClockDomain(sim, name, periodPs, phasePs);
    }

    /** A clock of the given frequency; the period is rounded to the nearest picosecond. */
    public static ClockDomain ofFrequency(Simulator sim, String name, double hz) {
        if (!(hz > 0) || Double.isInfinite(hz)) {
            throw new IllegalArgumentException("clock '" + name + "': frequency must be positive, got " + hz + " Hz");
        }
        long period = Math.round(Time.S / hz);
        if (period < 1) {
            throw new IllegalArgumentException("clock '" + name + "': " + hz + " Hz is faster than 1 THz,"
                    + " the finest clock a picosecond time base can represent");
        }
        return new ClockDomain(sim, name, period, 0);
    }

    /** A clock of the given frequency in MHz. */
    public static ClockDomain ofMHz(Simulator sim, String name, double mhz) {
        return ofFrequency(sim, name, mhz * 1e6);
    }

    public String name() {
        return name;
    }

    public Simulator sim() {
        return sim;
    }

    public long periodPs() {
        return periodPs;
    }

    public long phasePs() {
        return phasePs;
    }

    public double frequencyHz() {
        return Time.S / (double) periodPs;
    }

    /** Time of edge {@code cycle}. */
    public long edgeTime(long cycle) {
        return Math.addExact(phasePs, Math.multiplyExact(cycle, periodPs));
    }

    /** The cycle whose edge is at or before {@code timePs} (-1 before edge 0). */
    public long cycleAt(long timePs) {
        return Math.floorDiv(timePs - phasePs, periodPs);
    }

    /** The first edge at or after {@code timePs}. */
    public long edgeAtOrAfter(long timePs) {
        // Callers ask about times a little apart, mostly within a cycle or two of the last answer: those need no
        // division (a 64-bit one costs tens of cycles, and an idle engine's every job asks).
        long e = lastEdgePs;
        if (timePs <= e) {
            if (timePs > e - periodPs) {
                return e;
            }
        } else if (timePs <= e + periodPs && e <= Long.MAX_VALUE - periodPs) {
            lastEdgePs = e + periodPs;
            return e + periodPs;
        }
        long edge = edgeTime(Math.floorDiv(timePs - phasePs + periodPs - 1, periodPs));
        lastEdgePs = edge;
        return edge;
    }

    /** The first edge strictly after {@code timePs}. */
    public long edgeAfter(long timePs) {
        return edgeTime(cycleAt(timePs) + 1);
    }

    /** Duration of {@code cycles} cycles, in picoseconds. */
    public long cyclesToPs(long cycles) {
        return Math.multiplyExact(cycles, periodPs);
    }

    /** Whole cycles needed to cover {@code durationPs} (rounded up). */
    public long psToCycles(long durationPs) {
        if (durationPs < 0) {
            throw new IllegalArgumentException("negative duration " + durationPs + " ps");
        }
        return (durationPs + periodPs - 1) / periodPs;
    }

    /**
     * The cycle being processed while this domain runs an edge; otherwise the cycle of the last
     * edge at or before now.
     */
    public long cycle() {
        return phase == Phase.IDLE ? cycleAt(sim.now()) : cycle;
    }

    public Phase phase() {
        return phase;
    }

    /** Edges at which at least one module was evaluated. */
    public long edgesProcessed() {
        return edgesProcessed;
    }

    /** Module evaluations performed so far (a measure of simulation work). */
    public long evaluations() {
        return evaluations;
    }

    /**
     * Evaluates and commits the modules of each cycle in a random order drawn from {@code seed}.
     * A correct model gives identical results whatever the seed; tests use this to prove it.
     */
    public void shuffleEvaluationOrder(long seed) {
        shuffle = new SplittableRandom(seed);
    }

    int register(ClockedModule m) {
        if (members.size() == 1 << INDEX_BITS) {
            throw new IllegalStateException("clock '" + name + "' has too many modules");
        }
        members.add(m);
        return members.size() - 1;
    }

    private long firstFutureCycle() {
        return phase == Phase.IDLE ? cycleAt(sim.now()) + 1 : cycle + 1;
    }

    /** Queues {@code m} for the first edge strictly after now. */
    void wake(ClockedModule m) {
        long target = firstFutureCycle();
        if (m.nextMark == target) {
            return;
        }
        if (nextCount == 0 || nextCycle == target) {
            nextCycle = target;
            m.nextMark = target;
            if (nextCount == next.length) {
                next = Arrays.copyOf(next, nextCount * 2);
            }
            next[nextCount++] = m;
        } else {
            // The next-edge list belongs to an edge at this very picosecond that has not run yet.
            timedWakes.add((target << INDEX_BITS) | m.domainIndex);
        }
        if (phase == Phase.IDLE) {
            ensureEdgeAt(edgeTime(target));
        }
    }

    /** Queues {@code m} for edge {@code targetCycle}; a cycle not in the future means the next edge. */
    void wakeAt(ClockedModule m, long targetCycle) {
        if (targetCycle <= firstFutureCycle()) {
            wake(m);
            return;
        }
        if (targetCycle > MAX_CYCLE) {
            throw new IllegalArgumentException("module '" + m.fullName() + "': cycle " + targetCycle
                    + " is beyond the scheduler's range");
        }
        timedWakes.add((targetCycle << INDEX_BITS) | m.domainIndex);
        if (phase == Phase.IDLE) {
            ensureEdgeAt(edgeTime(targetCycle));
        }
    }

    private void ensureEdgeAt(long timePs) {
        if (!edgeEvent.scheduled()) {
            edgeEvent.schedule(timePs);
        } else if (edgeEvent.time() > timePs) {
            edgeEvent.reschedule(timePs);
        }
    }

    private void addCurrent(ClockedModule m) {
        m.currentMark = cycle;
        if (currentCount == current.length) {
            current = Arrays.copyOf(current, currentCount * 2);
        }
        current[currentCount++] = m;
    }

    /** During {@link Phase#LATCH}: makes sure {@code m} is evaluated in the cycle being processed. */
    void includeInThisCycle(ClockedModule m) {
        if (m.currentMark != cycle) {
            addCurrent(m);
        }
    }

    private void onEdge() {
        long now = sim.now();
        cycle = cycleAt(now);
        InvariantViolation.check(edgeTime(cycle) == now, "clock '" + name + "': edge event off the clock grid at " + now);

        if (nextCount > 0 && nextCycle == cycle) {
            ClockedModule[] t = current;
            current = next;
            next = t;
            currentCount = nextCount;
            nextCount = 0;
            nextCycle = -1;
            for (int i = 0; i < currentCount; i++) {
                current[i].currentMark = cycle;
            }
        } else {
            InvariantViolation.check(nextCount == 0 || nextCycle > cycle,
                    "clock '" + name + "': modules left queued for past cycle " + nextCycle);
        }
        while (!timedWakes.isEmpty() && (timedWakes.peek() >>> INDEX_BITS) <= cycle) {
            long entry = timedWakes.poll();
            InvariantViolation.check((entry >>> INDEX_BITS) == cycle, "clock '" + name + "': missed a timed wake-up");
            includeInThisCycle(members.get((int) (entry & ((1 << INDEX_BITS) - 1))));
        }

        // LATCH: decide every transfer of this cycle from committed state; the list may grow.
        phase = Phase.LATCH;
        for (int i = 0; i < currentCount; i++) {
            current[i].latch(cycle);
        }
        if (shuffle != null) {
            for (int i = currentCount - 1; i > 0; i--) {
                int j = shuffle.nextInt(i + 1);
                ClockedModule x = current[i];
                current[i] = current[j];
                current[j] = x;
            }
        }

        phase = Phase.EVALUATE;
        for (int i = 0; i < currentCount; i++) {
            current[i].evaluate();
        }
        evaluations += currentCount;

        phase = Phase.COMMIT;
        for (int i = 0; i < currentCount; i++) {
            current[i].commitAll(cycle);
        }
        for (int i = 0; i < currentCount; i++) {
            current[i] = null;
        }
        currentCount = 0;
        phase = Phase.IDLE;
        edgesProcessed++;

        long earliest = nextCount > 0 ? nextCycle : Long.MAX_VALUE;
        if (!timedWakes.isEmpty()) {
            earliest = Math.min(earliest, timedWakes.peek() >>> INDEX_BITS);
        }
        if (earliest != Long.MAX_VALUE) {
            edgeEvent.schedule(edgeTime(earliest));
        }
    }

    @Override
    public String toString() {
        return name + "(" + periodPs + "ps)";
    }
}
