package dev.rdmasim.driver;

import static dev.rdmasim.adapter.config.Parameters.HOST_CORES;
import static dev.rdmasim.adapter.config.Parameters.HOST_MMIO_STORE_TIME;
import static dev.rdmasim.adapter.config.Parameters.HOST_WC_BARRIER_TIME;
import static dev.rdmasim.adapter.config.Parameters.HOST_POLL_TIME;
import static dev.rdmasim.adapter.config.Parameters.HOST_WC_FLUSH_TIME;
import static dev.rdmasim.adapter.config.Parameters.HOST_WQE_BUILD_TIME;
import static dev.rdmasim.adapter.config.Parameters.NIC_BLUEFLAME_BYTES;

import dev.rdmasim.adapter.config.Parameters;
import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.format.Cqe;
import dev.rdmasim.adapter.format.Doorbells;
import dev.rdmasim.adapter.format.Eqe;
import dev.rdmasim.adapter.format.RecvWqe;
import dev.rdmasim.adapter.format.SendWqeBuilder;
import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.adapter.nic.AdapterControl;
import dev.rdmasim.adapter.nic.GsiUnit;
import dev.rdmasim.adapter.nic.QpConfig;
import dev.rdmasim.adapter.pcie.HostBridge;
import dev.rdmasim.adapter.pcie.HostWriteObserver;
import dev.rdmasim.adapter.pcie.InterruptHandler;
import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.Histogram;
import java.util.Arrays;
import org.eclipse.collections.impl.map.mutable.primitive.IntLongHashMap;
import org.eclipse.collections.impl.map.mutable.primitive.IntObjectHashMap;

/**
 * The driver of one host and its adapter. Given the host's memory and its adapter's control port (a
 * {@link Host} builds and wires them), it does
 * what an mlx5-like driver does through the hardware interface only: allocate rings and records in
 * host memory, issue the adapter's commands through the command queue ({@link #commands()}: create /
 * modify / destroy CQs, QPs, memory keys and PDs, in simulated time) or, as the time-zero setup path,
 * apply the same effects at once (the synchronous {@code createCq}, {@code createQp}, ...), post
 * through rings and doorbells ({@link SendQueue}, {@link ReceiveQueue}) and read completions and
 * events back from host memory ({@link CompletionQueue}, {@link EventQueue}).
 *
 * <p>Work on the host CPU is serialized by {@link HostCpu}; costs come from the profile's
 * {@code host.*} parameters. A host has {@code host.cores} cores running in parallel, each with its own
 * work queue: a QP posts on one core (the one its {@link QpOptions} names, else QP i of this driver on
 * core i mod cores) and a CQ is polled on one (its own, else the core of the first QP created on it).
 * Interrupts, firmware commands and the connection manager run on the first core. Every core stores
 * through the one root complex, so the MMIO posted queue and its backpressure are shared. With one
 * core it is named {@code cpu}; with more, {@code cpu0}, {@code cpu1}, ...
 *
 * <p>The driver owns its root complex's hooks: the MSI-X handler (an interrupt polls the event
 * queue and calls each signalled CQ's event handler), the write observer (tells a CQ when a CQE
 * lands, standing in for a busy-polling thread) and the MMIO retry (the CPU's stall).
 */
public final class HostDriver extends Module {
    /** Work items the CPU may have queued (stores and MMIO writes). */
    public static final int DEFAULT_CPU_QUEUE = 1024;
    static final int PAGE = 4096;
    /** log2 of the registration page size ({@code nic.pageSize}): one translation entry per page. */
    private int logPage;

    private final HostMemory memory;
    private final AdapterControl nic;
    private final Profile profile;
    private final HostBridge bridge;
    private final HostCpu cpu;
    /** The host's cores ({@code host.cores}); {@link #cpu} is the first. */
    private final HostCpu[] cores;
    /** QPs created so far: the next one without a core of its own goes to core {@code qpsPlaced mod cores}. */
    private int qpsPlaced;
    /** The core that retries first at the next MMIO retry. */
    private int retryFirst;
    private final long mac;
    private final int ip;
    private final int bfBytes;
    final long wqeBuildPs;
    final long mmioStorePs;
    final long wcFlushPs;
    final long wcBarrierPs;
    final long pollPs;
    /** Extra time of a poll that finds what the adapter just wrote: the line missed in the core's caches. */
    final long pollMissPs;
    private final EventQueue eq;
    private final IntObjectHashMap<SendQueue> sqs = new IntObjectHashMap<>();
    private final IntObjectHashMap<ReceiveQueue> rqs = new IntObjectHashMap<>();
    private final IntObjectHashMap<CompletionQueue> cqByNumber = new IntObjectHashMap<>();
    private CompletionQueue[] cqs = new CompletionQueue[0];
    /**
     * Every address range a CQE may land in (each CQ's ring, and during a resize its old and new one), as primitive
     * bounds: the root complex asks about every device write, and almost all are payload far from any ring.
     */
    private long[] ringStart = new long[0];
    private long[] ringEnd = new long[0];
    /** The gap between rings the last address outside all of them fell in: payload writes fall there run after run. */
    private long gapStart;
    private long gapEnd;
    /** What {@link #watchByte} watches: a byte of host memory and what runs when a device write covers it. */
    private Runnable byteWatcher;
    private long watchedByte;
    private SendQueue lastSq;
    private InterruptHandler interruptListener;
    private CommandQueue commands;
    /** The connection manager, made on first use (an adapter without one has no QP1 at all). */
    private CmAgent cm;
    /** Resolved neighbours (IPv4 to MAC), standing in for the ARP cache the connection manager consults. */
    private final IntLongHashMap neighbours = new IntLongHashMap();

    final Counter wqesPosted;
    final Counter doorbells;
    final Counter blueflameWqes;
    final Counter blueflameChunks;
    final Counter sqFull;
    final Counter rqFull;
    final Counter recvsPosted;
    final Counter cqesPolled;
    final Counter emptyPolls;
    final Counter arms;
    final Counter eqesPolled;
    final Counter orphanCqes;
    final Histogram doorbellBatch;
    private final Counter interrupts;
    private final Counter events;

    /**
     * The driver of host {@code name}: it allocates its rings in {@code memory} and drives {@code nic} through
     * its root complex; the host costs and ring sizes come from the adapter's profile. It sets up the event
     * queue at once and owns the root complex's interrupt and write hooks from then on. {@code cpuQueue} is
     * the number of work items the host CPU may have queued ({@link #DEFAULT_CPU_QUEUE}).
     */
    public HostDriver(Simulator sim, String name, HostMemory memory, AdapterControl nic, int cpuQueue) {
        super(sim, name);
        this.memory = memory;
        this.nic = nic;
        profile = nic.profile();
        bridge = nic.host();
        mac = nic.mac();
        ip = nic.ip();
        int n = profile.getInt(HOST_CORES);
        cores = new HostCpu[n];
        for (int i = 0; i < n; i++) {
            cores[i] = new HostCpu(this, n == 1 ? "cpu" : "cpu" + i, memory, bridge, cpuQueue);
        }
        cpu = cores[0];
        bridge.setMmioRetry(this::onMmioRetry);
        wqeBuildPs = profile.getLong(HOST_WQE_BUILD_TIME);
        mmioStorePs = profile.getLong(HOST_MMIO_STORE_TIME);
        wcFlushPs = profile.getLong(HOST_WC_FLUSH_TIME);
        wcBarrierPs = profile.getLong(HOST_WC_BARRIER_TIME);
        pollPs = profile.getLong(HOST_POLL_TIME);
        pollMissPs = profile.getLong(dev.rdmasim.adapter.config.Parameters.HOST_POLL_MISS_TIME);
        bfBytes = profile.getInt(NIC_BLUEFLAME_BYTES);

        wqesPosted = stats().counter("wqesPosted", "WQEs", "send WQEs written into send rings");
        doorbells = stats().counter("doorbells", "MMIOs", "8-byte send doorbells written");
        blueflameWqes = stats().counter("blueflameWqes", "WQEs", "WQEs written whole by BlueFlame");
        blueflameChunks = stats().counter("blueflameChunks", "chunks", "64-byte BlueFlame chunks written");
        doorbellBatch = stats().histogram("doorbellBatch", "WQEs", "WQEs covered by one doorbell or BlueFlame write");
        sqFull = stats().counter("sqFull", "posts", "send posts refused for lack of ring space");
        rqFull = stats().counter("rqFull", "posts", "receive posts refused for lack of ring space");
        recvsPosted = stats().counter("recvsPosted", "WQEs", "receive WQEs posted");
        cqesPolled = stats().counter("cqesPolled", "CQEs", "CQEs taken from completion queues");
        emptyPolls = stats().counter("emptyPolls", "polls", "CQ polls that found no CQE");
        arms = stats().counter("arms", "arms", "CQ arm doorbells written");
        orphanCqes = stats().counter("orphanCqes", "CQEs", "CQEs of QPs destroyed before they were polled, skipped");
        eqesPolled = stats().counter("eqesPolled", "EQEs", "event queue entries taken");
        interrupts = stats().counter("interrupts", "interrupts", "MSI-X interrupts received");
        events = stats().counter("events", "events", "completion events delivered to CQ handlers");

        int logEq = Long.numberOfTrailingZeros(profile.getLong(Parameters.NIC_EQ_DEPTH));
        long eqRing = memory.allocate((long) Eqe.SIZE << logEq, PAGE);
        // Initialise the ring (owner 1) in chunks, so a large EQ needs no large array.
        int chunk = Math.min(1 << logEq, 1024);
        byte[] init = new byte[Eqe.SIZE * chunk];
        Eqe.initRing(init, 0, chunk);
        for (long e = 0; e < (1L << logEq); e += chunk) {
            memory.write(eqRing + e * Eqe.SIZE, init, 0, init.length);
        }
        nic.createEq(eqRing, logEq);
        eq = new EventQueue(this, eqRing, logEq);
        logPage = Long.numberOfTrailingZeros(profile.getLong(Parameters.NIC_PAGE_SIZE));
        bridge.setInterruptHandler(this::onInterrupt);
        bridge.setWriteObserver(new HostWriteObserver() {
            @Override
            public void written(long address, int length) {
                onDeviceWrite(address, length);
            }

            @Override
            public boolean watches(long address, int length) {
                // Only writes into a completion ring or onto the watched byte wake a poller; the root complex
                // applies the rest (payload, queue records) without an event, before the host next reads its memory.
                return cqLandingAt(address) != null || covers(address, length);
            }
        });
    }

    /** The adapter as this driver sees it: root complex, addresses, firmware set-up port. */
    AdapterControl nic() {
        return nic;
    }

    /** The profile the host's adapter was built from, whose {@code host.*} parameters price this driver's work. */
    public Profile profile() {
        return profile;
    }

    public HostMemory memory() {
        return memory;
    }

    /** The first core (the only one unless {@code host.cores} > 1): interrupts, commands and CM run there. */
    public HostCpu cpu() {
        return cpu;
    }

    /** Number of host cores ({@code host.cores}). */
    public int coreCount() {
        return cores.length;
    }

    /** Core {@code i}, 0 .. {@link #coreCount()} - 1. */
    public HostCpu core(int i) {
        checkCore(i);
        return cores[i];
    }

    private void checkCore(int i) {
        if (i < 0 || i >= cores.length) {
            throw new IllegalArgumentException("core " + i + " does not exist: the host has " + cores.length
                    + (cores.length == 1 ? " core" : " cores") + " (host.cores)");
        }
    }

    /**
     * Charges the CPU the miss of a poll that found new data the adapter wrote ({@code host.pollMissTime}): for
     * software that polls buffers itself (a latency test watching the last byte of a WRITE).
     */
    public void chargePollMiss() {
        cpu.charge(pollMissPs);
    }

    public EventQueue eventQueue() {
        return eq;
    }

    public long mac() {
        return mac;
    }

    public int ip() {
        return ip;
    }

    /** Page-aligned host buffer of {@code size} bytes (zero-filled). */
    public long allocate(long size) {
        if (size <= 0) {
            throw new IllegalArgumentException("buffer size must be > 0, got " + size);
        }
        return memory.allocate(size, PAGE);
    }

    /** Allocates a protection domain at once (time-zero setup; {@link #commands()} has the ALLOC_PD command). */
    public int allocatePd() {
        return nic.allocatePd();
    }

    /**
     * Registers {@code [address, address + length)} at once (time-zero setup; {@link #commands()} has the
     * CREATE_MKEY command): writes its translation table and gives the adapter the key context, with the
     * lowest free key index and a variant byte (key = index << 8 | variant, as mlx5 keys are made).
     */
    public MemoryRegion registerMemory(int pd, long address, long length, int access) {
        Translation t = writeTranslation(address, length);
        int index = nic.freeKeyIndex();
        int key = index < 0 ? -1 : index << 8 | variant(index);
        nic.registerMemory(key, pd, access, logPage, address, length, t.table());
        return new MemoryRegion(address, length, pd, access, key, t.table());
    }

    /** A key's low byte: any non-zero value the driver likes, here a hash of a counter. */
    static int variant(int n) {
        int v = (n * 0x5B + 0x11) & 0xFF;
        return v == 0 ? 1 : v;
    }

    /** A translation table in host memory: its address and entry count. */
    record Translation(long table, long pages) {
    }

    /** Writes the translation table of a region: one 8-byte page address per page (host addresses are physical). */
    Translation writeTranslation(long address, long length) {
        if (length <= 0) {
            throw new IllegalArgumentException("region length must be > 0, got " + length);
        }
        long pageBytes = 1L << logPage;
        long firstPage = address & -pageBytes;
        long pages = (address + length - firstPage + pageBytes - 1) / pageBytes;
        long mtt = memory.allocate(pages * 8, 64);
        // Made page by page as the adapter reads it: a terabyte region's table costs what the run looks up.
        memory.fillLongsBE(mtt, pages, firstPage, pageBytes);
        return new Translation(mtt, pages);
    }

    int logPage() {
        return logPage;
    }

    /** Creates a CQ of {@code 2^logSize} entries at once (time-zero setup; {@link #commands()} has CREATE_CQ). */
    public CompletionQueue createCq(int logSize) {
        long ring = allocateCqRing(logSize);
        long db = memory.allocate(Doorbells.CQ_RECORD_SIZE, 64);
        int cqn = nic.freeCqn();
        nic.createCq(cqn, ring, logSize, db);
        CompletionQueue cq = new CompletionQueue(this, cqn, ring, logSize, db);
        addCq(cq);
        return cq;
    }

    /** A CQ ring of {@code 2^logSize} CQEs, initialized to INVALID / owner 1. */
    long allocateCqRing(int logSize) {
        if (logSize < 0 || logSize > 22) {
            throw new IllegalArgumentException("CQ logSize must be 0..22, got " + logSize);
        }
        long ring = memory.allocate((long) Cqe.SIZE << logSize, PAGE);
        byte[] init = new byte[Cqe.SIZE << logSize];
        Cqe.initRing(init, 0, 1 << logSize);
        memory.write(ring, init, 0, init.length);
        return ring;
    }

    void addCq(CompletionQueue cq) {
        cqByNumber.put(cq.cqn(), cq);
        cqs = Arrays.copyOf(cqs, cqs.length + 1);
        cqs[cqs.length - 1] = cq;
        cqRingsChanged();
    }

    void removeCq(CompletionQueue cq) {
        cqByNumber.remove(cq.cqn());
        CompletionQueue[] left = new CompletionQueue[cqs.length - 1];
        int n = 0;
        for (CompletionQueue c : cqs) {
            if (c != cq) {
                left[n++] = c;
            }
        }
        cqs = left;
        cqRingsChanged();
    }

    /** Creates a QP (send ring, receive ring, doorbell record) in INIT state at once (time-zero setup). */
    public QueuePair createQp(QpOptions o) {
        QpRings r = allocateQpRings(o);
        int qpn = nic.freeQpn();
        nic.createQp(qpn, r.config(o));
        return addQp(qpn, o, r);
    }

    /** Rings and doorbell record of a QP about to be created. */
    record QpRings(long sq, long rq, int logStride, long db) {
        QpConfig config(QpOptions o) {
            return new QpConfig(o.pd(), o.sendCq().cqn(), o.recvCq().cqn(), sq, o.sqLogBbs(), rq, o.rqLogSize(),
                    logStride, db, o.maxSendSge(), o.maxRecvSge(), o.maxInline(), o.access());
        }
    }

    QpRings allocateQpRings(QpOptions o) {
        if (o.sendCq().driver() != this || o.recvCq().driver() != this) {
            throw new IllegalArgumentException("the QP's CQs must belong to driver " + name());
        }
        if (o.core() >= 0) {
            checkCore(o.core());
        }
        int logStride = 32 - Integer.numberOfLeadingZeros(Math.max(1, o.maxRecvSge()) - 1);
        long sqRing = memory.allocate((long) SendWqeBuilder.BB << o.sqLogBbs(), PAGE);
        long rqRing = memory.allocate((long) RecvWqe.strideBytes(logStride) << o.rqLogSize(), PAGE);
        long db = memory.allocate(Doorbells.QP_RECORD_SIZE, 64);
        return new QpRings(sqRing, rqRing, logStride, db);
    }

    QueuePair addQp(int qpn, QpOptions o, QpRings r) {
        HostCpu core = cores[o.core() >= 0 ? o.core() : qpsPlaced % cores.length];
        qpsPlaced++;
        o.sendCq().follow(core);
        o.recvCq().follow(core);
        SendQueue sq = new SendQueue(this, core, qpn, r.sq(), o.sqLogBbs(), r.db(), o.maxSendSge(), o.maxInline(),
                bfBytes);
        ReceiveQueue rq = new ReceiveQueue(this, core, qpn, r.rq(), o.rqLogSize(), r.logStride(), r.db(),
                o.maxRecvSge());
        sqs.put(qpn, sq);
        rqs.put(qpn, rq);
        return new QueuePair(this, qpn, sq, rq);
    }

    void removeQp(int qpn) {
        sqs.remove(qpn);
        rqs.remove(qpn);
        if (lastSq != null && lastSq.qpn() == qpn) {
            lastSq = null;
        }
    }

    /**
     * The firmware command queue: asynchronous create / modify / destroy of every object, each completing in
     * simulated time through a callback. The first call sets the queue up (ring in host memory, the adapter's
     * command unit); make it before the simulation runs, as it declares statistics and waveform signals.
     */
    public CommandQueue commands() {
        if (commands == null) {
            commands = new CommandQueue(this);
        }
        return commands;
    }

    /** Records that {@code ip} is reached at {@code mac} (a resolved ARP entry). */
    public void addNeighbour(int ip, long mac) {
        if (mac < 0 || mac >>> 48 != 0) {
            throw new IllegalArgumentException("mac must fit in 48 bits, got 0x" + Long.toHexString(mac));
        }
        neighbours.put(ip, mac);
    }

    /** The MAC address of neighbour {@code ip}, or -1 if it is not resolved. */
    public long neighbourMac(int ip) {
        return neighbours.getIfAbsent(ip, -1);
    }

    /** Whether this host's connection manager has been set up. */
    public boolean hasConnectionManager() {
        return cm != null;
    }

    /** This host's connection manager (QP1 and the CM protocol), set up on the first call. */
    public CmAgent cm() {
        if (cm == null) {
            cm = new CmAgent(this, CmAgent.Config.defaults());
        }
        return cm;
    }

    /** Sets up this host's connection manager with {@code config}; only before {@link #cm()} made one. */
    public CmAgent cm(CmAgent.Config config) {
        if (cm != null) {
            throw new IllegalStateException(fullName() + " already has its connection manager");
        }
        cm = new CmAgent(this, config);
        return cm;
    }

    /** Raw MSI-X notification, called before the driver handles the event queue. */
    public void setInterruptListener(InterruptHandler listener) {
        this.interruptListener = listener;
    }

    /** The send queue of QP {@code qpn}, or null once the QP is destroyed. */
    SendQueue sendQueueOrNull(int qpn) {
        // CQEs of one QP come in runs: remember the last one found before asking the map.
        SendQueue last = lastSq;
        if (last != null && last.qpn() == qpn) {
            return last;
        }
        SendQueue sq = sqs.get(qpn);
        if (sq != null) {
            lastSq = sq;
        }
        return sq;
    }

    /** The receive queue of QP {@code qpn}, or null once the QP is destroyed. */
    ReceiveQueue receiveQueueOrNull(int qpn) {
        return rqs.get(qpn);
    }

    private void onInterrupt(int vector, int data) {
        interrupts.inc();
        if (interruptListener != null) {
            interruptListener.interrupt(vector, data);
        }
        // The EQE was written on the same DMA channel before the MSI-X message, so it is visible.
        while (eq.poll()) {
            if (eq.type() == Eqe.TYPE_COMPLETION) {
                CompletionQueue cq = cqByNumber.get(eq.cqn());
                if (cq != null) {
                    events.inc();
                    cq.event();
                }
            } else if (eq.type() == Eqe.TYPE_CQ_ERROR) {
                CompletionQueue cq = cqByNumber.get(eq.cqn());
                if (cq != null) {
                    cq.overrun();
                }
            } else if (eq.type() == Eqe.TYPE_COMMAND && commands != null) {
                commands.completed();
            } else if (eq.type() == GsiUnit.EVENT_TYPE && cm != null) {
                cm.madArrived();
            }
        }
    }

    /**
     * The root complex's posted queue has room again: every stalled core retries, in core order from a first
     * core that moves on by one each time (one that fills the queue again leaves the later ones stalled until the
     * next call). The rotation shares a saturated queue evenly, as the uncore's arbitration between cores does; a
     * fixed first core would starve the last ones.
     */
    private void onMmioRetry() {
        int n = cores.length;
        int first = retryFirst;
        retryFirst = first + 1 == n ? 0 : first + 1;
        for (int k = 0, i = first; k < n; k++, i = i + 1 == n ? 0 : i + 1) {
            cores[i].retryMmio();
        }
    }

    private void onDeviceWrite(long address, int length) {
        CompletionQueue cq = cqLandingAt(address);
        if (cq != null) {
            cq.landed();
        }
        if (covers(address, length)) {
            byteWatcher.run();
        }
    }

    /**
     * Watches one byte of host memory for device writes: {@code onWrite} runs at the instant a device write that
     * covers {@code address} becomes visible (null: watch nothing). The root complex decides whether anyone watches a
     * write when the write is queued on the link, so the watch must start while no device write to that byte is in
     * flight.
     */
    public void watchByte(long address, Runnable onWrite) {
        byteWatcher = onWrite;
        watchedByte = address;
    }

    private boolean covers(long address, int length) {
        return byteWatcher != null && address <= watchedByte && watchedByte < address + length;
    }

    /** The CQ whose ring {@code address} lies in, or null: {@link #cqAt}'s answer, cheaper for a payload write. */
    private CompletionQueue cqLandingAt(long address) {
        if (address >= gapStart && address < gapEnd) {
            return null;
        }
        final long[] s = ringStart;
        final long[] e = ringEnd;
        long below = Long.MIN_VALUE;
        long above = Long.MAX_VALUE;
        for (int i = 0; i < s.length; i++) {
            if (address >= s[i] && address < e[i]) {
                // Within a ring a CQ may use: whether it does just now (an old ring still being read) is its own.
                return cqAt(address);
            }
            if (e[i] <= address) {
                below = Math.max(below, e[i]);
            } else {
                above = Math.min(above, s[i]);
            }
        }
        gapStart = below;
        gapEnd = above;
        return null;
    }

    /** A CQ was added or removed, or one of its rings came or went: the ranges are gathered again. */
    void cqRingsChanged() {
        int n = 0;
        long[] s = new long[3 * cqs.length];
        long[] e = new long[3 * cqs.length];
        for (CompletionQueue cq : cqs) {
            n = cq.rings(s, e, n);
        }
        ringStart = Arrays.copyOf(s, n);
        ringEnd = Arrays.copyOf(e, n);
        gapStart = 0;
        gapEnd = 0;
    }

    private CompletionQueue cqAt(long address) {
        for (CompletionQueue cq : cqs) {
            if (cq.contains(address)) {
                return cq;
            }
        }
        return null;
    }
}
