package dev.rdmasim.adapter.wire;

import dev.rdmasim.kernel.Partitions;
import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.hw.Module;
import java.util.Arrays;
import java.util.Objects;

/**
 * A full-duplex Ethernet cable between two adapters (endpoints {@code a} and {@code b}, directions
 * {@code aToB} and {@code bToA}), or a loopback that wires one endpoint {@code a} to itself (direction
 * {@code loop}). Frames are pooled {@link Frame} buffers; each direction serializes them at the line
 * rate with preamble, FCS and inter-frame gap counted, adds the physical layer's latency and FEC codeword
 * wait ({@link Phy}) and the propagation delay, can drop or corrupt
 * them, and holds back losslessly when the receiver refuses: a stall, or priority flow control with pause frames
 * ({@link Pfc}, {@link LinkDirection}). Every frame put on
 * a line is shown to the {@link FrameTap}s, e.g. a {@link PcapWriter}.
 */
public final class EthernetLink extends Module {

    /**
     * Forward error correction of the physical layer: the PCS sends a continuous stream of codewords, each carrying
     * {@code dataBits} bits of the MAC's stream, and the receiver can decode a codeword only once it has all of it. A
     * frame is therefore usable at the far end only when the codeword holding its last bit has arrived whole. RS(528,514)
     * ("KR4", 100GBASE-CR4/KR4/SR4, 25GBASE-R) and RS(544,514) ("KP4", 50/200/400G lanes) carry twenty 257-bit
     * transcoded blocks, 5120 MAC bits (51.2 ns at 100 Gb/s); the low-latency RS(272,257) carries half that. 40 and
     * 56 GbE run without RS-FEC.
     */
    public enum Fec {
        NONE(0), RS528(5120), RS544(5120), RS272(2560);

        private final int dataBits;

        Fec(int dataBits) {
            this.dataBits = dataBits;
        }

        /** MAC bits one codeword carries; 0 without FEC. */
        public int dataBits() {
            return dataBits;
        }

        /** The profile's name for it ({@code none}, {@code rs528}, ...). */
        public String key() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        public static Fec of(String key) {
            for (Fec f : values()) {
                if (f.key().equals(key)) {
                    return f;
                }
            }
            throw new IllegalArgumentException("unknown FEC mode '" + key + "' (none, rs528, rs544, rs272)");
        }
    }

    /**
     * The port's physical layer in each direction, as a pipeline: it adds latency and never limits the rate.
     *
     * @param fec the FEC mode, whose codeword must arrive whole before the frame's last bytes can be decoded
     * @param txLatencyPs MAC, PCS, FEC encoder and SerDes from the transmitter's MAC to the line
     * @param rxLatencyPs SerDes, PCS, FEC decoder and MAC from the line to the receiver (after the codeword is in)
     */
    public record Phy(Fec fec, long txLatencyPs, long rxLatencyPs) {
        /** No physical-layer latency and no FEC: the frame is usable as its last bit arrives. */
        public static final Phy NONE = new Phy(Fec.NONE, 0, 0);

        public Phy {
            Objects.requireNonNull(fec, "fec");
            if (txLatencyPs < 0 || rxLatencyPs < 0) {
                throw new IllegalArgumentException("PHY latencies must be >= 0, got " + txLatencyPs + " and " + rxLatencyPs);
            }
        }
    }

    /**
     * How a receiving port that cannot take a frame holds back the far transmitter.
     *
     * <p>{@link #STALL} (the default): the direction stalls at the instant of the refusal, with no frame on the
     * wire for it. {@link #pfc}: the refused frame and those arriving behind it wait in the receiving MAC's FIFO
     * while the far end keeps sending; when the FIFO holds {@code xoffBytes} the port sends a priority flow control
     * (IEEE 802.1Qbb) XOFF frame back over the cable, which pauses the far transmitter from the instant it arrives
     * there for {@code quanta} x 512 bit times, refreshed every half of that while the FIFO stays above
     * {@code xonBytes}; once the FIFO has drained to {@code xonBytes} an XON (a pause of zero) ends the pause where
     * it arrives. The pause frames take their line time and appear to the taps. A frame that arrives at a FIFO
     * without room for it ({@code fifoBytes}) is lost. The ports' buffers are then those of real ports (see
     * {@link LinkEndpoint}): transmit buffers free once sent, receive buffers held by the receiver.
     *
     * @param enabled false for the instant stall
     * @param xoffBytes FIFO bytes (frame lengths, the refused frame's included) at which XOFF is sent
     * @param xonBytes FIFO bytes at or below which XON is sent, at most {@code xoffBytes}
     * @param quanta pause time an XOFF asks for, in units of 512 bit times, 1 to 65535
     * @param fifoBytes the FIFO's room, at least {@code xoffBytes}; the headroom above XOFF holds what arrives before
     *     the pause takes effect
     */
    public record Pfc(boolean enabled, long xoffBytes, long xonBytes, int quanta, long fifoBytes) {
        /** The instant stall: no pause frames. */
        public static final Pfc STALL = new Pfc(false, 1, 0, 1, 1);

        public Pfc {
            if (xoffBytes < 1 || xonBytes < 0 || xonBytes > xoffBytes) {
                throw new IllegalArgumentException("PFC thresholds need 1 <= xoffBytes and 0 <= xonBytes <= xoffBytes, got "
                        + xoffBytes + " and " + xonBytes);
            }
            if (quanta < 1 || quanta > 65_535) {
                throw new IllegalArgumentException("PFC pause quanta must be 1..65535, got " + quanta);
            }
            if (fifoBytes < xoffBytes) {
                throw new IllegalArgumentException("the PFC FIFO (" + fifoBytes + " B) must hold at least the XOFF threshold ("
                        + xoffBytes + " B)");
            }
        }

        /** Priority flow control with the given thresholds, pause time and FIFO room. */
        public static Pfc pfc(long xoffBytes, long xonBytes, int quanta, long fifoBytes) {
            return new Pfc(true, xoffBytes, xonBytes, quanta, fifoBytes);
        }

        /** Priority flow control with a FIFO that always has room. */
        public static Pfc pfc(long xoffBytes, long xonBytes, int quanta) {
            return pfc(xoffBytes, xonBytes, quanta, Long.MAX_VALUE);
        }
    }

    /**
     * @param rateGbps line rate, 25 to 400 Gb/s
     * @param propagationPs one-way propagation delay (about 5 ns per metre of fibre or copper)
     * @param buffersPerEndpoint frame buffers each endpoint sends from; bounds queued + in flight + unreleased frames
     * @param phy the physical layer's latency and FEC in each direction
     * @param flowControl how a refusing receiver holds back the far transmitter
     */
    public record Config(int rateGbps, long propagationPs, int buffersPerEndpoint, Phy phy, Pfc flowControl) {
        /** A link whose frames are usable as their last bit arrives (no PHY latency, no FEC). */
        public Config(int rateGbps, long propagationPs, int buffersPerEndpoint) {
            this(rateGbps, propagationPs, buffersPerEndpoint, Phy.NONE);
        }

        /** A link that stalls at a refusal ({@link Pfc#STALL}). */
        public Config(int rateGbps, long propagationPs, int buffersPerEndpoint, Phy phy) {
            this(rateGbps, propagationPs, buffersPerEndpoint, phy, Pfc.STALL);
        }

        public Config {
            Objects.requireNonNull(phy, "phy");
            Objects.requireNonNull(flowControl, "flowControl");
            if (rateGbps < 25 || rateGbps > 400) {
                throw new IllegalArgumentException("rateGbps must be 25..400, got " + rateGbps);
            }
            if (propagationPs < 0) {
                throw new IllegalArgumentException("propagationPs must be >= 0, got " + propagationPs);
            }
            if (buffersPerEndpoint < 1 || buffersPerEndpoint > 65_535) {
                throw new IllegalArgumentException("buffersPerEndpoint must be 1..65535, got " + buffersPerEndpoint);
            }
        }
    }

    /** A {@link LinkClock} that brings both ends up to date (an unsplit link), or only end a's or b's parts. */
    static final int BOTH_ENDS = 0;
    static final int END_A = 1;
    static final int END_B = 2;

    private final Config config;
    // Set once by wire(), called from every constructor (which differ only in the Module super call).
    private LinkEndpoint a;
    private LinkEndpoint b;
    private LinkDirection aToB;
    private LinkDirection bToA;
    private FrameTap[] taps = new FrameTap[0];
    private final LinkClock clock;
    /** A split link's partitions, end b's half (a module of the same name in b's simulator) and clock; else null. */
    private final Partitions partitions;
    private final Module farHalf;
    private final LinkClock farClock;

    /** A cable between two endpoints. */
    public static EthernetLink cable(Simulator sim, String name, Config config) {
        return new EthernetLink(sim, name, config, false);
    }

    /** A cable between two endpoints, as a child of {@code parent}. */
    public static EthernetLink cable(Module parent, String name, Config config) {
        return new EthernetLink(parent, name, config, false);
    }

    /** One endpoint whose transmit line comes back to its own receiver. */
    public static EthernetLink loopback(Simulator sim, String name, Config config) {
        return new EthernetLink(sim, name, config, true);
    }

    /** One endpoint whose transmit line comes back to its own receiver, as a child of {@code parent}. */
    public static EthernetLink loopback(Module parent, String name, Config config) {
        return new EthernetLink(parent, name, config, true);
    }

    /**
     * A cable whose two ends run in two partitions of one model ({@link Partitions}): end a, its transmitter
     * ({@code aToB}'s line) and the receiver of {@code bToA} in {@code simA}, end b and the rest in {@code simB}, the
     * frames and pause frames crossing between them at their arrival instants. The two ends then meet only through
     * the cable, at least one frame's flight apart, so they can run on two threads. It needs priority flow control
     * (a stall would stop the far transmitter at the very instant of a refusal) and takes no taps or traced signals.
     * End b's statistics are those of a module of the same name in {@code simB}.
     */
    public static EthernetLink split(Partitions partitions, Simulator simA, Simulator simB, String name,
            Config config) {
        Objects.requireNonNull(partitions, "partitions");
        if (!config.flowControl().enabled()) {
            throw new IllegalArgumentException("a link split over two partitions needs priority flow control"
                    + " (link.flowControl=pfc): a stall stops the far transmitter at the instant of a refusal");
        }
        if (simA.wave() != null || simB.wave() != null) {
            throw new IllegalArgumentException("a link split over two partitions traces no signals");
        }
        return new EthernetLink(partitions, simA, simB, name, config);
    }

    private EthernetLink(Simulator sim, String name, Config config, boolean loopback) {
        super(sim, name);
        this.config = Objects.requireNonNull(config, "config");
        this.clock = new LinkClock(this, BOTH_ENDS);
        this.partitions = null;
        this.farHalf = null;
        this.farClock = clock;
        wire(loopback);
    }

    private EthernetLink(Module parent, String name, Config config, boolean loopback) {
        super(parent, name);
        this.config = Objects.requireNonNull(config, "config");
        this.clock = new LinkClock(this, BOTH_ENDS);
        this.partitions = null;
        this.farHalf = null;
        this.farClock = clock;
        wire(loopback);
    }

    private EthernetLink(Partitions partitions, Simulator simA, Simulator simB, String name, Config config) {
        super(simA, name);
        this.config = Objects.requireNonNull(config, "config");
        this.clock = new LinkClock(this, END_A);
        this.partitions = partitions;
        this.farHalf = new FarHalf(simB, name);
        this.farClock = new LinkClock(this, END_B);
        wire(false);
        // Frames released at the far end go back to their pool between windows (a carrier changes no timing).
        a.returnsFromFar(partitions.mailbox(name + ".a.returns", simB, simA, a::takeBack));
        b.returnsFromFar(partitions.mailbox(name + ".b.returns", simA, simB, b::takeBack));
    }

    /** End b's half of a split link: the parent of its modules in b's simulator, under the link's own name. */
    private static final class FarHalf extends Module {
        FarHalf(Simulator sim, String name) {
            super(sim, name);
        }
    }

    private void wire(boolean loopback) {
        this.a = new LinkEndpoint(this, this, "a", config.buffersPerEndpoint(), clock);
        if (loopback) {
            this.b = null;
            this.aToB = new LinkDirection(this, this, "loop", a, a);
            aToB.reverse = aToB; // its pause frames come back on the same line
            this.bToA = null;
            a.outgoing = aToB;
            a.incoming = aToB;
        } else {
            Module far = farHalf == null ? this : farHalf;
            this.b = new LinkEndpoint(this, far, "b", config.buffersPerEndpoint(), farClock);
            this.aToB = new LinkDirection(this, this, "aToB", a, b);
            this.bToA = new LinkDirection(this, far, "bToA", b, a);
            aToB.reverse = bToA;
            bToA.reverse = aToB;
            a.outgoing = aToB;
            b.incoming = aToB;
            b.outgoing = bToA;
            a.incoming = bToA;
        }
    }

    public Config config() {
        return config;
    }

    public int rateGbps() {
        return config.rateGbps();
    }

    public long propagationPs() {
        return config.propagationPs();
    }

    public Phy phy() {
        return config.phy();
    }

    public Pfc flowControl() {
        return config.flowControl();
    }

    public boolean isLoopback() {
        return b == null;
    }

    public LinkEndpoint a() {
        return a;
    }

    /** The second endpoint; a loopback has none. */
    public LinkEndpoint b() {
        if (b == null) {
            throw new IllegalStateException(fullName() + " is a loopback: it has only endpoint a");
        }
        return b;
    }

    /** Direction a to b; in a loopback, the single direction from a back to a. */
    public LinkDirection aToB() {
        return aToB;
    }

    public LinkDirection bToA() {
        if (bToA == null) {
            throw new IllegalStateException(fullName() + " is a loopback: it has only one direction, aToB()");
        }
        return bToA;
    }

    /** The partitions a split link runs in, or null. */
    Partitions partitions() {
        return partitions;
    }

    /** Whether the two ends run in two partitions ({@link #split}). */
    public boolean isSplit() {
        return partitions != null;
    }

    /** The clock of the statistics of parts at {@code end} (an endpoint, or the far half of a direction). */
    LinkClock clock(LinkEndpoint end) {
        return end == b ? farClock : clock;
    }

    /** Adds an observer of every frame put on either line from now on. */
    public void addTap(FrameTap tap) {
        Objects.requireNonNull(tap, "tap");
        if (partitions != null) {
            throw new IllegalStateException(fullName() + " is split over two partitions: it takes no taps");
        }
        catchUp(); // frames that started before now are not shown to the new tap
        taps = Arrays.copyOf(taps, taps.length + 1);
        taps[taps.length - 1] = tap;
        aToB.tapsChanged();
        if (bToA != null) {
            bToA.tapsChanged();
        }
    }

    boolean hasTaps() {
        return taps.length > 0;
    }

    /** Commits what has happened on both lines up to now, and frees the transmit buffers sent by then. */
    private void catchUp() {
        if (partitions != null) {
            statsNow(END_A);
            statsNow(END_B);
            return;
        }
        if (aToB != null) { // null while the endpoints are being built
            aToB.advanceTo(now());
        }
        if (bToA != null) {
            bToA.advanceTo(now());
        }
        if (aToB != null) {
            a.catchUpSlots();
            if (b != null) {
                b.catchUpSlots();
            }
        }
    }

    /**
     * The time of a reading of the link's statistics: a read or reset of any of them first commits
     * everything that has happened on the lines. The endpoints' groups come first in the registry, so a
     * dump or reset sees the lines' counters up to date. Of a split link, only the parts of the end asked for.
     */
    long statsNow(int end) {
        if (end == BOTH_ENDS) {
            catchUp();
            return now();
        }
        LinkEndpoint e = end == END_A ? a : b;
        long now = end == END_A ? now() : farHalf.now();
        if (e != null && e.outgoing != null) { // null while the link is being built
            e.outgoing.advanceTo(now);
            e.catchUpSlots();
        }
        return now;
    }

    /** Before the endpoints take their buffers back: frames that started before the reset stay counted and tapped. */
    @Override
    protected void onReset() {
        catchUp();
    }

    void tap(long timePs, byte[] data, int length) {
        for (FrameTap t : taps) {
            t.frame(timePs, data, length);
        }
    }
}
