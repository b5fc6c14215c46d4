package dev.rdmasim.sweep;

import java.util.List;

/**
 * Makes {@link PointExecutor}s of one engine; found with {@link java.util.ServiceLoader}, so an engine is added
 * by putting its module on the class path (a {@code META-INF/services/dev.rdmasim.sweep.PointExecutorProvider}
 * entry), without touching the sweep.
 */
public interface PointExecutorProvider {
    /** The name users give to {@code --executor}: {@code local}, {@code hazelcast}, ... */
    String name();

    /**
     * An executor for this engine.
     *
     * @param jobs    points to run at once on this machine (the engine may ignore it)
     * @param members other machines to use, {@code host:port} each (empty: this machine only)
     */
    PointExecutor create(int jobs, List<String> members);
}
