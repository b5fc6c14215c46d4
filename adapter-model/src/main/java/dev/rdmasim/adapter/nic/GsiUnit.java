package dev.rdmasim.adapter.nic;

import static dev.rdmasim.adapter.config.Parameters.NIC_RX_PACKET_CYCLES;
import static dev.rdmasim.adapter.config.Parameters.NIC_TX_PACKET_CYCLES;

import dev.rdmasim.adapter.format.BigEndian;
import dev.rdmasim.adapter.format.Doorbells;
import dev.rdmasim.adapter.pcie.DmaCallback;
import dev.rdmasim.adapter.pcie.DmaPort;
import dev.rdmasim.adapter.pcie.DmaRequest;
import dev.rdmasim.adapter.wire.CmMad;
import dev.rdmasim.adapter.wire.Frame;
import dev.rdmasim.adapter.wire.LinkEndpoint;
import dev.rdmasim.adapter.wire.Opcode;
import dev.rdmasim.adapter.wire.RoceLayout;
import dev.rdmasim.adapter.wire.RoceReader;
import dev.rdmasim.adapter.wire.RoceWriter;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.TimeAverage;
import dev.rdmasim.kernel.wave.Signal;

/**
 * The general services interface: QP1 of the adapter, which carries management datagrams (the connection
 * manager's MADs) as RoCEv2 UD SEND_ONLY packets with a DETH. It is a small engine of its own beside the
 * RC data path, sharing the Ethernet port and the DMA engine with it.
 *
 * <p>Send. The driver writes {@link #SEND_SLOT}-byte entries into a send ring in host memory (addressing
 * header, then the 256-byte MAD) and writes its producer count to the send doorbell. The unit takes one
 * entry at a time: a DMA read of the entry, a frame built on the unit's packetizer (the transmitter's cycles
 * per packet) and queued on the port, where frames leave in ready-time order with the data path's; then a
 * DMA write of its consumer count into the driver's send record, which frees the entry.
 *
 * <p>Receive. The driver posts {@link #RECV_SLOT}-byte buffers in a receive ring by writing its producer
 * count to the receive doorbell. A UD frame the receiver hands over is checked (QP1, the GSI Q_Key, a
 * 256-byte payload; Ethernet/IP/UDP/ICRC were checked by the receiver), copied into one of a few staging
 * buffers and DMA-written, with a header naming its source, into the next posted buffer; then an event-queue
 * entry of type {@link #EVENT_TYPE} and an MSI-X message follow on the same DMA channel, so they land after
 * it. A MAD finding no posted buffer or no free staging buffer is dropped and counted, as a real GSI QP
 * drops datagrams it has no receive WQE for.
 *
 * <p>Doorbells: one 4 KiB page after the QPs' pages ({@link Doorbells#gsiSendDoorbellOffset},
 * {@link Doorbells#gsiRecvDoorbellOffset}), 8-byte big-endian writes carrying a running 32-bit count.
 */
public final class GsiUnit extends Module implements DmaCallback {
    /** The QP number of the general services interface. */
    public static final int QPN = 1;
    /** EQE type of a received MAD (a model-specific value; mlx5 reports GSI receives through a CQ instead). */
    public static final int EVENT_TYPE = 0xF0;

    /** Send ring entry: destination MAC (8, low 48 bits), IPv4 (4), QPN (4), Q_Key (4), MAD length (4), pad, MAD at 64. */
    public static final int SEND_SLOT = 320;
    public static final int SEND_DST_MAC = 0;
    public static final int SEND_DST_IP = 8;
    public static final int SEND_DST_QPN = 12;
    public static final int SEND_QKEY = 16;
    public static final int SEND_LENGTH = 20;
    /** Receive buffer: source MAC (8), source IPv4 (4), source QPN (4), Q_Key (4), byte count (4), P_Key (4), pad, MAD at 64. */
    public static final int RECV_SLOT = 320;
    public static final int RECV_SRC_MAC = 0;
    public static final int RECV_SRC_IP = 8;
    public static final int RECV_SRC_QPN = 12;
    public static final int RECV_QKEY = 16;
    public static final int RECV_LENGTH = 20;
    public static final int RECV_PKEY = 24;
    public static final int MAD_OFFSET = 64;
    /** Size of the driver's send record: the unit's consumer count, big-endian. */
    public static final int SEND_RECORD_BYTES = 4;

    /** Received MADs staged on chip while their writes are on the way. */
    private static final int STAGES = 4;

    private final WorkClock work;
    private final EventQueueUnit eq;
    private final long mac;
    private final int ip;
    private final DmaPort dma;
    private final long doorbellPage;
    private final Busy txBusy;
    private final Busy rxBusy;
    private final int txCycles;
    private final int rxCycles;
    private final RoceWriter writer = new RoceWriter();
    private LinkEndpoint port;

    private boolean created;
    private long sendRing;
    private int sendMask;
    private long sendRecord;
    private long recvRing;
    private int recvMask;
    private int sendProducer;
    private int sendConsumer;
    private int recvProducer;
    private int recvConsumed;
    private int psn;

    // Send engine: one entry at a time.
    private boolean sendActive;
    private boolean sendReadDone;
    private boolean waitingForBuffer;
    private final byte[] sendBuf = new byte[SEND_SLOT];
    private final DmaRequest sendRead = new DmaRequest();
    private final DmaRequest recordWrite = new DmaRequest();
    private final byte[] recordBuf = new byte[SEND_RECORD_BYTES];

    // Receive staging.
    private final byte[][] stageBuf = new byte[STAGES][RECV_SLOT];
    private final DmaRequest[] madWrite = new DmaRequest[STAGES];
    /** Per stage: its event's interrupt has left, so its buffers are free. */
    private final EventQueueUnit.Listener[] stageFreed = new EventQueueUnit.Listener[STAGES];
    private final boolean[] stageBusy = new boolean[STAGES];
    private int staged;
    /** Requests the DMA port may hold for a full channel: three per stage plus the send engine's one. */
    static final int BACKLOG = 3 * STAGES + 1;

    private final Counter madsSent;
    private final Counter madsReceived;
    private final Counter badSends;
    private final Counter dropNoBuffer;
    private final Counter dropOverrun;
    private final Counter dropNotGsi;
    private final Counter dropBadQkey;
    private final Counter dropBadLength;
    private final TimeAverage stagedAvg;
    private final Signal stagedSignal;

    /** What the unit is built with, taken from the profile once: its packetizer's and receive cycles per frame. */
    record Params(int txCycles, int rxCycles) {
        static Params of(dev.rdmasim.adapter.config.Profile p) {
            return new Params(p.getInt(NIC_TX_PACKET_CYCLES), p.getInt(NIC_RX_PACKET_CYCLES));
        }
    }

    GsiUnit(Module parent, Params params, dev.rdmasim.kernel.hw.ClockDomain clock, WorkClock work, EventQueueUnit eq,
            DmaPort port, long mac, int ip, int doorbellPage) {
        super(parent, "gsi");
        this.work = work;
        this.eq = eq;
        this.mac = mac;
        this.ip = ip;
        this.dma = port;
        this.doorbellPage = doorbellPage;
        txBusy = new Busy(new Module(this, "tx") {
        }, clock, signal("txBusy", 1));
        rxBusy = new Busy(new Module(this, "rx") {
        }, clock, signal("rxBusy", 1));
        txCycles = params.txCycles();
        rxCycles = params.rxCycles();
        for (int i = 0; i < STAGES; i++) {
            madWrite[i] = new DmaRequest();
            int stage = i;
            stageFreed[i] = interrupt -> {
                if (interrupt) {
                    freeStage(stage);
                }
            };
        }
        writer.macs(0, mac);
        madsSent = stats().counter("madsSent", "MADs", "MADs sent as UD frames from QP1");
        madsReceived = stats().counter("madsReceived", "MADs", "MADs written into a posted receive buffer");
        badSends = stats().counter("badSends", "entries", "send entries dropped for a bad length (not a 256-byte MAD)");
        dropNoBuffer = stats().counter("dropNoBuffer", "MADs", "MADs dropped because no receive buffer was posted");
        dropOverrun = stats().counter("dropOverrun", "MADs", "MADs dropped because every staging buffer was busy");
        dropNotGsi = stats().counter("dropNotGsi", "frames", "UD frames for a QP other than QP1 (no UD QPs exist)");
        dropBadQkey = stats().counter("dropBadQkey", "frames", "UD frames to QP1 with a Q_Key other than the GSI's");
        dropBadLength = stats().counter("dropBadLength", "frames", "UD frames to QP1 whose payload is not one 256-byte MAD");
        stagedAvg = stats().timeAverage("staged", "MADs", "received MADs staged on chip awaiting their writes");
        stagedSignal = signal("staged", 4);
    }

    void attach(LinkEndpoint p) {
        this.port = p;
    }

    // ---------------------------------------------------------------- commands

    /**
     * Sets up QP1 (the create-GSI command): a send ring of 2^sendLog entries and the record the unit writes its
     * consumer count to, and a receive ring of 2^recvLog buffers. Counts start at zero.
     */
    public void create(long sendRing, int sendLog, long sendRecord, long recvRing, int recvLog) {
        if (created) {
            throw new IllegalStateException(fullName() + ": QP1 already exists");
        }
        if (sendLog < 0 || sendLog > 12 || recvLog < 0 || recvLog > 12) {
            throw new IllegalArgumentException("sendLog and recvLog must be 0..12, got " + sendLog + ", " + recvLog);
        }
        this.sendRing = sendRing;
        this.sendMask = (1 << sendLog) - 1;
        this.sendRecord = sendRecord;
        this.recvRing = recvRing;
        this.recvMask = (1 << recvLog) - 1;
        created = true;
    }

    int doorbellPage() {
        return (int) doorbellPage;
    }

    void mmioWrite(int inPage, byte[] data, int off, int len) {
        if (!created || len != 8) {
            return; // Unmapped or malformed doorbell writes are ignored, as a device does.
        }
        int count = (int) BigEndian.i64(data, off);
        if (inPage == Doorbells.PAGE_GSI_SEND) {
            sendProducer = count;
            pumpSend();
        } else if (inPage == Doorbells.PAGE_GSI_RECV) {
            recvProducer = count;
        }
    }

    // ---------------------------------------------------------------- send

    private void pumpSend() {
        if (sendActive || sendConsumer == sendProducer) {
            return;
        }
        sendActive = true;
        sendReadDone = false;
        long addr = sendRing + (long) (sendConsumer & sendMask) * SEND_SLOT;
        dma.send(sendRead.read(addr, sendBuf, 0, SEND_SLOT, this, -1));
    }

    @Override
    public void readDone(DmaRequest r) {
        sendReadDone = true;
        emit();
    }

    private void emit() {
        if (BigEndian.i32(sendBuf, SEND_LENGTH) != CmMad.SIZE) {
            badSends.inc();
            finishSend();
            return;
        }
        Frame f = port.acquire();
        if (f == null) {
            waitingForBuffer = true; // The port calls bufferFree() once a buffer is back.
            return;
        }
        long t = txBusy.book(txCycles);
        long dstMac = BigEndian.i64(sendBuf, SEND_DST_MAC) & 0xFFFF_FFFF_FFFFL;
        int dstIp = BigEndian.i32(sendBuf, SEND_DST_IP);
        int qpn = BigEndian.i32(sendBuf, SEND_DST_QPN) & 0xFF_FFFF;
        writer.macs(dstMac, mac).ipv4(this.ip, dstIp).udpSourcePort(RoceWriter.entropyPort(QPN, qpn))
                .bth(Opcode.UD_SEND_ONLY, qpn, psn).deth(BigEndian.i32(sendBuf, SEND_QKEY), QPN);
        psn = (psn + 1) & 0xFF_FFFF;
        writer.write(f, sendBuf, MAD_OFFSET, CmMad.SIZE);
        port.send(f, t);
        madsSent.inc();
        txBusy.idleAfterBookings();
        finishSend();
    }

    private void finishSend() {
        sendConsumer++;
        BigEndian.putI32(recordBuf, 0, sendConsumer);
        dma.send(recordWrite.write(sendRecord, recordBuf, 0, SEND_RECORD_BYTES, this, -1, false));
    }

    /** The port has a free frame buffer again (called from the transmitter's buffer callback). */
    void bufferFree() {
        if (waitingForBuffer) {
            waitingForBuffer = false;
            emit();
        }
    }

    @Override
    public void writeSent(DmaRequest r) {
        if (r == recordWrite) {
            sendActive = false;
            pumpSend();
            return;
        }
        // A MAD's write has left; its stage stays busy until the interrupt behind it has.
    }

    private void freeStage(int s) {
        stageBusy[s] = false;
        staged--;
        stagedAvg.set(staged);
        stagedSignal.set(staged);
    }

    // ---------------------------------------------------------------- receive

    /**
     * A valid UD frame the receiver took, wrapped in {@code r}; the receiver releases the frame afterwards, so
     * the MAD is copied out now. Runs inside the receiver's frame handling, at its instant ({@link WorkClock}).
     */
    void receive(RoceReader r) {
        if (r.destQp() != QPN) {
            dropNotGsi.inc();
            return;
        }
        if (r.dethQkey() != RoceLayout.GSI_QKEY) {
            dropBadQkey.inc();
            return;
        }
        if (r.payloadLength() != CmMad.SIZE) {
            dropBadLength.inc();
            return;
        }
        if (!created || recvConsumed == recvProducer) {
            dropNoBuffer.inc();
            return;
        }
        int s = freeStage();
        if (s < 0) {
            dropOverrun.inc();
            return;
        }
        long t = rxBusy.book(rxCycles, work.at());
        rxBusy.idleAfterBookings();
        stageBusy[s] = true;
        staged++;
        stagedAvg.set(staged);
        stagedSignal.set(staged);
        byte[] b = stageBuf[s];
        BigEndian.putI64(b, RECV_SRC_MAC, r.srcMac());
        BigEndian.putI32(b, RECV_SRC_IP, r.srcIp());
        BigEndian.putI32(b, RECV_SRC_QPN, r.dethSourceQp());
        BigEndian.putI32(b, RECV_QKEY, r.dethQkey());
        BigEndian.putI32(b, RECV_LENGTH, CmMad.SIZE);
        BigEndian.putI32(b, RECV_PKEY, r.pkey());
        System.arraycopy(r.bytes(), r.payloadOffset(), b, MAD_OFFSET, CmMad.SIZE);
        long addr = recvRing + (long) (recvConsumed & recvMask) * RECV_SLOT;
        recvConsumed++;
        madsReceived.inc();
        dma.send(madWrite[s].write(addr, b, 0, RECV_SLOT, this, s, false).notBefore(t));
        // The event and interrupt follow the MAD on the same channel, so the driver finds the MAD in place.
        eq.qpEvent(dma, EVENT_TYPE, QPN, t, stageFreed[s]);
    }

    private int freeStage() {
        for (int i = 0; i < STAGES; i++) {
            if (!stageBusy[i]) {
                return i;
            }
        }
        return -1;
    }

    // ---------------------------------------------------------------- DMA submission, in order

    /** Counts as the unit sees them, for diagnostics: send producer/consumer, receive posted/consumed. */
    public String describe() {
        return fullName() + ": send " + sendConsumer + "/" + sendProducer + (sendActive ? " active" : "")
                + (waitingForBuffer ? " waitingForBuffer" : "") + (sendReadDone ? "" : " reading") + ", recv "
                + recvConsumed + "/" + recvProducer + ", staged " + staged;
    }
}
