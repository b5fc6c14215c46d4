package dev.rdmasim.sweep.hazelcast;

import dev.rdmasim.sweep.PointExecutor;
import dev.rdmasim.sweep.PointExecutorProvider;
import java.util.List;

/**
 * {@code --executor hazelcast}: with {@code --members}, a client of the workers there ({@code jobs} is then unused:
 * each worker runs as many points as it was started with); without, an embedded member running {@code jobs}
 * points on this machine. The cluster name is {@link ClusterSetup#clusterNameFromEnvironment()}.
 */
public final class HazelcastExecutorProvider implements PointExecutorProvider {
    @Override
    public String name() {
        return "hazelcast";
    }

    @Override
    public PointExecutor create(int jobs, List<String> members) {
        String cluster = ClusterSetup.clusterNameFromEnvironment();
        return members.isEmpty()
                ? HazelcastExecutor.embedded(cluster, jobs, PointFunction.RUNNER)
                : HazelcastExecutor.connect(cluster, members, PointFunction.RUNNER);
    }
}
