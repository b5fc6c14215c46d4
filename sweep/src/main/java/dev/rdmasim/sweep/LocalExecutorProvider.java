package dev.rdmasim.sweep;

import java.util.List;

/** The {@code local} engine: points on a pool of threads of this JVM (see {@link LocalExecutor}). */
public final class LocalExecutorProvider implements PointExecutorProvider {
    public static final String NAME = "local";

    @Override
    public String name() {
        return NAME;
    }

    /** A pool of {@code jobs} threads; {@code members} must be empty (this engine runs on this machine only). */
    @Override
    public PointExecutor create(int jobs, List<String> members) {
        if (!members.isEmpty()) {
            throw new IllegalArgumentException("the local executor runs on this machine only; members are for a "
                    + "distributed executor such as hazelcast");
        }
        return new LocalExecutor(jobs);
    }
}
