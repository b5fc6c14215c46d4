package dev.rdmasim.sweep;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

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

    /** Every engine on the class path, sorted by name. */
    static List<PointExecutorProvider> available() {
        List<PointExecutorProvider> out = new ArrayList<>();
        ServiceLoader.load(PointExecutorProvider.class).forEach(out::add);
        out.sort(java.util.Comparator.comparing(PointExecutorProvider::name));
        return out;
    }

    /** The engine named {@code name}; an unknown name is an error listing the available ones. */
    static PointExecutorProvider named(String name) {
        List<PointExecutorProvider> all = available();
        for (PointExecutorProvider p : all) {
            if (p.name().equals(name)) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown executor '" + name + "'; available: "
                + String.join(", ", all.stream().map(PointExecutorProvider::name).toList()));
    }
}
