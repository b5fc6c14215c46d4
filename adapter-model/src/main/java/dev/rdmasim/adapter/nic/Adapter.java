package dev.rdmasim.adapter.nic;

import static dev.rdmasim.adapter.config.Parameters.*;

import dev.rdmasim.adapter.cache.SetAssocCache;
import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.format.BigEndian;
import dev.rdmasim.adapter.format.ControlSegment;
import dev.rdmasim.adapter.format.Doorbells;
import dev.rdmasim.adapter.format.Eqe;
import dev.rdmasim.adapter.format.SendWqeBuilder;
import dev.rdmasim.adapter.format.SendWqeParser;
import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.adapter.pcie.DmaCallback;
import dev.rdmasim.adapter.pcie.DmaChannel;
import dev.rdmasim.adapter.pcie.DmaRequest;
import dev.rdmasim.adapter.pcie.HostBridge;
import dev.rdmasim.adapter.pcie.MmioTarget;
import dev.rdmasim.adapter.pcie.PcieConfig;
import dev.rdmasim.adapter.pcie.PcieLink;
import dev.rdmasim.adapter.wire.LinkEndpoint;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.hw.ClockDomain;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.TimeAverage;
import dev.rdmasim.kernel.wave.Signal;
import dev.rdmasim.adapter.format.Command;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.eclipse.collections.impl.map.mutable.primitive.IntIntHashMap;
import org.eclipse.collections.impl.map.mutable.primitive.IntObjectHashMap;

/**
 * A RoCEv2 RDMA adapter: the top of the block hierarchy and the owner of the per-QP and per-CQ
 * state. In pipeline order its blocks are: the PCIe link with the DMA engine ({@code pcie}), the
 * doorbell unit and WQE fetch engine (this class), the key unit ({@code keys}), the transmitter
 * ({@code tx}), the wire port, the receiver ({@code rx}) and the CQE writer ({@code cqe}).
 *
 * <p>The driver side talks to it only as hardware is talked to: bytes in host memory (rings,
 * doorbell records, buffers) and MMIO writes through {@link #host()}. Objects (CQs, QPs, memory keys,
 * protection domains) are made, changed and destroyed by firmware commands the driver posts to the
 * command queue ({@link CommandUnit}, {@code docs/commands.md}), which take effect after
 * {@code nic.firmwareCommandLatency}; the public create/modify/destroy methods apply the same effects at
 * once, as the time-zero setup path.
 *
 * <p>Doorbell page layout (one 4 KiB page per QP, page index = QP number): offset 0x20 CQ arm
 * (8 bytes: arm word, CQ number), 0x800 and 0x800 + BlueFlame size the two BlueFlame halves; an
 * 8-byte write there is a plain doorbell. Page 0 belongs to no QP: its offset 0x18 is the command
 * doorbell (8 bytes: the command queue's new producer counter).
 */
public final class Adapter extends Module implements MmioTarget, DmaCallback {
    public static final int QP_CONTEXT_BYTES = 256;
    public static final int CQ_CONTEXT_BYTES = 64;
    /** The first QP number a data QP gets: 0 and 1 are the special QPs of the IB architecture. */
    public static final int FIRST_DATA_QPN = 2;
    static final int PAGE = 4096;

    final Profile profile;
    final ClockDomain clock;
    final HostMemory memory;
    final PcieLink pcie;
    final long mac;
    final int ip;
    final int mtu;
    final KeyUnit keys;
    final Transmitter tx;
    final Receiver rx;
    final CqeWriter cqe;
    /** QP1, built on first use so an adapter without connection management has none of its statistics or signals. */
    GsiUnit gsi;
    private LinkEndpoint port;
    private final IntObjectHashMap<Qp> qps = new IntObjectHashMap<>();
    private final IntObjectHashMap<Cq> cqs = new IntObjectHashMap<>();
    private final long contextBase;
    private final int maxQps;
    private final int maxCqs;
    private final List<LifecycleListener> listeners = new ArrayList<>();
    private final int maxMrs;
    private final int maxPds;
    // Numbers in use, for the firmware's lowest-free allocation.
    private final BitSet cqNumbers = new BitSet();
    private final BitSet qpNumbers = new BitSet();
    private final BitSet keyIndices = new BitSet();
    private final BitSet pdNumbers = new BitSet();
    /** Protection domain of each registered key index, so a PD in use is not freed. */
    private final IntIntHashMap keyPd = new IntIntHashMap();
    /** The whole key (index and variant byte) registered at each key index. */
    private final IntIntHashMap keyValue = new IntIntHashMap();
    private String refusal;
    /** The firmware command unit; null until the driver sets up a command queue. */
    private CommandUnit commands;

    // Event queue 0 (one per adapter), set up by the driver.
    private long eqBase;
    private int eqLogSize;
    private long eqProducer;

    // WQE fetch engine.
    private final IntRing fetchQueue;
    private final SetAssocCache qpcCache;
    private final DmaChannel fetchChannel;
    private final DmaRequest[] fetchReads;
    private final int[] fetchQpn;
    private final int fetchMaxBbs;
    private final int parseCycles;
    /** Largest WQE the adapter accepts, in 16-byte units. */
    private final int maxDs;
    private final int bfBytes;
    private final int outstandingPerQp;
    private final Busy fetchBusy;
    private final Event fetchStep;
    private final IntRing parseQueue;
    private final Busy parseBusy;
    private final SendWqeParser parser;
    private boolean fetchSubmitBlocked;
    private int blockedFetch = -1;
    // Shared on-chip buffers: fetched WQE blocks awaiting parse, and inline payload awaiting acknowledgement.
    private final int prefetchDepth;
    private int wqeCacheFree;
    private final IntRing cacheWaiters;
    private long inlineFree;
    private boolean parseStalledOnInline;
    private final TimeAverage wqeCacheUsed;
    private final TimeAverage inlineUsed;
    private final Counter inlineStalls;
    private final Counter wqeCacheStalls;
    private final Signal inlineSignal;
    private final Signal wqeCacheSignal;
    private final long wqeCacheBbs;
    private final long inlineBytes;
    private final DmaChannel writeBackChannel;
    private final DmaRequest[] writeBacks = new DmaRequest[16];
    private final byte[][] writeBackBufs = new byte[16][QP_CONTEXT_BYTES];
    private int nextWriteBack;
    private final Counter contextWriteBacks;
    private final Counter droppedWriteBacks;
    private final Counter doorbells;
    private final Counter blueflames;
    private final Counter wqeFetches;
    private final Counter wqesParsed;
    private final Counter badWqes;
    final Counter events;
    final Counter interrupts;

    /** A statistics and waveform scope named as the block that owns its figures. */
    private static final class Block extends Module {
        Block(Module parent, String name) {
            super(parent, name);
        }

        Signal wave(String localName, int width) {
            return signal(localName, width);
        }
    }

    public Adapter(Simulator sim, String name, Profile profile, HostMemory memory, long mac, int ip) {
        super(sim, name);
        this.profile = profile;
        this.memory = memory;
        this.mac = mac;
        this.ip = ip;
        this.mtu = profile.getInt(LINK_MTU);
        clock = ClockDomain.ofFrequency(sim, name + ".clk", profile.getLong(NIC_CLOCK));
        PcieConfig pc = new PcieConfig(profile.getInt(PCIE_GEN), profile.getInt(PCIE_LANES), profile.getInt(PCIE_MPS),
                profile.getInt(PCIE_MRRS), profile.getInt(PCIE_RCB), profile.getBoolean(PCIE_RCB_CHUNKS),
                profile.getBoolean(PCIE_ADDR64), profile.getBoolean(PCIE_ECRC), profile.getInt(PCIE_READ_TAGS),
                profile.getLong(PCIE_HOST_READ_LATENCY), profile.getLong(PCIE_LINK_LATENCY),
                profile.getInt(PCIE_ACK_LIMIT), profile.getInt(PCIE_FC_UPDATE_LIMIT), 16, 32,
                profile.getLong(PCIE_MSIX_ADDRESS), 0x1000);
        pcie = new PcieLink(this, "pcie", pc, memory);
        pcie.dma().setMmioTarget(this);
        maxQps = profile.getInt(NIC_MAX_QPS);
        maxCqs = profile.getInt(NIC_MAX_CQS);
        maxMrs = profile.getInt(NIC_MAX_MRS);
        maxPds = profile.getInt(NIC_MAX_PDS);
        // Adapter-owned context memory, carved from the host's memory like a driver's firmware pages.
        long ctxBytes = (long) maxQps * QP_CONTEXT_BYTES + (long) maxCqs * CQ_CONTEXT_BYTES
                + (long) maxMrs * KeyUnit.CONTEXT_BYTES;
        contextBase = memory.allocate(ctxBytes, PAGE);
        int readQueue = profile.getInt(NIC_DMA_READ_QUEUE);
        int writeQueue = profile.getInt(NIC_DMA_WRITE_QUEUE);
        fetchChannel = pcie.dma().addChannel("wqeFetch", readQueue);
        keys = new KeyUnit(this, memory, contextBase + (long) maxQps * QP_CONTEXT_BYTES + (long) maxCqs * CQ_CONTEXT_BYTES,
                maxMrs, profile.getInt(NIC_MKEY_CACHE_ENTRIES), profile.getInt(NIC_MKEY_CACHE_WAYS),
                profile.getInt(NIC_MTT_CACHE_ENTRIES), profile.getInt(NIC_MTT_CACHE_WAYS),
                pcie.dma().addChannel("keyFill", readQueue), 16, cachePolicy());
        keys.onFill(this::ready);
        Block ctxBlock = new Block(this, "ctx");
        qpcCache = new SetAssocCache(ctxBlock, "qpcCache", profile.getInt(NIC_QPC_CACHE_ENTRIES),
                profile.getInt(NIC_QPC_CACHE_WAYS), QP_CONTEXT_BYTES, cachePolicy());
        qpcCache.keepEvictedLines();
        writeBackChannel = pcie.dma().addChannel("contextWriteBack", writeQueue);
        for (int i = 0; i < writeBacks.length; i++) {
            writeBacks[i] = new DmaRequest();
        }
        contextWriteBacks = ctxBlock.stats().counter("contextWriteBacks", "lines", "QP contexts written back to context memory on eviction");
        droppedWriteBacks = ctxBlock.stats().counter("droppedWriteBacks", "lines",
                "evictions whose write-back found every write-back buffer busy (traffic not modeled)");
        fetchMaxBbs = Math.max(1, profile.getInt(NIC_WQE_FETCH_MAX_BYTES) / SendWqeBuilder.BB);
        parseCycles = profile.getInt(NIC_WQE_PARSE_CYCLES);
        maxDs = Math.min(ControlSegment.MAX_DS, profile.getInt(NIC_MAX_WQE_BYTES) / 16);
        bfBytes = profile.getInt(NIC_BLUEFLAME_BYTES);
        outstandingPerQp = profile.getInt(NIC_MAX_OUTSTANDING_PER_QP);
        int slots = profile.getInt(NIC_WQE_FETCH_SLOTS);
        fetchQueue = new IntRing(16);
        parseQueue = new IntRing(16);
        fetchReads = new DmaRequest[slots];
        fetchQpn = new int[slots];
        for (int i = 0; i < slots; i++) {
            fetchReads[i] = new DmaRequest();
            fetchQpn[i] = -1;
        }
        Block dbBlock = new Block(this, "db");
        doorbells = dbBlock.stats().counter("doorbells", "MMIOs", "8-byte send doorbells received");
        blueflames = dbBlock.stats().counter("blueflames", "WQEs", "WQEs received whole by BlueFlame (no fetch)");
        Block creditBlock = new Block(this, "credits");
        wqeCacheUsed = creditBlock.stats().timeAverage("wqeCacheUsed", "BBs", "WQE cache blocks reserved by fetches or holding unparsed WQEs");
        inlineUsed = creditBlock.stats().timeAverage("inlineUsed", "bytes", "inline buffer bytes holding payload of unacknowledged requests");
        inlineSignal = creditBlock.wave("inlineUsed", 32);
        wqeCacheSignal = creditBlock.wave("wqeCacheUsed", 24);
        Block fetchBlock = new Block(this, "fetch");
        fetchBusy = new Busy(fetchBlock, clock, fetchBlock.wave("busy", 1));
        wqeFetches = fetchBlock.stats().counter("wqeFetches", "reads", "DMA reads of send-ring basic blocks");
        wqeCacheStalls = fetchBlock.stats().counter("wqeCacheStalls", "events", "times a fetch waited for WQE cache space");
        Block parseBlock = new Block(this, "parse");
        parseBusy = new Busy(parseBlock, clock, parseBlock.wave("busy", 1));
        wqesParsed = parseBlock.stats().counter("wqesParsed", "WQEs", "send WQEs parsed");
        badWqes = parseBlock.stats().counter("badWqes", "WQEs", "WQEs that failed validation");
        inlineStalls = parseBlock.stats().counter("inlineStalls", "events", "times the parser waited for inline buffer space");
        Block eqBlock = new Block(this, "eq");
        events = eqBlock.stats().counter("events", "EQEs", "event queue entries written (completion, CQ error, command, QP1 receive)");
        interrupts = eqBlock.stats().counter("interrupts", "messages", "MSI-X messages sent");
        parseResume = sim.event(name + ".parse", this::parse);
        fetchStep = sim.event(name + ".fetch", this::fetchOne);
        fetchChannel.setRetry(this::onFetchRetry);
        parser = new SendWqeParser(Math.max(1, Math.min(63, profile.getInt(NDK_MAX_INITIATOR_REQUEST_SGE))));
        prefetchDepth = profile.getInt(NIC_WQE_PREFETCH_DEPTH);
        wqeCacheBbs = profile.getLong(NIC_WQE_CACHE_ENTRIES);
        wqeCacheFree = (int) wqeCacheBbs;
        cacheWaiters = new IntRing(16);
        inlineBytes = profile.getLong(NIC_INLINE_BUFFER_BYTES);
        inlineFree = inlineBytes;
        int txSlots = profile.getInt(NIC_TX_SLOTS);
        cqe = new CqeWriter(this, clock, pcie.dma().addChannel("cqe", writeQueue), pcie.dma().addChannel("event", 16),
                64, profile.getInt(NIC_CQE_CYCLES), profile.getInt(NIC_CQC_CACHE_ENTRIES), profile.getInt(NIC_CQC_CACHE_WAYS));
        tx = new Transmitter(this, txSlots, pcie.dma().addChannel("payload", readQueue));
        rx = new Receiver(this, pcie.dma().addChannel("rxWrite", writeQueue), pcie.dma().addChannel("rqFetch", readQueue));
        keys.addWaiter(tx::pump);
        keys.addWaiter(rx::resume);
    }

    /** The replacement policy every context and translation cache uses ({@code nic.cacheReplacement}). */
    SetAssocCache.Policy cachePolicy() {
        return SetAssocCache.Policy.of(profile.getString(NIC_CACHE_REPLACEMENT));
    }

    // ---------------------------------------------------------------- host-facing side

    /** The host end of the PCIe link: MMIO writes go here, interrupts come from here. */
    public HostBridge host() {
        return pcie.host();
    }

    public PcieLink pcie() {
        return pcie;
    }

    public ClockDomain clock() {
        return clock;
    }

    public Profile profile() {
        return profile;
    }

    public HostMemory memory() {
        return memory;
    }

    /** Attaches the adapter's Ethernet port to one end of a link. */
    public void attach(LinkEndpoint port) {
        this.port = port;
        tx.attach(port);
        rx.attach(port);
        if (gsi != null) {
            gsi.attach(port);
        }
    }

    /** The general services interface (QP1), created with its DMA channel on the first call. */
    public GsiUnit gsi() {
        if (gsi == null) {
            // Its doorbells live in the page after the last QP's.
            gsi = new GsiUnit(this, pcie.dma().addChannel("gsi", 16), maxQps);
            if (port != null) {
                gsi.attach(port);
            }
        }
        return gsi;
    }

    public void addLifecycleListener(LifecycleListener l) {
        listeners.add(l);
    }

    /** MMIO address (BAR offset) of QP {@code qpn}'s send doorbell / first BlueFlame half. */
    public static long doorbellOffset(int qpn) {
        return (long) qpn * PAGE + Doorbells.PAGE_BLUEFLAME;
    }

    /** MMIO address (BAR offset) of the CQ arm doorbell, in the page of {@code uarPage}. */
    public static long cqArmOffset(int uarPage) {
        return (long) uarPage * PAGE + Doorbells.PAGE_CQ_ARM;
    }

    // ---------------------------------------------------------------- object commands (firmware effects)
    //
    // Each command's effect lives in one try* method: it checks its inputs and, when they pass, changes the
    // adapter's state, and returns a Command.STATUS_* code. The command unit calls them for commands the driver
    // posts through the command queue, after the firmware's latency. The public methods are the time-zero setup
    // path (the demo, tests, HostDriver's synchronous calls): the same try* applied at once, throwing
    // IllegalArgumentException where a command would answer with a failure status.

    /** Lowest free CQ number, or -1 when all {@code nic.maxCqs} are in use. */
    public int freeCqn() {
        return lowestFree(cqNumbers, 0, maxCqs);
    }

    /**
     * Lowest free QP number, or -1 when all are in use. 0 and 1 are reserved (the subnet management and general
     * services QPs: the GSI unit answers on QP1, and Wireshark decodes anything sent to QP 1 as a MAD).
     */
    public int freeQpn() {
        return lowestFree(qpNumbers, FIRST_DATA_QPN, maxQps);
    }

    /** Lowest free memory key index (0 is reserved), or -1 when all {@code nic.maxMrs} are in use. */
    public int freeKeyIndex() {
        return lowestFree(keyIndices, 1, maxMrs);
    }

    /** Lowest free protection domain (0 is reserved), or -1 when all {@code nic.maxPds} are in use. */
    public int freePd() {
        return lowestFree(pdNumbers, 1, maxPds);
    }

    private static int lowestFree(BitSet used, int first, int limit) {
        int n = used.nextClearBit(first);
        return n < limit ? n : -1;
    }

    /** Why the last try* method refused, for exceptions and diagnostics. */
    String refusal() {
        return refusal;
    }

    private int refuse(int status, String why) {
        refusal = fullName() + ": " + why;
        return status;
    }

    private void require(int status) {
        if (status != Command.STATUS_OK) {
            throw new IllegalArgumentException(refusal);
        }
    }

    /** NO_RESOURCES for a number outside {@code first..limit-1} (-1: none was free), else OK. */
    private int numberStatus(String kind, int n, int first, int limit) {
        if (n < 0) {
            return refuse(Command.STATUS_NO_RESOURCES, "every " + kind + " number is in use");
        }
        if (n < first || n >= limit) {
            return refuse(Command.STATUS_NO_RESOURCES, kind + " number " + n + " outside " + first + ".." + (limit - 1));
        }
        return Command.STATUS_OK;
    }

    /** Allocates protection domain {@link #freePd()}; returns it. */
    public int allocatePd() {
        int pd = freePd();
        require(tryAllocatePd(pd));
        return pd;
    }

    int tryAllocatePd(int pd) {
        int s = numberStatus("PD", pd, 1, maxPds);
        if (s == Command.STATUS_OK && pdNumbers.get(pd)) {
            s = refuse(Command.STATUS_BAD_PARAM, "PD " + pd + " already allocated");
        }
        if (s == Command.STATUS_OK) {
            pdNumbers.set(pd);
        }
        return s;
    }

    public boolean pdAllocated(int pd) {
        return pd > 0 && pdNumbers.get(pd);
    }

    /** Frees a protection domain no QP or memory key uses any more. */
    public void deallocatePd(int pd) {
        require(tryDeallocatePd(pd));
    }

    int tryDeallocatePd(int pd) {
        if (!pdAllocated(pd)) {
            return refuse(Command.STATUS_BAD_RESOURCE, "no PD " + pd);
        }
        for (Qp qp : qps.values()) {
            if (qp.cfg.pd() == pd) {
                return refuse(Command.STATUS_RESOURCE_BUSY, "PD " + pd + " is used by QP " + qp.qpn);
            }
        }
        for (int index = keyIndices.nextSetBit(0); index >= 0; index = keyIndices.nextSetBit(index + 1)) {
            if (keyPd.get(index) == pd) {
                return refuse(Command.STATUS_RESOURCE_BUSY, "PD " + pd + " is used by key index " + index);
            }
        }
        pdNumbers.clear(pd);
        return Command.STATUS_OK;
    }

    /** Creates a CQ of 2^logSize entries whose ring and doorbell record the driver allocated. */
    public void createCq(int cqn, long ring, int logSize, long dbRecord) {
        require(tryCreateCq(cqn, ring, logSize, dbRecord));
    }

    int tryCreateCq(int cqn, long ring, int logSize, long dbRecord) {
        int s = numberStatus("CQ", cqn, 0, maxCqs);
        if (s != Command.STATUS_OK) {
            return s;
        }
        if (cqs.containsKey(cqn)) {
            return refuse(Command.STATUS_BAD_PARAM, "CQ " + cqn + " already exists");
        }
        if (!cqSizeOk(logSize)) {
            return refuse(Command.STATUS_BAD_PARAM, "CQ of 2^" + logSize + " entries: expected 2^0..2^22 within ndk.maxCqDepth");
        }
        Cq cq = new Cq(cqn, ring, logSize, dbRecord);
        cq.moderationCount = profile.getInt(CQ_MODERATION_COUNT);
        cq.moderationPeriodPs = profile.getLong(CQ_MODERATION_PERIOD);
        cq.moderationTimer = sim().event(fullName() + ".cq" + cqn + ".moderation", () -> cqe.moderationExpired(cq));
        cqs.put(cqn, cq);
        cqNumbers.set(cqn);
        writeCqContext(cq);
        return Command.STATUS_OK;
    }

    private boolean cqSizeOk(int logSize) {
        // A driver rounds a CQ of depth d up to the next power of two above d (one entry stays unused, as mlx5's
        // max_cqe = 2^22 - 1 says), so the largest ring is the one that depth ndk.maxCqDepth needs.
        return logSize >= 0 && logSize <= 22 && (logSize == 0 || (1L << (logSize - 1)) <= profile.getLong(NDK_MAX_CQ_DEPTH));
    }

    private void writeCqContext(Cq cq) {
        byte[] ctx = new byte[CQ_CONTEXT_BYTES];
        BigEndian.putI64(ctx, 0, cq.ring);
        BigEndian.putI32(ctx, 8, cq.logSize);
        BigEndian.putI64(ctx, 16, cq.dbRecord);
        memory.write(cqContextAddress(cq.cqn), ctx, 0, ctx.length);
    }

    /**
     * Interrupt moderation of a CQ: an event is raised after {@code count} CQEs since the arm was
     * used, or {@code periodPs} after the first, whichever comes first (count 1 = no moderation).
     */
    public void moderateCq(int cqn, int count, long periodPs) {
        require(tryModerateCq(cqn, count, periodPs));
    }

    int tryModerateCq(int cqn, int count, long periodPs) {
        if (count < 1 || count > 0xFFFF || periodPs < 0 || periodPs > 65_535_000_000L) {
            return refuse(Command.STATUS_BAD_PARAM,
                    "moderation count must be 1..65535 and period 0..65535us, got " + count + ", " + periodPs + " ps");
        }
        Cq cq = cqs.get(cqn);
        if (cq == null) {
            return refuse(Command.STATUS_BAD_RESOURCE, "no CQ " + cqn);
        }
        cq.moderationCount = count;
        cq.moderationPeriodPs = periodPs;
        return Command.STATUS_OK;
    }

    /**
     * Moves a CQ to a new ring of 2^logSize entries (RESIZE). CQEs already issued land in the old ring; every
     * later one goes to the new ring at its running index, so the driver reads the old ring up to
     * {@link #cqProducer} as of the resize, then the new one. Refused if the unconsumed CQEs (by the
     * doorbell record, which firmware reads) would not fit.
     */
    public void resizeCq(int cqn, long ring, int logSize) {
        require(tryResizeCq(cqn, ring, logSize));
    }

    int tryResizeCq(int cqn, long ring, int logSize) {
        Cq cq = cqs.get(cqn);
        if (cq == null) {
            return refuse(Command.STATUS_BAD_RESOURCE, "no CQ " + cqn);
        }
        if (cq.overflowed) {
            return refuse(Command.STATUS_BAD_RESOURCE_STATE, "CQ " + cqn + " overflowed");
        }
        if (!cqSizeOk(logSize)) {
            return refuse(Command.STATUS_BAD_PARAM, "CQ of 2^" + logSize + " entries: expected 2^0..2^22 within ndk.maxCqDepth");
        }
        long consumer = cq.producer - ((cq.producer - (memory.getIntBE(cq.dbRecord + Doorbells.OFF_CQ_SET_CI) & 0xFF_FFFF)) & 0xFF_FFFF);
        if (cq.producer - consumer > 1L << logSize) {
            return refuse(Command.STATUS_BAD_PARAM, "CQ " + cqn + " holds " + (cq.producer - consumer)
                    + " unconsumed CQEs, more than 2^" + logSize);
        }
        cq.ring = ring;
        cq.logSize = logSize;
        cqe.contextChanged(cqn);
        writeCqContext(cq);
        return Command.STATUS_OK;
    }

    /** Running count of CQEs the adapter has issued to a CQ. */
    public long cqProducer(int cqn) {
        return cq(cqn).producer;
    }

    public boolean cqExists(int cqn) {
        return cqs.containsKey(cqn);
    }

    /** Destroys a CQ no QP uses and no pending completion names. */
    public void destroyCq(int cqn) {
        require(tryDestroyCq(cqn));
    }

    int tryDestroyCq(int cqn) {
        Cq cq = cqs.get(cqn);
        if (cq == null) {
            return refuse(Command.STATUS_BAD_RESOURCE, "no CQ " + cqn);
        }
        for (Qp qp : qps.values()) {
            if (qp.cfg.sendCqn() == cqn || qp.cfg.recvCqn() == cqn) {
                return refuse(Command.STATUS_RESOURCE_BUSY, "CQ " + cqn + " is used by QP " + qp.qpn);
            }
        }
        if (cqe.hasJobsFor(cqn)) {
            return refuse(Command.STATUS_RESOURCE_BUSY, "CQ " + cqn + " has completions being written");
        }
        cq.moderationTimer.cancel();
        cqs.remove(cqn);
        cqNumbers.clear(cqn);
        cqe.contextChanged(cqn);
        memory.fill(cqContextAddress(cqn), CQ_CONTEXT_BYTES, (byte) 0);
        return Command.STATUS_OK;
    }

    /** Creates a QP in INIT state. */
    public void createQp(int qpn, QpConfig cfg) {
        require(tryCreateQp(qpn, cfg));
    }

    int tryCreateQp(int qpn, QpConfig cfg) {
        int s = numberStatus("QP", qpn, FIRST_DATA_QPN, maxQps);
        if (s != Command.STATUS_OK) {
            return s;
        }
        if (qps.containsKey(qpn)) {
            return refuse(Command.STATUS_BAD_PARAM, "QP " + qpn + " already exists");
        }
        if (!cqs.containsKey(cfg.sendCqn()) || !cqs.containsKey(cfg.recvCqn())) {
            return refuse(Command.STATUS_BAD_RESOURCE, "QP " + qpn + " names a CQ that does not exist");
        }
        if (cfg.maxInline() > profile.getLong(NDK_MAX_INLINE_DATA_SIZE)
                || cfg.maxSendSge() > profile.getLong(NDK_MAX_INITIATOR_REQUEST_SGE)
                || cfg.maxRecvSge() > profile.getLong(NDK_MAX_RECEIVE_REQUEST_SGE)
                || (1L << cfg.rqLogSize()) > Long.highestOneBit(2 * profile.getLong(NDK_MAX_RECEIVE_QUEUE_DEPTH) - 1)
                || (1L << cfg.sqLogBbs()) > dev.rdmasim.adapter.config.Parameters.MAX_SEND_RING_BBS) {
            return refuse(Command.STATUS_BAD_PARAM, "QP " + qpn + " asks beyond the adapter's limits (ndk.maxInlineDataSize,"
                    + " SGEs, receive depth, the 32768-block send ring): " + cfg);
        }
        Qp qp = new Qp(qpn, cfg, outstandingPerQp, fetchMaxBbs, bfBytes, profile.getInt(TRANSPORT_MAX_INBOUND_READS));
        qp.retransmitTimer = sim().event(fullName() + ".qp" + qpn + ".timer", () -> tx.timeout(qp));
        qps.put(qpn, qp);
        qpNumbers.set(qpn);
        byte[] ctx = new byte[QP_CONTEXT_BYTES];
        BigEndian.putI32(ctx, 0, qpn);
        BigEndian.putI32(ctx, 4, cfg.pd());
        BigEndian.putI64(ctx, 8, cfg.sqBase());
        BigEndian.putI64(ctx, 16, cfg.rqBase());
        BigEndian.putI64(ctx, 24, cfg.dbRecord());
        memory.write(qpContextAddress(qpn), ctx, 0, ctx.length);
        return Command.STATUS_OK;
    }

    public boolean qpExists(int qpn) {
        return qps.containsKey(qpn);
    }

    /**
     * Destroys a QP with nothing in flight: no request, fetch, read, receive write or completion of it pending
     * anywhere in the adapter. A busy QP is refused (RESOURCE_BUSY): move it to ERROR and let it drain first.
     */
    public void destroyQp(int qpn) {
        require(tryDestroyQp(qpn));
    }

    int tryDestroyQp(int qpn) {
        Qp qp = qps.get(qpn);
        if (qp == null) {
            return refuse(Command.STATUS_BAD_RESOURCE, "no QP " + qpn);
        }
        boolean busy = qp.wrCount != 0 || qp.fetchCount != 0 || qp.inFetchQueue || qp.inParseQueue || qp.inTxQueue
                || qp.inRetireQueue || qp.inReadQueue || qp.ackQueued || qp.inRecvCqeQueue || qp.readCount != 0
                || qp.recvWritesPending != 0 || qp.recvCqePending || qp.rqFetchInFlight || qp.waitingForContext
                || (qp.rqFlushing && rx.recvFlushPending()) || cqe.hasJobsForQp(qpn);
        if (busy) {
            return refuse(Command.STATUS_RESOURCE_BUSY, "QP " + qpn + " still has work in flight");
        }
        qp.retransmitTimer.cancel();
        qps.remove(qpn);
        qpNumbers.clear(qpn);
        qpcCache.invalidate(qpn);
        memory.fill(qpContextAddress(qpn), QP_CONTEXT_BYTES, (byte) 0);
        return Command.STATUS_OK;
    }

    /** Connects a QP to its peer and moves it to ready-to-send (the INIT->RTR->RTS modify sequence). */
    public void connectQp(int qpn, int remoteQpn, long peerMac, int peerIp, int sendPsn, int expectedPsn) {
        connectQp(qpn, remoteQpn, peerMac, peerIp, sendPsn, expectedPsn, QpState.READY_TO_SEND);
    }

    /**
     * Connects a QP to its peer and moves it to {@code target}: READY_TO_RECEIVE (INIT->RTR, the responder's
     * step when it sends its REP; a later {@link #modifyQp} to READY_TO_SEND completes it) or READY_TO_SEND.
     */
    public void connectQp(int qpn, int remoteQpn, long peerMac, int peerIp, int sendPsn, int expectedPsn, QpState target) {
        if (target != QpState.READY_TO_RECEIVE && target != QpState.READY_TO_SEND) {
            throw new IllegalArgumentException("a connect moves a QP to READY_TO_RECEIVE or READY_TO_SEND, not " + target);
        }
        Qp qp = qp(qpn);
        toReadyToReceive(qp, remoteQpn, peerMac, peerIp, expectedPsn);
        if (target == QpState.READY_TO_SEND) {
            toReadyToSend(qp, sendPsn, -1, -1);
        } else {
            // The send PSN is agreed now (it went out in the REP); the move to ready-to-send comes later.
            setSendPsn(qp, sendPsn, -1, -1);
        }
    }

    /** The RTR half of a connection: who the peer is and the first PSN expected from it. */
    private void toReadyToReceive(Qp qp, int remoteQpn, long peerMac, int peerIp, int expectedPsn) {
        qp.remoteQpn = remoteQpn;
        qp.peerMac = peerMac;
        qp.peerIp = peerIp;
        qp.mtu = mtu;
        qp.rsp.reset(expectedPsn, qp.rsp.openMessage() == null && (qp.cfg.accessFlags() & dev.rdmasim.adapter.format.AccessFlags.REMOTE_WRITE) != 0,
                (qp.cfg.accessFlags() & dev.rdmasim.adapter.format.AccessFlags.REMOTE_READ) != 0);
        qp.state = QpState.READY_TO_RECEIVE;
    }

    /** The RTS half: the first PSN this side sends; WQEs posted meanwhile may now be fetched. */
    private void toReadyToSend(Qp qp, int sendPsn, int retryCount, int rnrRetry) {
        setSendPsn(qp, sendPsn, retryCount, rnrRetry);
        qp.state = QpState.READY_TO_SEND;
        queueFetch(qp);
    }

    /** The send PSN and the retry counts (-1: the profile's) of a QP about to send. */
    private void setSendPsn(Qp qp, int sendPsn, int retryCount, int rnrRetry) {
        qp.nextPsn = sendPsn;
        qp.unackedPsn = sendPsn;
        qp.ackedPsn = (sendPsn - 1) & 0xFF_FFFF;
        qp.retryCount = retryCount >= 0 ? retryCount : profile.getInt(TRANSPORT_RETRY_COUNT);
        qp.retriesLeft = qp.retryCount;
        qp.rnrRetriesLeft = rnrRetry >= 0 ? rnrRetry : profile.getInt(TRANSPORT_RNR_RETRY_COUNT);
        qp.maxReadsOut = profile.getInt(TRANSPORT_MAX_OUTBOUND_READS);
    }

    /** Registers a memory region: key context plus translation table the driver filled. */
    public void registerMemory(int key, int pd, int access, int logPageSize, long va, long length, long mttAddr) {
        require(tryRegisterMemory(key, pd, access, logPageSize, va, length, mttAddr));
    }

    int tryRegisterMemory(int key, int pd, int access, int logPageSize, long va, long length, long mttAddr) {
        int index = key >>> 8;
        int s = numberStatus("key index", key < 0 ? -1 : index, 1, maxMrs);
        if (s != Command.STATUS_OK) {
            return s;
        }
        if (length <= 0 || length > profile.getLong(NDK_MAX_REGISTRATION_SIZE) || logPageSize < 12 || logPageSize > 30
                || access < 0 || access > dev.rdmasim.adapter.format.AccessFlags.ALL) {
            return refuse(Command.STATUS_BAD_PARAM, "region of " + length + " B, 2^" + logPageSize
                    + " B pages, access 0x" + Integer.toHexString(access) + ": out of range");
        }
        keys.writeContext(key, pd, access, logPageSize, va, length, mttAddr, true);
        keyIndices.set(index);
        keyPd.put(index, pd);
        keyValue.put(index, key);
        return Command.STATUS_OK;
    }

    public void deregisterMemory(int key) {
        require(tryDeregisterMemory(key));
    }

    int tryDeregisterMemory(int key) {
        int index = key >>> 8;
        if (!keyRegistered(key) || keyValue.get(index) != key) {
            return refuse(Command.STATUS_BAD_RESOURCE, "no key 0x" + Integer.toHexString(key));
        }
        keys.writeContext(key, 0, 0, 12, 0, 0, 0, false);
        keyIndices.clear(index);
        keyPd.remove(index);
        keyValue.remove(index);
        return Command.STATUS_OK;
    }

    /** Whether a registration holds key index {@code key >> 8}. */
    public boolean keyRegistered(int key) {
        return key >= 0 && keyIndices.get(key >>> 8);
    }

    /** Sets up event queue 0: a ring of 2^logSize EQEs. */
    public void createEq(long ring, int logSize) {
        eqBase = ring;
        eqLogSize = logSize;
        eqProducer = 0;
    }

    /**
     * Sets up the command queue (what a driver writes to the initialization segment at load): a ring of
     * 2^logSize 64-byte entries, and with it the adapter's command unit. Call before the simulation runs
     * (it declares statistics and waveform signals); adapters that never get a command queue have no command
     * unit, so their outputs are those of a model without one.
     */
    public void createCommandQueue(long ring, int logSize) {
        if (commands != null) {
            throw new IllegalStateException(fullName() + ": the command queue already exists");
        }
        commands = new CommandUnit(this, ring, logSize, profile.getLong(NIC_FIRMWARE_COMMAND_LATENCY));
    }

    /**
     * Moves a QP to {@code next} (the modify-QP command); transitions the state machine does not
     * allow are refused. Moving to ERROR flushes its outstanding requests, send and receive.
     */
    public void modifyQp(int qpn, QpState next) {
        require(tryModifyQp(qpn, next, null));
    }

    /**
     * Moves a QP to {@code next} with the attributes that transition takes: to READY_TO_RECEIVE the peer
     * (remote QPN, MAC, IP) and the expected PSN, to READY_TO_SEND from READY_TO_RECEIVE the send PSN.
     */
    public void modifyQp(int qpn, QpState next, QpPeer peer) {
        require(tryModifyQp(qpn, next, peer));
    }

    int tryModifyQp(int qpn, QpState next, QpPeer peer) {
        Qp qp = qps.get(qpn);
        if (qp == null) {
            return refuse(Command.STATUS_BAD_RESOURCE, "no QP " + qpn);
        }
        if (!qp.state.canMoveTo(next)) {
            return refuse(Command.STATUS_BAD_RESOURCE_STATE, "QP " + qpn + " cannot move from " + qp.state + " to " + next);
        }
        boolean connects = next == QpState.READY_TO_RECEIVE || (next == QpState.READY_TO_SEND && qp.state == QpState.READY_TO_RECEIVE);
        if (peer != null && connects) {
            if (next == QpState.READY_TO_RECEIVE) {
                toReadyToReceive(qp, peer.remoteQpn(), peer.mac(), peer.ip(), peer.expectedPsn());
                if (peer.maxReadsIn() >= 0) {
                    qp.maxReadsIn = Math.min(peer.maxReadsIn(), qp.readVa.length);
                }
            } else {
                toReadyToSend(qp, peer.sendPsn(), peer.retryCount(), peer.rnrRetry());
                if (peer.maxReadsOut() >= 0) {
                    qp.maxReadsOut = Math.min(peer.maxReadsOut(), profile.getInt(TRANSPORT_MAX_OUTBOUND_READS));
                }
            }
            return Command.STATUS_OK;
        }
        qp.state = next;
        if (next == QpState.READY_TO_SEND) {
            queueFetch(qp); // WQEs posted while it was not yet ready
        }
        if (next == QpState.ERROR) {
            tx.queue(qp);
            rx.startRecvFlush(qp);
        }
        return Command.STATUS_OK;
    }

    /** A one-line dump of a QP's requester state, for diagnostics. */
    public String describeQp(int qpn) {
        Qp qp = qp(qpn);
        return "QP " + qpn + " " + qp.state + ": sqPi=" + qp.sqPi + " fetched=" + qp.fetchedBb + " parsed=" + qp.parsedBb
                + " inFlight=" + qp.wrCount + " sent=" + qp.wrSent + " nextPsn=" + qp.nextPsn + " unacked=" + qp.unackedPsn
                + " fetchQueued=" + qp.inFetchQueue + " fetching=" + qp.fetchCount + " parseQueued=" + qp.inParseQueue
                + " txQueued=" + qp.inTxQueue + " parseStalledOnInline=" + parseStalledOnInline + " inlineFree=" + inlineFree
                + " wqeCacheFree=" + wqeCacheFree + " cqeQueued=" + cqe.queuedJobs()
                + " timer=" + (qp.timerDeadline == Long.MAX_VALUE ? -1 : qp.timerDeadline) + " retries=" + qp.retriesLeft
                + (qp.wrCount > 0 ? " head[op=" + qp.wr(0).opcode + " psn=" + qp.wr(0).firstPsn + "+" + qp.wr(0).packets
                + " queued=" + qp.wr(0).packetsQueued + " responses=" + qp.wr(0).responses + " writes=" + qp.wr(0).pendingWrites + "]" : "")
                + " responder[expected=" + qp.rsp.expectedPsn() + " inboundReads=" + qp.readCount + " readSent=" + qp.readSent + "]";
    }

    /** The adapter's Ethernet MAC address (48 bits). */
    public long mac() {
        return mac;
    }

    /** The adapter's IPv4 address. */
    public int ip() {
        return ip;
    }

    public QpState qpState(int qpn) {
        return qp(qpn).state;
    }

    // ---------------------------------------------------------------- lookups for blocks

    Qp qp(int qpn) {
        Qp qp = qps.get(qpn);
        if (qp == null) {
            throw new IllegalArgumentException(fullName() + ": no QP " + qpn);
        }
        return qp;
    }

    Qp qpOrNull(int qpn) {
        return qps.get(qpn);
    }

    Cq cq(int cqn) {
        Cq cq = cqs.get(cqn);
        if (cq == null) {
            throw new InvariantViolation(fullName() + ": no CQ " + cqn);
        }
        return cq;
    }

    long qpContextAddress(int qpn) {
        return contextBase + (long) qpn * QP_CONTEXT_BYTES;
    }

    long cqContextAddress(int cqn) {
        return contextBase + (long) maxQps * QP_CONTEXT_BYTES + (long) cqn * CQ_CONTEXT_BYTES;
    }

    int eqOwnerBit() {
        return (int) (eqProducer >>> eqLogSize) & 1;
    }

    long nextEqeAddress() {
        if (eqBase == 0) {
            throw new InvariantViolation(fullName() + ": an event was raised before the driver created the event queue");
        }
        long a = eqBase + (eqProducer & ((1L << eqLogSize) - 1)) * Eqe.SIZE;
        eqProducer++;
        return a;
    }

    /** Counts one event-queue entry and its MSI-X message. */
    void countEvent() {
        events.inc();
        interrupts.inc();
    }

    long msixAddress() {
        return pcie.config().msixBase();
    }

    void cqOverflowed(Cq cq) {
        for (Qp qp : qps.values()) {
            if (qp.cfg.sendCqn() == cq.cqn || qp.cfg.recvCqn() == cq.cqn) {
                qp.state = QpState.ERROR;
            }
        }
    }

    void reportRetired(int qpn, int wqeIndex, int wqeOpcode, long bytes, int syndrome, long[] stamps) {
        for (int i = 0; i < listeners.size(); i++) {
            listeners.get(i).retired(name(), qpn, wqeIndex, wqeOpcode, bytes, syndrome, stamps);
        }
    }

    // ---------------------------------------------------------------- doorbell unit

    @Override
    public void mmioWrite(long barOffset, byte[] data, int off, int len) {
        int page = (int) (barOffset / PAGE);
        int inPage = (int) (barOffset % PAGE);
        if (barOffset == Command.DOORBELL_OFFSET && len == 8) {
            if (commands != null) {
                commands.doorbell(Command.doorbellProducer(BigEndian.i64(data, off)));
            }
            return;
        }
        if (inPage == Doorbells.PAGE_CQ_ARM && len == 8) {
            long v = BigEndian.i64(data, off);
            Cq cq = cqs.get(Doorbells.cqArmDoorbellCqn(v));
            if (cq != null) {
                int word = Doorbells.cqArmDoorbellWord(v);
                cq.armed = true;
                cq.armSolicitedOnly = Doorbells.armCmd(word) == Doorbells.ARM_CMD_SOLICITED;
                cq.armSequence = Doorbells.armSequence(word);
                cqe.armed(cq, Doorbells.armConsumerIndex(word));
            }
            return;
        }
        if (gsi != null && page == gsi.doorbellPage()) {
            gsi.mmioWrite(inPage, data, off, len);
            return;
        }
        Qp qp = qps.get(page);
        if (qp == null || inPage < Doorbells.PAGE_BLUEFLAME || inPage >= Doorbells.PAGE_BLUEFLAME + 2 * bfBytes) {
            return; // Writes to unmapped doorbell space are dropped, as a device ignores them.
        }
        int half = Doorbells.PAGE_BLUEFLAME + ((inPage - Doorbells.PAGE_BLUEFLAME) / bfBytes) * bfBytes;
        int chunkOff = inPage - half;
        if (len == Doorbells.MMIO_DOORBELL_SIZE && chunkOff == 0) {
            long v = BigEndian.i64(data, off);
            doorbells.inc();
            int pi = (Doorbells.sqDoorbellWqeIndex(v) + SendWqeBuilder.bbsForDs(Doorbells.sqDoorbellDs(v))) & 0xFFFF;
            ring(qp, pi);
            return;
        }
        // BlueFlame chunk: collect the WQE; the chunk holding its last byte completes it.
        System.arraycopy(data, off, qp.bf, chunkOff, len);
        if (chunkOff == 0) {
            qp.bfFill = 0;
        }
        qp.bfFill += len;
        int ds = ControlSegment.ds(qp.bf, 0);
        int bytes = SendWqeBuilder.bbsForDs(ds) * SendWqeBuilder.BB;
        if (ds > 0 && qp.bfFill >= bytes) {
            int index = ControlSegment.wqeIndex(qp.bf, 0);
            int bbs = bytes / SendWqeBuilder.BB;
            if (index == qp.fetchedBb && qp.fetchCount == 0 && index == qp.sqPi
                    && ((qp.fetchedBb - qp.parsedBb) & 0xFFFF) + bbs <= qp.stagingBbs && wqeCacheFree >= bbs) {
                reserveWqeCache(bbs);
                // Nothing older is missing: place the WQE as if fetched and skip the DMA read.
                blueflames.inc();
                for (int b = 0; b < bbs; b++) {
                    int dst = ((index + b) & (qp.stagingBbs - 1)) * SendWqeBuilder.BB;
                    System.arraycopy(qp.bf, b * SendWqeBuilder.BB, qp.staging, dst, SendWqeBuilder.BB);
                }
                qp.sqPi = (index + bbs) & 0xFFFF;
                qp.fetchedBb = qp.sqPi;
                qp.issuedBb = qp.sqPi;
                stampDoorbell(qp);
                queueParse(qp);
            } else {
                doorbells.inc();
                ring(qp, (index + bbs) & 0xFFFF);
            }
            qp.bfFill = 0;
        }
    }

    private void stampDoorbell(Qp qp) {
        qp.doorbellPs = now();
    }

    private void ring(Qp qp, int pi) {
        qp.sqPi = pi;
        qp.doorbellPs = now();
        queueFetch(qp);
    }

    private void queueFetch(Qp qp) {
        // A QP in error still fetches its new WQEs: they complete at once, flushed.
        if (!qp.inFetchQueue && qp.bbsToFetch() > 0 && qp.fetchCount < Qp.MAX_FETCHES
                && (qp.state == QpState.READY_TO_SEND || qp.state == QpState.ERROR)
                && qp.wrCount - qp.wrSent < prefetchDepth) {
            qp.inFetchQueue = true;
            fetchQueue.add(qp.qpn);
            pumpFetch();
        }
    }

    // ---------------------------------------------------------------- WQE fetch engine

    private void pumpFetch() {
        if (!fetchStep.scheduled() && !fetchQueue.isEmpty() && !fetchSubmitBlocked) {
            fetchStep.schedule(fetchBusy.book(1, at()));
        }
    }

    private void fetchOne() {
        if (fetchQueue.isEmpty()) {
            fetchBusy.idle();
            return;
        }
        int slot = freeFetchSlot();
        if (slot < 0) {
            return; // A completing read frees a slot and pumps again.
        }
        Qp qp = qp(fetchQueue.poll());
        qp.inFetchQueue = false;
        // The QP's context must be on chip before its ring can be read. A context that just arrived
        // is used from the fill even if the line has since been evicted, so heavy thrashing cannot
        // starve a QP forever.
        int r = qp.contextFilled ? 0 : qpcCache.lookup(qp.qpn);
        qp.contextFilled = false;
        if (r < 0) {
            if (r <= -3) {
                writeBackContext();
                fetchQpn[slot] = qp.qpn;
                fetchReads[slot].read(qpContextAddress(qp.qpn), qpcCache.line(SetAssocCache.missSlot(r)), 0,
                        QP_CONTEXT_BYTES, this, encodeCookie(slot, SetAssocCache.missSlot(r), true));
                qp.waitingForContext = true;
                submitFetch(slot);
            } else {
                // Another fetch is filling this context, or its set is busy: try again after it.
                qp.inFetchQueue = true;
                fetchQueue.add(qp.qpn);
            }
            pumpFetch();
            return;
        }
        int staged = (qp.issuedBb - qp.parsedBb) & 0xFFFF;
        int room = Math.min(qp.stagingBbs - staged, qp.wrs.length - qp.wrCount);
        int n = Math.min(Math.min(qp.bbsToFetch(), fetchMaxBbs), room);
        int ringBb = qp.issuedBb & qp.sqMaskBbs();
        n = Math.min(n, qp.sqMaskBbs() + 1 - ringBb);
        int stageBb = qp.issuedBb & (qp.stagingBbs - 1);
        n = Math.min(n, qp.stagingBbs - stageBb);
        if (n > 0 && wqeCacheFree == 0) {
            wqeCacheStalls.inc();
            cacheWaiters.add(qp.qpn);
            return; // Parsing frees blocks and requeues the waiters.
        }
        n = Math.min(n, wqeCacheFree);
        if (n <= 0) {
            pumpFetch(); // Ring of in-flight requests is full: retirement requeues the QP.
            return;
        }
        reserveWqeCache(n);
        fetchQpn[slot] = qp.qpn;
        // Several fetches of one QP may be in flight; they land in order of issue in the staging
        // buffer, and parsing only follows the contiguous prefix that has arrived.
        int entry = (qp.fetchHead + qp.fetchCount) & (Qp.MAX_FETCHES - 1);
        qp.fetchLen[entry] = n;
        qp.fetchDone[entry] = false;
        qp.fetchCount++;
        qp.issuedBb = (qp.issuedBb + n) & 0xFFFF;
        fetchReads[slot].read(qp.cfg.sqBase() + (long) ringBb * SendWqeBuilder.BB, qp.staging,
                stageBb * SendWqeBuilder.BB, n * SendWqeBuilder.BB, this, encodeCookie(slot, entry, false));
        wqeFetches.inc();
        submitFetch(slot);
        pumpFetch();
    }

    /**
     * A QP context line was just replaced: the QP's state changed while it was on chip (PSNs,
     * indices), so its line goes back to context memory by DMA write before it is forgotten.
     */
    private void writeBackContext() {
        long victim = qpcCache.lastEvicted();
        if (victim < 0) {
            return;
        }
        int i = nextWriteBack;
        nextWriteBack = (nextWriteBack + 1) % writeBacks.length;
        if (writeBacks[i].inEngine()) {
            // Every write-back buffer is busy: the oldest's TLPs have not left yet. Rare; the line
            // is dropped from the model's traffic rather than stalling the fetch engine.
            droppedWriteBacks.inc();
            return;
        }
        System.arraycopy(qpcCache.evictedLine(), 0, writeBackBufs[i], 0, QP_CONTEXT_BYTES);
        writeBacks[i].write(qpContextAddress((int) victim), writeBackBufs[i], 0, QP_CONTEXT_BYTES, this, -1, false);
        if (!writeBackChannel.submit(writeBacks[i])) {
            droppedWriteBacks.inc();
        } else {
            contextWriteBacks.inc();
        }
    }

    @Override
    public void writeSent(DmaRequest r) {
        // Context write-backs need nothing further.
    }

    private static long encodeCookie(int slot, int value, boolean context) {
        return (long) slot << 32 | (long) value << 1 | (context ? 1 : 0);
    }

    private int freeFetchSlot() {
        for (int i = 0; i < fetchQpn.length; i++) {
            if (fetchQpn[i] < 0) {
                return i;
            }
        }
        return -1;
    }

    private void submitFetch(int slot) {
        if (!fetchChannel.submit(fetchReads[slot])) {
            fetchSubmitBlocked = true;
            blockedFetch = slot;
        }
    }

    private void onFetchRetry() {
        if (fetchSubmitBlocked) {
            fetchSubmitBlocked = false;
            int slot = blockedFetch;
            blockedFetch = -1;
            submitFetch(slot);
        }
        pumpFetch();
    }

    @Override
    public void readDone(DmaRequest r) {
        long c = r.cookie();
        int slot = (int) (c >>> 32);
        int value = (int) (c & 0xFFFF_FFFFL) >>> 1;
        Qp qp = qp(fetchQpn[slot]);
        fetchQpn[slot] = -1;
        if ((c & 1) != 0) {
            qpcCache.fill(value);
            qp.waitingForContext = false;
            qp.contextFilled = true;
            queueFetch(qp);
        } else {
            qp.fetchDone[value] = true;
            while (qp.fetchCount > 0 && qp.fetchDone[qp.fetchHead]) {
                qp.fetchedBb = (qp.fetchedBb + qp.fetchLen[qp.fetchHead]) & 0xFFFF;
                qp.fetchHead = (qp.fetchHead + 1) & (Qp.MAX_FETCHES - 1);
                qp.fetchCount--;
            }
            queueParse(qp);
            queueFetch(qp);
        }
        pumpFetch();
    }

    /** Requests retired: the ring has room again, for WQEs already staged and for new fetches. */
    void requeueFetch(Qp qp) {
        if (((qp.fetchedBb - qp.parsedBb) & 0xFFFF) > 0 && !qp.ringFull()) {
            queueParse(qp);
        }
        queueFetch(qp);
    }

    // ---------------------------------------------------------------- work done ahead of its instant

    /**
     * While the receive pipeline handles a frame the moment it arrives, the instant that work is for: the end of
     * the pipeline's cycles. 0 otherwise.
     */
    long aheadPs;

    /** The instant the work now running is for: now, or later while a frame is handled ahead of its instant. */
    long at() {
        long n = now();
        return aheadPs > n ? aheadPs : n;
    }

    /** Gives {@code r} the instant of the work now running as its ready time, when that is later than now. */
    DmaRequest ready(DmaRequest r) {
        if (aheadPs > now()) {
            r.notBefore(aheadPs);
        }
        return r;
    }

    // ---------------------------------------------------------------- WQE parser

    private void queueParse(Qp qp) {
        if (!qp.inParseQueue) {
            qp.inParseQueue = true;
            parseQueue.add(qp.qpn);
        }
        parse();
    }

    /**
     * Parses every staged WQE it can, now: the fetched bytes are on chip, so the parser's work is done at once and
     * each WQE is booked on the parser for its cycles; the request carries the end of that booking as its ready
     * time, before which none of it (payload read, packet) may go out. So a WQE costs no parser event, and the
     * request leaves when a parser event at that instant would have let it. Only an idle parser takes a WQE this
     * way; WQEs that queue behind a busy one are taken one by one as it frees (an event each), so no request
     * holds tags or link slots for longer than one parse ahead.
     */
    private void parse() {
        if (parsing) {
            return; // re-entered through the transmitter; the loop below picks the new work up
        }
        parsing = true;
        try {
            while (!parseQueue.isEmpty() && !parseStalledOnInline) {
                if (parseBusy.deferWhileBusy(at(), parseResume)) {
                    break;
                }
                parseOne();
            }
        } finally {
            parsing = false;
        }
        parseBusy.idleAfterBookings();
    }

    private boolean parsing;
    private final Event parseResume;

    private void parseOne() {
        Qp qp = qp(parseQueue.peek());
        int avail = (qp.fetchedBb - qp.parsedBb) & 0xFFFF;
        boolean more = false;
        if (avail > 0 && !qp.ringFull()) {
            int off = (qp.parsedBb & (qp.stagingBbs - 1)) * SendWqeBuilder.BB;
            int ds = ControlSegment.ds(qp.staging, off);
            int bbs = Math.max(1, SendWqeBuilder.bbsForDs(ds));
            if (bbs <= avail) {
                parser.setLimits(Math.min(qp.cfg.maxSendSge(), 63), qp.cfg.maxInline(), maxDs);
                int syndrome = parser.parse(qp.staging, 0, qp.staging.length, off, qp.qpn, qp.parsedBb);
                if (syndrome == 0 && parser.isInline() && parser.inlineLength() > inlineFree) {
                    // The inline buffer is full: the parser stalls until an acknowledgement frees it.
                    inlineStalls.inc();
                    parseStalledOnInline = true;
                    return;
                }
                long ready = parseBusy.book(parseCycles, at());
                Wr w = qp.wr(qp.wrCount);
                w.clear();
                w.stamp(Stage.DOORBELL, qp.doorbellPs);
                w.stamp(Stage.WQE_FETCHED, ready);
                w.readyPs = ready;
                fill(qp, w, syndrome, bbs);
                if (w.inline) {
                    takeInline(w.length);
                }
                qp.wrCount++;
                qp.parsedBb = (qp.parsedBb + bbs) & 0xFFFF;
                releaseWqeCache(bbs);
                wqesParsed.inc();
                if (syndrome != 0) {
                    badWqes.inc();
                }
                tx.queue(qp);
                more = ((qp.fetchedBb - qp.parsedBb) & 0xFFFF) > 0 && !qp.ringFull();
            }
        }
        parseQueue.poll();
        qp.inParseQueue = false;
        if (more) {
            qp.inParseQueue = true;
            parseQueue.add(qp.qpn);
        }
        queueFetch(qp);
    }

    private void reserveWqeCache(int bbs) {
        wqeCacheFree -= bbs;
        wqeCacheUsed.set(wqeCacheBbs - wqeCacheFree);
        wqeCacheSignal.set(wqeCacheBbs - wqeCacheFree);
    }

    private void releaseWqeCache(int bbs) {
        wqeCacheFree += bbs;
        if (wqeCacheFree > wqeCacheBbs) {
            throw new InvariantViolation("WQE cache released more blocks than it holds");
        }
        wqeCacheUsed.set(wqeCacheBbs - wqeCacheFree);
        wqeCacheSignal.set(wqeCacheBbs - wqeCacheFree);
        while (!cacheWaiters.isEmpty()) {
            queueFetch(qp(cacheWaiters.poll()));
        }
    }

    private void takeInline(long bytes) {
        inlineFree -= bytes;
        inlineUsed.set(inlineBytes - inlineFree);
        inlineSignal.set(inlineBytes - inlineFree);
    }

    /** An inline request was acknowledged (or flushed): its payload leaves the inline buffer. */
    void releaseInline(long bytes) {
        inlineFree += bytes;
        if (inlineFree > inlineBytes) {
            throw new InvariantViolation("inline buffer released more bytes than it holds");
        }
        inlineUsed.set(inlineBytes - inlineFree);
        inlineSignal.set(inlineBytes - inlineFree);
        if (parseStalledOnInline) {
            parseStalledOnInline = false;
            parse();
        }
    }

    /** The transmitter queued the last packet of a request: the QP may fetch further ahead. */
    void sentOne(Qp qp) {
        queueFetch(qp);
    }

    private void fill(Qp qp, Wr w, int syndrome, int bbs) {
        w.wqeIndex = qp.parsedBb;
        w.bbs = bbs;
        w.syndrome = syndrome;
        if (syndrome != 0) {
            w.opcode = ControlSegment.opcode(qp.staging, (qp.parsedBb & (qp.stagingBbs - 1)) * SendWqeBuilder.BB);
            w.signaled = true;
            w.packets = 0;
            return;
        }
        w.opcode = parser.opcode();
        w.signaled = parser.signaled();
        w.solicited = parser.solicited();
        w.fence = parser.fenceMode() != 0;
        w.immediate = parser.immediate();
        w.remoteAddress = parser.remoteAddress();
        w.rkey = parser.rkey();
        w.length = parser.totalLength();
        if (parser.isInline()) {
            w.inline = true;
            parser.copyInline(w.inlineData, 0);
        } else {
            var sg = parser.sges();
            w.sgeCount = sg.count();
            for (int i = 0; i < sg.count(); i++) {
                w.sgeAddr[i] = sg.address(i);
                w.sgeLen[i] = sg.length(i);
                w.sgeKey[i] = sg.lkey(i);
            }
        }
        boolean read = w.opcode == dev.rdmasim.adapter.format.WqeOpcode.RDMA_READ;
        long len = w.length;
        int pk = len == 0 ? 1 : (int) ((len + mtu - 1) / mtu);
        w.packets = pk;
        w.firstPsn = qp.nextPsn;
        qp.nextPsn = (qp.nextPsn + pk) & 0xFF_FFFF;
        if (read) {
            w.responses = 0;
        }
    }
}
