package dev.rdmasim.sweep.hazelcast;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.HazelcastClientOfflineException;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.cluster.Member;
import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceNotActiveException;
import com.hazelcast.core.IExecutorService;
import com.hazelcast.spi.exception.RetryableException;
import com.hazelcast.spi.exception.TargetDisconnectedException;
import dev.rdmasim.sweep.Point;
import dev.rdmasim.sweep.PointExecutor;
import dev.rdmasim.sweep.PointResult;
import dev.rdmasim.sweep.SweepFailure;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * Runs sweep points on a Hazelcast cluster, one task per point on each worker's {@value ClusterSetup#EXECUTOR}
 * executor service.
 *
 * <p>This process is a Hazelcast <em>client</em> of the workers (or, with no workers, owns one embedded member on
 * loopback). A client rather than a lite member: it needs only outbound connections to the workers (a laptop
 * behind a firewall or NAT can drive a cluster), and starting, finishing or killing a sweep never changes the
 * workers' cluster membership.
 *
 * <p>Points go to chosen members ({@code submitToMember}), never more at once to a member than the jobs it
 * advertises, so a million-point sweep keeps at most (members x jobs) tasks in flight and the rest in its list.
 * Results are handed to the sink on the calling thread, one at a time, in completion order. A point that throws
 * fails the sweep with a {@link SweepFailure} naming the point and the member. A member that leaves (or whose
 * connection breaks, or that interrupts its tasks while shutting down) is not used again by this sweep, and its
 * points go to the remaining members; a point whose first attempt still answers is reported once, by whichever
 * attempt answers first. When no worker remains the sweep fails saying so. Members that join during a sweep are
 * used at once.
 *
 * <p>Runs one sweep at a time.
 */
public final class HazelcastExecutor implements PointExecutor {
    private static final Logger LOG = Logger.getLogger(HazelcastExecutor.class.getName());

    private final HazelcastInstance hz;
    private final boolean owned;
    private final boolean embedded;
    private final String clusterName;
    private final PointFunction function;
    private final IExecutorService executor;
    /** Members already reported as refused, so that each sweep does not warn again. */
    private final Set<UUID> warned = ConcurrentHashMap.newKeySet();
    private int lastMaxInFlight;
    private int lastResubmitted;

    private HazelcastExecutor(HazelcastInstance hz, boolean owned, boolean embedded, String clusterName,
            PointFunction function) {
        this.hz = hz;
        this.owned = owned;
        this.embedded = embedded;
        this.clusterName = clusterName;
        this.function = function;
        this.executor = hz.getExecutorService(ClusterSetup.EXECUTOR);
    }

    /** Starts a member on loopback, alone in a cluster of its own, that runs {@code jobs} points at once. */
    public static HazelcastExecutor embedded(String clusterName, int jobs, PointFunction function) {
        if (jobs < 1) {
            throw new IllegalArgumentException("jobs must be at least 1, got " + jobs);
        }
        HazelcastInstance member = Hazelcast.newHazelcastInstance(ClusterSetup.embeddedConfig(clusterName, jobs));
        return new HazelcastExecutor(member, true, true, clusterName, function);
    }

    /** Connects to the workers of {@code clusterName} at {@code members} ({@code host:port} each). */
    public static HazelcastExecutor connect(String clusterName, List<String> members, PointFunction function) {
        if (members.isEmpty()) {
            throw new IllegalArgumentException("no members to connect to (use embedded() to run on this machine)");
        }
        return connect(ClusterSetup.clientConfig(clusterName, WorkerOptions.checkMembers(members)), function);
    }

    /** Connects with a configuration made by {@link ClusterSetup#clientConfig} and adjusted (tests). */
    public static HazelcastExecutor connect(ClientConfig config, PointFunction function) {
        HazelcastInstance client;
        try {
            client = HazelcastClient.newHazelcastClient(config);
        } catch (IllegalStateException e) {
            long seconds = config.getConnectionStrategyConfig().getConnectionRetryConfig()
                    .getClusterConnectTimeoutMillis() / 1000;
            throw new SweepFailure("no worker of cluster '" + config.getClusterName() + "' answered at "
                    + String.join(",", config.getNetworkConfig().getAddresses()) + " within " + seconds
                    + " s: are the workers running ('rdmasim worker') with the same --cluster-name, and their ports open?",
                    e);
        }
        return new HazelcastExecutor(client, true, false, config.getClusterName(), function);
    }

    /**
     * Uses an instance the caller owns (a client or a member) of the cluster {@code clusterName} (for messages);
     * {@link #close} leaves it running.
     */
    public static HazelcastExecutor on(HazelcastInstance instance, String clusterName, PointFunction function) {
        return new HazelcastExecutor(instance, false, false, clusterName, function);
    }

    @Override
    public void execute(List<Point> points, Consumer<PointResult> onResult) {
        if (points.isEmpty()) {
            return;
        }
        Run run = new Run(points, onResult);
        try {
            run.go();
        } finally {
            lastMaxInFlight = run.maxInFlight;
            lastResubmitted = run.resubmitted;
        }
    }

    /** The jobs of every worker now in the cluster: how many points run at once. */
    @Override
    public int parallelism() {
        int jobs = 0;
        for (Member m : hz.getCluster().getMembers()) {
            if (!m.isLiteMember() && refusal(m) == null) {
                jobs += jobs(m);
            }
        }
        return jobs;
    }

    @Override
    public String describe() {
        if (embedded) {
            return "hazelcast, embedded member, " + parallelism() + " jobs";
        }
        int workers = 0;
        for (Member m : hz.getCluster().getMembers()) {
            workers += !m.isLiteMember() && refusal(m) == null ? 1 : 0;
        }
        return "hazelcast, " + workers + (workers == 1 ? " member, " : " members, ") + parallelism() + " jobs, cluster '"
                + clusterName + "'";
    }

    /** Shuts down the client or embedded member this executor started (not one given to {@link #on}). */
    @Override
    public void close() {
        if (owned) {
            hz.shutdown();
        }
    }

    /** The most tasks the last {@link #execute} had in flight at once. */
    int lastMaxInFlight() {
        return lastMaxInFlight;
    }

    /** How many times the last {@link #execute} sent a point again because its member was lost. */
    int lastResubmitted() {
        return lastResubmitted;
    }

    /** Why {@code m} must not run points, or null when it is a worker of this build. */
    private static String refusal(Member m) {
        String jobs = m.getAttribute(ClusterSetup.JOBS_ATTRIBUTE);
        if (jobs == null || !jobs.matches("[1-9][0-9]{0,5}")) {
            return "not an rdmasim worker (no " + ClusterSetup.JOBS_ATTRIBUTE + " attribute)";
        }
        String theirs = m.getAttribute(ClusterSetup.BUILD_ATTRIBUTE);
        String ours = ClusterSetup.build();
        if (!ours.equals(theirs)) {
            return "runs another rdmasim build (" + theirs + "; this machine runs " + ours
                    + "): give every machine the same rdmasim jar";
        }
        return null;
    }

    private static int jobs(Member m) {
        return Integer.parseInt(m.getAttribute(ClusterSetup.JOBS_ATTRIBUTE));
    }

    /** The failures that mean the member (or the connection to it) went away, not that the task failed. */
    static boolean memberLost(Throwable error) {
        for (Throwable c = error; c != null; c = c.getCause()) {
            if (c instanceof RetryableException || c instanceof TargetDisconnectedException
                    || c instanceof HazelcastInstanceNotActiveException || c instanceof HazelcastClientOfflineException
                    || c instanceof RejectedExecutionException) {
                return true;
            }
        }
        return false;
    }

    private static String label(Point p) {
        String d = p.describe();
        return "point " + p.index() + (d.isEmpty() ? "" : " (" + d + ")");
    }

    /** Names the point and the member; the runner's own failures name the point already. */
    private static SweepFailure pointFailed(Point point, Slot slot, RemoteFailure failure) {
        if (failure.className().equals(SweepFailure.class.getName()) && failure.originalMessage() != null) {
            return new SweepFailure(failure.originalMessage() + " (on member " + slot.address + ")", failure);
        }
        return new SweepFailure(label(point) + " failed on member " + slot.address + ": " + failure.getMessage(),
                failure);
    }

    /** A member that may run points, and the attempts it is running. */
    private static final class Slot {
        final Member member;
        final String address;
        final int jobs;
        final Set<Attempt> running = new LinkedHashSet<>();
        String lostBecause;

        Slot(Member member) {
            this.member = member;
            this.address = Worker.hostPort(member.getAddress());
            this.jobs = jobs(member);
        }

        int free() {
            return lostBecause != null ? 0 : jobs - running.size();
        }
    }

    /** One sending of a point to a member. */
    private static final class Attempt {
        final int position;
        final Slot slot;
        Future<PointTask.Outcome> future;

        Attempt(int position, Slot slot) {
            this.position = position;
            this.slot = slot;
        }
    }

    /** What the calling thread waits for: a task's end, or a change of members. */
    private sealed interface Event {
    }

    private record Done(Attempt attempt, PointTask.Outcome outcome, Throwable error) implements Event {
    }

    private record MembersChanged() implements Event {
    }

    /** One {@link #execute}: all its state is confined to the calling thread; Hazelcast threads only post events. */
    private final class Run implements MembershipListener {
        private final List<Point> points;
        private final Consumer<PointResult> sink;
        private final boolean[] done;
        private int doneCount;
        /** The next point never sent. */
        private int next;
        /** Points to send again, their member lost. */
        private final ArrayDeque<Integer> again = new ArrayDeque<>();
        /** Workers in the order they were seen (lost ones stay, marked). */
        private final Map<UUID, Slot> slots = new LinkedHashMap<>();
        /** Members that may not run points, and why. */
        private final Map<UUID, String> refused = new LinkedHashMap<>();
        /** One event per task sent (at most the tasks in flight, plus any of a lost member) and per membership change. */
        private final LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
        private int inFlight;
        int maxInFlight;
        int resubmitted;

        Run(List<Point> points, Consumer<PointResult> sink) {
            this.points = List.copyOf(points);
            this.sink = sink;
            this.done = new boolean[points.size()];
        }

        void go() {
            UUID registration = hz.getCluster().addMembershipListener(this);
            boolean finished = false;
            try {
                refresh();
                while (doneCount < points.size()) {
                    dispatch();
                    if (inFlight == 0) {
                        throw noWorkerLeft();
                    }
                    handle(events.take());
                }
                finished = true;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SweepFailure("interrupted with " + (points.size() - doneCount) + " of " + points.size()
                        + " points not done", e);
            } finally {
                if (!finished) {
                    cancelRunning();
                }
                if (hz.getLifecycleService().isRunning()) {
                    hz.getCluster().removeMembershipListener(registration);
                }
            }
        }

        @Override
        public void memberAdded(MembershipEvent e) {
            events.add(new MembersChanged());
        }

        @Override
        public void memberRemoved(MembershipEvent e) {
            events.add(new MembersChanged());
        }

        /** Takes up new workers and writes off the members that left. */
        private void refresh() {
            Set<UUID> present = new HashSet<>();
            for (Member m : hz.getCluster().getMembers()) {
                present.add(m.getUuid());
                if (m.isLiteMember() || slots.containsKey(m.getUuid()) || refused.containsKey(m.getUuid())) {
                    continue;
                }
                String why = refusal(m);
                if (why == null) {
                    slots.put(m.getUuid(), new Slot(m));
                } else {
                    String address = Worker.hostPort(m.getAddress());
                    refused.put(m.getUuid(), address + " " + why);
                    if (warned.add(m.getUuid())) {
                        LOG.warning("not sending points to member " + address + ": " + why);
                    }
                }
            }
            for (Slot s : slots.values()) {
                if (s.lostBecause == null && !present.contains(s.member.getUuid())) {
                    lose(s, "left the cluster");
                }
            }
        }

        /** Sends points while some worker has a free job. */
        private void dispatch() {
            while (true) {
                while (!again.isEmpty() && done[again.peekFirst()]) {
                    again.pollFirst();
                }
                if (again.isEmpty() && next == points.size()) {
                    return;
                }
                Slot target = null;
                for (Slot s : slots.values()) {
                    if (s.free() > 0 && (target == null || s.free() > target.free())) {
                        target = s;
                    }
                }
                if (target == null) {
                    return;
                }
                boolean resend = !again.isEmpty();
                send(resend ? again.pollFirst() : next++, target, resend);
            }
        }

        private void send(int position, Slot slot, boolean resend) {
            Point point = points.get(position);
            Future<PointTask.Outcome> future;
            try {
                future = executor.submitToMember(new PointTask(point, function), slot.member);
            } catch (RuntimeException e) {
                if (memberLost(e)) {
                    lose(slot, "refused the task (" + e + ")");
                    requeue(position);
                    return;
                }
                if (!hz.getLifecycleService().isRunning()) {
                    throw connectionClosed(e);
                }
                throw new SweepFailure("cannot send " + label(point) + " to member " + slot.address + ": " + e, e);
            }
            resubmitted += resend ? 1 : 0;
            Attempt attempt = new Attempt(position, slot);
            attempt.future = future;
            slot.running.add(attempt);
            inFlight++;
            maxInFlight = Math.max(maxInFlight, inFlight);
            stage(future).whenComplete((outcome, error) -> events.add(new Done(attempt, outcome, error)));
        }

        private void handle(Event event) {
            if (event instanceof MembersChanged) {
                refresh();
                return;
            }
            Done d = (Done) event;
            Attempt a = d.attempt();
            PointTask.Outcome o = d.outcome();
            boolean live = a.slot.running.contains(a);
            if (d.error() != null ? memberLost(d.error()) : o != null && o.interrupted()) {
                if (live) { // else its member was written off already, and the point requeued
                    lose(a.slot, d.error() == null ? "interrupted its tasks (shutting down)" : "was lost (" + d.error() + ")");
                }
                return;
            }
            if (live) {
                a.slot.running.remove(a);
                inFlight--;
            }
            if (done[a.position]) {
                return; // a late answer for a point already reported
            }
            Point point = points.get(a.position);
            if (d.error() != null) {
                throw hz.getLifecycleService().isRunning()
                        ? new SweepFailure(label(point) + " could not run on member " + a.slot.address + ": " + d.error(),
                                d.error())
                        : connectionClosed(d.error());
            } else if (o != null && o.result() != null) {
                done[a.position] = true;
                doneCount++;
                sink.accept(o.result());
            } else if (o != null && o.failure() != null) {
                throw pointFailed(point, a.slot, o.failure());
            } else {
                throw new SweepFailure(label(point) + " gave no result on member " + a.slot.address);
            }
        }

        private SweepFailure connectionClosed(Throwable cause) {
            return new SweepFailure("the connection to cluster '" + clusterName + "' was closed with "
                    + (points.size() - doneCount) + " of " + points.size() + " points not done", cause);
        }

        /** Stops using {@code s} and sends its running points elsewhere. */
        private void lose(Slot s, String why) {
            s.lostBecause = why;
            int running = s.running.size();
            LOG.warning("member " + s.address + " " + why + (running == 0 ? ""
                    : "; its " + running + (running == 1 ? " running point goes" : " running points go")
                    + " to the remaining members"));
            for (Attempt a : s.running) {
                inFlight--;
                requeue(a.position);
            }
            s.running.clear();
        }

        private void requeue(int position) {
            if (!done[position]) {
                again.addLast(position);
            }
        }

        private SweepFailure noWorkerLeft() {
            List<String> reasons = new ArrayList<>();
            for (Slot s : slots.values()) {
                reasons.add(s.address + " " + s.lostBecause);
            }
            reasons.addAll(refused.values());
            return new SweepFailure("no rdmasim worker left in cluster '" + clusterName + "' to run "
                    + (points.size() - doneCount) + " of " + points.size() + " points"
                    + (reasons.isEmpty() ? ": the cluster has no members that run tasks" : ": " + String.join("; ", reasons)));
        }

        private void cancelRunning() {
            for (Slot s : slots.values()) {
                for (Attempt a : s.running) {
                    try {
                        a.future.cancel(true);
                    } catch (RuntimeException ignored) {
                        // best effort: the member or the connection may be gone already
                    }
                }
            }
        }
    }

    /** Hazelcast's executor futures (member and client side) are CompletableFutures. */
    @SuppressWarnings("unchecked")
    private static CompletionStage<PointTask.Outcome> stage(Future<PointTask.Outcome> future) {
        if (future instanceof CompletionStage<?> stage) {
            return (CompletionStage<PointTask.Outcome>) stage;
        }
        throw new IllegalStateException("Hazelcast returned a " + future.getClass().getName() + ", not a CompletionStage");
    }
}
