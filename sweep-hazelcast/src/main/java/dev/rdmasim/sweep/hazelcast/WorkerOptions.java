package dev.rdmasim.sweep.hazelcast;

import java.util.List;

/**
 * How a worker member starts ({@code rdmasim worker}).
 *
 * @param clusterName the cluster to form or join; submitters must use the same name
 * @param bindAddress the address to listen on and advertise (an interface's address, wildcards like
 *                    {@code 10.1.*.*} allowed), or null to let Hazelcast pick one
 * @param port        the port to listen on (no fallback to another: a worker listens where it is told)
 * @param members     other workers to join, {@code host:port} each; empty to start a cluster of one
 * @param jobs        points run at once (the executor's threads)
 */
public record WorkerOptions(String clusterName, String bindAddress, int port, List<String> members, int jobs) {
    public WorkerOptions {
        if (clusterName == null || clusterName.isBlank()) {
            throw new IllegalArgumentException("cluster name must not be empty");
        }
        if (bindAddress != null && bindAddress.isBlank()) {
            throw new IllegalArgumentException("bind address must not be empty");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port must be 1..65535, got " + port);
        }
        if (jobs < 1) {
            throw new IllegalArgumentException("jobs must be at least 1, got " + jobs);
        }
        members = checkMembers(members);
    }

    /** A worker with the default cluster name, any address, the default port, alone, with {@code jobs}. */
    public static WorkerOptions defaults(int jobs) {
        return new WorkerOptions(ClusterSetup.DEFAULT_CLUSTER_NAME, null, ClusterSetup.DEFAULT_PORT, List.of(), jobs);
    }

    /** Checks that each entry is {@code host:port} (IPv6 hosts in brackets) and returns an immutable copy. */
    public static List<String> checkMembers(List<String> members) {
        for (String m : members) {
            int colon = m.lastIndexOf(':');
            String host = colon < 0 ? "" : m.substring(0, colon);
            String port = colon < 0 ? "" : m.substring(colon + 1);
            boolean valid = !host.isBlank() && !host.contains(" ") && (host.indexOf(':') < 0 || host.startsWith("["))
                    && port.matches("[0-9]{1,5}") && Integer.parseInt(port) >= 1 && Integer.parseInt(port) <= 65535;
            if (!valid) {
                throw new IllegalArgumentException("member '" + m + "' is not host:port (e.g. 10.0.0.2:5701)");
            }
        }
        return List.copyOf(members);
    }
}
