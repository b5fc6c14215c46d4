package dev.rdmasim.kernel;

import dev.rdmasim.kernel.random.RandomStreams;
import dev.rdmasim.kernel.stats.StatsRegistry;
import dev.rdmasim.kernel.stats.TimeSource;
import dev.rdmasim.kernel.wave.VcdWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Owns simulated time and the pending-event set, and runs events in (time, priority, sequence)
 * order. One simulator per run; there is no global instance, so independent runs can proceed on
 * different threads.
 */
public final class Simulator implements TimeSource {
    private static final int SEQ_BITS = 47;
    private static final long MAX_SEQ = (1L << SEQ_BITS) - 1;

    private final EventQueue queue;
    private final RandomStreams random;
    private final StatsRegistry stats = new StatsRegistry();
    private final Set<String> topLevelNames = new HashSet<>();
    private VcdWriter wave;
    private long now;
    private long seq;
    private long executed;
    /** The event that ran last and the instant it ran at (null before the first). */
    private Event lastEvent;
    private long lastEventPs;
    private boolean stopRequested;
    private final List<DeferredWork> deferred = new ArrayList<>();
    /** The events that ran while timed since the last {@link #resetEventCosts}, in the order they first ran. */
    private final List<Event> timed = new ArrayList<>();
    /** Whether the run loops time each event's action ({@link #timeEvents}). */
    private boolean timing;

    public Simulator() {
        this(1L);
    }

    public Simulator(long seed) {
        this(seed, new AdaptiveEventQueue());
    }

    public Simulator(long seed, EventQueue queue) {
        this.queue = Objects.requireNonNull(queue, "queue");
        if (!queue.isEmpty()) {
            throw new IllegalArgumentException("the event queue must start empty");
        }
        this.random = new RandomStreams(seed);
    }

    /** Creates a reusable event with the default priority. */
    public Event event(String name, Runnable action) {
        return new Event(this, name, Event.DEFAULT_PRIORITY, action);
    }

    /** Creates a reusable event; among events at the same time a lower priority runs first. */
    public Event event(String name, int priority, Runnable action) {
        return new Event(this, name, priority, action);
    }

    /**
     * With {@code on}, the run loops count each event and time its action on the host's clock, for
     * {@link #eventCosts}: where a model's host time goes, event by event. The timing costs two clock reads per
     * event, so it is for measurements, not for figures of speed. Simulated behaviour is the same either way.
     */
    public void timeEvents(boolean on) {
        timing = on;
    }

    /** Forgets the counts and times {@link #timeEvents} gathered so far. */
    public void resetEventCosts() {
        for (Event e : timed) {
            e.timedCount = 0;
            e.timedNs = 0;
        }
        timed.clear();
    }

    /**
     * What the events timed since the last {@link #resetEventCosts} cost, by event name (events that share a name
     * are added up), most host time first and then by name. Events that did not run are left out.
     */
    public List<EventCost> eventCosts() {
        Map<String, long[]> byName = new HashMap<>();
        for (Event e : timed) {
            long[] v = byName.computeIfAbsent(e.name(), k -> new long[2]);
            v[0] += e.timedCount;
            v[1] += e.timedNs;
        }
        List<EventCost> costs = new ArrayList<>();
        byName.forEach((name, v) -> costs.add(new EventCost(name, v[0], v[1])));
        costs.sort(Comparator.comparingLong(EventCost::hostNs).reversed()
                .thenComparing(EventCost::name));
        return costs;
    }

    /** Current simulated time in picoseconds. */
    public long now() {
        return now;
    }

    @Override
    public long nowPs() {
        return now;
    }

    public RandomStreams random() {
        return random;
    }

    public long seed() {
        return random.runSeed();
    }

    public StatsRegistry stats() {
        return stats;
    }

    /** Attaches a waveform writer; modules created afterwards may declare signals on it. */
    public void attachWave(VcdWriter writer) {
        if (wave != null) {
            throw new IllegalStateException("a waveform writer is already attached");
        }
        this.wave = Objects.requireNonNull(writer, "writer");
    }

    /** The attached waveform writer, or null when waveforms are off. */
    public VcdWriter wave() {
        return wave;
    }

    /** Claims a top-level module name; each may be used once per simulator. */
    public void registerTopLevel(String name) {
        if (!topLevelNames.add(name)) {
            throw new IllegalArgumentException("a top-level module named '" + name + "' already exists");
        }
    }

    /**
     * Registers work done without events ({@link DeferredWork}): when the queue runs dry, {@link #run} moves the clock
     * to the last instant of such work and settles it, in registration order, before it returns.
     */
    public void addDeferredWork(DeferredWork work) {
        deferred.add(Objects.requireNonNull(work, "work"));
    }

    /**
     * With no event pending: moves the clock to the last instant of deferred work and settles all of it there. False
     * if there is none.
     */
    private boolean settleDeferred() {
        long until = deferredUntilPs();
        if (until == DeferredWork.NONE) {
            return false;
        }
        settleDeferredAt(until);
        return true;
    }

    /** The last instant of any registered deferred work, or {@link DeferredWork#NONE}. */
    long deferredUntilPs() {
        long until = DeferredWork.NONE;
        for (DeferredWork w : deferred) {
            until = Math.max(until, w.deferredUntilPs());
        }
        return until;
    }

    /**
     * Moves the clock to {@code atPs} (if later) and settles every piece of deferred work there, in registration
     * order. {@link Partitions} settles all its partitions at one instant, as a single simulator settles its blocks.
     */
    void settleDeferredAt(long atPs) {
        if (atPs > now) {
            now = atPs;
        }
        for (DeferredWork w : deferred) {
            w.settle();
        }
        for (DeferredWork w : deferred) {
            long left = w.deferredUntilPs();
            if (left != DeferredWork.NONE && left <= now) {
                throw new InvariantViolation("deferred work " + w + " still has work due at " + left
                        + " ps after settling at " + now + " ps");
            }
        }
    }

    void schedule(Event e, long timePs) {
        if (e.slot >= 0) {
            throw new IllegalStateException("event '" + e.name() + "' is already scheduled at "
                    + e.time + " ps; cancel or reschedule it instead");
        }
        if (timePs < now) {
            throw new IllegalArgumentException("cannot schedule event '" + e.name() + "' at "
                    + timePs + " ps: that is in the past (now " + now + " ps)");
        }
        if (seq == MAX_SEQ) {
            throw new InvariantViolation("event sequence numbers exhausted after " + seq + " schedules");
        }
        e.time = timePs;
        e.order = ((long) (e.priority() - Event.MIN_PRIORITY) << SEQ_BITS) | seq++;
        queue.add(e);
    }

    void cancel(Event e) {
        queue.remove(e);
    }

    /** Runs until no event is pending or {@link #stop()} is called. */
    public void run() {
        run(Long.MAX_VALUE);
    }

    /**
     * Runs at most {@code maxEvents} events; returns how many ran. Stops early when the queue
     * empties (once deferred work is settled: see {@link #addDeferredWork}) or {@link #stop()} is called.
     */
    public long run(long maxEvents) {
        stopRequested = false;
        long n = 0;
        final EventQueue q = queue;
        while (n < maxEvents && !stopRequested) {
            Event e = q.poll();
            if (e == null) {
                if (settleDeferred()) {
                    continue;
                }
                break;
            }
            now = e.time;
            n++;
            lastEvent = e;
            lastEventPs = now;
            if (timing) {
                fireTimed(e);
            } else {
                e.fire();
            }
        }
        executed += n;
        return n;
    }

    private void fireTimed(Event e) {
        if (e.timedCount == 0) {
            timed.add(e); // only events that run while timed are remembered, however many a model makes
        }
        long t0 = System.nanoTime();
        try {
            e.fire();
        } finally {
            e.timedNs += System.nanoTime() - t0;
            e.timedCount++;
        }
    }

    /**
     * Runs every event at or before {@code timePs}, then advances the clock to {@code timePs}.
     * Returns false if {@link #stop()} ended the run first.
     */
    public boolean runUntil(long timePs) {
        if (timePs < now) {
            throw new IllegalArgumentException("cannot run until " + timePs + " ps: now is " + now + " ps");
        }
        if (runThrough(timePs)) {
            now = timePs;
            return true;
        }
        return false;
    }

    /**
     * Runs every event at or before {@code timePs}, leaving the clock at the last one; false if {@link #stop()} ended
     * the run first. {@link Partitions} runs its windows so, so that a run's clocks end where a single simulator's do.
     */
    boolean runThrough(long timePs) {
        stopRequested = false;
        final EventQueue q = queue;
        while (!stopRequested) {
            Event e = q.peek();
            if (e == null || e.time > timePs) {
                return true;
            }
            q.poll();
            now = e.time;
            executed++;
            lastEvent = e;
            lastEventPs = now;
            if (timing) {
                fireTimed(e);
            } else {
                e.fire();
            }
        }
        return false;
    }

    /** Runs exactly one event, if any; returns false when the queue is empty. */
    public boolean step() {
        return run(1) == 1;
    }

    /** Asks the current run loop to return after the event now running. */
    public void stop() {
        stopRequested = true;
    }

    /**
     * Whether an event of {@code priority} that was due at the current instant would already have run: the event that
     * ran last ran at this instant and comes after it in (time, priority) order. For a block that skips events it
     * knows it would have had (a thread sleeping through empty polls) and must tell, when the run is stopped from
     * outside, whether the one due now had come. Priorities are distinct from the last event's, or it is false.
     */
    public boolean wouldHaveRunAt(int priority) {
        return lastEvent != null && lastEventPs == now && priority < lastEvent.priority();
    }

    public long eventsExecuted() {
        return executed;
    }

    public int pendingEvents() {
        return queue.size();
    }

    /** Time of the next pending event, or {@link Long#MAX_VALUE} when none. */
    public long nextEventTime() {
        Event e = queue.peek();
        return e == null ? Long.MAX_VALUE : e.time;
    }
}
