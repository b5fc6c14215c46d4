package dev.rdmasim.traces.replay;

import static dev.rdmasim.ndk.NtStatus.*;

import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.config.Profiles;
import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.adapter.nic.LifecycleListener;
import dev.rdmasim.adapter.nic.Stage;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.ndk.NdkAdapter;
import dev.rdmasim.ndk.NdkAddress;
import dev.rdmasim.ndk.NdkConnector;
import dev.rdmasim.ndk.NdkCq;
import dev.rdmasim.ndk.NdkListener;
import dev.rdmasim.ndk.NdkMr;
import dev.rdmasim.ndk.NdkObject;
import dev.rdmasim.ndk.NdkOperationType;
import dev.rdmasim.ndk.NdkPd;
import dev.rdmasim.ndk.NdkQp;
import dev.rdmasim.ndk.NdkResultEx;
import dev.rdmasim.ndk.NdkSge;
import dev.rdmasim.ndk.NtStatus;
import dev.rdmasim.ndk.Out;
import dev.rdmasim.traces.Topology;
import dev.rdmasim.traces.format.Buffer;
import dev.rdmasim.traces.format.Fill;
import dev.rdmasim.traces.format.Remote;
import dev.rdmasim.traces.format.TimeSpec;
import dev.rdmasim.traces.format.TraceChecker;
import dev.rdmasim.traces.format.TraceError;
import dev.rdmasim.traces.format.TraceLine;
import dev.rdmasim.traces.format.TraceReader;
import dev.rdmasim.traces.record.TraceRecorder;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * Replays a trace against two modeled hosts: a first pass checks the whole file (so a bad line stops the
 * run before anything is written), then the second pass streams it, running each declaration to
 * completion and each call at its time, in simulated time.
 *
 * <p>Outputs are written under temporary names and renamed only when the replay finished, so a failed run
 * leaves nothing that claims to be complete.
 */
public final class Replay {
    static final int POLL_BATCH = 16;
    private static final long MAX_LATENCY_PS = 3_600_000_000_000_000L;

    /** The trace: how it is named in outputs and messages, where its relative profile files lie, and its text. */
    private final Source trace;
    private final ReplayOptions options;
    private final Simulator sim;
    private TraceReader reader;
    private Topology topology;
    private final String[] hostNames = new String[2];
    private final Map<String, Object> objects = new HashMap<>();
    private final Map<String, long[]> buffers = new HashMap<>();
    /** Every CQ in creation order, for the notification counts of the summary. */
    private final Map<String, CqEntry> cqs = new java.util.LinkedHashMap<>();

    // Line execution.
    private TraceLine pending;
    /** The line run last (the one a run that ran out of events was blocked on). */
    private long lastTime;
    private final long[] anchors = new long[64];
    private boolean blocked;
    private boolean finished;
    private Event step;
    private Waiter waiter;
    /** Writes the replay's NDK calls as a trace ({@code --record}), or null. */
    private TraceRecorder recorder;
    private java.util.function.Consumer<RequestStages> requestListener;

    // Outputs and tallies.
    private ReplayOutputs outputs;
    private LifecycleLog lifecycle;
    /** The line that runs now, or that blocked (a declaration waiting for its creation): runtime errors point at it. */
    private TraceLine running;
    /** Posted requests whose line expects a status, until their completion is taken (in posting order). */
    private final Map<Request, Request> expecting = new java.util.LinkedHashMap<>();
    /**
     * Posts the provider refused, by context (the last one of each) and by the CQ their completion would have gone to:
     * a wait that then never ends names the refusal as its cause. A later post of the context, or for the CQ, that
     * succeeds takes its place.
     */
    private final Map<String, RefusedPost> refusedByCtx = new HashMap<>();
    private final Map<String, RefusedPost> refusedByCq = new HashMap<>();
    /** The CQs some {@code wait ... ctx=} line waits on: the contexts taken from them are remembered. */
    private java.util.Set<String> waitedByContext = java.util.Set.of();
    private long calls;
    private long late;
    private Progress progress;
    /** Call lines run (waits and polls included), for the progress report. */
    private long callLines;
    // When the trace has ended, the replay stops once every initiator request has been retired by its adapter
    // and every completion an auto-polled CQ owes has been taken: nothing after that is the trace's doing.
    private long postedInitiator;
    private long adapterRetired;
    private long expectedTaken;
    private long taken;
    /** When the first call (not a declaration) ran: throughput is measured from there. */
    private long firstCallPs = -1;
    private long bytesMoved;
    private final Map<String, Long> statusCounts = new TreeMap<>();
    private final Histogram latency = new Histogram(MAX_LATENCY_PS / 1000, 3);

    /**
     * Where a trace comes from: a file, or a text a caller holds (a sweep point's trace, sent to a worker), read
     * twice (the checker's pass, then the run).
     *
     * @param name    the file name in messages ({@code name:line:col}) and in {@code summary.json}
     * @param baseDir where profile files named by {@code host} lines are looked up
     */
    record Source(String name, Path baseDir, java.util.concurrent.Callable<TraceReader> opener) {
        static Source of(Path file) {
            return new Source(file.toString(), file.toAbsolutePath().getParent(), () -> TraceReader.open(file));
        }

        TraceReader open() throws IOException {
            try {
                return opener.call();
            } catch (IOException | RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }

        /** The last part of the name, for the comment of a recording. */
        String fileName() {
            int slash = Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\'));
            return name.substring(slash + 1);
        }
    }

    private Replay(Source trace, ReplayOptions options) {
        this.trace = trace;
        this.options = options;
        this.sim = new Simulator(options.seed());
    }

    /**
     * Checks and replays {@code trace}. A bad trace throws {@link TraceError} (file:line:column) before any
     * output is written; a bad override throws {@link dev.rdmasim.adapter.config.ProfileException}.
     */
    public static ReplayResult run(Path trace, ReplayOptions options) throws IOException {
        return run(trace, options, t -> { });
    }

    /** The hosts after a replay, and where each memory region's buffer lies in its host's memory. */
    public record Inspection(Topology topology, Map<String, Long> bufferAddresses) {
    }

    /** What a long replay reports as it goes: the number of calls in the trace, then the calls run so far. */
    public interface Progress {
        default void started(long totalCalls) {
        }

        default void progress(long callsDone) {
        }

        /** The first request is being posted: the setup (declarations, connections) is over. */
        default void measuring(Simulator sim) {
        }
    }

    /**
     * One initiator request's way through the adapters, or one consumed receive's (op {@code receive}), as a row of
     * {@code lifecycle.csv} says it, for tools that explain requests.
     *
     * @param seq    its number in posting order over the whole trace, from 1 (0 for a receive)
     * @param host   the index of the host that posted it (0 for the first host line, 1 for the second)
     * @param flags  the call's {@code NDK_OP_FLAG_*} flags
     * @param stamps picoseconds per {@link Stage} (by ordinal), {@link Stage#NOT_REACHED} where it skipped one
     */
    public record RequestStages(long seq, int host, String qp, String ctx, String op, long bytes, int flags,
            long[] stamps) {
        public long at(Stage s) {
            return stamps[s.ordinal()];
        }
    }

    /** As {@link #run(Path, ReplayOptions)}, then hands the hosts to {@code inspect} (their memories, statistics). */
    public static ReplayResult run(Path trace, ReplayOptions options, java.util.function.Consumer<Inspection> inspect)
            throws IOException {
        return run(trace, options, inspect, null, null);
    }

    /** As {@link #run(Path, ReplayOptions, java.util.function.Consumer)}, handing each request's stages to {@code requests}. */
    public static ReplayResult run(Path trace, ReplayOptions options, java.util.function.Consumer<Inspection> inspect,
            java.util.function.Consumer<RequestStages> requests) throws IOException {
        return run(trace, options, inspect, requests, null);
    }

    /**
     * As {@link #run(Path, ReplayOptions, java.util.function.Consumer)}, handing each initiator request's stages
     * to {@code requests} when its row of {@code lifecycle.csv} is written, and reporting to {@code progress}
     * (either may be null).
     */
    public static ReplayResult run(Path trace, ReplayOptions options, java.util.function.Consumer<Inspection> inspect,
            java.util.function.Consumer<RequestStages> requests, Progress progress) throws IOException {
        return run(Source.of(trace), options, inspect, requests, progress);
    }

    /**
     * As {@link #run(Path, ReplayOptions, java.util.function.Consumer, java.util.function.Consumer, Progress)}, for a
     * trace given as text: {@code fileName} names it in messages and outputs, and profile files its {@code host} lines
     * name are looked up in {@code baseDir}. Nothing is read from or written to the file system for the trace.
     */
    public static ReplayResult runText(String fileName, String text, Path baseDir, ReplayOptions options,
            java.util.function.Consumer<Inspection> inspect, java.util.function.Consumer<RequestStages> requests,
            Progress progress) throws IOException {
        return run(new Source(fileName, baseDir, () -> new TraceReader(new java.io.StringReader(text), fileName)),
                options, inspect, requests, progress);
    }

    private static ReplayResult run(Source trace, ReplayOptions options, java.util.function.Consumer<Inspection> inspect,
            java.util.function.Consumer<RequestStages> requests, Progress progress) throws IOException {
        TraceChecker.Checked checked;
        try (TraceReader reader = trace.open()) {
            checked = TraceChecker.checkForReplay(reader, trace.baseDir(), options.baseProfile(), options.overrides());
        }
        TraceChecker.Summary summary = checked.summary();
        Replay r = new Replay(trace, options);
        r.waitedByContext = checked.waitedByContext();
        r.requestListener = requests;
        r.progress = progress;
        if (progress != null) {
            progress.started(summary.calls());
        }
        ReplayResult result = r.replay();
        Map<String, Long> addresses = new TreeMap<>();
        r.buffers.forEach((name, b) -> addresses.put(name, b[0]));
        inspect.accept(new Inspection(r.topology, addresses));
        return result;
    }

    private ReplayResult replay() throws IOException {
        boolean ok = false;
        try (TraceReader r = trace.open()) {
            reader = r;
            outputs = new ReplayOutputs(options, sim);
            buildHosts();
            outputs.checkSignalGlobs();
            outputs.open(topology, requestListener);
            lifecycle = outputs.lifecycle();
            for (int h = 0; h < 2; h++) {
                int host = h;
                topology.host(h).adapter().addLifecycleListener((nic, qpn, idx, op, bytes, syndrome, stamps) -> {
                    if (op == LifecycleListener.RECEIVE) {
                        lifecycle.receiveRetired(host, qpn, idx, stamps); // the sender's request counts its bytes
                        return;
                    }
                    if (syndrome == 0) {
                        bytesMoved += bytes; // signaled or not: an unsignaled request moves its bytes too
                    }
                    lifecycle.retired(host, qpn, idx, stamps);
                    adapterRetired++;
                    stopIfDone();
                });
            }
            step = sim.event("replay.step", this::pump);
            step.schedule(0);
            sim.run();
            if (!finished) {
                // Requests still held by an adapter with nothing left to happen are the model's fault, not the trace's.
                for (int h = 0; h < 2; h++) {
                    topology.host(h).adapter().checkNothingOutstanding();
                }
                if (waiter != null) {
                    throw new TraceError(waiter.line.position(), "the simulation ran out of events while "
                            + waiter.describe() + " waited: " + waiter.cause());
                }
                throw new TraceError(running != null ? running.position() : null, "the simulation ran out of events "
                        + "while the declaration waited for its completion: nothing more can happen");
            }
            if (!expecting.isEmpty()) {
                Request q = expecting.values().iterator().next();
                throw new TraceError(q.expectAt, "expected " + NtStatus.name(q.expect) + " (" + NtStatus.hex(q.expect)
                        + ") from '" + q.ctx + "', but the replay ended before its completion was taken");
            }
            if (recorder != null) {
                recorder.close();
                recorder = null;
            }
            ReplayResult result = outputs.result(sim.now(), firstCallPs < 0 ? 0 : firstCallPs, sim.eventsExecuted(),
                    calls, bytesMoved, new TreeMap<>(statusCounts), percentileNs(50), percentileNs(99));
            Map<String, Long> notifications = new java.util.LinkedHashMap<>();
            cqs.forEach((name, c) -> notifications.put(name, c.notifications));
            outputs.finish(file -> Summary.write(file, trace.name(), options, hostNames, topology, result, latency, late,
                    notifications, sim));
            ok = true;
            return result;
        } finally {
            if (!ok) {
                if (outputs != null) {
                    outputs.abandon();
                }
                if (recorder != null) {
                    recorder.abandon();
                }
            }
        }
    }

    private double percentileNs(double p) {
        return latency.getTotalCount() == 0 ? Double.NaN : latency.getValueAtPercentile(p);
    }

    // ------------------------------------------------------------------ setup

    /** Reads the host lines (they come first) and builds the two cabled hosts. */
    private void buildHosts() {
        Profile[] profiles = new Profile[2];
        int n = 0;
        TraceLine l;
        while ((l = reader.next()) != null && l.keyword().equals("host")) {
            hostNames[n] = l.positional(0);
            profiles[n] = profile(l);
            n++;
        }
        pending = l;
        if (n == 1) {
            // One host declared: the cable's other end is a second host with the same profile, unused.
            hostNames[1] = null;
            profiles[1] = profiles[0];
        }
        if (n == 0) {
            profiles[0] = profiles[1] = Profiles.resolve(options.baseProfile()).withOverrides(options.overrides());
        }
        topology = Topology.twoHosts(sim, profiles[0], profiles[1]);
        if (options.record() != null) {
            startRecording(n, profiles);
        }
    }

    /**
     * Records the hosts of the trace. The replay writes its own poll and wait lines (the recorder sees only the
     * NDK calls, not when a wait started), and CQs keep their polling mode, so the recorded trace polls as this
     * replay did.
     */
    private void startRecording(int declared, Profile[] profiles) {
        try {
            recorder = new TraceRecorder(options.record(), "recorded by rdmasim replay " + trace.fileName()
                    + " (seed " + options.seed() + ")");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot record into " + options.record(), e);
        }
        recorder.recordPolls(false);
        for (int h = 0; h < Math.max(1, declared); h++) {
            recorder.host(topology.adapter(h), hostNames[h] != null ? hostNames[h] : h == 0 ? "A" : "B", profiles[h]);
        }
    }

    /** The host's profile as the checker loads it (names, files relative to the trace), then the run's overrides. */
    private Profile profile(TraceLine host) {
        return TraceChecker.hostProfile(host, trace.baseDir(), options.baseProfile(),
                options.overrides());
    }

    private int hostIndex(String objectName) {
        String host = objectName.substring(0, objectName.indexOf('.'));
        return host.equals(hostNames[0]) || hostNames[0] == null ? 0 : 1;
    }

    private NdkAdapter adapterOf(String objectName) {
        return topology.adapter(hostIndex(objectName));
    }

    @SuppressWarnings("unchecked")
    private <T> T object(TraceLine l, String name, Class<T> type) {
        Object o = objects.get(name);
        if (!type.isInstance(o)) {
            // The checker has seen every name declared before use; a missing one means its creation failed.
            throw new TraceError(l.position(), "'" + name + "' does not exist (its creation failed earlier)");
        }
        return (T) o;
    }

    // ------------------------------------------------------------------ the line loop

    /** Runs lines until one lies in the future or waits for a completion. */
    private void pump() {
        while (!blocked && !finished) {
            if (pending == null) {
                pending = reader.next();
                if (pending == null) {
                    finished = true;
                    stopIfDone();
                    return;
                }
            }
            long at = resolve(pending.time());
            if (at > sim.now()) {
                step.reschedule(at); // a call that resumed the replay at once may have scheduled it already
                return;
            }
            if (at < sim.now()) {
                late++;
            }
            TraceLine l = pending;
            pending = null;
            running = l;
            lastTime = sim.now();
            if (l.isCall()) {
                callLines++;
                if (progress != null) {
                    progress.progress(callLines);
                }
            }
            if (l.time().setAnchor() >= 0) {
                anchors[l.time().setAnchor()] = lastTime;
            }
            execute(l);
        }
    }

    private void stopIfDone() {
        if (finished && adapterRetired >= postedInitiator && taken >= expectedTaken) {
            sim.stop();
        }
    }

    private long resolve(TimeSpec t) {
        long at = switch (t.kind()) {
            case NONE -> lastTime;
            case ABSOLUTE -> t.ps();
            case RELATIVE -> lastTime + t.ps();
            case ANCHORED -> anchors[t.anchor()] + t.ps();
        };
        // The checker bounds each line's earliest time; a line that blocked long can still push a later one past it.
        if (at > TimeSpec.MAX_PS || at < 0 && t.kind() != TimeSpec.Kind.ANCHORED) {
            throw new TraceError(pending.position(), "this line runs past the latest time a trace may use (2^62 ps,"
                    + " about 53 days)");
        }
        return at;
    }

    /** The current line waits for something asynchronous; {@link #resume} continues. */
    private void block() {
        blocked = true;
    }

    private void resume() {
        blocked = false;
        // The line that blocked finished now: later lines are timed from here.
        lastTime = sim.now();
        if (!step.scheduled()) {
            step.schedule(sim.now());
        }
    }

    private void execute(TraceLine l) {
        switch (l.keyword()) {
            case "host" -> throw new TraceError(l.position(), "host lines come before every other line");
            case "cq" -> createCq(l);
            case "pd" -> createPd(l);
            case "mr" -> createMr(l);
            case "qp" -> createQp(l);
            case "connect" -> connect(l);
            case "send", "receive", "write", "read" -> post(l);
            case "flush" -> {
                calls++;
                object(l, l.positional(0), QpEntry.class).qp.flush();
            }
            case "arm" -> {
                calls++;
                CqEntry c = object(l, l.positional(0), CqEntry.class);
                int type = l.notifyType(1);
                int s = c.cq.armCq(type);
                if (s == STATUS_SUCCESS) {
                    c.armed(type);
                }
                refused(l, s, "arm", null, null);
                outcome(l, s);
            }
            case "poll" -> {
                calls++;
                CqEntry c = object(l, l.positional(0), CqEntry.class);
                int max = (int) l.integer("max", POLL_BATCH);
                if (recorder != null) {
                    recorder.pollLine(sim.now(), c.cq, max);
                }
                pollOnce(c, max);
            }
            case "wait" -> startWait(l);
            case "moderate" -> {
                calls++;
                CqEntry c = object(l, l.positional(0), CqEntry.class);
                long us = l.time("interval") / 1_000_000L;
                int s = c.cq.controlCqInterruptModeration(us, l.integer("count"));
                refused(l, s, "moderate", null, null);
                outcome(l, s);
            }
            case "resize" -> {
                calls++;
                CqEntry c = object(l, l.positional(0), CqEntry.class);
                int s = c.cq.resizeCq(l.integer("depth"), (ctx, st) -> {
                    refused(l, st, "resize", null, null);
                    outcome(l, st);
                }, null);
                if (s != STATUS_PENDING) {
                    refused(l, s, "resize", null, null);
                    outcome(l, s);
                }
            }
            case "disconnect" -> {
                calls++;
                QpEntry q = object(l, l.positional(0), QpEntry.class);
                if (q.connector == null) {
                    refused(l, STATUS_CONNECTION_INVALID, "disconnect", q.name, null);
                    outcome(l, STATUS_CONNECTION_INVALID);
                    return;
                }
                int s = q.connector.disconnect((ctx, st) -> {
                    refused(l, st, "disconnect", q.name, null);
                    outcome(l, st);
                }, null);
                if (s != STATUS_PENDING) {
                    refused(l, s, "disconnect", q.name, null);
                    outcome(l, s);
                }
            }
            case "close" -> close(l);
            case "check" -> memoryCheck(l);
            case "dump" -> {
                Buffer b = l.buffer(0);
                outputs.dump(l.text("file"), topology.host(hostIndex(b.mr())).memory(), region(l, b.mr())[0] + b.offset(),
                        b.length());
            }
            default -> throw new TraceError(l.position(), "unknown keyword '" + l.keyword() + "'");
        }
    }

    /** Records a call that did not succeed (status not SUCCESS/PENDING) as a row of the completion log. */
    private void refused(TraceLine l, int status, String op, String qp, String ctx) {
        if (status == STATUS_SUCCESS || status == STATUS_PENDING) {
            return;
        }
        count(status);
        outputs.completion(sim.now(), hostNames[hostIndex(l.positional(0))], qp, null, ctx, op, status, 0);
    }

    /**
     * A call's final status against the line's {@code expect=}: a difference stops the replay at the line. Without
     * {@code expect=} any status goes (a refused call is a row of {@code completions.csv}).
     */
    private void outcome(TraceLine l, int status) {
        if (l.expects()) {
            int want = l.expectedStatus(STATUS_SUCCESS);
            if (status != want) {
                throw new TraceError(l.position("expect"), l.keyword() + " ended with " + NtStatus.name(status) + " ("
                        + NtStatus.hex(status) + "), expected " + NtStatus.name(want) + " (" + NtStatus.hex(want) + ")");
            }
        }
    }

    private void count(int status) {
        statusCounts.merge(NtStatus.name(status), 1L, Long::sum);
    }

    // ------------------------------------------------------------------ declarations

    /**
     * A creation's status: true when the object exists. A failure stops the replay at the line, unless the line
     * expects that status ({@code expect=}): then the object does not exist and the replay goes on (the checker has
     * refused every later use of its name). A success where the line expects a failure stops it too.
     */
    private boolean created(TraceLine l, String what, int status) {
        if (l.expects()) {
            int want = l.expectedStatus(STATUS_SUCCESS);
            if (status != want) {
                throw new TraceError(l.position("expect"), "creating " + what + " ended with " + NtStatus.name(status)
                        + " (" + NtStatus.hex(status) + "), expected " + NtStatus.name(want) + " (" + NtStatus.hex(want)
                        + ")");
            }
            return status == STATUS_SUCCESS;
        }
        if (status != STATUS_SUCCESS) {
            throw new TraceError(l.position(), "creating " + what + " failed with " + NtStatus.name(status)
                    + " (" + NtStatus.hex(status) + ")");
        }
        return true;
    }

    /**
     * The immediate status of an asynchronous creation (the line has blocked): pending or success, the callback
     * resumes the line; an expected failure resumes it now; any other failure stops the replay.
     */
    private void pendingOrFail(TraceLine l, String what, int status) {
        if (status == STATUS_PENDING || status == STATUS_SUCCESS) {
            return;
        }
        if (l.expects()) {
            int want = l.expectedStatus(STATUS_SUCCESS);
            if (status == want) {
                resume();
                return;
            }
            throw new TraceError(l.position("expect"), what + " returned " + NtStatus.name(status) + " ("
                    + NtStatus.hex(status) + "), expected " + NtStatus.name(want) + " (" + NtStatus.hex(want) + ")");
        }
        throw new TraceError(l.position(), what + " returned " + NtStatus.name(status) + " (" + NtStatus.hex(status)
                + ")");
    }

    private void createCq(TraceLine l) {
        String name = l.positional(0);
        NdkAdapter a = adapterOf(name);
        boolean auto = !"manual".equalsIgnoreCase(l.text("poll", "auto"));
        CqEntry entry = new CqEntry(name, hostIndex(name));
        entry.auto = auto;
        if (waitedByContext.contains(name)) {
            entry.taken = new java.util.LinkedHashMap<>();
        }
        if (recorder != null) {
            recorder.pollAuto(auto);
            recorder.nameNext(name);
        }
        block();
        int s = a.createCq(l.integer("depth"), (ctx, st) -> notified(entry, st), name, null, (ctx, st, obj) -> {
            if (!created(l, "CQ " + name, st)) {
                resume();
                return;
            }
            entry.cq = (NdkCq) obj;
            objects.put(name, entry);
            cqs.put(name, entry);
            if (auto) {
                entry.cq.setLandedListener(() -> take(entry, Integer.MAX_VALUE));
            } else {
                entry.cq.setLandedListener(() -> {
                    if (waiter != null && waiter.cq == entry) {
                        take(entry, Integer.MAX_VALUE);
                    }
                });
            }
            resume();
        }, null, new Out<>());
        pendingOrFail(l, "NdkCreateCq", s);
    }

    private void createPd(TraceLine l) {
        String name = l.positional(0);
        if (recorder != null) {
            recorder.nameNext(name);
        }
        block();
        int s = adapterOf(name).createPd((ctx, st, obj) -> {
            if (created(l, "PD " + name, st)) {
                objects.put(name, obj);
            }
            resume();
        }, null, new Out<>());
        pendingOrFail(l, "NdkCreatePd", s);
    }

    private void createMr(TraceLine l) {
        String name = l.positional(0);
        int h = hostIndex(name);
        NdkPd pd = object(l, l.text("pd"), NdkPd.class);
        long size = l.size("size");
        long address = topology.host(h).driver().allocate(size);
        fill(l, topology.host(h).memory(), address, size);
        if (recorder != null) {
            recorder.fill(topology.adapter(h), address, l.text("fill", "zero"));
            recorder.nameNext(name);
        }
        Out<NdkMr> mr = new Out<>();
        int s = pd.createMr(false, null, null, mr);
        if (!created(l, "MR " + name, s)) {
            return;
        }
        block();
        int r = mr.value.registerMr(address, size, l.mrFlags("access"), (ctx, st) -> {
            if (created(l, "MR " + name + " (registration)", st)) {
                objects.put(name, mr.value);
                buffers.put(name, new long[] {address, size});
            }
            resume();
        }, null);
        pendingOrFail(l, "NdkRegisterMr", r);
    }

    private static void fill(TraceLine l, HostMemory memory, long address, long size) {
        Fill f = l.fill("fill");
        switch (f.kind()) {
            case ZERO -> { } // host memory starts zeroed
            case BYTE -> memory.fill(address, size, (byte) f.value());
            case PATTERN -> memory.fillPattern(address, size, f.value()); // SplittableRandom(seed)'s bytes, made lazily
        }
    }

    private void createQp(TraceLine l) {
        String name = l.positional(0);
        NdkPd pd = object(l, l.text("pd"), NdkPd.class);
        CqEntry rcq = object(l, l.text("rcq"), CqEntry.class);
        CqEntry icq = object(l, l.text("icq"), CqEntry.class);
        QpEntry entry = new QpEntry(name, hostIndex(name));
        if (recorder != null) {
            recorder.nameNext(name);
        }
        block();
        Map<String, Long> o = options.qp();
        int s = pd.createQp(rcq.cq, icq.cq, l.text("context", name), o.getOrDefault("rq", l.integer("rq")),
                o.getOrDefault("iq", l.integer("iq")), o.getOrDefault("rsge", l.integer("rsge")),
                o.getOrDefault("isge", l.integer("isge")), o.getOrDefault("inline", l.size("inline")), (ctx, st, obj) -> {
                    if (!created(l, "QP " + name, st)) {
                        resume();
                        return;
                    }
                    entry.qp = (NdkQp) obj;
                    entry.icq = icq.name;
                    entry.icqAuto = icq.auto;
                    entry.rcq = rcq.name;
                    objects.put(name, entry);
                    resume();
                }, null, new Out<>());
        pendingOrFail(l, "NdkCreateQp", s);
    }

    private final Map<String, NdkListener> listeners = new HashMap<>();

    private void connect(TraceLine l) {
        QpEntry here = object(l, l.positional(0), QpEntry.class);
        QpEntry there = object(l, l.positional(1), QpEntry.class);
        int port = (int) l.integer("port");
        NdkAdapter peerAdapter = topology.adapter(there.host);
        String key = there.host + ":" + port;
        int[] done = {0};
        int[] failed = {0};
        boolean[] resumed = {false};
        // The line is done when both ends are connected (accept and complete-connect), or one failed.
        Runnable check = () -> {
            if ((done[0] == 2 || failed[0] != 0) && !resumed[0]) {
                resumed[0] = true;
                outcome(l, failed[0] != 0 ? failed[0] : STATUS_SUCCESS);
                resume();
            }
        };
        byte[] peerData = l.has("peer_data") ? l.bytes("peer_data") : null;
        NdkListener listener = listeners.get(key);
        if (listener == null) {
            Out<NdkListener> out = new Out<>();
            peerAdapter.createListener((ctx, request) -> {
                PendingAccept a = acceptQueue.remove(key);
                if (a == null) {
                    request.reject(null, 0);
                    return;
                }
                a.accept(request);
            }, null, null, null, out);
            listener = out.value;
            int s = listener.listen(new NdkAddress(0, port), null, null);
            pendingOrFail(l, "NdkListen", s);
            listeners.put(key, listener);
        }
        acceptQueue.put(key, request -> {
            there.connector = request;
            int s = request.accept(there.qp, l.integer("peer_in", 8), l.integer("peer_out", 8), peerData,
                    peerData == null ? 0 : peerData.length, ctx -> { }, null, (ctx, st) -> {
                        if (st != STATUS_SUCCESS) {
                            failed[0] = st;
                            refused(l, st, "accept", there.name, null);
                        } else {
                            done[0]++;
                        }
                        check.run();
                    }, null);
            if (s != STATUS_PENDING) {
                failed[0] = s;
                refused(l, s, "accept", there.name, null);
                check.run();
            }
        });
        Out<NdkConnector> c = new Out<>();
        topology.adapter(here.host).createConnector(null, null, c);
        here.connector = c.value;
        byte[] data = l.has("data") ? l.bytes("data") : null;
        calls++;
        block();
        int s = c.value.connect(here.qp, new NdkAddress(0, 0), new NdkAddress(topology.host(there.host).driver().ip(), port),
                l.integer("in", 8), l.integer("out", 8), data, data == null ? 0 : data.length, (ctx, st) -> {
                    if (st != STATUS_SUCCESS) {
                        failed[0] = st;
                        refused(l, st, "connect", here.name, null);
                        check.run();
                        return;
                    }
                    int cs = c.value.completeConnect(ctx2 -> { }, null, (ctx3, st3) -> {
                        if (st3 != STATUS_SUCCESS) {
                            failed[0] = st3;
                            refused(l, st3, "complete_connect", here.name, null);
                        } else {
                            done[0]++;
                        }
                        check.run();
                    }, null);
                    if (cs != STATUS_PENDING) {
                        failed[0] = cs;
                        refused(l, cs, "complete_connect", here.name, null);
                        check.run();
                    }
                }, null);
        if (s != STATUS_PENDING) {
            refused(l, s, "connect", here.name, null);
            outcome(l, s);
            resume();
        }
    }

    /** What a listener does with the next request for its port. */
    private interface PendingAccept {
        void accept(NdkConnector request);
    }

    private final Map<String, PendingAccept> acceptQueue = new HashMap<>();

    // ------------------------------------------------------------------ calls

    /** A request in flight: the RequestContext the replay posts with. */
    static final class Request {
        final String ctx;
        final String op;
        final long postedPs;
        final long bytes;
        /** Posting order among initiator requests (from 1), the QP's name and the call's flags, for explanations. */
        long seq;
        String qp;
        int flags;
        /** The status its line expects ({@code expect=}), where that was said; null: none expected. */
        int expect;
        dev.rdmasim.traces.format.Position expectAt;

        Request(String ctx, String op, long postedPs, long bytes) {
            this.ctx = ctx;
            this.op = op;
            this.postedPs = postedPs;
            this.bytes = bytes;
        }

        @Override
        public String toString() {
            return ctx;
        }
    }

    private void post(TraceLine l) {
        calls++;
        if (firstCallPs < 0) {
            firstCallPs = sim.now();
            if (progress != null) {
                progress.measuring(sim);
            }
        }
        QpEntry q = object(l, l.positional(0), QpEntry.class);
        String op = l.keyword();
        List<Buffer> bufs = l.buffers("sge");
        NdkSge[] sgl = new NdkSge[bufs.size()];
        long total = 0;
        for (int i = 0; i < sgl.length; i++) {
            Buffer b = bufs.get(i);
            NdkMr mr = object(l, b.mr(), NdkMr.class);
            sgl[i] = new NdkSge(buffers.get(b.mr())[0] + b.offset(), b.length(), mr.getLocalToken());
            total += b.length();
        }
        String ctx = l.text("ctx", "");
        Request req = new Request(ctx, op, sim.now(), total);
        int flags = op.equals("receive") ? 0 : l.callFlags("flags");
        if (recorder != null && l.expects()) {
            recorder.expectNext(l.expectedStatus(STATUS_SUCCESS));
        }
        int s;
        switch (op) {
            case "send" -> s = q.qp.send(req, sgl, sgl.length, flags);
            case "receive" -> s = q.qp.receive(req, sgl, sgl.length);
            default -> {
                Remote r = l.remote("remote");
                NdkMr mr = object(l, r.mr(), NdkMr.class);
                long address = buffers.get(r.mr())[0] + r.offset();
                s = op.equals("write") ? q.qp.write(req, sgl, sgl.length, address, mr.getRemoteToken(), flags)
                        : q.qp.read(req, sgl, sgl.length, address, mr.getRemoteToken(), flags);
            }
        }
        String cq = op.equals("receive") ? q.rcq : q.icq;
        if (s == STATUS_SUCCESS) {
            if (!refusedByCtx.isEmpty()) {
                refusedByCtx.remove(ctx);
            }
            if (!refusedByCq.isEmpty()) {
                refusedByCq.remove(cq);
            }
            if (l.expects()) {
                req.expect = l.expectedStatus(STATUS_SUCCESS);
                req.expectAt = l.position("expect");
                expecting.put(req, req);
            }
            if (op.equals("receive")) {
                req.qp = q.name;
                lifecycle.postedReceive(q.host, q.qp.qpn(), req, sim.now());
            } else {
                req.seq = postedInitiator + 1;
                req.qp = q.name;
                req.flags = flags;
                lifecycle.posted(q.host, q.qp.qpn(), q.qp.lastPostedWqe(), req, sim.now());
                postedInitiator++;
                if ((flags & dev.rdmasim.ndk.NdkOpFlags.NDK_OP_FLAG_SILENT_SUCCESS) == 0 && q.icqAuto) {
                    expectedTaken++;
                }
            }
        } else {
            count(s);
            outputs.completion(sim.now(), hostNames[q.host], q.name, null, ctx, op, s, 0);
            RefusedPost refusal = new RefusedPost(l.position(), op, s);
            if (!ctx.isEmpty()) {
                refusedByCtx.put(ctx, refusal);
            }
            refusedByCq.put(cq, refusal);
            outcome(l, s);
        }
    }

    /** A post the provider refused: where, which call, and the status it returned. */
    private record RefusedPost(dev.rdmasim.traces.format.Position at, String op, int status) {
        @Override
        public String toString() {
            String call = switch (op) {
                case "send" -> "NdkSend";
                case "receive" -> "NdkReceive";
                case "write" -> "NdkWrite";
                default -> "NdkRead";
            };
            return call + " at " + at + " returned " + NtStatus.name(status) + " (" + NtStatus.hex(status) + ")";
        }
    }

    /**
     * A {@code poll} line: one {@code NdkGetCqResultsEx} for up to {@code max} completions, as the line says (so a
     * recorded poll replays as the same single call).
     */
    private void pollOnce(CqEntry c, int max) {
        if (c.cq == null || c.cq.isClosed() || c.cq.isClosing()) {
            return;
        }
        NdkResultEx[] results = c.results;
        if (max > results.length) {
            results = new NdkResultEx[max];
            for (int i = 0; i < max; i++) {
                results[i] = new NdkResultEx();
            }
        }
        int n = c.cq.getCqResultsEx(results, max);
        for (int i = 0; i < n; i++) {
            completed(c, results[i]);
        }
    }

    /** Takes up to {@code max} completions from {@code c} now and logs them. */
    private void take(CqEntry c, int max) {
        if (c.cq == null || c.cq.isClosed() || c.cq.isClosing()) {
            return;
        }
        int got = 0;
        while (got < max) {
            int n = c.cq.getCqResultsEx(c.results, Math.min(c.results.length, max - got));
            if (n == 0) {
                break;
            }
            for (int i = 0; i < n; i++) {
                completed(c, c.results[i]);
            }
            got += n;
        }
    }

    /** completions.csv's op column, made once for the usual operation types. */
    private static final String[] OP_NAMES = java.util.stream.IntStream.range(0, 16).mapToObj(Replay::lowerName)
            .toArray(String[]::new);

    /** An operation type's name in lower case. */
    private static String lowerName(int type) {
        return NdkOperationType.name(type).toLowerCase(java.util.Locale.ROOT);
    }

    private void completed(CqEntry c, NdkResultEx r) {
        Request req = r.requestContext instanceof Request q ? q : null;
        String op = r.type >= 0 && r.type < OP_NAMES.length ? OP_NAMES[r.type] : lowerName(r.type);
        count(r.status);
        long bytes = r.type == NdkOperationType.NdkOperationTypeReceive ? r.bytesTransferred : req == null ? 0 : req.bytes;
        if (r.status == STATUS_SUCCESS) {
            if (req != null && r.type != NdkOperationType.NdkOperationTypeReceive) {
                latency.recordValue(Math.min(MAX_LATENCY_PS, sim.now() - req.postedPs) / 1000);
            }
        }
        outputs.completion(sim.now(), hostNames[c.host], String.valueOf(r.qpContext), c.name,
                req == null ? "" : req.ctx, op, r.status, bytes);
        if (req != null) {
            // The poll call charged host.pollTime per entry to the core polling the CQ: the consumer has the
            // completion when that core is done with the call, not at the instant the CQE landed.
            lifecycle.polled(req, c.cq.core().freeAt(), r.status == STATUS_SUCCESS);
            if (req.expectAt != null) {
                expecting.remove(req);
                if (r.status != req.expect) {
                    throw new TraceError(req.expectAt, "'" + req.ctx + "' completed with " + NtStatus.name(r.status)
                            + " (" + NtStatus.hex(r.status) + "), expected " + NtStatus.name(req.expect) + " ("
                            + NtStatus.hex(req.expect) + ")");
                }
            }
        }
        if (r.type != NdkOperationType.NdkOperationTypeReceive) {
            taken++;
            stopIfDone();
        }
        boolean claimed = waiter != null && waiter.cq == c && waiter.saw(req);
        if (!claimed && c.taken != null && req != null) {
            c.remember(req.ctx);
        }
    }

    private void startWait(TraceLine l) {
        CqEntry c = object(l, l.positional(0), CqEntry.class);
        waiter = new Waiter(l, c, l.has("ctx") ? l.text("ctx") : null, l.integer("count", l.has("ctx") ? 0 : 1));
        if (recorder != null) {
            recorder.waitLine(sim.now(), c.cq, waiter.ctx, waiter.left);
        }
        if (waiter.ctx != null && c.claim(waiter.ctx)) {
            // Its completion was taken before the wait started (the CQ's automatic polling, a poll, another wait).
            waiter = null;
            return;
        }
        block();
        take(c, Integer.MAX_VALUE);
    }

    /** A {@code wait} line in progress. */
    private final class Waiter {
        final TraceLine line;
        final CqEntry cq;
        final String ctx;
        long left;

        Waiter(TraceLine line, CqEntry cq, String ctx, long count) {
            this.line = line;
            this.cq = cq;
            this.ctx = ctx;
            this.left = count;
        }

        /** Hears a completion taken from its CQ; true when it was the one waited for by context. */
        boolean saw(Request req) {
            boolean done;
            boolean byContext = false;
            if (ctx != null) {
                done = byContext = req != null && ctx.equals(req.ctx);
            } else {
                done = --left <= 0;
            }
            if (done) {
                waiter = null;
                resume();
            }
            return byContext;
        }

        String describe() {
            return "'wait " + cq.name + (ctx != null ? " ctx=" + ctx : " count=" + line.integer("count", 1)) + "'";
        }

        /** Why nothing more can happen for it, when a refused post explains it. */
        String cause() {
            RefusedPost r = ctx != null ? refusedByCtx.get(ctx) : null;
            if (r != null) {
                return "its request was never posted: " + r;
            }
            r = ctx == null ? refusedByCq.get(cq.name) : null;
            return "nothing more can happen" + (r != null ? "; the last post for " + cq.name + " was refused: " + r : "");
        }
    }

    /** A CQ's notification callback: counted for the summary and a row of {@code notifications.csv}. */
    private void notified(CqEntry c, int status) {
        c.notifications++;
        outputs.notification(sim.now(), hostNames[c.host], c.name, c.armedName(), status);
        c.armedType = -1; // an arm is good for one notification
    }

    /** The address and size of a region, which exists unless its creation failed. */
    private long[] region(TraceLine l, String mr) {
        long[] r = buffers.get(mr);
        if (r == null) {
            throw new TraceError(l.position(), "'" + mr + "' does not exist (its creation failed earlier)");
        }
        return r;
    }

    /** A {@code check} line: compares a range of host memory with bytes, a fill or another range, now. */
    private void memoryCheck(TraceLine l) {
        Buffer b = l.buffer(0);
        long[] at = region(l, b.mr());
        MemoryExpectation.check(l, b, topology.host(hostIndex(b.mr())).memory(), at[0] + b.offset(), at[1],
                this::otherRange);
    }

    /** The memory and address of {@code same=MR+OFFSET}. */
    private MemoryExpectation.Range otherRange(TraceLine l, Remote r) {
        long[] at = region(l, r.mr());
        return new MemoryExpectation.Range(topology.host(hostIndex(r.mr())).memory(), at[0] + r.offset());
    }

    private void close(TraceLine l) {
        calls++;
        String name = l.positional(0);
        Object o = objects.remove(name);
        NdkObject target = o instanceof CqEntry c ? c.cq : o instanceof QpEntry q ? q.qp : (NdkObject) o;
        if (target == null) {
            throw new TraceError(l.position(), "'" + name + "' does not exist (its creation failed earlier)");
        }
        if (o instanceof QpEntry q && q.connector != null) {
            q.connector.close(null, null);
        }
        int s = target.close(null, null);
        if (s != STATUS_SUCCESS && s != STATUS_PENDING) {
            throw new InvariantViolation("NdkCloseObject returned " + NtStatus.name(s));
        }
    }
}
