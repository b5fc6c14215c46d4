package dev.rdmasim.driver;

import static dev.rdmasim.adapter.config.Parameters.LINK_RATE;

import dev.rdmasim.adapter.config.Parameters;
import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.format.AccessFlags;
import dev.rdmasim.adapter.wire.EthernetLink;
import dev.rdmasim.kernel.Partitions;
import dev.rdmasim.kernel.Simulator;

/**
 * Two hosts cabled back to back ({@code hostA}/{@code nicA}, {@code hostB}/{@code nicB}), each with
 * one CQ, one protection domain, one registered buffer and one QP, the two QPs connected: the usual
 * starting point of a test or benchmark.
 */
public final class HostPair {
    /** One host and its objects. */
    public record Side(Host host, CompletionQueue cq, MemoryRegion mr, QueuePair qp) {
        public HostDriver driver() {
            return host.driver();
        }

        public SendQueue sq() {
            return qp.sq();
        }

        public ReceiveQueue rq() {
            return qp.rq();
        }
    }

    /** Access granted by default: local write, remote write and remote read. */
    public static final int ALL_ACCESS = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;

    private final Side a;
    private final Side b;
    private final EthernetLink link;

    private HostPair(Side a, Side b, EthernetLink link) {
        this.a = a;
        this.b = b;
        this.link = link;
    }

    /** Default sizes: 1 MiB buffers, 256-entry CQs, {@link QpOptions#of} QPs. */
    public static HostPair create(Simulator sim, Profile profile) {
        return create(sim, profile, 1 << 20, 8, 8, 6);
    }

    /**
     * @param bufferBytes size of each host's registered buffer
     * @param cqLog       log2 CQ entries
     * @param sqLogBbs    log2 send ring basic blocks
     * @param rqLog       log2 receive ring entries
     */
    public static HostPair create(Simulator sim, Profile profile, long bufferBytes, int cqLog, int sqLogBbs, int rqLog) {
        HostPair p = createUnconnected(sim, profile, bufferBytes, cqLog, sqLogBbs, rqLog);
        p.a.qp().connect(p.b.qp());
        return p;
    }

    /** {@link #createUnconnected(Simulator, Profile, long, int, int, int)} with the default sizes of {@link #create(Simulator, Profile)}. */
    public static HostPair createUnconnected(Simulator sim, Profile profile) {
        return createUnconnected(sim, profile, 1 << 20, 8, 8, 6);
    }

    /**
     * As {@link #create(Simulator, Profile, long, int, int, int)}, but the QPs stay in INIT, to be connected by the
     * hosts' connection managers ({@link HostDriver#cm()}); each host knows the other's MAC address (a resolved
     * neighbour entry).
     */
    public static HostPair createUnconnected(Simulator sim, Profile profile, long bufferBytes, int cqLog, int sqLogBbs,
                                             int rqLog) {
        return build(sim, sim, () -> cable(sim, "wire", profile), profile, bufferBytes, cqLog, sqLogBbs, rqLog);
    }

    /**
     * As {@link #create(Simulator, Profile)}, but host A runs in {@code simA} and host B in {@code simB}, two
     * partitions of {@code partitions} that meet only at the cable ({@link EthernetLink#split}), so that
     * {@link Partitions#run(int)} can run the two sides on two threads with the result of one. The profile must
     * choose priority flow control ({@code link.flowControl=pfc}).
     */
    public static HostPair createSplit(Partitions partitions, Simulator simA, Simulator simB, Profile profile) {
        HostPair p = build(simA, simB, () -> {
            EthernetLink link = EthernetLink.split(partitions, simA, simB, "wire", config(profile));
            setFaults(link, profile);
            return link;
        }, profile, 1 << 20, 8, 8, 6);
        p.a.qp().connect(p.b.qp());
        return p;
    }

    /** The hosts, then the cable (so their statistics come first, as they always have), then the rest. */
    private static HostPair build(Simulator simA, Simulator simB, java.util.function.Supplier<EthernetLink> cable,
            Profile profile, long bufferBytes, int cqLog, int sqLogBbs, int rqLog) {
        Host ha = new Host(simA, "hostA", "nicA", profile, 0x02_00_00_00_00_01L, 0x0A00_0001);
        Host hb = new Host(simB, "hostB", "nicB", profile, 0x02_00_00_00_00_02L, 0x0A00_0002);
        EthernetLink link = cable.get();
        ha.attach(link.a());
        hb.attach(link.b());
        Side a = side(ha, bufferBytes, cqLog, sqLogBbs, rqLog);
        Side b = side(hb, bufferBytes, cqLog, sqLogBbs, rqLog);
        HostDriver da = ha.driver();
        HostDriver db = hb.driver();
        da.addNeighbour(db.ip(), db.mac());
        db.addNeighbour(da.ip(), da.mac());
        return new HostPair(a, b, link);
    }

    /**
     * A cable as the profile describes it: line rate, propagation delay, the ports' PHY latency and FEC, frame
     * buffers per port, flow control (stall or PFC), and the seeded drop and corruption probabilities in both
     * directions.
     */
    public static EthernetLink cable(Simulator sim, String name, Profile profile) {
        EthernetLink link = EthernetLink.cable(sim, name, config(profile));
        setFaults(link, profile);
        return link;
    }

    private static EthernetLink.Config config(Profile profile) {
        EthernetLink.Phy phy = new EthernetLink.Phy(EthernetLink.Fec.of(profile.getString(Parameters.LINK_FEC)),
                profile.getLong(Parameters.LINK_PHY_TX_LATENCY), profile.getLong(Parameters.LINK_PHY_RX_LATENCY));
        EthernetLink.Pfc flowControl = "pfc".equals(profile.getString(Parameters.LINK_FLOW_CONTROL))
                ? EthernetLink.Pfc.pfc(profile.getLong(Parameters.LINK_PFC_XOFF), profile.getLong(Parameters.LINK_PFC_XON),
                        profile.getInt(Parameters.LINK_PFC_QUANTA), profile.getLong(Parameters.LINK_PFC_FIFO))
                : EthernetLink.Pfc.STALL;
        return new EthernetLink.Config((int) (profile.getLong(LINK_RATE) / 1_000_000_000L),
                profile.getLong(Parameters.LINK_PROPAGATION_DELAY), profile.getInt(Parameters.LINK_RX_BUFFER_FRAMES), phy,
                flowControl);
    }

    private static void setFaults(EthernetLink link, Profile profile) {
        double drop = profile.getDouble(Parameters.LINK_DROP_PROBABILITY);
        double corrupt = profile.getDouble(Parameters.LINK_CORRUPT_PROBABILITY);
        link.aToB().setFaults(drop, corrupt);
        link.bToA().setFaults(drop, corrupt);
    }

    private static Side side(Host h, long bufferBytes, int cqLog, int sqLogBbs, int rqLog) {
        HostDriver d = h.driver();
        CompletionQueue cq = d.createCq(cqLog);
        int pd = d.allocatePd();
        MemoryRegion mr = d.registerMemory(pd, d.allocate(bufferBytes), bufferBytes, ALL_ACCESS);
        QueuePair qp = d.createQp(QpOptions.of(cq, pd, ALL_ACCESS).withRings(sqLogBbs, rqLog));
        return new Side(h, cq, mr, qp);
    }

    public Side a() {
        return a;
    }

    public Side b() {
        return b;
    }

    public EthernetLink link() {
        return link;
    }
}
