package dev.rdmasim.traces.replay;

import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.adapter.wire.PcapWriter;
import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.wave.SignalFilter;
import dev.rdmasim.kernel.wave.VcdWriter;
import dev.rdmasim.traces.Topology;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * The sinks a replay's interpreter hands what happens to: completions, request lifecycles (and the timeline),
 * CQ notifications, memory dumps and the summary, plus the waveform and the packet capture. Which files exist is
 * the caller's choice ({@link ReplayOptions}); without an output directory none does, and the interpreter runs the
 * same (a caller that only wants the result or the request stages, such as {@code explain} or a sweep point, needs
 * no scratch directory).
 *
 * <p>Files are written under temporary names ({@code .partial}) and renamed by {@link #finish} only, so a failed
 * run ({@link #abandon}) leaves nothing that claims to be complete.
 */
final class ReplayOutputs {
    private final ReplayOptions options;
    private final Path completionsCsv;
    private final Path summaryJson;
    private final Path lifecycleCsv;
    private final Path notificationsCsv;
    private final Path vcdPath;
    private final Path pcapPath;
    private final Path timelinePath;
    private final List<Path> dumps = new ArrayList<>();

    private CompletionLog log;
    private NotificationLog notifications;
    private LifecycleLog lifecycle;
    private Writer vcdWriter;
    private VcdWriter wave;
    private PcapWriter capture;

    /** Creates the output directory and starts the waveform (it must hear the hosts' signals as they are built). */
    ReplayOutputs(ReplayOptions options, Simulator sim) throws IOException {
        this.options = options;
        Path out = options.outDir();
        boolean files = out != null;
        if (files) {
            Files.createDirectories(out);
        }
        completionsCsv = files ? out.resolve("completions.csv") : null;
        summaryJson = files ? out.resolve("summary.json") : null;
        notificationsCsv = files ? out.resolve("notifications.csv") : null;
        lifecycleCsv = files && options.lifecycle() ? out.resolve("lifecycle.csv") : null;
        vcdPath = files && options.vcd() ? out.resolve("wave.vcd") : null;
        pcapPath = files && options.pcap() ? out.resolve("wire.pcap") : null;
        timelinePath = files && options.timeline() ? out.resolve("timeline.json") : null;
        if (vcdPath != null) {
            vcdWriter = Files.newBufferedWriter(partial(vcdPath), StandardCharsets.UTF_8);
            wave = new VcdWriter(vcdWriter, sim, SignalFilter.parse(options.vcdSignals()));
            sim.attachWave(wave);
        }
    }

    /** Refuses a {@code --vcd-signals} glob that matched none of the signals the hosts declared. */
    void checkSignalGlobs() {
        if (wave != null && !wave.unmatchedGlobs().isEmpty()) {
            throw new OptionError("signal glob '" + wave.unmatchedGlobs().get(0) + "' matches none of the "
                    + wave.declaredSignals() + " signals (names such as nicA.pcie.*, globs with * and ?)");
        }
    }

    /** Opens the logs once the hosts exist, and taps the cable for the capture. */
    void open(Topology topology, java.util.function.Consumer<Replay.RequestStages> requests) throws IOException {
        log = new CompletionLog(completionsCsv == null ? null : partial(completionsCsv));
        notifications = notificationsCsv == null ? null : new NotificationLog(partial(notificationsCsv));
        lifecycle = new LifecycleLog(lifecycleCsv == null ? null : partial(lifecycleCsv),
                timelinePath == null ? null : partial(timelinePath));
        lifecycle.setListener(requests);
        if (pcapPath != null) {
            capture = PcapWriter.open(partial(pcapPath));
            topology.link().addTap(capture);
        }
    }

    /** The request tracker behind {@code lifecycle.csv} (it tracks requests whether or not the file is written). */
    LifecycleLog lifecycle() {
        return lifecycle;
    }

    void completion(long timePs, String host, String qp, String cq, String ctx, String op, int status, long bytes) {
        log.row(timePs, host, qp, cq, ctx, op, status, bytes);
    }

    long completions() {
        return log.rows();
    }

    void notification(long timePs, String host, String cq, String type, int status) {
        if (notifications != null) {
            notifications.row(timePs, host, cq, type, status);
        }
    }

    /** Writes {@code length} bytes of {@code memory} from {@code address} to the file {@code name}, if files are kept. */
    void dump(String name, HostMemory memory, long address, long length) {
        if (options.outDir() == null) {
            return;
        }
        Path file = options.outDir().resolve(name);
        byte[] chunk = new byte[(int) Math.min(length, 1 << 16)];
        try (OutputStream o = Files.newOutputStream(partial(file))) {
            for (long off = 0; off < length; off += chunk.length) {
                int n = (int) Math.min(chunk.length, length - off);
                memory.read(address + off, chunk, 0, n);
                o.write(chunk, 0, n);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
        dumps.add(file);
    }

    /** The run's result with the paths of the files it will have once {@link #finish} renamed them. */
    ReplayResult result(long simTimePs, long firstCallPs, long events, long calls, long bytes,
            Map<String, Long> statusCounts, double p50, double p99) {
        return new ReplayResult(simTimePs, firstCallPs, events, calls, log.rows(), bytes, statusCounts, p50, p99,
                completionsCsv, summaryJson, lifecycleCsv, vcdPath, timelinePath, pcapPath, notificationsCsv);
    }

    /** Closes every log, writes the summary, and gives every file its final name. */
    void finish(SummaryWriter summary) throws IOException {
        log.close();
        if (notifications != null) {
            notifications.close();
        }
        lifecycle.finish();
        if (wave != null) {
            wave.close();
            vcdWriter.close();
            vcdWriter = null;
        }
        if (capture != null) {
            capture.close();
            capture = null;
        }
        if (summaryJson != null) {
            summary.write(partial(summaryJson));
        }
        for (Path p : files()) {
            Files.move(partial(p), p, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /** Writes {@code summary.json} into the file given. */
    interface SummaryWriter {
        void write(Path file) throws IOException;
    }

    /** After a failure: closes what is open and deletes the partial files. */
    void abandon() throws IOException {
        closeQuietly(log);
        closeQuietly(notifications);
        closeQuietly(lifecycle);
        closeQuietly(vcdWriter);
        closeQuietly(capture);
        for (Path p : files()) {
            Files.deleteIfExists(partial(p));
        }
    }

    private List<Path> files() {
        List<Path> all = new ArrayList<>();
        for (Path p : new Path[] {completionsCsv, lifecycleCsv, notificationsCsv, summaryJson, vcdPath, pcapPath,
            timelinePath}) {
            if (p != null) {
                all.add(p);
            }
        }
        all.addAll(dumps);
        return all;
    }

    private static Path partial(Path p) {
        return p.resolveSibling(p.getFileName() + ".partial");
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception e) {
            // The run already failed; the first error is the one reported.
        }
    }
}
