package dev.rdmasim.traces.pcie;

import dev.rdmasim.adapter.config.Parameters;
import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.adapter.nic.Adapter;
import dev.rdmasim.adapter.pcie.DmaCallback;
import dev.rdmasim.adapter.pcie.DmaChannel;
import dev.rdmasim.adapter.pcie.DmaRequest;
import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.Histogram;
import dev.rdmasim.kernel.stats.TimeAverage;
import dev.rdmasim.kernel.wave.Signal;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * A pcie-bench-style DMA benchmark: the adapter's own DMA engine ({@code nic.pcie.dma}, built from a {@link Profile}
 * exactly as the adapter builds it) streams reads or writes of one size between the device and a host buffer.
 *
 * <p>Bandwidth phase: {@code iterations} requests, at most {@code window} outstanding (each completion submits the
 * next), at consecutive host addresses that wrap around a {@link #HOST_BUFFER_BYTES} buffer (pcie-bench's sequential
 * access). Bandwidth is the payload of the requests completed after the first over the time from the first completion
 * to the last, so the pipeline's fill (one round trip) is not counted. Latency phase (reads only, after the bandwidth
 * phase): {@code min(iterations, }{@link #LATENCY_ITERATIONS}{@code )} reads one at a time on the idle link, each timed
 * from submission to its last completion, as pcie-bench's latency test issues them.
 *
 * <p>Real bytes move: the host buffer is filled with a seeded pattern and every read's bytes are compared with it on
 * arrival; for writes every slot of the device buffer holds its own pattern and, after the run, each host slot must hold
 * the pattern of the request submitted last for it.
 */
public final class PcieBench extends Module implements DmaCallback {
    /** Which DMA direction is measured, named as the {@code perf} command names the tests. */
    public enum Test {
        PCIE_READ("pcie_read"),
        PCIE_WRITE("pcie_write");

        private final String label;

        Test(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }

        /** The test named {@code label} ({@code pcie_read} or {@code pcie_write}). */
        public static Test of(String label) {
            for (Test t : values()) {
                if (t.label.equals(label)) {
                    return t;
                }
            }
            throw new IllegalArgumentException("unknown PCIe test '" + label + "'; valid: pcie_read, pcie_write");
        }
    }

    public static final int MIN_SIZE = 64;
    public static final int MAX_SIZE = 64 * 1024;
    public static final int MAX_WINDOW = 1024;
    /** The sizes {@code -a} sweeps: 64 B to 4 KiB, doubling. */
    public static final int[] ALL_SIZES = {64, 128, 256, 512, 1024, 2048, 4096};
    /** Host buffer the requests walk through: 1 MiB, i.e. larger than any window of requests in flight. */
    public static final int HOST_BUFFER_BYTES = 1 << 20;
    /** At most this many sequential reads time the latency. */
    public static final long LATENCY_ITERATIONS = 10_000;
    public static final long DEFAULT_ITERATIONS = 10_000;
    private static final long MAC = 0x02_00_00_00_00_01L;
    private static final int IP = 0x0A00_0001;

    /**
     * What to run.
     *
     * @param test       read or write
     * @param size       bytes per DMA request, {@link #MIN_SIZE}..{@link #MAX_SIZE}
     * @param iterations requests in the bandwidth phase, at least 2
     * @param window     requests outstanding at once, 1..{@link #MAX_WINDOW}; 0 = {@link #defaultWindow}
     * @param seed       run seed (the data patterns)
     */
    public record Options(Test test, int size, long iterations, int window, long seed) {
        public Options {
            Objects.requireNonNull(test, "test");
            if (size < MIN_SIZE || size > MAX_SIZE) {
                throw new IllegalArgumentException("transfer size must be 64..65536 bytes (64 B .. 64 KiB), got " + size);
            }
            if (iterations < 2) {
                throw new IllegalArgumentException("iterations must be at least 2 (bandwidth is measured between the"
                        + " first and the last completion), got " + iterations);
            }
            if (window < 0 || window > MAX_WINDOW) {
                throw new IllegalArgumentException("window must be 1.." + MAX_WINDOW + " (0 = the profile's pcie.readTags),"
                        + " got " + window);
            }
        }
    }

    /**
     * What a run measured. Latencies are NaN for writes (posted: nothing comes back to time).
     *
     * @param bwGbps            payload bandwidth, Gb/s
     * @param latNsMedian       median read latency on the idle link (latency phase), ns
     * @param latNsP99          99th percentile of the same, ns
     * @param loadedLatNsMedian median read latency during the bandwidth phase (queueing included), ns
     * @param simTimePs         simulated time of the whole run
     * @param wallS             wall-clock seconds the run took (the only non-deterministic figure)
     * @param verifiedBytes     payload bytes compared against the expected pattern
     */
    public record Result(Test test, String profile, int bytes, long iterations, int window, double bwGbps,
                         double latNsMedian, double latNsP99, double loadedLatNsMedian, long latencyIterations,
                         long simTimePs, double wallS, long events, long verifiedBytes) {
        /** The JSON object of this result, keys in a fixed order; latency keys only for reads. */
        public Map<String, Object> json() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("test", test.label());
            m.put("profile", profile);
            m.put("bytes", bytes);
            m.put("iterations", iterations);
            m.put("window", window);
            m.put("bw_gbps", round3(bwGbps));
            if (test == Test.PCIE_READ) {
                m.put("lat_ns_median", round3(latNsMedian));
                m.put("lat_ns_p99", round3(latNsP99));
                m.put("lat_iterations", latencyIterations);
                m.put("loaded_lat_ns_median", round3(loadedLatNsMedian));
            }
            m.put("sim_time_ps", simTimePs);
            m.put("wall_s", round3(wallS));
            m.put("events", events);
            m.put("verified_bytes", verifiedBytes);
            return m;
        }

        private static double round3(double v) {
            return Math.round(v * 1000) / 1000.0;
        }
    }

    /** Outstanding requests by default: the profile's read tags, enough to keep every tag (and so the link) busy. */
    public static int defaultWindow(Profile profile) {
        return Math.min(MAX_WINDOW, profile.getInt(Parameters.PCIE_READ_TAGS));
    }

    /** Builds an adapter on {@code profile}, runs the benchmark to the end and reports it. */
    public static Result run(Profile profile, Options options) {
        long wall0 = System.nanoTime();
        Simulator sim = new Simulator(options.seed());
        HostMemory memory = new HostMemory("host");
        Adapter nic = new Adapter(sim, "nic", profile, memory, MAC, IP);
        int window = options.window() == 0 ? defaultWindow(profile) : options.window();
        PcieBench bench = new PcieBench(sim, nic, options, window);
        bench.start();
        sim.run();
        bench.finish();
        double wallS = (System.nanoTime() - wall0) / 1e9;
        boolean read = options.test() == Test.PCIE_READ;
        return new Result(options.test(), profile.name(), options.size(), options.iterations(), window,
                bench.bandwidthGbps(), read ? bench.idlePercentile(50) / 1000.0 : Double.NaN,
                read ? bench.idlePercentile(99) / 1000.0 : Double.NaN,
                read ? bench.loadedLatency.percentile(50) / 1000.0 : Double.NaN, read ? bench.latencyIterations : 0,
                sim.now(), wallS, sim.eventsExecuted(), bench.verifiedBytes.value());
    }

    private final Options options;
    private final boolean read;
    private final int size;
    private final DmaChannel channel;
    private final DmaRequest[] requests;
    /** One slot of {@code size} bytes per request: where reads land, or what writes send. */
    private final byte[] device;
    /** Reads: the host buffer's contents. Writes: unused. */
    private final byte[] hostImage;
    /** Writes: the request slot whose data each host slot receives last, -1 if none. */
    private final int[] lastWriter;
    private final long hostBase;
    private final int hostSlots;
    private final HostMemory memory;
    private final long latencyIterations;
    /** Latency-phase samples, ps, kept exactly (the histogram keeps 3 significant digits). */
    private final long[] idleLatencies;

    private long submitted;
    private long completed;
    private long nextHostSlot;
    private boolean latencyPhase;
    private long latencySubmitted;
    private long firstDonePs = -1;
    private long lastDonePs = -1;
    private int outstanding;
    private int idleSamples;

    private final Counter requestsDone;
    private final Counter payloadBytes;
    private final Counter verifiedBytes;
    private final Histogram latency;
    private final Histogram loadedLatency;
    private final TimeAverage outstandingAvg;
    private final Signal outstandingSignal;

    private PcieBench(Simulator sim, Adapter nic, Options options, int window) {
        super(sim, "bench");
        this.options = options;
        this.read = options.test() == Test.PCIE_READ;
        this.size = options.size();
        this.memory = nic.memory();
        this.latencyIterations = read ? Math.min(options.iterations(), LATENCY_ITERATIONS) : 0;
        this.idleLatencies = new long[(int) latencyIterations];
        int slots = (int) Math.min(window, options.iterations());
        this.channel = nic.pcie().dma().addChannel("bench", slots);
        this.requests = new DmaRequest[slots];
        for (int i = 0; i < slots; i++) {
            requests[i] = new DmaRequest();
        }
        this.device = new byte[slots * size];
        this.hostSlots = HOST_BUFFER_BYTES / size;
        this.hostBase = memory.allocate(HOST_BUFFER_BYTES, 4096);
        SplittableRandom rnd = random();
        this.hostImage = new byte[read ? HOST_BUFFER_BYTES : 0];
        if (read) {
            rnd.nextBytes(hostImage);
            memory.write(hostBase, hostImage, 0, HOST_BUFFER_BYTES);
            this.lastWriter = new int[0];
        } else {
            // Host starts with a pattern of its own, so a write that never lands is seen.
            byte[] initial = new byte[HOST_BUFFER_BYTES];
            rnd.nextBytes(initial);
            memory.write(hostBase, initial, 0, HOST_BUFFER_BYTES);
            rnd.nextBytes(device);
            this.lastWriter = new int[hostSlots];
            Arrays.fill(lastWriter, -1);
        }
        var s = stats();
        requestsDone = s.counter("requests", "requests", "DMA requests completed (both phases)");
        payloadBytes = s.counter("payloadBytes", "B", "payload bytes of the completed DMA requests");
        verifiedBytes = s.counter("verifiedBytes", "B", "payload bytes compared with the expected pattern");
        latency = s.histogram("latency", "ps", "read latency, one read at a time: submission to last completion");
        loadedLatency = s.histogram("loadedLatency", "ps", "read latency in the bandwidth phase (window outstanding)");
        outstandingAvg = s.timeAverage("outstanding", "requests", "DMA requests submitted and not yet completed");
        outstandingSignal = signal("outstanding", 16);
        channel.setRetry(() -> {
            throw new InvariantViolation(this + ": the channel holds one entry per request and never refuses");
        });
    }

    private void start() {
        for (int i = 0; i < requests.length; i++) {
            submit(i);
        }
    }

    /** Sets request {@code slot} up for the next host slot and submits it. */
    private void submit(int slot) {
        int hostSlot = (int) (nextHostSlot++ % hostSlots);
        long addr = hostBase + (long) hostSlot * size;
        DmaRequest r = requests[slot];
        if (read) {
            r.read(addr, device, slot * size, size, this, slot);
        } else {
            r.write(addr, device, slot * size, size, this, slot, false);
            lastWriter[hostSlot] = slot;
        }
        if (!channel.submit(r)) {
            throw new InvariantViolation(this + ": channel refused request slot " + slot);
        }
        if (latencyPhase) {
            latencySubmitted++;
        } else {
            submitted++;
        }
        outstanding++;
        outstandingAvg.set(outstanding);
        outstandingSignal.set(outstanding);
    }

    @Override
    public void readDone(DmaRequest r) {
        int slot = (int) r.cookie();
        int hostOff = (int) (r.hostAddress() - hostBase);
        if (!Arrays.equals(device, slot * size, slot * size + size, hostImage, hostOff, hostOff + size)) {
            throw new InvariantViolation(this + ": read of " + size + " B at host offset " + hostOff
                    + " returned bytes that differ from host memory");
        }
        verifiedBytes.add(size);
        long lat = now() - r.submitPs();
        if (latencyPhase) {
            idleLatencies[idleSamples++] = lat;
            latency.record(lat);
        } else {
            loadedLatency.record(lat);
        }
        done(slot);
    }

    @Override
    public void writeSent(DmaRequest r) {
        done((int) r.cookie());
    }

    private void done(int slot) {
        outstanding--;
        outstandingAvg.set(outstanding);
        outstandingSignal.set(outstanding);
        requestsDone.inc();
        payloadBytes.add(size);
        if (latencyPhase) {
            if (latencySubmitted < latencyIterations) {
                submit(slot);
            }
            return;
        }
        completed++;
        if (completed == 1) {
            firstDonePs = now();
        }
        if (completed == options.iterations()) {
            lastDonePs = now();
            if (read) {
                latencyPhase = true;
                submit(0);
            }
            return;
        }
        if (submitted < options.iterations()) {
            submit(slot);
        }
    }

    /** Checks the run went to the end and, for writes, that host memory holds what was written. */
    private void finish() {
        if (completed != options.iterations() || latencySubmitted != latencyIterations || outstanding != 0) {
            throw new InvariantViolation(this + ": run ended with " + completed + "/" + options.iterations()
                    + " requests completed, " + outstanding + " outstanding");
        }
        if (!read) {
            for (int j = 0; j < hostSlots; j++) {
                int slot = lastWriter[j];
                if (slot < 0) {
                    continue;
                }
                if (!memory.equalsRange(hostBase + (long) j * size, device, slot * size, size)) {
                    throw new InvariantViolation(this + ": host slot " + j + " does not hold the bytes of the last"
                            + " write to it (request slot " + slot + ")");
                }
                verifiedBytes.add(size);
            }
        }
    }

    /** The nearest-rank percentile of the latency phase, ps. */
    private long idlePercentile(double percentile) {
        long[] sorted = Arrays.copyOf(idleLatencies, idleSamples);
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(percentile / 100 * sorted.length);
        return sorted[Math.max(0, rank - 1)];
    }

    private double bandwidthGbps() {
        // Bits per nanosecond; the first completion starts the span, so its bytes are not counted.
        return (double) (options.iterations() - 1) * size * 8 * 1000 / (lastDonePs - firstDonePs);
    }
}
