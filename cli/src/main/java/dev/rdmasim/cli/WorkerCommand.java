package dev.rdmasim.cli;

import com.hazelcast.core.HazelcastException;
import dev.rdmasim.sweep.hazelcast.ClusterSetup;
import dev.rdmasim.sweep.hazelcast.Worker;
import dev.rdmasim.sweep.hazelcast.WorkerOptions;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code rdmasim worker}: a Hazelcast member that runs the points of sweeps started on other machines. */
@Command(name = "worker",
        mixinStandardHelpOptions = true,
        description = {"Runs the points of sweeps started on other machines.",
            "Sweeps reach it with 'sweep --executor hazelcast --members HOST:PORT,...'. It joins the workers given"
                + " with --members (or starts a cluster), prints where it listens, and runs until interrupted:"
                + " Ctrl-C leaves the cluster cleanly and the points it was running go to the other workers.",
            "Every machine needs the same rdmasim jar (see docs/sweep-distributed.md)."})
final class WorkerCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--port", paramLabel = "N", defaultValue = "" + ClusterSetup.DEFAULT_PORT,
            description = "TCP port to listen on (default: ${DEFAULT-VALUE}); other workers and sweeps connect to it.")
    int port;

    @Option(names = "--members", split = ",", paramLabel = "HOST:PORT,...", hideParamSyntax = true,
            description = "Workers to join, comma-separated (one running worker is enough; default: start a cluster).")
    List<String> members = new ArrayList<>();

    @Option(names = "--jobs", paramLabel = "N", description = "Points run at once (default: the number of cores, ${DEFAULT-VALUE}).")
    int jobs = Runtime.getRuntime().availableProcessors();

    @Option(names = "--cluster-name", paramLabel = "NAME", defaultValue = ClusterSetup.DEFAULT_CLUSTER_NAME,
            description = "Cluster to form or join; sweeps use the same name (default: ${DEFAULT-VALUE}).")
    String clusterName;

    @Option(names = "--bind", paramLabel = "ADDR",
            description = "Address to listen on and give to others, e.g. 10.0.0.2 or 10.0.*.* (default: Hazelcast picks"
                    + " one; give it on machines with several networks).")
    String bind;

    @Override
    public Integer call() {
        WorkerOptions options;
        try {
            options = new WorkerOptions(clusterName, bind, port, members, jobs);
        } catch (IllegalArgumentException e) {
            throw new UserError(e.getMessage());
        }
        Worker worker;
        try {
            worker = Worker.start(options);
        } catch (HazelcastException e) {
            throw new UserError("cannot start a worker on port " + port + (bind == null ? "" : " of " + bind) + ": "
                    + e.getMessage());
        }
        PrintWriter out = spec.commandLine().getOut();
        out.println("rdmasim worker listening on " + worker.address() + " (cluster '" + options.clusterName() + "', "
                + options.jobs() + " jobs)");
        out.println("members: " + String.join(", ", worker.members()));
        out.println("run sweeps here with: --executor hazelcast --members " + worker.address());
        out.flush();
        worker.watchMembers(line -> {
            out.println(line);
            out.flush();
        });
        // Ctrl-C: leave the cluster gracefully, so that sweeps resubmit this worker's points at once.
        Thread hook = new Thread(worker::close, "rdmasim-worker-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            worker.awaitShutdown();
        } catch (InterruptedException e) {
            worker.close();
            Thread.currentThread().interrupt();
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException exiting) {
                // the JVM is shutting down: the hook is running and stops the worker
            }
        }
        out.println("rdmasim worker stopped");
        out.flush();
        return 0;
    }
}
