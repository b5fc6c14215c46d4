package dev.rdmasim.sweep.hazelcast;

import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.config.Config;
import com.hazelcast.config.ExecutorConfig;
import com.hazelcast.config.JavaSerializationFilterConfig;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.config.SerializationConfig;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * How rdmasim configures Hazelcast: a closed, quiet cluster. Members find each other only through the addresses
 * given (TCP-IP join; no multicast, no cloud discovery), Hazelcast logs through JUL at WARNING (stderr, no banner),
 * phone-home is off, and only rdmasim's own classes (plus Java's) may be deserialised from the network.
 *
 * <p>Every member that runs points is a {@linkplain WorkerOptions worker}: it has the {@value #EXECUTOR} executor
 * sized to its jobs and advertises them, and its build, as member attributes, so a submitter knows how many
 * points it may keep in flight there and never sends points to a member running other code.
 */
public final class ClusterSetup {
    /** The cluster name members and submitters use unless told otherwise. */
    public static final String DEFAULT_CLUSTER_NAME = "rdmasim";
    /** The port a worker listens on unless told otherwise. */
    public static final int DEFAULT_PORT = 5701;
    /** Environment variable that overrides the cluster name of {@code --executor hazelcast}. */
    public static final String CLUSTER_NAME_ENV = "RDMASIM_CLUSTER_NAME";
    /** System property that overrides the cluster name of {@code --executor hazelcast} (wins over the variable). */
    public static final String CLUSTER_NAME_PROPERTY = "rdmasim.cluster.name";

    static final int EMBEDDED_PORT = 5901;
    static final String EXECUTOR = "rdmasim-points";
    static final String JOBS_ATTRIBUTE = "rdmasim.jobs";
    static final String BUILD_ATTRIBUTE = "rdmasim.build";
    /**
     * Tasks a worker's executor queues beyond its running ones. Submitters keep at most the advertised jobs in flight
     * per member, so this only fills when several sweeps share the workers; it bounds what they can pile up.
     */
    static final int QUEUE_CAPACITY = 1024;

    /** Held so JUL cannot collect the loggers and forget their settings. */
    private static final Logger HAZELCAST_LOG = Logger.getLogger("com.hazelcast");
    private static final Logger FACTORY_LOG = Logger.getLogger("com.hazelcast.instance.impl.HazelcastInstanceFactory");
    private static final Logger NODE_LOG = Logger.getLogger("com.hazelcast.instance.impl.Node");
    private static volatile String build;

    private ClusterSetup() {
    }

    /** The cluster name from {@value #CLUSTER_NAME_PROPERTY}, else {@value #CLUSTER_NAME_ENV}, else the default. */
    public static String clusterNameFromEnvironment() {
        String name = System.getProperty(CLUSTER_NAME_PROPERTY);
        if (name == null || name.isBlank()) {
            name = System.getenv(CLUSTER_NAME_ENV);
        }
        return name == null || name.isBlank() ? DEFAULT_CLUSTER_NAME : name.strip();
    }

    /** A worker member's configuration (see {@link WorkerOptions}). */
    public static Config memberConfig(WorkerOptions options) {
        Config config = base(options.clusterName(), options.jobs());
        config.setInstanceName("rdmasim-worker-" + options.port());
        NetworkConfig net = config.getNetworkConfig();
        net.setPort(options.port()).setPortAutoIncrement(false);
        if (options.bindAddress() != null) {
            net.getInterfaces().setEnabled(true).addInterface(options.bindAddress());
            config.setProperty("hazelcast.socket.bind.any", "false");
        }
        JoinConfig join = closedJoin(config);
        join.getTcpIpConfig().setEnabled(true).setMembers(options.members());
        // A worker that found none of its members formed a cluster alone; look for them again every 30 s (not
        // Hazelcast's 5 and 2 minutes) so that workers started in any order soon become one cluster.
        config.setProperty("hazelcast.merge.first.run.delay.seconds", "30");
        config.setProperty("hazelcast.merge.next.run.delay.seconds", "30");
        return config;
    }

    /**
     * The member a sweep starts on this machine when no workers are given: loopback only, joining nobody, and in a
     * cluster of its own so that no worker on this machine can join it or be joined.
     */
    public static Config embeddedConfig(String clusterName, int jobs) {
        Config config = base(clusterName + "-embedded-" + UUID.randomUUID(), jobs);
        config.setInstanceName("rdmasim-embedded-" + UUID.randomUUID());
        NetworkConfig net = config.getNetworkConfig();
        // Away from the workers' default port, so a worker can still start on this machine during a local sweep.
        net.setPort(EMBEDDED_PORT).setPortAutoIncrement(true).setPortCount(100);
        net.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
        config.setProperty("hazelcast.socket.bind.any", "false");
        config.setProperty("hazelcast.wait.seconds.before.join", "0");
        closedJoin(config);
        return config;
    }

    /**
     * A client's configuration: it connects to {@code members} (one reachable worker is enough, it learns the rest),
     * gives up after 10 s when none answers, and declares a worker dead after 20 s of silence.
     */
    public static ClientConfig clientConfig(String clusterName, List<String> members) {
        quietLogging();
        ClientConfig config = new ClientConfig();
        config.setClusterName(clusterName);
        config.setInstanceName("rdmasim-sweep-" + UUID.randomUUID());
        config.setProperty("hazelcast.logging.type", "jdk");
        config.setProperty("hazelcast.client.heartbeat.timeout", "20000");
        config.setProperty("hazelcast.client.shutdownhook.enabled", "false");
        config.getNetworkConfig().setAddresses(List.copyOf(members));
        config.getConnectionStrategyConfig().getConnectionRetryConfig()
                .setClusterConnectTimeoutMillis(10_000).setMaxBackoffMillis(2_000);
        filterJavaSerialization(config.getSerializationConfig());
        return config;
    }

    /**
     * Hazelcast's own log goes through JUL and shows warnings and errors only, less two warnings that every start
     * would print and that do not apply here: the embedded member is standalone on purpose, and the internal JDK
     * access Hazelcast asks for only speeds up its own data structures, which a sweep hardly uses.
     */
    static void quietLogging() {
        HAZELCAST_LOG.setLevel(Level.WARNING);
        FACTORY_LOG.setFilter(r -> !String.valueOf(r.getMessage()).contains("in a Java modular environment"));
        NODE_LOG.setFilter(r -> !String.valueOf(r.getMessage()).contains("No join method is enabled"));
    }

    private static Config base(String clusterName, int jobs) {
        quietLogging();
        Config config = new Config();
        config.setClusterName(clusterName);
        config.setProperty("hazelcast.logging.type", "jdk");
        config.setProperty("hazelcast.phone.home.enabled", "false");
        // The worker command shuts down on Ctrl-C itself (gracefully); an executor closes its own member.
        config.setProperty("hazelcast.shutdownhook.enabled", "false");
        config.setProperty("hazelcast.wait.seconds.before.join", "1");
        config.addExecutorConfig(new ExecutorConfig(EXECUTOR).setPoolSize(jobs).setQueueCapacity(QUEUE_CAPACITY));
        config.getMemberAttributeConfig().setAttribute(JOBS_ATTRIBUTE, Integer.toString(jobs));
        config.getMemberAttributeConfig().setAttribute(BUILD_ATTRIBUTE, build());
        filterJavaSerialization(config.getSerializationConfig());
        return config;
    }

    private static JoinConfig closedJoin(Config config) {
        JoinConfig join = config.getNetworkConfig().getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(false);
        return join;
    }

    /** Points and results travel with Java serialisation; accept only Java's classes and rdmasim's. */
    private static void filterJavaSerialization(SerializationConfig serialization) {
        JavaSerializationFilterConfig filter = new JavaSerializationFilterConfig();
        filter.getWhitelist().addPrefixes("dev.rdmasim.");
        serialization.setJavaSerializationFilterConfig(filter);
    }

    /**
     * What identifies the code that runs points: {@code sha256:...} of the jar this class came from (the rdmasim
     * jar), or {@code development} when it runs from class directories, which cannot be compared across machines.
     */
    static String build() {
        String b = build;
        if (b == null) {
            b = fingerprint();
            build = b;
        }
        return b;
    }

    private static String fingerprint() {
        CodeSource source = ClusterSetup.class.getProtectionDomain().getCodeSource();
        if (source == null || source.getLocation() == null) {
            return "development";
        }
        Path path;
        try {
            path = Path.of(source.getLocation().toURI());
        } catch (URISyntaxException | IllegalArgumentException e) {
            return "development";
        }
        if (!Files.isRegularFile(path)) {
            return "development";
        }
        try (InputStream in = new DigestInputStream(Files.newInputStream(path), MessageDigest.getInstance("SHA-256"))) {
            byte[] buffer = new byte[1 << 16];
            while (in.read(buffer) >= 0) {
                // reading feeds the digest
            }
            byte[] digest = ((DigestInputStream) in).getMessageDigest().digest();
            return "sha256:" + HexFormat.of().formatHex(digest, 0, 12);
        } catch (IOException | NoSuchAlgorithmException e) {
            throw new IllegalStateException("cannot fingerprint " + path + ": " + e.getMessage(), e);
        }
    }
}
