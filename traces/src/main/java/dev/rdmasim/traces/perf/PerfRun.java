package dev.rdmasim.traces.perf;

import static dev.rdmasim.ndk.NdkOpFlags.NDK_OP_FLAG_DEFER;
import static dev.rdmasim.ndk.NdkOpFlags.NDK_OP_FLAG_INLINE;
import static dev.rdmasim.ndk.NdkOpFlags.NDK_OP_FLAG_SILENT_SUCCESS;
import static dev.rdmasim.ndk.NtStatus.STATUS_INSUFFICIENT_RESOURCES;
import static dev.rdmasim.ndk.NtStatus.STATUS_SUCCESS;

import dev.rdmasim.adapter.config.Parameters;
import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.ndk.NdkResult;
import dev.rdmasim.ndk.NtStatus;
import dev.rdmasim.traces.Topology;
import dev.rdmasim.traces.record.TraceRecorder;
import dev.rdmasim.traces.perf.PerfTest.Verb;

/**
 * One perf run: the simulation, the two connected sides, and the workload loops of each test. Sizes run one
 * after the other on the same connections; each size starts with every queue drained.
 */
final class PerfRun {
    /**
     * Simulated time in which neither adapter retired a request (signaled or not, after however many retries) after
     * which the run is declared stuck: far longer than the transport's timers need to recover from a loss.
     */
    static final long STALL_LIMIT_PS = 1_000_000_000_000L;
    /** Events run between checks that requests still retire. */
    private static final long STRETCH = 0x10000;
    private static final int POLL_BATCH = 16;

    private final PerfOptions o;
    private final PerfTest test;
    private final Simulator sim;
    private final PerfSide client;
    private final PerfSide server;
    /** The client's threads, one per core in use (QP q on thread q mod threads); the first runs latency tests. */
    private final HostThread[] clientThreads;
    private final HostThread[] serverThreads;
    private final HostThread clientThread;
    private final HostThread serverThread;
    private final NdkResult[] clientResults = results();
    private final NdkResult[] serverResults = results();
    private long lastProgressPs;
    private long retiredSeen;
    private boolean done;
    private final Topology topology;
    /** {@code host.eventPerPoll}: every empty poll is an event (the reference), no thread sleeps. */
    private final boolean eventPerPoll;

    PerfRun(PerfOptions options, TraceRecorder recorder) {
        this.o = options;
        this.test = options.test();
        Profile p = options.effectiveProfile();
        sim = new Simulator(options.seed());
        Topology topo = Topology.twoHosts(sim, p);
        topology = topo;
        if (recorder != null) {
            // The client is host A, the server host B; their CQs are polled by the workload (manual).
            recorder.host(topo.adapter(0), "A", p);
            recorder.host(topo.adapter(1), "B", p);
        }
        int area = PerfSide.areaFor(maxSize(options));
        boolean sends = test.verb() == Verb.SEND;
        int rq = sends ? options.rxDepth() : 1;
        client = new PerfSide(sim, topo.adapter(0), "client", options.qps(), area, rq, options.txDepth(),
                options.inlineSize());
        server = new PerfSide(sim, topo.adapter(1), "server", options.qps(), area, rq, options.txDepth(),
                options.inlineSize());
        if (sends) {
            // Receives may be posted before the connection: the peer never finds an empty queue at the start.
            for (PerfSide s : new PerfSide[] {client, server}) {
                for (int q = 0; q < options.qps(); q++) {
                    for (int k = 0; k < rq; k++) {
                        s.postReceive(q);
                    }
                }
            }
        }
        PerfSide.connect(sim, client, server);
        long pollPs = p.getLong(Parameters.HOST_POLL_TIME);
        eventPerPoll = p.getBoolean(Parameters.HOST_EVENT_PER_POLL);
        clientThreads = threads(topo, 0, client.threads(), "perfClient", pollPs, 0);
        serverThreads = threads(topo, 1, server.threads(), "perfServer", pollPs, client.threads());
        clientThread = clientThreads[0];
        serverThread = serverThreads[0];
        if (!eventPerPoll) {
            client.sleepOnCqs(clientThreads);
            server.sleepOnCqs(serverThreads);
        }
        if (test == PerfTest.SEND_BW) {
            // The server keeps its receives posted for the whole run, reposting each one as it completes.
            for (int t = 0; t < serverThreads.length; t++) {
                int tt = t;
                serverThreads[t].start(() -> serverReceiveTurn(tt));
            }
        }
    }

    /** Thread t on core t of host {@code host}; the first keeps the one-thread name. Orders from {@code order}. */
    private HostThread[] threads(Topology topo, int host, int n, String name, long pollPs, int order) {
        HostThread[] t = new HostThread[n];
        for (int i = 0; i < n; i++) {
            t[i] = new HostThread(sim, topo.host(host).driver(), i, i == 0 ? name : name + i, pollPs, order + i,
                    eventPerPoll);
        }
        return t;
    }

    /** Tells the thread its turn was an empty poll, if it may sleep through the next ones ({@code turns} not null). */
    private static void idle(HostThread thread, HostThread.IdleTurns turns) {
        if (turns != null) {
            thread.idle(turns);
        }
    }

    private static int maxSize(PerfOptions o) {
        return o.sizes().stream().mapToInt(Integer::intValue).max().orElseThrow();
    }

    private static NdkResult[] results() {
        NdkResult[] r = new NdkResult[POLL_BATCH];
        for (int i = 0; i < r.length; i++) {
            r[i] = new NdkResult();
        }
        return r;
    }

    PerfResult runSize(int size) {
        long wallStart = System.nanoTime();
        return test.isBandwidth() ? bandwidth(size, wallStart) : latency(size, wallStart);
    }

    Simulator sim() {
        return sim;
    }

    /** The workload (or one latency player) is done: the run returns after the event now running. */
    private void finished() {
        done = true;
        sim.stop();
    }

    void finish() {
        for (HostThread t : serverThreads) {
            t.stop();
        }
        for (HostThread t : clientThreads) {
            t.stop();
        }
    }

    /**
     * Runs the simulation until the workload is done (the event that finds it done stops the run), in stretches of
     * {@link #STRETCH} events between checks that requests still retire: a long stretch of simulated time without
     * progress is a failure.
     */
    private void awaitDone() {
        lastProgressPs = sim.now();
        while (!done) {
            long ran = sim.run(STRETCH);
            if (done) {
                break;
            }
            if (ran < STRETCH) {
                // Requests still held by an adapter with nothing left to happen are the model's fault, not the run's.
                topology.host(0).adapter().checkNothingOutstanding();
                topology.host(1).adapter().checkNothingOutstanding();
                throw new PerfFailure(test.label() + ": the simulation ran out of events before the workload ended");
            }
            // A lossy link retires requests slowly, each loss costing a retransmission timeout, and completions
            // may be many requests apart (-Q): any request the adapters retire is progress.
            long retired = topology.host(0).adapter().requestsRetired() + topology.host(1).adapter().requestsRetired();
            if (retired != retiredSeen) {
                retiredSeen = retired;
                lastProgressPs = sim.now();
            } else if (sim.now() - lastProgressPs > STALL_LIMIT_PS) {
                throw new PerfFailure(test.label() + ": no request retired for " + STALL_LIMIT_PS / 1_000_000_000L
                        + " ms of simulated time (at " + sim.now() + " ps)");
            }
        }
        done = false;
    }

    private void progress() {
        lastProgressPs = sim.now();
    }

    private static double wallSince(long start) {
        return (System.nanoTime() - start) / 1e9;
    }

    private boolean inline(int size) {
        return test.verb() != Verb.READ && size <= o.inlineSize();
    }

    private boolean signaled(long k, int n) {
        return (k + 1) % o.cqMod() == 0 || k == n - 1;
    }

    // ---------------------------------------------------------------- bandwidth

    private int bwSize;
    private int bwFlags;
    private long[] posted;
    private long[] completed;
    private long[] tPosted;
    private long[] tCompleted;
    /** Per request (QP q's k-th at q * n + k): when it was posted, then its post-to-completion latency. */
    private long[] reqLatency;
    private int totalPosted;
    private int totalCompleted;
    /** Client threads still running this size (each stops once its QPs are done). */
    private int threadsRunning;
    private long receivesExpected;
    private long receivesTaken;

    private PerfResult bandwidth(int size, long wallStart) {
        int n = o.iterations();
        int total = n * o.qps();
        bwSize = size;
        bwFlags = inline(size) ? NDK_OP_FLAG_INLINE : 0;
        posted = new long[o.qps()];
        completed = new long[o.qps()];
        tPosted = new long[total];
        tCompleted = new long[total];
        reqLatency = new long[total];
        totalPosted = 0;
        totalCompleted = 0;
        client.prepare(size, server);
        threadsRunning = clientThreads.length;
        for (int t = 0; t < clientThreads.length; t++) {
            int tt = t;
            clientThreads[t].start(() -> bandwidthTurn(tt));
        }
        awaitDone();
        if (clientThreads.length > 1) {
            // Threads post and poll side by side, each in its own time: the i-th post (completion) of the run is
            // the i-th in time, as one thread records them.
            java.util.Arrays.sort(tPosted);
            java.util.Arrays.sort(tCompleted);
        }
        if (test == PerfTest.SEND_BW) {
            // Every send was acknowledged, but the server may not have polled every receive yet: wait for it
            // before the next size, as perftest's two sides meet between sizes.
            receivesExpected += total;
            PerfSide.await(sim, () -> receivesTaken == receivesExpected, "the server's receive completions");
        }
        long span = tCompleted[total - 1] - tPosted[0];
        java.util.Arrays.sort(reqLatency);
        return new BwResult(test, size, total,
                PerfStats.peakGbps(size, tPosted, tCompleted, o.postList(), o.cqMod()),
                PerfStats.avgGbps(size, total, tPosted, tCompleted), PerfStats.msgRateMpps(total, tPosted, tCompleted),
                PerfStats.percentile(reqLatency, total, 50.0) / 1e6, PerfStats.percentile(reqLatency, total, 99.0) / 1e6,
                PerfStats.percentile(reqLatency, total, 99.9) / 1e6, span, wallSince(wallStart));
    }

    /**
     * One turn of client thread {@code t}'s loop, as perftest's: fill each of its QPs up to the depth in post
     * lists, then poll its CQ.
     */
    private void bandwidthTurn(int t) {
        int n = o.iterations();
        int step = clientThreads.length;
        HostThread thread = clientThreads[t];
        long postedBefore = totalPosted;
        boolean refused = false;
        for (int q = t; q < o.qps(); q += step) {
            if (!postSome(q, n, thread)) {
                refused = true;
                break; // the core's work queue is full: the thread is busy until it drains
            }
        }
        boolean mine = false;
        for (int q = t; q < o.qps(); q += step) {
            mine |= completed[q] < n;
        }
        if (mine) {
            int got = client.initiatorCq(t).getCqResults(clientResults, POLL_BATCH);
            long at = thread.clock();
            for (int i = 0; i < got; i++) {
                NdkResult r = clientResults[i];
                int q = client.check(r, test.label());
                long done = completed[q];
                // The CQE is the next signaled request of this QP; it retires the silent ones before it.
                long last = Math.min(n - 1, (done / o.cqMod() + 1) * o.cqMod() - 1);
                for (long k = done; k <= last; k++) {
                    tCompleted[totalCompleted++] = at;
                    int id = q * n + (int) k;
                    reqLatency[id] = at - reqLatency[id];
                }
                completed[q] = last + 1;
            }
            if (got > 0) {
                progress();
                for (int q = t; q < o.qps(); q += step) {
                    client.checkOutstanding(q, posted[q] - completed[q]);
                }
            } else if (!refused && totalPosted == postedBefore) {
                // Nothing posted (every QP at its depth) and nothing polled: until a CQE lands it stays so.
                idle(thread, client.initiatorIdle(t));
            }
        }
        boolean left = false;
        for (int q = t; q < o.qps(); q += step) {
            left |= completed[q] < n;
        }
        if (!left) {
            thread.stop();
            if (--threadsRunning == 0) {
                finished();
            }
        }
    }

    /** Posts QP {@code q}'s next requests while a whole post list fits the depth; false if the core is full. */
    private boolean postSome(int q, int n, HostThread thread) {
        int l = o.postList();
        while (posted[q] < n) {
            long k = posted[q];
            if (k % l == 0 && k - completed[q] + l > o.txDepth()) {
                return true;
            }
            int flags = bwFlags | (k % l != l - 1 && k != n - 1 ? NDK_OP_FLAG_DEFER : 0)
                    | (signaled(k, n) ? 0 : NDK_OP_FLAG_SILENT_SUCCESS);
            long at = thread.clock();
            int s = client.post(q, test.verb(), flags);
            if (s == STATUS_INSUFFICIENT_RESOURCES) {
                return false;
            }
            if (s != STATUS_SUCCESS) {
                throw new PerfFailure(test.label() + ": posting request " + k + " of QP " + q + " of " + bwSize
                        + " B failed with " + NtStatus.name(s));
            }
            tPosted[totalPosted++] = at;
            reqLatency[q * n + (int) k] = at;
            posted[q]++;
        }
        return true;
    }

    /** send_bw's server thread {@code t}: takes its receive completions and reposts each receive. */
    private void serverReceiveTurn(int t) {
        int got = server.receiveCq(t).getCqResults(serverResults, POLL_BATCH);
        if (got == 0 && !server.owesReposts(t)) {
            idle(serverThreads[t], server.receiveIdle(t));
            return;
        }
        for (int i = 0; i < got; i++) {
            NdkResult r = serverResults[i];
            int q = server.check(r, test.label() + " server");
            if (r.bytesTransferred != bwSize) {
                throw new PerfFailure(test.label() + ": a receive got " + r.bytesTransferred + " B, sent " + bwSize);
            }
            server.owe(q);
            receivesTaken++;
        }
        server.repostOwed(t);
    }

    // ---------------------------------------------------------------- latency

    /** Where one ping-pong side is in its current iteration. */
    private enum Step { POST, WAIT_INITIATOR, WAIT_ARRIVAL, DONE }

    /** One side of a latency test: its iteration, its step, and how many requests it posted this size. */
    private final class Player {
        final PerfSide side;
        final HostThread thread;
        final NdkResult[] results;
        final boolean starts;
        Step step;
        int iteration;

        Player(PerfSide side, HostThread thread, NdkResult[] results, boolean starts) {
            this.side = side;
            this.thread = thread;
            this.results = results;
            this.starts = starts;
        }

        void reset() {
            iteration = 0;
            step = starts ? Step.POST : Step.WAIT_ARRIVAL;
        }
    }

    private Player clientPlayer;
    private Player serverPlayer;
    private int latSize;
    private long[] latPosted;
    private long latEnd;
    private int playersDone;

    private PerfResult latency(int size, long wallStart) {
        int n = o.iterations();
        if (clientPlayer == null) {
            clientPlayer = new Player(client, clientThread, clientResults, true);
            serverPlayer = new Player(server, serverThread, serverResults, false);
        }
        latSize = size;
        latPosted = new long[n];
        client.prepare(size, server);
        server.prepare(size, client);
        clientPlayer.reset();
        serverPlayer.reset();
        playersDone = 0;
        boolean pingPong = test.verb() != Verb.READ;
        boolean watchFlags = test == PerfTest.WRITE_LAT && !eventPerPoll;
        if (test == PerfTest.WRITE_LAT) {
            // The arrival flag is the last byte of the receive area; it starts clear for this size.
            client.clearFlag(size);
            server.clearFlag(size);
        }
        if (watchFlags) {
            // A side spinning on its flag sleeps until the peer's WRITE reaches it. Watched from before the first
            // post, so the root complex sees every write to the flag as watched.
            client.watchFlag(size, clientThread::wake);
            server.watchFlag(size, serverThread::wake);
        }
        clientThread.start(() -> play(clientPlayer));
        if (pingPong) {
            serverThread.start(() -> play(serverPlayer));
        }
        int players = pingPong ? 2 : 1;
        while (playersDone < players) {
            awaitDone();
        }
        if (watchFlags) {
            client.watchFlag(size, null);
            server.watchFlag(size, null);
        }
        long[] samples = new long[n - 1];
        for (int i = 0; i < n - 1; i++) {
            samples[i] = latPosted[i + 1] - latPosted[i];
        }
        int rtt = test.verb() == Verb.READ ? 1 : 2;
        return PerfStats.latency(test, size, n, samples, rtt, latEnd - latPosted[0], wallSince(wallStart));
    }

    /** The write_lat flag of iteration {@code i}: never 0 (the cleared value), and different from the last one. */
    private static byte flag(int i) {
        return (byte) (i % 255 + 1);
    }

    /**
     * One turn of a latency side. The client posts (recording the time), then, if that request is signaled, waits
     * for its completion, then waits for the answer; the server waits for the message, then answers. read_lat's
     * client waits for each READ's completion instead of an answer. A turn ends after each post, so the next
     * step is taken when the core has done the post's work.
     */
    private void play(Player p) {
        int n = o.iterations();
        while (true) {
            switch (p.step) {
                case POST -> {
                    int k = p.iteration;
                    boolean sig = test.verb() == Verb.READ || signaled(k, n);
                    int flags = (inline(latSize) ? NDK_OP_FLAG_INLINE : 0) | (sig ? 0 : NDK_OP_FLAG_SILENT_SUCCESS);
                    if (test == PerfTest.WRITE_LAT) {
                        p.side.setFlag(latSize, flag(k));
                    }
                    long at = p.thread.clock();
                    int s = p.side.post(0, test.verb(), flags);
                    if (s == STATUS_INSUFFICIENT_RESOURCES) {
                        return; // try again next turn
                    }
                    if (s != STATUS_SUCCESS) {
                        throw new PerfFailure(test.label() + ": " + p.side.name() + " posting iteration " + k + " of "
                                + latSize + " B failed with " + NtStatus.name(s));
                    }
                    if (p.starts) {
                        latPosted[k] = at;
                    }
                    p.step = sig ? Step.WAIT_INITIATOR : p.starts && test.verb() != Verb.READ ? Step.WAIT_ARRIVAL
                            : next(p);
                    return;
                }
                case WAIT_INITIATOR -> {
                    if (p.side.initiatorCq().getCqResults(p.results, 1) == 0) {
                        idle(p.thread, p.side.initiatorIdle(0));
                        return;
                    }
                    p.side.check(p.results[0], test.label() + " " + p.side.name());
                    progress();
                    p.step = p.starts && test.verb() != Verb.READ ? Step.WAIT_ARRIVAL : next(p);
                }
                case WAIT_ARRIVAL -> {
                    if (!arrived(p)) {
                        if (test == PerfTest.WRITE_LAT) {
                            p.thread.idle(HostThread.FREE); // an empty look at the flag: only the peer's WRITE changes it
                        } else {
                            idle(p.thread, p.side.receiveIdle(0));
                        }
                        return;
                    }
                    progress();
                    p.step = p.starts ? next(p) : Step.POST;
                }
                case DONE -> {
                    p.thread.stop();
                    if (p.starts) {
                        latEnd = p.thread.clock();
                    }
                    playersDone++;
                    finished();
                    return;
                }
                default -> throw new IllegalStateException("step " + p.step);
            }
        }
    }

    /** The iteration is over: the next one starts, or the side is done. */
    private Step next(Player p) {
        p.iteration++;
        if (p.iteration == o.iterations()) {
            return Step.DONE;
        }
        return p.starts ? Step.POST : Step.WAIT_ARRIVAL;
    }

    /** Whether the peer's message of this iteration is here; a received SEND's receive is reposted at once. */
    private boolean arrived(Player p) {
        if (test == PerfTest.WRITE_LAT) {
            return p.side.flagIs(latSize, flag(p.iteration));
        }
        if (p.side.receiveCq().getCqResults(p.results, 1) == 0) {
            return false;
        }
        NdkResult r = p.results[0];
        int q = p.side.check(r, test.label() + " " + p.side.name());
        if (r.bytesTransferred != latSize) {
            throw new PerfFailure(test.label() + ": a receive got " + r.bytesTransferred + " B, sent " + latSize);
        }
        p.side.owe(q);
        p.side.repostOwed(0);
        return true;
    }
}
