package dev.rdmasim.sweep.hazelcast;

import com.hazelcast.cluster.Address;
import com.hazelcast.cluster.Member;
import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.LifecycleEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

/**
 * A member that runs sweep points for whoever submits them: what {@code rdmasim worker} starts. It needs nothing
 * but the rdmasim jar: points arrive complete (workload, trace text, profile) and results go back to the submitter.
 */
public final class Worker implements AutoCloseable {
    private final HazelcastInstance instance;
    private final CountDownLatch stopped = new CountDownLatch(1);

    private Worker(HazelcastInstance instance) {
        this.instance = instance;
        instance.getLifecycleService().addLifecycleListener(e -> {
            if (e.getState() == LifecycleEvent.LifecycleState.SHUTDOWN) {
                stopped.countDown();
            }
        });
        if (!instance.getLifecycleService().isRunning()) {
            stopped.countDown();
        }
    }

    /** Starts a worker as {@code options} say (returns once it has joined or formed its cluster). */
    public static Worker start(WorkerOptions options) {
        return start(ClusterSetup.memberConfig(options));
    }

    /** Starts a worker from a configuration made by {@link ClusterSetup#memberConfig} and adjusted (tests). */
    public static Worker start(Config config) {
        return new Worker(Hazelcast.newHazelcastInstance(config));
    }

    /** The member, for callers that need more than this class offers (tests). */
    public HazelcastInstance instance() {
        return instance;
    }

    /** {@code host:port} this worker listens on and other machines reach it at. */
    public String address() {
        return hostPort(instance.getCluster().getLocalMember().getAddress());
    }

    /** {@code host:port} of every member of the cluster, oldest first. */
    public List<String> members() {
        List<String> out = new ArrayList<>();
        for (Member m : instance.getCluster().getMembers()) {
            out.add(hostPort(m.getAddress()));
        }
        return out;
    }

    /** Tells {@code log} each time a member joins or leaves the cluster (on a Hazelcast thread). */
    public void watchMembers(Consumer<String> log) {
        instance.getCluster().addMembershipListener(new MembershipListener() {
            @Override
            public void memberAdded(MembershipEvent e) {
                log.accept("member " + hostPort(e.getMember().getAddress()) + " joined (" + count(e) + ")");
            }

            @Override
            public void memberRemoved(MembershipEvent e) {
                log.accept("member " + hostPort(e.getMember().getAddress()) + " left (" + count(e) + ")");
            }
        });
    }

    private static String count(MembershipEvent e) {
        int n = e.getMembers().size();
        return n + (n == 1 ? " member" : " members");
    }

    /** Blocks until the worker has shut down (by {@link #close} or another thread). */
    public void awaitShutdown() throws InterruptedException {
        stopped.await();
    }

    /**
     * Leaves the cluster gracefully: running points are abandoned and their submitters resubmit them to the
     * remaining workers.
     */
    @Override
    public void close() {
        instance.shutdown();
    }

    static String hostPort(Address address) {
        String host = address.getHost();
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + address.getPort();
    }
}
