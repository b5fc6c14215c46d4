package dev.rdmasim.adapter.nic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.format.BigEndian;
import dev.rdmasim.adapter.format.Doorbells;
import dev.rdmasim.adapter.format.Eqe;
import dev.rdmasim.adapter.pcie.DmaPort;
import dev.rdmasim.adapter.pcie.PcieConfig;
import dev.rdmasim.adapter.wire.CmMad;
import dev.rdmasim.adapter.wire.EthernetLink;
import dev.rdmasim.adapter.wire.Frame;
import dev.rdmasim.adapter.wire.FrameCheck;
import dev.rdmasim.adapter.wire.Opcode;
import dev.rdmasim.adapter.wire.RoceLayout;
import dev.rdmasim.adapter.wire.RoceReader;
import dev.rdmasim.adapter.wire.RoceWriter;
import dev.rdmasim.kernel.Event;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * QP1 alone: the unit with its real DMA port over the PCIe model and host memory, the real event queue unit, and
 * the near end of a real Ethernet link. A stand-in driver writes send entries and posts receive buffers in the
 * layouts the connection manager uses, at random paces, ringing the doorbells late or in batches; a stand-in
 * transmitter competes for the port's frame buffers and hands a freed buffer to QP1 first, as the adapter wires
 * it; a stand-in receiver takes frames at the near end, stalls some, and hands UD ones to the unit as the
 * receiver does. At the far end a sink holds frames for random times and refuses some, and a source sends UD
 * MAD datagrams (some not for QP1, with a wrong Q_Key or length) at random times.
 *
 * <p>Scoreboard: every well-formed send entry leaves once, in posting order, as a UD SEND_ONLY frame with its
 * addressing, the next PSN and its MAD; a malformed one is counted and skipped; the send record reaches the
 * producer count. Every datagram for QP1 lands once, in arrival order, in the next posted buffer with its
 * source header and bytes, followed by one QP event and one interrupt; one finding no posted buffer (or no
 * QP1) is counted as dropped for that, and one finding every staging buffer busy only when at least four
 * received MADs still await their interrupt. Link buffers all return and the unit ends idle.
 */
class GsiUnitTest {
    private static final long MAC = 0x02_00_00_00_00_0AL;
    private static final int IP = 0x0A00_0001;
    private static final long PEER_MAC = 0x02_00_00_00_00_0BL;
    private static final int PEER_IP = 0x0A00_0002;
    private static final int PAGE = 64;
    private static final int FILLER_QP = 0xABCDE;
    private static final int EQ_LOG = 4;

    /** A send entry as the driver wrote it. */
    private record Sent(long dstMac, int dstIp, int qpn, int qkey, byte[] mad) {
    }

    /** A datagram QP1 accepted: what its receive buffer must hold. */
    private record Landed(long srcMac, int srcIp, int srcQp, int pkey, byte[] mad) {
    }

    private static final class Rig {
        final SplittableRandom rnd;
        final BlockHarness h;
        final EventQueueUnit eq;
        final DmaPort port;
        final GsiUnit gsi;
        final EthernetLink link;
        final long eqRing;
        final int sendLog;
        final int recvLog;
        final long sendRing;
        final long sendRecord;
        final long recvRing;
        final RoceReader nearReader = new RoceReader();
        final RoceReader farReader = new RoceReader();
        final RoceWriter farWriter = new RoceWriter();
        final RoceWriter fillWriter = new RoceWriter();

        // Driver side.
        final List<Sent> posted = new ArrayList<>();
        final List<Boolean> postedGood = new ArrayList<>();
        int sendProducer;
        int sendRung;
        int lastRecord;
        int badPosted;
        int recvPosted;
        int recvConsumer;
        long eqConsumer;
        int interrupts;
        final List<Landed> landed = new ArrayList<>();

        // Far side and near side.
        int goodSeen;
        int fillersSent;
        int fillersSeen;
        boolean fillerWaiting;
        int gsiWaits;
        int farSent;
        boolean farWaiting;
        int dropNoBuffer;
        int dropOverrun;
        int notGsi;
        int badQkey;
        int badLength;
        final ArrayDeque<Frame> sinkHeld = new ArrayDeque<>();
        final ArrayDeque<Frame> nearHeld = new ArrayDeque<>();

        // Workload.
        int madsToPost;
        int datagramsToSend;
        int refuseIn16 = 3;
        long paceMax = 3_000_000;
        long holdMax = 2_000_000;
        long repostMax = 4_000_000;

        final Event post;
        final Event far;
        final Event filler;
        final Event sinkRelease;
        final Event sinkRetry;
        final Event nearRetry;
        final Event repost;

        Rig(long seed) {
            this(seed, -1);
        }

        /** A rig whose receive ring has 2^recvLog buffers (-1: 1 to 8, at random). */
        Rig(long seed, int recvLog) {
            rnd = new SplittableRandom(seed);
            PcieConfig pcie = BlockHarness.randomPcie(rnd);
            h = new BlockHarness(seed, pcie);
            eq = new EventQueueUnit(h.top, pcie.msixAddress(0), 16);
            eqRing = h.mem.allocate((long) Eqe.SIZE << EQ_LOG, 4096);
            byte[] init = new byte[Eqe.SIZE << EQ_LOG];
            Eqe.initRing(init, 0, 1 << EQ_LOG);
            h.mem.write(eqRing, init, 0, init.length);
            eq.create(eqRing, EQ_LOG);
            port = h.port("gsi", 1 + rnd.nextInt(16), GsiUnit.BACKLOG);
            gsi = new GsiUnit(h.top, new GsiUnit.Params(20 + rnd.nextInt(60), 10 + rnd.nextInt(40)), h.clock, h.work,
                    eq, port, MAC, IP, PAGE);
            link = EthernetLink.cable(h.sim, "wire", new EthernetLink.Config(100, rnd.nextLong(200_000), 1 + rnd.nextInt(4)));
            gsi.attach(link.a());
            // The adapter's egress rule: a freed buffer is offered to QP1 before the transmitter retries.
            link.a().onBufferFree(() -> {
                boolean waited = gsi.describe().contains("waitingForBuffer");
                gsi.bufferFree();
                if (waited) {
                    gsiWaits++;
                    assertThat(gsi.describe()).as("QP1 takes the freed buffer first").doesNotContain("waitingForBuffer");
                }
                if (fillerWaiting) {
                    fillerWaiting = false;
                    sendFiller();
                }
            });
            link.a().connectReceiver(this::nearAccept);
            link.b().connectReceiver(this::sinkAccept);
            link.b().onBufferFree(() -> {
                if (farWaiting) {
                    farWaiting = false;
                    sendDatagram();
                }
            });
            sendLog = rnd.nextInt(4);
            int randomLog = rnd.nextInt(4);
            this.recvLog = recvLog >= 0 ? recvLog : randomLog;
            sendRing = h.mem.allocate((long) GsiUnit.SEND_SLOT << sendLog, 4096);
            sendRecord = h.mem.allocate(GsiUnit.SEND_RECORD_BYTES, 64);
            recvRing = h.mem.allocate((long) GsiUnit.RECV_SLOT << this.recvLog, 4096);
            gsi.create(sendRing, sendLog, sendRecord, recvRing, this.recvLog);
            h.link.host().setInterruptHandler(this::interrupt);
            post = h.sim.event("driver.post", this::postSome);
            far = h.sim.event("far.send", this::farTick);
            filler = h.sim.event("tx.filler", this::fillerTick);
            sinkRelease = h.sim.event("sink.release", this::sinkReleaseSome);
            sinkRetry = h.sim.event("sink.retry", () -> link.b().retryDelivery());
            nearRetry = h.sim.event("near.retry", () -> link.a().retryDelivery());
            repost = h.sim.event("driver.repost", this::postReceives);
        }

        // ------------------------------------------------------------ driver

        void doorbell(int inPage, int count) {
            byte[] d = new byte[8];
            BigEndian.putI64(d, 0, count & 0xFFFF_FFFFL);
            gsi.mmioWrite(inPage, d, 0, 8);
        }

        int record() {
            byte[] b = new byte[4];
            h.mem.read(sendRecord, b, 0, 4);
            return BigEndian.i32(b, 0);
        }

        void postSome() {
            int rec = record();
            assertThat(rec - lastRecord).as("send record never goes back").isGreaterThanOrEqualTo(0);
            assertThat(sendRung - rec).as("record never passes the doorbell").isGreaterThanOrEqualTo(0);
            lastRecord = rec;
            int n = 1 + rnd.nextInt(3);
            while (n-- > 0 && posted.size() < madsToPost && sendProducer - rec < (1 << sendLog)) {
                byte[] slot = new byte[GsiUnit.SEND_SLOT];
                rnd.nextBytes(slot); // the pad bytes are garbage: the unit must not read them
                Sent s = new Sent(rnd.nextLong(1L << 48), rnd.nextInt(), rnd.nextInt(1 << 24), rnd.nextInt(), mad());
                boolean good = rnd.nextInt(12) != 0;
                BigEndian.putI64(slot, GsiUnit.SEND_DST_MAC, s.dstMac() | (long) rnd.nextInt(1 << 16) << 48);
                BigEndian.putI32(slot, GsiUnit.SEND_DST_IP, s.dstIp());
                BigEndian.putI32(slot, GsiUnit.SEND_DST_QPN, s.qpn() | rnd.nextInt(256) << 24);
                BigEndian.putI32(slot, GsiUnit.SEND_QKEY, s.qkey());
                BigEndian.putI32(slot, GsiUnit.SEND_LENGTH, good ? CmMad.SIZE : rnd.nextInt(2) == 0 ? CmMad.SIZE - 1 - rnd.nextInt(200) : CmMad.SIZE + 1);
                System.arraycopy(s.mad(), 0, slot, GsiUnit.MAD_OFFSET, CmMad.SIZE);
                h.mem.write(sendRing + (long) (sendProducer & ((1 << sendLog) - 1)) * GsiUnit.SEND_SLOT, slot, 0, slot.length);
                sendProducer++;
                posted.add(s);
                postedGood.add(good);
                badPosted += good ? 0 : 1;
            }
            // The doorbell is rung late at times: a later tick rings for everything posted so far.
            if (sendRung != sendProducer && (rnd.nextInt(3) != 0 || posted.size() == madsToPost)) {
                sendRung = sendProducer;
                doorbell(Doorbells.PAGE_GSI_SEND, sendProducer);
            }
            if (posted.size() < madsToPost || rec != sendProducer || sendRung != sendProducer) {
                post.scheduleIn(1 + rnd.nextLong(paceMax));
            }
        }

        byte[] mad() {
            byte[] m = new byte[CmMad.SIZE];
            rnd.nextBytes(m);
            return m;
        }

        /** Posts every buffer up to one ring ahead of the consumer, as the connection manager does. */
        void postReceives() {
            recvPosted = recvConsumer + (1 << recvLog);
            doorbell(Doorbells.PAGE_GSI_RECV, recvPosted);
        }

        void interrupt(int vector, int data) {
            assertThat(vector).isZero();
            assertThat(data).isEqualTo(EventQueueUnit.MSIX_DATA);
            interrupts++;
            byte[] e = new byte[Eqe.SIZE];
            int found = 0;
            while (true) {
                h.mem.read(eqRing + (eqConsumer & ((1 << EQ_LOG) - 1)) * Eqe.SIZE, e, 0, Eqe.SIZE);
                if (!Eqe.isSoftwareOwned(e, 0, eqConsumer, EQ_LOG)) {
                    break;
                }
                eqConsumer++;
                found++;
                assertThat(Eqe.type(e, 0)).isEqualTo(GsiUnit.EVENT_TYPE);
                assertThat(Eqe.resource(e, 0)).isEqualTo(GsiUnit.QPN);
                consumeBuffer();
            }
            // Each MAD's event and interrupt follow it on one channel: one new event per interrupt.
            assertThat(found).as("events found at interrupt %d", interrupts).isEqualTo(1);
            if (rnd.nextInt(3) == 0) {
                postReceives();
            } else if (!repost.scheduled()) {
                repost.scheduleIn(1 + rnd.nextLong(repostMax));
            }
        }

        void consumeBuffer() {
            assertThat(recvConsumer).as("an event for a MAD that was not accepted").isLessThan(landed.size());
            Landed l = landed.get(recvConsumer);
            byte[] b = new byte[GsiUnit.RECV_SLOT];
            h.mem.read(recvRing + (long) (recvConsumer & ((1 << recvLog) - 1)) * GsiUnit.RECV_SLOT, b, 0, b.length);
            assertThat(BigEndian.i64(b, GsiUnit.RECV_SRC_MAC)).isEqualTo(l.srcMac());
            assertThat(BigEndian.i32(b, GsiUnit.RECV_SRC_IP)).isEqualTo(l.srcIp());
            assertThat(BigEndian.i32(b, GsiUnit.RECV_SRC_QPN)).isEqualTo(l.srcQp());
            assertThat(BigEndian.i32(b, GsiUnit.RECV_QKEY)).isEqualTo(RoceLayout.GSI_QKEY);
            assertThat(BigEndian.i32(b, GsiUnit.RECV_LENGTH)).isEqualTo(CmMad.SIZE);
            assertThat(BigEndian.i32(b, GsiUnit.RECV_PKEY)).isEqualTo(l.pkey());
            assertThat(Arrays.copyOfRange(b, GsiUnit.MAD_OFFSET, GsiUnit.MAD_OFFSET + CmMad.SIZE))
                    .as("MAD %d in its buffer", recvConsumer).isEqualTo(l.mad());
            recvConsumer++;
        }

        // ------------------------------------------------------------ competing sender at the near end

        void fillerTick() {
            if (!fillerWaiting) {
                sendFiller();
            }
            if (fillersSent < madsToPost / 2) {
                filler.scheduleIn(1 + rnd.nextLong(paceMax));
            }
        }

        void sendFiller() {
            Frame f = link.a().acquire();
            if (f == null) {
                fillerWaiting = true;
                return;
            }
            fillWriter.macs(PEER_MAC, MAC).ipv4(IP, PEER_IP).bth(Opcode.SEND_ONLY, FILLER_QP, fillersSent & 0xFF_FFFF);
            f.length(fillWriter.write(f.data(), new byte[64], 0, 64));
            link.a().send(f);
            fillersSent++;
        }

        // ------------------------------------------------------------ far end

        void farTick() {
            if (!farWaiting) {
                sendDatagram();
            }
            if (farSent < datagramsToSend) {
                far.scheduleIn(1 + rnd.nextLong(paceMax));
            }
        }

        void sendDatagram() {
            if (farSent >= datagramsToSend) {
                return;
            }
            Frame f = link.b().acquire();
            if (f == null) {
                farWaiting = true;
                return;
            }
            int kind = rnd.nextInt(16);
            int dest = kind == 0 ? 2 + rnd.nextInt(1000) : GsiUnit.QPN;
            int qkey = kind == 1 ? RoceLayout.GSI_QKEY ^ (1 + rnd.nextInt(1 << 20)) : RoceLayout.GSI_QKEY;
            int len = kind == 2 ? (rnd.nextBoolean() ? 4 * (1 + rnd.nextInt(63)) : CmMad.SIZE + 4) : CmMad.SIZE;
            byte[] payload = new byte[len];
            rnd.nextBytes(payload);
            int srcQp = rnd.nextInt(1 << 24);
            int pkey = 0x8000 | rnd.nextInt(1 << 15);
            farWriter.macs(MAC, PEER_MAC).ipv4(PEER_IP, IP).pkey(pkey).bth(Opcode.UD_SEND_ONLY, dest, farSent & 0xFF_FFFF)
                    .deth(qkey, srcQp);
            f.length(farWriter.write(f.data(), payload, 0, len));
            link.b().send(f);
            farSent++;
        }

        /** The far end: every frame QP1 or the competing sender sent, checked in arrival order. */
        boolean sinkAccept(Frame f) {
            if (rnd.nextInt(16) < refuseIn16) {
                if (!sinkRetry.scheduled()) {
                    sinkRetry.scheduleIn(1 + rnd.nextLong(holdMax));
                }
                return false;
            }
            assertThat(farReader.wrap(f.data(), f.length())).isEqualTo(FrameCheck.VALID);
            if (farReader.destQp() == FILLER_QP && farReader.opcode() == Opcode.SEND_ONLY) {
                assertThat(farReader.psn()).isEqualTo(fillersSeen++ & 0xFF_FFFF);
            } else {
                checkMad();
            }
            sinkHeld.add(f);
            if (!sinkRelease.scheduled()) {
                sinkRelease.scheduleIn(1 + rnd.nextLong(holdMax));
            }
            return true;
        }

        void checkMad() {
            RoceReader r = farReader;
            assertThat(r.opcode()).isEqualTo(Opcode.UD_SEND_ONLY);
            // The next well-formed entry in posting order; malformed ones never leave.
            int i = nextGood(goodSeen);
            assertThat(i).as("a MAD frame beyond those posted").isGreaterThanOrEqualTo(0);
            Sent s = posted.get(i);
            assertThat(r.psn()).as("PSN of MAD frame").isEqualTo(goodSeen & 0xFF_FFFF);
            assertThat(r.dstMac()).isEqualTo(s.dstMac());
            assertThat(r.srcMac()).isEqualTo(MAC);
            assertThat(r.srcIp()).isEqualTo(IP);
            assertThat(r.dstIp()).isEqualTo(s.dstIp());
            assertThat(r.destQp()).isEqualTo(s.qpn());
            assertThat(r.dethQkey()).isEqualTo(s.qkey());
            assertThat(r.dethSourceQp()).isEqualTo(GsiUnit.QPN);
            assertThat(r.udpSourcePort()).isEqualTo(RoceWriter.entropyPort(GsiUnit.QPN, s.qpn()));
            assertThat(r.payloadLength()).isEqualTo(CmMad.SIZE);
            assertThat(Arrays.copyOfRange(r.bytes(), r.payloadOffset(), r.payloadOffset() + CmMad.SIZE))
                    .as("MAD of entry %d", i).isEqualTo(s.mad());
            goodSeen++;
        }

        /** Index in {@link #posted} of the {@code k}-th well-formed entry, or -1. */
        int nextGood(int k) {
            for (int i = 0; i < postedGood.size(); i++) {
                if (postedGood.get(i) && k-- == 0) {
                    return i;
                }
            }
            return -1;
        }

        void sinkReleaseSome() {
            int n = 1 + rnd.nextInt(3);
            while (n-- > 0 && !sinkHeld.isEmpty()) {
                sinkHeld.poll().release();
            }
            if (!sinkHeld.isEmpty()) {
                sinkRelease.scheduleIn(1 + rnd.nextLong(holdMax));
            }
        }

        // ------------------------------------------------------------ near end: the receiver's part

        boolean nearAccept(Frame f) {
            if (rnd.nextInt(16) < refuseIn16) {
                if (!nearRetry.scheduled()) {
                    nearRetry.scheduleIn(1 + rnd.nextLong(holdMax));
                }
                return false;
            }
            RoceReader r = nearReader;
            assertThat(r.wrap(f.data(), f.length())).isEqualTo(FrameCheck.VALID);
            assertThat(Opcode.isUd(r.opcode())).isTrue();
            long noBuffer = BlockHarness.counter(gsi, "dropNoBuffer");
            long overrun = BlockHarness.counter(gsi, "dropOverrun");
            long received = BlockHarness.counter(gsi, "madsReceived");
            byte[] mad = Arrays.copyOfRange(r.bytes(), r.payloadOffset(), r.payloadOffset() + r.payloadLength());
            Landed l = new Landed(r.srcMac(), r.srcIp(), r.dethSourceQp(), r.pkey(), mad);
            boolean forQp1 = r.destQp() == GsiUnit.QPN;
            boolean goodKey = r.dethQkey() == RoceLayout.GSI_QKEY;
            boolean goodLength = r.payloadLength() == CmMad.SIZE;
            // The receive pipeline hands the frame over ahead of the instant its cycles end.
            h.work.ahead(h.sim.now() + rnd.nextLong(100_000));
            gsi.receive(r);
            h.work.present();
            f.release();
            long dNoBuffer = BlockHarness.counter(gsi, "dropNoBuffer") - noBuffer;
            long dOverrun = BlockHarness.counter(gsi, "dropOverrun") - overrun;
            long dReceived = BlockHarness.counter(gsi, "madsReceived") - received;
            if (!forQp1) {
                notGsi++;
            } else if (!goodKey) {
                badQkey++;
            } else if (!goodLength) {
                badLength++;
            } else if (recvPosted == landed.size()) {
                // Every posted buffer is taken: the unit must drop it as having no buffer.
                assertThat(dNoBuffer).as("drop for want of a buffer").isEqualTo(1);
                dropNoBuffer++;
            } else if (dOverrun == 1) {
                // Only when every staging buffer holds a MAD whose interrupt has not yet reached the host.
                assertThat(landed.size() - interrupts).as("staged MADs at an overrun").isGreaterThanOrEqualTo(4);
                dropOverrun++;
            } else {
                assertThat(dReceived).as("MAD accepted").isEqualTo(1);
                landed.add(l);
            }
            assertThat(dNoBuffer + dOverrun + dReceived).isLessThanOrEqualTo(1);
            return true;
        }

        // ------------------------------------------------------------ run and final checks

        void run(int mads, int datagrams) {
            madsToPost = mads;
            datagramsToSend = datagrams;
            postReceives();
            post.scheduleIn(rnd.nextLong(paceMax));
            far.scheduleIn(rnd.nextLong(paceMax));
            filler.scheduleIn(rnd.nextLong(paceMax));
            h.sim.run();
        }

        void assertDone() {
            int good = posted.size() - badPosted;
            assertThat(goodSeen).as("MAD frames at the far end").isEqualTo(good);
            assertThat(BlockHarness.counter(gsi, "madsSent")).isEqualTo(good);
            assertThat(BlockHarness.counter(gsi, "badSends")).isEqualTo(badPosted);
            assertThat(record()).as("send record").isEqualTo(sendProducer);
            assertThat(fillersSeen).isEqualTo(fillersSent);
            assertThat(farSent).isEqualTo(datagramsToSend);
            assertThat(recvConsumer).as("buffers consumed").isEqualTo(landed.size());
            assertThat(interrupts).isEqualTo(landed.size());
            assertThat(BlockHarness.counter(eq, "events")).isEqualTo(landed.size());
            assertThat(BlockHarness.counter(gsi, "madsReceived")).isEqualTo(landed.size());
            assertThat(BlockHarness.counter(gsi, "dropNoBuffer")).isEqualTo(dropNoBuffer);
            assertThat(BlockHarness.counter(gsi, "dropOverrun")).isEqualTo(dropOverrun);
            assertThat(BlockHarness.counter(gsi, "dropNotGsi")).isEqualTo(notGsi);
            assertThat(BlockHarness.counter(gsi, "dropBadQkey")).isEqualTo(badQkey);
            assertThat(BlockHarness.counter(gsi, "dropBadLength")).isEqualTo(badLength);
            assertThat(landed.size() + dropNoBuffer + dropOverrun + notGsi + badQkey + badLength).isEqualTo(farSent);
            assertThat(link.a().freeBuffers()).as("near-end buffers returned").isEqualTo(link.a().bufferCount());
            assertThat(link.b().freeBuffers()).as("far-end buffers returned").isEqualTo(link.b().bufferCount());
            assertThat(gsi.describe()).isEqualTo(gsi.fullName() + ": send " + sendProducer + "/" + sendProducer + ", recv "
                    + landed.size() + "/" + recvPosted + ", staged 0");
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void everyMadLeavesOnceInOrderAndEveryDatagramLandsOnceOrIsCountedDropped(long seed) {
        Rig rig = new Rig(seed);
        rig.run(60 + rig.rnd.nextInt(60), 60 + rig.rnd.nextInt(60));
        rig.assertDone();
        assertThat(rig.landed).isNotEmpty();
    }

    @ParameterizedTest
    @ValueSource(longs = {11, 12, 13})
    void aBurstAgainstSlowRepostsDropsForWantOfBuffersAndOverruns(long seed) {
        Rig rig = new Rig(seed, 3);
        // Datagrams far faster than the driver reposts, through a fast sink: buffers and staging run out.
        rig.paceMax = 50_000;
        rig.repostMax = 20_000_000;
        rig.refuseIn16 = 0;
        rig.run(20, 200);
        rig.assertDone();
        assertThat(rig.dropNoBuffer).isPositive();
        assertThat(rig.dropOverrun).as("MADs meeting four busy staging buffers").isPositive();
    }

    @Test
    void withOneLinkBufferQp1AndTheTransmitterShareThePort() {
        // Seeds until a rig has one frame buffer per end: every MAD then waits for the filler's buffer at times.
        long seed = 100;
        Rig rig;
        do {
            rig = new Rig(seed++);
        } while (rig.link.a().bufferCount() != 1);
        rig.run(80, 10);
        rig.assertDone();
        assertThat(rig.gsiWaits).as("MADs that waited for a freed buffer").isPositive();
    }

    @Test
    void beforeQp1IsCreatedDatagramsAreDroppedAndDoorbellsIgnored() {
        BlockHarness h = new BlockHarness(1);
        EventQueueUnit eq = new EventQueueUnit(h.top, PcieConfig.defaults().msixAddress(0), 4);
        GsiUnit gsi = new GsiUnit(h.top, new GsiUnit.Params(40, 20), h.clock, h.work, eq,
                h.port("gsi", 4, GsiUnit.BACKLOG), MAC, IP, PAGE);
        byte[] d = new byte[8];
        BigEndian.putI64(d, 0, 5);
        gsi.mmioWrite(Doorbells.PAGE_GSI_SEND, d, 0, 8);
        gsi.mmioWrite(Doorbells.PAGE_GSI_RECV, d, 0, 8);
        byte[] frame = new byte[2048];
        RoceWriter w = new RoceWriter().macs(MAC, PEER_MAC).ipv4(PEER_IP, IP).bth(Opcode.UD_SEND_ONLY, GsiUnit.QPN, 0)
                .deth(RoceLayout.GSI_QKEY, 7);
        int len = w.write(frame, new byte[CmMad.SIZE], 0, CmMad.SIZE);
        RoceReader r = new RoceReader();
        assertThat(r.wrap(frame, len)).isEqualTo(FrameCheck.VALID);
        gsi.receive(r);
        h.sim.run();
        assertThat(BlockHarness.counter(gsi, "dropNoBuffer")).isEqualTo(1);
        assertThat(BlockHarness.counter(gsi, "madsReceived")).isZero();
        assertThat(gsi.describe()).isEqualTo(gsi.fullName() + ": send 0/0 reading, recv 0/0, staged 0");
    }

    @Test
    void aDoorbellWriteOfAnotherSizeOrOffsetIsIgnored() {
        Rig rig = new Rig(21);
        byte[] d = new byte[8];
        BigEndian.putI64(d, 0, 3);
        rig.gsi.mmioWrite(Doorbells.PAGE_GSI_RECV, d, 0, 4);
        rig.gsi.mmioWrite(Doorbells.PAGE_GSI_RECV + 8, d, 0, 8);
        rig.gsi.mmioWrite(Doorbells.PAGE_GSI_SEND + 4, d, 0, 4);
        assertThat(rig.gsi.describe()).isEqualTo(rig.gsi.fullName() + ": send 0/0 reading, recv 0/0, staged 0");
        rig.gsi.mmioWrite(Doorbells.PAGE_GSI_RECV, d, 0, 8);
        assertThat(rig.gsi.describe()).endsWith("recv 0/3, staged 0");
    }
}
