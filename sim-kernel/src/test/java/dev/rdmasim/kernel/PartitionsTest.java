package dev.rdmasim.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.eclipse.collections.impl.list.mutable.primitive.LongArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The partitioned run against one simulator running the same model, and against itself on other thread counts: a
 * seeded random model of nodes with local events (many at the same instant) that send messages to each other over
 * lines with a least latency. Each node logs what it runs and receives, with the instant; the logs must agree to
 * the entry.
 */
class PartitionsTest {
    private static final long LATENCY = 100;

    /** A line as the model sees it: a crossing between partitions, or a delivery event on the one simulator. */
    interface Line {
        void send(long payload, long arrivalPs);

        long lastArrival();
    }

    /** One node of the random model: its own random stream, local events, outgoing lines and log. */
    static final class Node {
        final int id;
        final Simulator sim;
        final SplittableRandom rnd;
        final Event[] local;
        final List<Line> out = new ArrayList<>();
        final LongArrayList log = new LongArrayList();
        int budget;
        long counter;
        /** Log entries after which this node stops its simulator (0: never). */
        int stopAfter;

        Node(int id, Simulator sim, long seed, int events, int budget) {
            this.id = id;
            this.sim = sim;
            this.rnd = new SplittableRandom(seed * 31 + id);
            this.budget = budget;
            this.local = new Event[events];
            for (int i = 0; i < events; i++) {
                int k = i;
                local[i] = sim.event("n" + id + ".e" + i, i % 2, () -> fired(k));
            }
        }

        private void record(long what) {
            log.add(sim.now());
            log.add(what);
            if (stopAfter > 0 && log.size() / 2 == stopAfter) {
                sim.stop();
            }
        }

        void fired(int k) {
            record(k);
            if (budget-- <= 0) {
                return;
            }
            int fanOut = 1 + rnd.nextInt(2);
            for (int i = 0; i < fanOut; i++) {
                Event e = local[rnd.nextInt(local.length)];
                if (!e.scheduled()) {
                    long[] delays = {0, 0, 5, 10, 40, 250};
                    e.scheduleIn(delays[rnd.nextInt(delays.length)]);
                }
            }
            if (!out.isEmpty() && rnd.nextInt(3) == 0) {
                Line line = out.get(rnd.nextInt(out.size()));
                // On a coarse grid, so arrivals meet local events at the same instants.
                long at = sim.now() + LATENCY + 10 * rnd.nextInt(30);
                line.send(((long) id << 32) | counter++, Math.max(at, line.lastArrival()));
            }
        }

        void received(long payload) {
            record(1_000_000 + payload);
            Event e = local[(int) (payload % local.length)];
            if (!e.scheduled() && rnd.nextBoolean()) {
                e.scheduleIn(rnd.nextInt(3) * 5L);
            }
        }
    }

    /** The model on its own partitions (or, with {@code partitions} null, all on {@code one}). */
    static List<Node> build(long seed, int nodes, Partitions partitions, Simulator one) {
        SplittableRandom shape = new SplittableRandom(seed);
        List<Node> all = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            Simulator sim = partitions == null ? one : partitions.partition(i);
            all.add(new Node(i, sim, seed, 3 + shape.nextInt(4), 1500 + shape.nextInt(1500)));
        }
        int line = 0;
        for (Node from : all) {
            for (Node to : all) {
                if (from != to && shape.nextInt(4) != 0) {
                    // Distinct priorities: deliveries at one instant come in an order that needs no tie-break.
                    int priority = -1 - line++;
                    Line l = partitions == null ? direct(one, "l" + from.id + to.id, priority, to)
                            : crossing(partitions, from, to, priority);
                    from.out.add(l);
                }
            }
        }
        for (Node n : all) {
            n.local[0].schedule(shape.nextInt(5) * 5L);
        }
        return all;
    }

    private static Line crossing(Partitions p, Node from, Node to, int priority) {
        Crossing<Long> c = p.crossing("l" + from.id + to.id, from.sim, to.sim, LATENCY, priority, m -> to.received(m));
        long[] last = {Long.MIN_VALUE};
        return new Line() {
            @Override
            public void send(long payload, long arrivalPs) {
                last[0] = arrivalPs;
                c.send(payload, arrivalPs);
            }

            @Override
            public long lastArrival() {
                return last[0];
            }
        };
    }

    /** The reference: the same line as one event on the single simulator, armed when a message is sent. */
    private static Line direct(Simulator sim, String name, int priority, Node to) {
        LongArrayList payloads = new LongArrayList();
        LongArrayList arrivals = new LongArrayList();
        int[] head = {0};
        Event[] deliver = new Event[1];
        deliver[0] = sim.event(name, priority, () -> {
            while (head[0] < arrivals.size() && arrivals.get(head[0]) == sim.now()) {
                to.received(payloads.get(head[0]++));
            }
            if (head[0] < arrivals.size()) {
                deliver[0].schedule(arrivals.get(head[0]));
            }
        });
        return new Line() {
            @Override
            public void send(long payload, long arrivalPs) {
                payloads.add(payload);
                arrivals.add(arrivalPs);
                if (!deliver[0].scheduled()) {
                    deliver[0].schedule(arrivalPs);
                }
            }

            @Override
            public long lastArrival() {
                return arrivals.isEmpty() ? Long.MIN_VALUE : arrivals.getLast();
            }
        };
    }

    private static Partitions partitions(int n, long seed) {
        List<Simulator> sims = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            sims.add(new Simulator(seed));
        }
        return new Partitions(sims);
    }

    private static List<LongArrayList> logs(List<Node> nodes) {
        List<LongArrayList> logs = new ArrayList<>();
        for (Node n : nodes) {
            logs.add(n.log);
        }
        return logs;
    }

    static Stream<Long> seeds() {
        return LongStream.rangeClosed(1, 12).boxed();
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void aRandomModelRunsAsOnOneSimulatorOnAnyNumberOfThreads(long seed) {
        int nodes = 2 + (int) (seed % 3);
        Simulator one = new Simulator(seed);
        List<Node> reference = build(seed, nodes, null, one);
        one.run();
        assertThat(reference.get(0).log.size()).as("the model does something").isGreaterThan(1000);

        for (int threads : new int[] {1, 2, nodes}) {
            Partitions p = partitions(nodes, seed);
            List<Node> model = build(seed, nodes, p, null);
            assertThat(p.run(threads)).isTrue();
            assertThat(logs(model)).as("%d threads", threads).isEqualTo(logs(reference));
            // Both fire one delivery event per line and distinct arrival instant.
            assertThat(p.eventsExecuted()).isEqualTo(one.eventsExecuted());
            for (int i = 0; i < nodes; i++) {
                assertThat(p.partition(i).now()).as("partition %d's clock", i).isEqualTo(one.now());
            }
        }
    }

    @Test
    void aWindowIsTheLeastLatencyAndIdleTimeIsSkipped() {
        Partitions p = partitions(2, 1);
        Simulator a = p.partition(0);
        Simulator b = p.partition(1);
        LongArrayList got = new LongArrayList();
        Crossing<Long> slow = p.crossing("slow", a, b, 1_000, 0, m -> got.add(b.now()));
        Crossing<Long> fast = p.crossing("fast", b, a, 300, 0, m -> got.add(a.now()));
        assertThat(p.lookaheadPs()).isEqualTo(300);
        a.event("send", () -> slow.send(1L, a.now() + 1_000)).schedule(1_000_000);
        b.event("reply", () -> fast.send(2L, b.now() + 300)).schedule(5_000_000);
        assertThat(p.run(1)).isTrue();
        assertThat(got.toArray()).containsExactly(1_001_000, 5_000_300);
        // One window for each event and each delivery: the gaps between them cost none.
        assertThat(p.windows()).isEqualTo(4);
        assertThat(slow.sent()).isEqualTo(1);
        assertThat(slow.inFlight()).isZero();
    }

    @Test
    void aMessageSoonerThanTheLatencyOrOvertakingTheLastIsAModelBug() {
        Partitions p = partitions(2, 1);
        Simulator a = p.partition(0);
        Crossing<Long> c = p.crossing("c", a, p.partition(1), 100, 0, m -> { });
        a.event("soon", () -> c.send(1L, a.now() + 99)).schedule(10);
        assertThatThrownBy(() -> p.run(1)).isInstanceOf(InvariantViolation.class)
                .hasMessageContaining("sooner than its least latency of 100 ps");

        Partitions q = partitions(2, 1);
        Simulator qa = q.partition(0);
        Crossing<Long> d = q.crossing("d", qa, q.partition(1), 100, 0, m -> { });
        qa.event("two", () -> {
            d.send(1L, qa.now() + 500);
            d.send(2L, qa.now() + 400);
        }).schedule(10);
        assertThatThrownBy(() -> q.run(2)).isInstanceOf(InvariantViolation.class)
                .hasMessageContaining("would overtake the one sent before it, arriving at 510 ps");
    }

    @Test
    void aBlockMayHandOverAheadAtAWindowsStartWhatItWillSendInThatWindow() {
        // A sender that fixes at 1,000 ps a message it sends at 1,300 ps, and hands it over at the start of the window
        // that holds 1,300, as a line commits the frames that start in a window before running it.
        Partitions p = partitions(2, 1);
        Simulator a = p.partition(0);
        Simulator b = p.partition(1);
        LongArrayList got = new LongArrayList();
        Crossing<Long> c = p.crossing("c", a, b, 100, 0, m -> got.add(b.now()));
        LongArrayList starts = new LongArrayList();
        long[] sendAt = {-1};
        p.beforeEachWindow(a, start -> {
            starts.add(start);
            if (sendAt[0] >= 0 && sendAt[0] < start + p.lookaheadPs()) {
                c.send(1L, sendAt[0], sendAt[0] + 100);
                sendAt[0] = -1;
            }
        });
        a.event("decide", () -> sendAt[0] = 1_300).schedule(1_000);
        b.event("busy", () -> { }).schedule(1_250);
        assertThat(p.run(2)).isTrue();
        assertThat(starts.toArray()).containsExactly(1_000, 1_250, 1_400);
        assertThat(got.toArray()).containsExactly(1_400);

        // Handed over a window too late: the receiver may have run past its arrival.
        Partitions q = partitions(2, 1);
        Simulator qa = q.partition(0);
        Simulator qb = q.partition(1);
        Crossing<Long> d = q.crossing("d", qa, qb, 100, 0, m -> { });
        boolean[] decided = {false};
        q.beforeEachWindow(qa, start -> {
            if (decided[0]) {
                d.send(1L, 1_010, 1_110);
            }
        });
        qa.event("decide", () -> decided[0] = true).schedule(1_000);
        qb.event("busy", () -> { }).schedule(1_150);
        assertThatThrownBy(() -> q.run(1)).isInstanceOf(InvariantViolation.class)
                .hasMessageContaining("arriving at 1110 ps is handed over after the partitions may have run to 1249 ps");
    }

    @Test
    void aMailboxBringsWhatWasPostedInAWindowBeforeTheReceiversNextWindow() {
        // A pool in partition a whose buffers b gives back: b posts them, a has them before its next window.
        Partitions p = partitions(2, 1);
        Simulator a = p.partition(0);
        Simulator b = p.partition(1);
        LongArrayList pool = new LongArrayList();
        LongArrayList poolSizeAtB = new LongArrayList();
        Mailbox<Long> back = p.mailbox("back", b, a, pool::add);
        Crossing<Long> c = p.crossing("c", a, b, 100, 0, m -> {
            back.post(m);
            poolSizeAtB.add(pool.size());
        });
        Event[] send = new Event[1];
        long[] next = {0};
        send[0] = a.event("send", () -> {
            c.send(next[0]++, a.now() + 100);
            if (next[0] < 5) {
                send[0].scheduleIn(1_000);
            }
        });
        send[0].schedule(0);
        assertThat(p.run(2)).isTrue();
        assertThat(pool.toArray()).containsExactly(0, 1, 2, 3, 4);
        assertThat(poolSizeAtB.toArray()).as("each back home by the next message's arrival").containsExactly(0, 1, 2, 3, 4);
        assertThat(back.pending()).isZero();
        assertThatThrownBy(() -> p.mailbox("self", a, a, m -> { })).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void manyMessagesInOneWindowArriveInOrderThroughGrowingRings() {
        Partitions p = partitions(2, 1);
        Simulator a = p.partition(0);
        Simulator b = p.partition(1);
        LongArrayList got = new LongArrayList();
        LongArrayList gotAt = new LongArrayList();
        LongArrayList posted = new LongArrayList();
        Crossing<Long> c = p.crossing("c", a, b, 100, 0, m -> {
            got.add(m);
            gotAt.add(b.now());
        });
        Mailbox<Long> back = p.mailbox("back", b, a, posted::add);
        a.event("burst", () -> {
            for (long i = 0; i < 100; i++) {
                c.send(i, a.now() + 100 + i / 10); // ten to an instant
            }
        }).schedule(50);
        b.event("posts", () -> {
            for (long i = 0; i < 40; i++) {
                back.post(i);
            }
            assertThat(back.pending()).isEqualTo(40);
        }).schedule(60);
        assertThat(c.inFlight()).isZero();
        assertThat(p.run(2)).isTrue();
        assertThat(got.size()).isEqualTo(100);
        for (int i = 0; i < 100; i++) {
            assertThat(got.get(i)).isEqualTo(i);
            assertThat(gotAt.get(i)).isEqualTo(150 + i / 10);
        }
        assertThat(posted.size()).isEqualTo(40);
        assertThat(posted.getLast()).isEqualTo(39);
        assertThat(c.sent()).isEqualTo(100);
        assertThat(c.name()).isEqualTo("c");
        assertThat(c.latencyPs()).isEqualTo(100);
        assertThat(c.toString()).isEqualTo("crossing 'c' (0 in flight)");
        assertThat(back.name()).isEqualTo("back");
        assertThat(back.toString()).isEqualTo("mailbox 'back' (0 pending)");
        assertThat(p.size()).isEqualTo(2);
    }

    @Test
    void aStopAskedOfTheRunEndsItAtTheWindowsEndAndTheRunGoesOnFromThere() {
        for (int threads = 1; threads <= 2; threads++) {
            Partitions p = partitions(2, 1);
            Simulator a = p.partition(0);
            Simulator b = p.partition(1);
            LongArrayList ticksB = new LongArrayList();
            Event[] tick = new Event[1];
            tick[0] = b.event("tick", () -> {
                ticksB.add(b.now());
                if (b.now() < 2_000) {
                    tick[0].scheduleIn(10);
                }
            });
            tick[0].schedule(0);
            p.crossing("c", a, b, 100, 0, m -> { });
            a.event("stop", p::stop).schedule(500); // in the window [500, 599]
            assertThat(p.run(threads)).as("stopped").isFalse();
            assertThat(ticksB.getLast()).as("b finishes the window").isEqualTo(590);
            assertThat(p.run(threads)).isTrue();
            assertThat(ticksB.size()).isEqualTo(201);
            assertThat(b.now()).isEqualTo(2_000);
        }
    }

    @Test
    void runUntilRunsWhatIsDueAtItsVeryInstant() {
        Partitions p = partitions(2, 1);
        Simulator a = p.partition(0);
        Simulator b = p.partition(1);
        LongArrayList seen = new LongArrayList();
        Crossing<Long> c = p.crossing("c", a, b, 100, 0, m -> seen.add(b.now()));
        a.event("at1000", () -> {
            seen.add(a.now());
            c.send(1L, 1_100);
        }).schedule(1_000);
        b.event("b1000", () -> seen.add(-b.now())).schedule(1_000);
        assertThat(p.runUntil(0, 1)).as("until now: nothing to run").isTrue();
        assertThat(p.runUntil(1_000, 2)).isTrue();
        assertThat(seen.toArray()).containsExactlyInAnyOrder(1_000, -1_000);
        assertThat(p.runUntil(1_100, 2)).isTrue();
        assertThat(seen.getLast()).isEqualTo(1_100);
    }

    @Test
    void crossingsJoinTwoDifferentPartitionsWithAPositiveLatency() {
        Partitions p = partitions(2, 1);
        Simulator a = p.partition(0);
        assertThatThrownBy(() -> p.crossing("self", a, a, 100, 0, m -> { }))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("starts and ends in partition 0");
        assertThatThrownBy(() -> p.crossing("zero", a, p.partition(1), 0, 0, m -> { }))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must be positive");
        assertThatThrownBy(() -> p.crossing("stranger", a, new Simulator(1), 10, 0, m -> { }))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not one of the partitions");
        assertThatThrownBy(() -> new Partitions(List.of(a, a)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("partition 1 is partition 0 again");
        assertThatThrownBy(() -> p.run(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void aStopEndsTheRunAtTheSamePointOnAnyThreadCountAndTheRunGoesOnFromThere(long seed) {
        int nodes = 2 + (int) (seed % 3);
        Simulator one = new Simulator(seed);
        List<Node> reference = build(seed, nodes, null, one);
        one.run();

        List<List<LongArrayList>> atStop = new ArrayList<>();
        for (int threads : new int[] {1, 2}) {
            Partitions p = partitions(nodes, seed);
            List<Node> model = build(seed, nodes, p, null);
            model.get(0).stopAfter = 400;
            assertThat(p.run(threads)).as("stopped").isFalse();
            List<LongArrayList> copy = new ArrayList<>();
            for (Node n : model) {
                copy.add(LongArrayList.newList(n.log));
            }
            atStop.add(copy);
            // Stopped after the event that made its 400th entry (a delivery may make several).
            assertThat(model.get(0).log.size()).isBetween(800, 820);
            assertThat(p.run(threads)).as("resumed to the end").isTrue();
            assertThat(logs(model)).isEqualTo(logs(reference));
        }
        assertThat(atStop.get(1)).isEqualTo(atStop.get(0));
    }

    @Test
    void deferredWorkIsSettledAtTheLastInstantOfAnyPartitionsAndMaySendMore() {
        Partitions p = partitions(2, 1);
        Simulator a = p.partition(0);
        Simulator b = p.partition(1);
        LongArrayList got = new LongArrayList();
        Crossing<Long> c = p.crossing("c", a, b, 100, 0, m -> got.add(b.now()));
        long[] settledAt = new long[2];
        a.addDeferredWork(new DeferredWork() {
            boolean done;

            @Override
            public long deferredUntilPs() {
                return done ? NONE : 500;
            }

            @Override
            public void settle() {
                settledAt[0] = a.now();
                done = true;
                c.send(7L, a.now() + 100); // settling made more known: the run goes on
            }
        });
        b.addDeferredWork(new DeferredWork() {
            boolean done;

            @Override
            public long deferredUntilPs() {
                return done ? NONE : 900;
            }

            @Override
            public void settle() {
                settledAt[1] = b.now();
                done = true;
            }
        });
        assertThat(p.run(2)).isTrue();
        assertThat(settledAt).containsExactly(900, 900);
        assertThat(got.toArray()).containsExactly(1_000);
        assertThat(b.now()).isEqualTo(1_000);
    }

    @Test
    void runUntilRunsEveryPartitionToTheInstantAndKeepsWhatIsInFlight() {
        Partitions p = partitions(2, 1);
        Simulator a = p.partition(0);
        Simulator b = p.partition(1);
        LongArrayList got = new LongArrayList();
        Crossing<Long> c = p.crossing("c", a, b, 1_000, 0, m -> got.add(b.now()));
        a.event("send", () -> c.send(1L, a.now() + 5_000)).schedule(100);
        assertThat(p.runUntil(2_000, 2)).isTrue();
        assertThat(a.now()).isEqualTo(2_000);
        assertThat(b.now()).isEqualTo(2_000);
        assertThat(c.inFlight()).isEqualTo(1);
        assertThat(got.size()).isZero();
        assertThatThrownBy(() -> p.runUntil(1_000, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(p.run(2)).isTrue();
        assertThat(got.toArray()).containsExactly(5_100);
    }

    @Test
    void aFailureInAnyPartitionReachesTheCallerAndNoThreadIsLeftRunning() throws InterruptedException {
        for (int failing = 0; failing < 2; failing++) {
            Partitions p = partitions(2, 1);
            Simulator bad = p.partition(failing);
            Simulator good = p.partition(1 - failing);
            Event[] tick = new Event[1];
            tick[0] = good.event("tick", () -> tick[0].scheduleIn(10));
            tick[0].schedule(0);
            bad.event("boom", () -> {
                throw new InvariantViolation("boom in partition " + bad.now());
            }).schedule(5_000);
            p.crossing("c", good, bad, 50, 0, m -> { });
            assertThatThrownBy(() -> p.run(2)).isInstanceOf(InvariantViolation.class).hasMessage("boom in partition 5000");
        }
        Thread.sleep(50);
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().startsWith("partitions-"));
    }

    @Test
    void aSteadyStreamAllocatesNothingPerMessageOnOneThread() {
        Partitions p = partitions(2, 1);
        Simulator a = p.partition(0);
        Simulator b = p.partition(1);
        Long message = 42L;
        long[] received = {0};
        Crossing<Long> c = p.crossing("c", a, b, 1_000, 0, m -> received[0]++);
        Event[] send = new Event[1];
        send[0] = a.event("send", () -> {
            c.send(message, a.now() + 1_000);
            c.send(message, a.now() + 1_000);
            send[0].scheduleIn(300);
        });
        send[0].schedule(0);
        p.runUntil(10_000_000, 1);
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = mx.getCurrentThreadAllocatedBytes();
        long got = received[0];
        p.runUntil(100_000_000, 1);
        long allocated = mx.getCurrentThreadAllocatedBytes() - before;
        assertThat(received[0] - got).isEqualTo(600_000);
        // Slack for the measurement and one-off growth of a ring; one object per message would be 9.6 MB or more.
        assertThat(allocated).as("bytes allocated over 600,000 messages").isLessThan(65_536);
    }
}
