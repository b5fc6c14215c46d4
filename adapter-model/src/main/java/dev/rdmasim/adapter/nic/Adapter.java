package dev.rdmasim.adapter.nic;

import static dev.rdmasim.adapter.config.Parameters.*;

import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.format.BigEndian;
import dev.rdmasim.adapter.format.Command;
import dev.rdmasim.adapter.format.Doorbells;
import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.adapter.pcie.DmaPort;
import dev.rdmasim.adapter.pcie.HostBridge;
import dev.rdmasim.adapter.pcie.MmioTarget;
import dev.rdmasim.adapter.pcie.PcieConfig;
import dev.rdmasim.adapter.pcie.PcieLink;
import dev.rdmasim.adapter.wire.LinkEndpoint;
import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.hw.ClockDomain;
import dev.rdmasim.kernel.hw.Module;
import java.util.ArrayList;
import java.util.List;

/**
 * A RoCEv2 RDMA adapter: the top of the block hierarchy. It builds the blocks in pipeline order, wires their
 * hand-offs and credits, and decodes the BAR; it does no work of its own. The blocks, in pipeline order
 * ({@code docs/model.md} has the diagram):
 * the PCIe link with its DMA engine ({@code pcie}); context memory and the QP-context cache ({@code ctx}); the key
 * unit ({@code keys}); the doorbell unit ({@code db}); the WQE cache and inline buffer credits ({@code credits});
 * the WQE fetch engine ({@code fetch}); the WQE parser ({@code parse}); the transmitter with the requester
 * transport ({@code tx}); the receiver with the responder ({@code rx}); the event queue and MSI-X unit
 * ({@code eq}); the CQE writer ({@code cqe}); the firmware's object tables and command unit ({@code cmd}); QP1,
 * the general services interface ({@code gsi}).
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
public final class Adapter extends Module implements MmioTarget, AdapterControl {
    public static final int QP_CONTEXT_BYTES = ContextMemory.QP_CONTEXT_BYTES;
    public static final int CQ_CONTEXT_BYTES = ContextMemory.CQ_CONTEXT_BYTES;
    /** The first QP number a data QP gets: 0 and 1 are the special QPs of the IB architecture. */
    public static final int FIRST_DATA_QPN = FirmwareTables.FIRST_DATA_QPN;
    static final int PAGE = Doorbells.PAGE_SIZE;
    /** Events one adapter may have in flight at once: CQ events, one command and QP1's staged receives. */
    private static final int EVENTS_IN_FLIGHT = 16;

    final Profile profile;
    final ClockDomain clock;
    final HostMemory memory;
    final PcieLink pcie;
    final long mac;
    final int ip;
    /** The instant the work now running is for (see {@link WorkClock}). */
    final WorkClock work;
    final ContextMemory contexts;
    final KeyUnit keys;
    final DoorbellUnit doorbells;
    final WqeCredits credits;
    final WqeFetchEngine fetch;
    final WqeParser parser;
    final EventQueueUnit eq;
    final CqeWriter cqe;
    final SendScheduler scheduler;
    final RequesterTransport req;
    final Transmitter tx;
    final PayloadWriter payload;
    final RecvWqePrefetcher rq;
    final Responder responder;
    final Receiver rx;
    final FirmwareTables firmware;
    /** QP1, built on first use so an adapter without connection management has none of its statistics or signals. */
    GsiUnit gsi;
    private LinkEndpoint port;
    private final List<LifecycleListener> listeners = new ArrayList<>();
    /** The firmware command unit; null until the driver sets up a command queue. */
    private CommandUnit commands;

    public Adapter(Simulator sim, String name, Profile profile, HostMemory memory, long mac, int ip) {
        super(sim, name);
        this.profile = profile;
        this.memory = memory;
        this.mac = mac;
        this.ip = ip;
        clock = ClockDomain.ofFrequency(sim, name + ".clk", profile.getLong(NIC_CLOCK));
        work = new WorkClock(sim);
        PcieConfig pc = new PcieConfig(profile.getInt(PCIE_GEN), profile.getInt(PCIE_LANES), profile.getInt(PCIE_MPS),
                profile.getInt(PCIE_MRRS), profile.getInt(PCIE_RCB), profile.getBoolean(PCIE_RCB_CHUNKS),
                profile.getBoolean(PCIE_ADDR64), profile.getBoolean(PCIE_ECRC), profile.getInt(PCIE_READ_TAGS),
                profile.getLong(PCIE_HOST_READ_LATENCY), profile.getLong(PCIE_HOST_WRITE_LATENCY),
                profile.getLong(PCIE_MMIO_LATENCY), profile.getLong(PCIE_LINK_LATENCY),
                profile.getInt(PCIE_ACK_LIMIT), profile.getInt(PCIE_FC_UPDATE_LIMIT), 16, 32,
                profile.getLong(PCIE_MSIX_ADDRESS), 0x1000);
        pcie = new PcieLink(this, "pcie", pc, memory);
        pcie.setEventPerTlp(profile.getBoolean(PCIE_EVENT_PER_TLP));
        pcie.dma().setMmioTarget(this);
        // Adapter-owned context memory, carved from the host's memory like a driver's firmware pages.
        ContextMemory.Params ctxParams = ContextMemory.Params.of(profile);
        long contextBase = memory.allocate(ctxParams.bytes(), PAGE);
        // DMA channels, one per client; the engine serves them round robin in this order.
        String readQueueKey = NIC_DMA_READ_QUEUE.key();
        String writeQueueKey = NIC_DMA_WRITE_QUEUE.key();
        int readQueue = profile.getInt(NIC_DMA_READ_QUEUE);
        int writeQueue = profile.getInt(NIC_DMA_WRITE_QUEUE);
        var dma = pcie.dma();
        DmaPort fetchPort = new DmaPort(dma.addChannel("wqeFetch", readQueue, readQueueKey), 1);
        DmaPort keyPort = new DmaPort(dma.addChannel("keyFill", readQueue, readQueueKey), KeyUnit.MAX_FILLS);
        DmaPort writeBackPort = new DmaPort(dma.addChannel("contextWriteBack", writeQueue, writeQueueKey), 0);

        // The key unit owns the key contexts at the end of context memory (ContextMemory.keyContextBase()); it is built
        // first so its statistics keep their place.
        keys = new KeyUnit(this, KeyUnit.Params.of(profile, ctxParams.maxKeys()), memory,
                contextBase + ctxParams.keyContextOffset(), keyPort, work);
        contexts = new ContextMemory(this, ctxParams, memory, contextBase, writeBackPort);
        FirmwareTables.Params fwParams = FirmwareTables.Params.of(profile);
        QpTable qps = new QpTable() {
            @Override
            public Qp qp(int qpn) {
                return firmware.qp(qpn);
            }

            @Override
            public Qp qpOrNull(int qpn) {
                return firmware.qpOrNull(qpn);
            }
        };
        doorbells = new DoorbellUnit(this, DoorbellUnit.Params.of(profile));
        credits = new WqeCredits(this, WqeCredits.Params.of(profile));
        fetch = new WqeFetchEngine(this, WqeFetchEngine.Params.of(profile), clock, work, qps, contexts, credits, fetchPort);
        parser = new WqeParser(this, WqeParser.Params.of(profile), clock, work, qps, credits);
        eq = new EventQueueUnit(this, pc.msixBase(), EVENTS_IN_FLIGHT);
        firmware = new FirmwareTables(fwParams, sim, name, memory, contexts, keys, credits, fetch, parser);
        cqe = new CqeWriter(this, CqeWriter.Params.of(profile), clock, work, firmware, contexts, eq,
                new DmaPort(dma.addChannel("cqe", writeQueue, writeQueueKey), 1), new DmaPort(dma.addChannel("event", 16), 0),
                this::reportRetired);
        scheduler = new SendScheduler(qps);
        req = new RequesterTransport(this, RequesterTransport.Params.of(profile), work, qps, credits, fetch::requeue,
                fetch::sentOne, cqe, scheduler, this::reportRetired);
        tx = new Transmitter(this, Transmitter.Params.of(profile), clock, work, qps, keys,
                dma.addChannel("payload", readQueue, readQueueKey),
                req::packetSent, scheduler, mac, ip);
        payload = new PayloadWriter(this, work, keys, dma.addChannel("rxWrite", writeQueue, writeQueueKey));
        rq = new RecvWqePrefetcher(this, RecvWqePrefetcher.Params.of(profile), work, qps, cqe,
                dma.addChannel("rqFetch", readQueue, readQueueKey));
        responder = new Responder(this, Responder.Params.of(profile), work, qps, keys, payload, rq, cqe, req, tx);
        rx = new Receiver(this, Receiver.Params.of(profile), clock, work, qps, payload, req, responder);

        // Hand-offs down the pipeline, and the credits and ready signals that come back up.
        doorbells.connect(fetch, parser);
        fetch.connect(parser);
        parser.connect(req, req::queue, fetch::stagingFreed);
        scheduler.connect(req);
        req.connect(tx, payload, responder::startRecvFlush);
        tx.connect(responder, () -> {
            if (gsi != null) {
                gsi.bufferFree();
            }
        });
        firmware.connect(scheduler, req, tx, responder, rq, payload, cqe);
        cqe.onSpace(req::cqeSpace, responder::cqeSpace);
        keys.addWaiter(tx::pump);
        keys.addWaiter(rx::resume);
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
        port.macAddress(mac()); // the source of the pause frames the port's MAC sends
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
            gsi = new GsiUnit(this, GsiUnit.Params.of(profile), clock, work, eq,
                    new DmaPort(pcie.dma().addChannel("gsi", 16), GsiUnit.BACKLOG), mac, ip, Doorbells.gsiPage(profile.getInt(NIC_MAX_QPS)));
            if (port != null) {
                gsi.attach(port);
            }
            rx.onDatagram(gsi::receive);
        }
        return gsi;
    }

    public void addLifecycleListener(LifecycleListener l) {
        listeners.add(l);
    }

    /** The adapter's Ethernet MAC address (48 bits). */
    public long mac() {
        return mac;
    }

    /** The adapter's IPv4 address. */
    public int ip() {
        return ip;
    }

    /** Sets up event queue 0: a ring of 2^logSize EQEs. */
    public void createEq(long ring, int logSize) {
        eq.create(ring, logSize);
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
        commands = new CommandUnit(this, firmware, eq, new DmaPort(pcie.dma().addChannel("command", 4), 0), ring, logSize,
                profile.getLong(NIC_FIRMWARE_COMMAND_LATENCY));
    }

    // ---------------------------------------------------------------- object commands: the time-zero setup path

    /** Lowest free CQ number, or -1 when all {@code nic.maxCqs} are in use. */
    public int freeCqn() {
        return firmware.freeCqn();
    }

    /**
     * Lowest free QP number, or -1 when all are in use. 0 and 1 are reserved (the subnet management and general
     * services QPs: the GSI unit answers on QP1, and Wireshark decodes anything sent to QP 1 as a MAD).
     */
    public int freeQpn() {
        return firmware.freeQpn();
    }

    /** Lowest free memory key index (0 is reserved), or -1 when all {@code nic.maxMrs} are in use. */
    public int freeKeyIndex() {
        return firmware.freeKeyIndex();
    }

    /** Lowest free protection domain (0 is reserved), or -1 when all {@code nic.maxPds} are in use. */
    public int freePd() {
        return firmware.freePd();
    }

    /** Allocates protection domain {@link #freePd()}; returns it. */
    public int allocatePd() {
        return firmware.allocatePd();
    }

    public boolean pdAllocated(int pd) {
        return firmware.pdAllocated(pd);
    }

    /** Frees a protection domain no QP or memory key uses any more. */
    public void deallocatePd(int pd) {
        firmware.deallocatePd(pd);
    }

    /** Creates a CQ of 2^logSize entries whose ring and doorbell record the driver allocated. */
    public void createCq(int cqn, long ring, int logSize, long dbRecord) {
        firmware.createCq(cqn, ring, logSize, dbRecord);
    }

    /**
     * Interrupt moderation of a CQ: an event is raised after {@code count} CQEs since the arm was
     * used, or {@code periodPs} after the first, whichever comes first (count 1 = no moderation).
     */
    public void moderateCq(int cqn, int count, long periodPs) {
        firmware.moderateCq(cqn, count, periodPs);
    }

    /**
     * Moves a CQ to a new ring of 2^logSize entries (RESIZE). CQEs already issued land in the old ring; every
     * later one goes to the new ring at its running index, so the driver reads the old ring up to
     * {@link #cqProducer} as of the resize, then the new one. Refused if the unconsumed CQEs (by the
     * doorbell record, which firmware reads) would not fit.
     */
    public void resizeCq(int cqn, long ring, int logSize) {
        firmware.resizeCq(cqn, ring, logSize);
    }

    /** Running count of CQEs the adapter has issued to a CQ. */
    public long cqProducer(int cqn) {
        return firmware.cqProducer(cqn);
    }

    public boolean cqExists(int cqn) {
        return firmware.cqExists(cqn);
    }

    /** Destroys a CQ no QP uses and no pending completion names. */
    public void destroyCq(int cqn) {
        firmware.destroyCq(cqn);
    }

    /** Creates a QP in INIT state. */
    public void createQp(int qpn, QpConfig cfg) {
        firmware.createQp(qpn, cfg);
    }

    public boolean qpExists(int qpn) {
        return firmware.qpExists(qpn);
    }

    /**
     * Destroys a QP with nothing in flight: no request, fetch, read, receive write or completion of it pending
     * anywhere in the adapter. A busy QP is refused (RESOURCE_BUSY): move it to ERROR and let it drain first.
     */
    public void destroyQp(int qpn) {
        firmware.destroyQp(qpn);
    }

    /** Connects a QP to its peer and moves it to ready-to-send (the INIT->RTR->RTS modify sequence). */
    public void connectQp(int qpn, int remoteQpn, long peerMac, int peerIp, int sendPsn, int expectedPsn) {
        firmware.connectQp(qpn, remoteQpn, peerMac, peerIp, sendPsn, expectedPsn);
    }

    /**
     * Connects a QP to its peer and moves it to {@code target}: READY_TO_RECEIVE (INIT->RTR, the responder's
     * step when it sends its REP; a later {@link #modifyQp} to READY_TO_SEND completes it) or READY_TO_SEND.
     */
    public void connectQp(int qpn, int remoteQpn, long peerMac, int peerIp, int sendPsn, int expectedPsn, QpState target) {
        firmware.connectQp(qpn, remoteQpn, peerMac, peerIp, sendPsn, expectedPsn, target);
    }

    /** Registers a memory region: key context plus translation table the driver filled. */
    public void registerMemory(int key, int pd, int access, int logPageSize, long va, long length, long mttAddr) {
        firmware.registerMemory(key, pd, access, logPageSize, va, length, mttAddr);
    }

    public void deregisterMemory(int key) {
        firmware.deregisterMemory(key);
    }

    /** Whether a registration holds key index {@code key >> 8}. */
    public boolean keyRegistered(int key) {
        return firmware.keyRegistered(key);
    }

    /**
     * Moves a QP to {@code next} (the modify-QP command); transitions the state machine does not
     * allow are refused. Moving to ERROR flushes its outstanding requests, send and receive. A reset
     * clears the responder's connection state and is refused while the QP has work in flight.
     */
    public void modifyQp(int qpn, QpState next) {
        firmware.modifyQp(qpn, next);
    }

    /**
     * Moves a QP to {@code next} with the attributes that transition takes: to READY_TO_RECEIVE the peer
     * (remote QPN, MAC, IP) and the expected PSN, to READY_TO_SEND from READY_TO_RECEIVE the send PSN.
     */
    public void modifyQp(int qpn, QpState next, QpPeer peer) {
        firmware.modifyQp(qpn, next, peer);
    }

    /**
     * Throws {@link dev.rdmasim.kernel.InvariantViolation} naming the first QP that still holds requests (or announced WQEs): for a
     * caller whose simulation has run out of events, when nothing can move them on any more.
     */
    public void checkNothingOutstanding() {
        firmware.checkNothingOutstanding();
    }

    /**
     * Requests the requester transport has retired so far, signaled or not, successfully or not: it grows whenever
     * the transport makes progress, so a caller can tell a slow run (losses, retries) from a stuck one.
     */
    public long requestsRetired() {
        return req.retired();
    }

    /** A one-line dump of a QP's requester state, for diagnostics. */
    public String describeQp(int qpn) {
        return firmware.describeQp(qpn);
    }

    public QpState qpState(int qpn) {
        return firmware.qpState(qpn);
    }

    // ---------------------------------------------------------------- for tests and the lifecycle listeners

    /** The adapter's state of QP {@code qpn}, for white-box tests. */
    Qp qp(int qpn) {
        return firmware.qp(qpn);
    }

    void reportRetired(int qpn, int wqeIndex, int wqeOpcode, long bytes, int syndrome, long[] stamps) {
        for (int i = 0; i < listeners.size(); i++) {
            listeners.get(i).retired(name(), qpn, wqeIndex, wqeOpcode, bytes, syndrome, stamps);
        }
    }

    // ---------------------------------------------------------------- BAR decode

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
            Cq cq = firmware.cqOrNull(Doorbells.cqArmDoorbellCqn(v));
            if (cq != null) {
                cqe.arm(cq, Doorbells.cqArmDoorbellWord(v));
            }
            return;
        }
        if (gsi != null && page == gsi.doorbellPage()) {
            gsi.mmioWrite(inPage, data, off, len);
            return;
        }
        Qp qp = firmware.qpOrNull(page);
        if (qp == null || !doorbells.decodes(inPage)) {
            return; // Writes to unmapped doorbell space are dropped, as a device ignores them.
        }
        doorbells.write(qp, inPage, data, off, len);
    }
}
