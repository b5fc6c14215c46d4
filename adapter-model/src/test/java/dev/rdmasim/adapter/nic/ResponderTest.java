package dev.rdmasim.adapter.nic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.cache.SetAssocCache;
import dev.rdmasim.adapter.format.AccessFlags;
import dev.rdmasim.adapter.format.Cqe;
import dev.rdmasim.adapter.format.CqeSyndrome;
import dev.rdmasim.adapter.format.Doorbells;
import dev.rdmasim.adapter.format.Eqe;
import dev.rdmasim.adapter.format.RecvWqe;
import dev.rdmasim.adapter.nic.BlockHarness.Region;
import dev.rdmasim.adapter.transport.Position;
import dev.rdmasim.adapter.transport.Psn;
import dev.rdmasim.adapter.transport.RequestKind;
import dev.rdmasim.adapter.transport.Verdict;
import dev.rdmasim.adapter.wire.Aeth;
import dev.rdmasim.adapter.wire.EthernetLink;
import dev.rdmasim.adapter.wire.Frame;
import dev.rdmasim.adapter.wire.FrameCheck;
import dev.rdmasim.adapter.wire.LinkEndpoint;
import dev.rdmasim.adapter.wire.Opcode;
import dev.rdmasim.adapter.wire.RoceReader;
import dev.rdmasim.adapter.wire.RoceWriter;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.stats.Counter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The responder alone. A stand-in requester per QP sends streams of SEND, SEND with immediate, RDMA WRITE, WRITE
 * with immediate and READ requests as real RoCEv2 frames (built by the wire package's writer, parsed by its
 * reader) over a wire that loses, duplicates and reorders packets; it goes back on a sequence NAK, retries after an
 * RNR NAK and resends from its oldest unacknowledged PSN when nothing comes back for a while. A stand-in frame
 * intake offers the frames one at a time and retries a waiting one when woken, after a random stall; a stand-in
 * transmitter takes ACKs and answers inbound READs late; a stand-in driver posts receive WQEs into host memory and
 * polls the CQ at random paces. The key unit, payload writer, receive-WQE prefetcher and CQE writer are the real
 * blocks over the PCIe model and host memory.
 *
 * <p>Scoreboard, against a reference model of the ordered transport checks run beside the responder: each packet
 * gets the model's verdict (executed once, duplicate re-ACKed or READ re-answered, one sequence NAK per gap, then
 * drops), every ACK or NAK taken is the one the model owes with the expected PSN and MSN, every byte of every
 * executed packet lands at its address and nothing else changes, receive completions land once each in order with
 * their byte counts and immediates, inbound READs never exceed the IRD and leave it as they are answered, and a QP
 * that breaks a key or receive rule NAKs once, goes to error and has its receive queue flushed. At the end the
 * responder is not busy with any QP and every frame is back in its pool.
 */
class ResponderTest {
    private static final int PD = 1;
    private static final int MAX_KEYS = 32;
    private static final long MSIX = 0xFEE0_0000L;
    private static final int CQ_LOG = 9;
    private static final int RQ_LOG_STRIDE = 2;
    private static final int MAX_RECV_SGE = 4;

    enum Kind {
        SEND, SEND_IMM, WRITE, WRITE_IMM, READ;

        boolean write() {
            return this == WRITE || this == WRITE_IMM;
        }

        boolean send() {
            return this == SEND || this == SEND_IMM;
        }

        boolean imm() {
            return this == SEND_IMM || this == WRITE_IMM;
        }

        boolean consumesReceive() {
            return this != WRITE && this != READ;
        }
    }

    /** What breaks a message, if anything. */
    enum Fault {
        NONE, BAD_RKEY, SHORT_RECEIVE, BAD_LKEY, INVALID_REQUEST
    }

    private static final class Msg {
        Kind kind;
        int len;
        byte[] data;
        long va;
        int rkey;
        int imm;
        boolean solicited;
        long firstAbs;
        /** PSNs the message takes: its packets, or a READ's response packets. */
        int span;
        int packets;
        /** The RETH's DMA length: the message's length unless a test makes the peer lie. */
        long rethLen = -1;
        Fault fault = Fault.NONE;
        /** The receive WQE it consumes (running index), or -1. */
        int recv = -1;
        int answered;
    }

    /** One receive WQE as the driver posts it. */
    private static final class Recv {
        long[] addr;
        int[] len;
        int[] key;
        boolean[] bad;
        long capacity;
        Msg msg;
    }

    /** One packet on the wire, with where it comes from. */
    private record Pkt(Run.Side side, Msg msg, long abs, int k, boolean last, boolean ackReq) {
    }

    /** A completion the driver expects on the receive CQ. */
    private record Expected(int wqe, int opcode, int bytes, int imm, boolean solicited, int syndrome) {
    }

    /** One block under test with its neighbours, the stand-ins and the scoreboard. */
    private static final class Run {
        /** One QP: the requester standing in for its peer, the reference model of its responder, and the driver's view. */
        private final class Side {
            final Qp qp;
            final int psn0;
            final List<Msg> msgs = new ArrayList<>();
            final long total;
            final List<Recv> recvs = new ArrayList<>();
            final Region target;
            Region recvRegion;
            final int ird;
            // The peer.
            long una;
            long next;
            long lastProgressPs;
            long pausedUntil;
            boolean stopped;
            // The reference model.
            long exp;
            boolean nakOut;
            Kind open;
            int msn;
            int sinceAck;
            int owed = Aeth.ack(Aeth.CREDITS_INVALID);
            boolean error;
            int consumed;
            long recvOff;
            long writeRemaining;
            final ArrayDeque<long[]> readsHeld = new ArrayDeque<>();
            final List<Expected> expected = new ArrayList<>();
            int duplicates;
            int seqNaks;
            int rnrs;
            int fatals;
            // Seen from the stand-ins.
            int ackCalls;
            int readCalls;
            boolean ackPending;
            int requeued;
            final List<Expected> got = new ArrayList<>();
            // The driver.
            int posted;
            int polled;
            int postTarget;

            Side(Qp qp, int psn0, Region target, int ird, Kind[] script, int[] scriptPackets) {
                this.qp = qp;
                this.psn0 = psn0;
                this.target = target;
                this.ird = ird;
                long abs = 0;
                int count = script != null ? script.length : 10 + rnd.nextInt(40);
                for (int i = 0; i < count; i++) {
                    Msg m = new Msg();
                    int pick = rnd.nextInt(ird > 0 ? 5 : 4);
                    m.kind = script != null ? script[i] : Kind.values()[pick];
                    m.len = rnd.nextInt(10) == 0 ? (m.kind.send() ? 0 : 1) : 1 + rnd.nextInt(rnd.nextBoolean() ? 200 : 4 * mtu);
                    if (script != null) {
                        m.len = scriptPackets[i] * mtu;
                    }
                    m.data = new byte[m.len];
                    rnd.nextBytes(m.data);
                    m.imm = rnd.nextInt();
                    m.solicited = m.kind.consumesReceive() && rnd.nextInt(3) == 0;
                    if (m.kind.write() || m.kind == Kind.READ) {
                        m.va = target.va() + rnd.nextLong(target.length() - m.len + 1);
                        m.rkey = target.key();
                    }
                    m.packets = m.kind == Kind.READ ? 1 : Math.max(1, (m.len + mtu - 1) / mtu);
                    m.span = m.kind == Kind.READ ? Math.max(1, (m.len + mtu - 1) / mtu) : m.packets;
                    m.firstAbs = abs;
                    abs += m.span;
                    if (m.kind.consumesReceive()) {
                        m.recv = recvs.size();
                        Recv r = new Recv();
                        int sges = 1 + rnd.nextInt(3);
                        r.addr = new long[sges];
                        r.len = new int[sges];
                        r.key = new int[sges];
                        r.bad = new boolean[sges];
                        long need = m.kind.send() ? m.len : 0;
                        for (int s = 0; s < sges; s++) {
                            long part = s == sges - 1 ? Math.max(1, need) : (need / sges);
                            r.len[s] = (int) Math.max(1, part + rnd.nextInt(64));
                            need -= Math.min(need, part);
                        }
                        r.msg = m;
                        recvs.add(r);
                    }
                    msgs.add(m);
                }
                total = abs;
                postTarget = recvs.size();
            }

            int wire(long abs) {
                return Psn.add(psn0, (int) (abs & 0xFF_FFFF));
            }

            long abs(int wirePsn) {
                return una + Psn.diff(wirePsn, wire(una));
            }

            Msg msgAt(long abs) {
                Msg found = null;
                for (Msg m : msgs) {
                    if (m.firstAbs <= abs) {
                        found = m;
                    }
                }
                return found;
            }

            boolean done() {
                return stopped || una >= total;
            }
        }

        private final SplittableRandom rnd;
        private final BlockHarness h;
        private final int mtu;
        private final int ackEvery;
        private final KeyUnit keys;
        private final PayloadWriter payload;
        private final CqeWriter cqe;
        private final RecvWqePrefetcher rq;
        private final Responder responder;
        private final Cq cq;
        private final LinkEndpoint endpoint;
        private final int buffers;
        private final List<Side> sides = new ArrayList<>();
        private final Map<Long, byte[]> expectedPages = new TreeMap<>();
        private final Map<Frame, Pkt> onWire = new IdentityHashMap<>();
        private final ArrayDeque<Frame> wire = new ArrayDeque<>();
        private final RoceWriter writer = new RoceWriter();
        private final RoceReader reader = new RoceReader();
        private final Counter dropped;
        private final Counter duplicates;
        private final Counter sequenceErrors;
        private final Counter accessErrors;
        private final Counter rnr;
        private final Event peerTick;
        private final Event intakeStep;
        private final Event txTick;
        private final Event driverTick;
        private double loss;
        private double dup;
        private double reorder;
        private double ackLoss;
        private final long rto;
        private Frame current;
        private Pkt currentPkt;
        private int postedAtOffer;
        private boolean waiting;
        private long placed;
        private long waits;
        private long readWaits;
        /** READs that waited for a key context or translation to be fetched. */
        private long readWaitsForKeys;
        private long cqeConsumed;
        private long maxReadsSeen;
        private long regionCursor;
        private long lost;
        private long cqeWaits;
        /** ACK and NAK syndromes in the order the transmitter took them. */
        final List<Integer> taken = new ArrayList<>();
        /** Receive completions reported to the lifecycle listener. */
        long receivesReported;
        /** The transmitter answers no READ while set. */
        boolean holdReads;
        private long droppedInError;
        private long droppedAhead;
        private final int window;
        private int nextKey = 1;

        Run(long seed, boolean withFault) {
            this(seed, withFault, -1, null, null);
        }

        /** With a script, one QP whose messages are {@code script} of {@code packets} MTUs each, fed by the test. */
        Run(long seed, boolean withFault, int fixedIrd, Kind[] script, int[] packets) {
            rnd = new SplittableRandom(seed);
            h = new BlockHarness(seed, BlockHarness.randomPcie(rnd));
            int[] mtus = {256, 512, 1024};
            mtu = mtus[rnd.nextInt(3)];
            ackEvery = 1 + rnd.nextInt(6);
            loss = rnd.nextInt(4) == 0 ? 0 : 0.01 + 0.04 * rnd.nextDouble();
            dup = rnd.nextInt(4) == 0 ? 0 : 0.04 * rnd.nextDouble();
            reorder = rnd.nextInt(4) == 0 ? 0 : 0.04 * rnd.nextDouble();
            ackLoss = rnd.nextInt(3) == 0 ? 0 : 0.05 * rnd.nextDouble();
            rto = 40_000_000L;
            window = 4 + rnd.nextInt(29);
            buffers = 8 + rnd.nextInt(40);
            endpoint = EthernetLink.cable(h.sim, "wire", new EthernetLink.Config(100, 0, buffers)).a();
            long ctx = h.mem.allocate((long) MAX_KEYS * KeyUnit.CONTEXT_BYTES, 4096);
            keys = new KeyUnit(h.top, new KeyUnit.Params(MAX_KEYS, 8 * (1 + rnd.nextInt(3)), 4, 8 * (1 + rnd.nextInt(4)), 8,
                    SetAssocCache.Policy.LRU), h.mem, ctx, h.port("keyFill", 16, KeyUnit.MAX_FILLS), h.work);
            payload = new PayloadWriter(h.top, h.work, keys, h.link.dma().addChannel("rxWrite", 1 + rnd.nextInt(16)));
            long base = h.mem.allocate(1 << 20, 4096);
            ContextMemory contexts = new ContextMemory(h.top, new ContextMemory.Params(8, 8, 4, 16, 4, SetAssocCache.Policy.LRU),
                    h.mem, base, h.port("writeBack", 16, 0));
            EventQueueUnit eq = new EventQueueUnit(h.top, MSIX, 16);
            eq.create(h.mem.allocate(64 * Eqe.SIZE, 4096), 6);
            long ring = h.mem.allocate((long) Cqe.SIZE << CQ_LOG, 4096);
            long record = h.mem.allocate(64, 64);
            byte[] init = new byte[Cqe.SIZE << CQ_LOG];
            Cqe.initRing(init, 0, 1 << CQ_LOG);
            h.mem.write(ring, init, 0, init.length);
            cq = new Cq(0, ring, CQ_LOG, record);
            cq.moderationCount = 1;
            contexts.writeCqContext(0, ring, CQ_LOG, record);
            CqTable cqs = new CqTable() {
                @Override
                public Cq cq(int cqn) {
                    return cq;
                }

                @Override
                public void cqOverflowed(Cq c) {
                    throw new AssertionError("the receive CQ overflowed");
                }
            };
            cqe = new CqeWriter(h.top, new CqeWriter.Params(1 + rnd.nextInt(4), 2, 4, 2, SetAssocCache.Policy.LRU), h.clock,
                    h.work, cqs, contexts, eq, h.port("cqe", 1 + rnd.nextInt(8), 1), h.port("event", 16, 0),
                    (qpn, wqe, op, bytes, syndrome, stamps) -> {
                        // Every receive reported says when the last byte of its message was handed to PCIe here.
                        assertThat(stamps[Stage.REMOTE_PLACED.ordinal()]).as("QP %d receive %d placed", qpn, wqe)
                                .isNotEqualTo(Stage.NOT_REACHED);
                        receivesReported++;
                    });
            cq.moderationTimer = h.sim.event("cq.moderation", () -> cqe.moderationExpired(cq));
            rq = new RecvWqePrefetcher(h.top, new RecvWqePrefetcher.Params(1 + rnd.nextInt(8), 64 << rnd.nextInt(4)), h.work, h,
                    cqe, h.link.dma().addChannel("rqFetch", 1 + rnd.nextInt(8)));
            responder = new Responder(h.top, new Responder.Params(ackEvery, mtu), h.work, h, keys, payload, rq, cqe,
                    this::requeue, new Sender());
            dropped = h.top.stats().counter("dropped", "frames", "");
            duplicates = h.top.stats().counter("duplicates", "packets", "");
            sequenceErrors = h.top.stats().counter("sequenceNaks", "packets", "");
            accessErrors = h.top.stats().counter("accessNaks", "packets", "");
            rnr = h.top.stats().counter("rnrNaks", "packets", "");
            Intake intake = new Intake();
            responder.connect(intake, new Responder.Counters(dropped, duplicates, sequenceErrors, accessErrors, rnr));
            payload.connect(intake, intake::resume);
            keys.addWaiter(intake::resume);
            cqe.onSpace(responder::cqeSpace);
            peerTick = h.sim.event("peer", this::peer);
            intakeStep = h.sim.event("intake", this::step);
            txTick = h.sim.event("tx", this::transmit);
            driverTick = h.sim.event("driver", this::driver);

            int qpCount = script != null ? 1 : 1 + rnd.nextInt(4);
            for (int q = 0; q < qpCount; q++) {
                addSide(q, fixedIrd, script, packets);
            }
            if (withFault) {
                injectFault(sides.get(rnd.nextInt(sides.size())));
            }
            writeReceives();
            writer.macs(0x02_00_00_00_00_02L, 0x02_00_00_00_00_01L).ipv4(0x0A00_0001, 0x0A00_0002);
            if (script == null) {
                peerTick.schedule(0);
            } else {
                loss = 0;
                dup = 0;
                reorder = 0;
                ackLoss = 0;
                sides.get(0).stopped = true; // the test sends
                post(sides.get(0), sides.get(0).postTarget);
            }
            driverTick.schedule(0);
        }

        // ------------------------------------------------------------ set-up

        private Region register(long length, int access) {
            long va = (0x7f00_0000_0000L + (regionCursor += 1L << 32) + rnd.nextLong(1L << 20)) & -8L;
            int index = nextKey++;
            return h.registerScattered(keys, rnd, index << 8 | (0x35 * index & 0xFF), PD, access, 12, va, length,
                    () -> rnd.nextInt(3) == 0 ? 1 : 0, expectedPages);
        }

        private void addSide(int q, int fixedIrd, Kind[] script, int[] scriptPackets) {
            int qpn = 0x40 + q;
            int ird = fixedIrd >= 0 ? fixedIrd : rnd.nextInt(4) == 0 ? 0 : 1 + rnd.nextInt(4);
            int rqLog = 2 + rnd.nextInt(4);
            long rqBase = h.mem.allocate((long) RecvWqe.strideBytes(RQ_LOG_STRIDE) << rqLog, 4096);
            long dbRecord = h.mem.allocate(64, 64);
            QpConfig cfg = new QpConfig(PD, 0, 0, 0, 0, rqBase, rqLog, RQ_LOG_STRIDE, dbRecord, 1, MAX_RECV_SGE, 0,
                    AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ);
            Qp qp = new Qp(qpn, cfg, 1, 1, 0, ird);
            qp.moveTo(QpState.READY_TO_RECEIVE);
            qp.moveTo(QpState.READY_TO_SEND);
            h.qps.put(qpn, qp);
            int psn0 = rnd.nextBoolean() ? 0xFF_FFFF - rnd.nextInt(40) : rnd.nextInt(1 << 24);
            responder.open(qp, psn0);
            int limit = ird;
            if (ird > 1 && script == null && rnd.nextBoolean()) {
                limit = 1 + rnd.nextInt(ird);
                responder.limitReads(qp, limit);
            }
            Region target = register(4096L * (2 + rnd.nextInt(4)),
                    AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ);
            Side s = new Side(qp, psn0, target, limit, script, scriptPackets);
            sides.add(s);
        }

        /** Lays each side's receive buffers in one registered region, and writes nothing to the ring yet. */
        private void writeReceives() {
            for (Side s : sides) {
                long need = 64;
                for (Recv r : s.recvs) {
                    for (int l : r.len) {
                        need += l + 8;
                    }
                }
                Region region = register(need, AccessFlags.LOCAL_WRITE);
                long at = region.va();
                for (Recv r : s.recvs) {
                    for (int i = 0; i < r.len.length; i++) {
                        r.addr[i] = at;
                        r.key[i] = r.bad[i] ? region.key() ^ 0x01 : region.key();
                        at += r.len[i] + rnd.nextInt(8);
                        r.capacity += r.len[i];
                    }
                }
                s.recvRegion = region;
            }
        }

        private void injectFault(Side s) {
            // The kind of fault first, then a message it can break.
            boolean remote = rnd.nextBoolean();
            List<Msg> candidates = new ArrayList<>();
            for (Msg m : s.msgs) {
                if (remote ? !m.kind.send() : m.kind.send() && m.len > 0) {
                    candidates.add(m);
                }
            }
            if (candidates.isEmpty()) {
                return;
            }
            Msg m = candidates.get(rnd.nextInt(candidates.size()));
            if (m.kind.write() || m.kind == Kind.READ) {
                m.fault = Fault.BAD_RKEY;
                if (rnd.nextBoolean()) {
                    m.rkey ^= 0x01; // wrong tag
                } else {
                    m.va = s.target.va() + s.target.length() - m.len + 1 + rnd.nextInt(100); // runs past the end
                }
            } else if (m.len > 1 && rnd.nextBoolean()) {
                m.fault = Fault.SHORT_RECEIVE;
                Recv r = s.recvs.get(m.recv);
                int cap = rnd.nextBoolean() ? m.len - 1 : 1 + rnd.nextInt(m.len - 1); // sometimes one byte short
                r.len = new int[] {cap};
                r.addr = new long[1];
                r.key = new int[1];
                r.bad = new boolean[1];
            } else if (m.len > 0) {
                m.fault = Fault.BAD_LKEY;
                Recv r = s.recvs.get(m.recv);
                // A piece the message's bytes touch.
                long pos = 0;
                List<Integer> touched = new ArrayList<>();
                for (int i = 0; i < r.len.length; i++) {
                    if (pos < m.len) {
                        touched.add(i);
                    }
                    pos += r.len[i];
                }
                r.bad[touched.get(rnd.nextInt(touched.size()))] = true;
            }
            // A few more receives than the messages need: they complete flushed.
            s.postTarget += rnd.nextInt(4);
            for (int i = s.recvs.size(); i < s.postTarget; i++) {
                Recv r = new Recv();
                r.len = new int[] {1 + rnd.nextInt(100)};
                r.addr = new long[1];
                r.key = new int[1];
                r.bad = new boolean[1];
                s.recvs.add(r);
            }
        }

        private Side side(Qp qp) {
            for (Side s : sides) {
                if (s.qp == qp) {
                    return s;
                }
            }
            throw new AssertionError("no side for QP " + qp.qpn);
        }

        // ------------------------------------------------------------ the requester transport, standing in

        private void requeue(Qp qp) {
            assertThat(qp.state()).as("only a QP in error is handed back to the requester").isEqualTo(QpState.ERROR);
            side(qp).requeued++;
        }

        // ------------------------------------------------------------ the transmitter, standing in

        /** Takes ACKs and answers READs late (coalescing ACKs as the real one does), and tells the peer. */
        private final class Sender implements Responder.Sender {
            @Override
            public void queueAck(Qp qp) {
                Side s = side(qp);
                s.ackCalls++;
                s.ackPending = true;
                wakeTx();
            }

            @Override
            public void queueReadResponse(Qp qp) {
                side(qp).readCalls++;
                wakeTx();
            }
        }

        private void wakeTx() {
            if (!txTick.scheduled()) {
                txTick.scheduleIn(rnd.nextInt(3) == 0 ? 0 : rnd.nextLong(2_000_000));
            }
        }

        private void transmit() {
            boolean more = false;
            for (Side s : sides) {
                if (s.ackPending && rnd.nextInt(3) != 0) {
                    s.ackPending = false;
                    int syn = responder.takeAck(s.qp);
                    assertThat(syn).as("QP %d: the ACK taken is the one owed", s.qp.qpn).isEqualTo(s.owed);
                    s.owed = Aeth.ack(Aeth.CREDITS_INVALID);
                    taken.add(syn);
                    var t = s.qp.resp.transport();
                    assertThat(t.expectedPsn()).isEqualTo(s.wire(s.exp));
                    int psn = syn == Aeth.ack(Aeth.CREDITS_INVALID) ? Psn.add(t.expectedPsn(), -1) : t.expectedPsn();
                    boolean fatal = Aeth.kind(syn) == Aeth.KIND_NAK && Aeth.value(syn) != 0;
                    if (fatal || rnd.nextDouble() >= ackLoss) {
                        acknowledged(s, syn, psn);
                    }
                }
                if (s.qp.resp.reads() > 0 && !holdReads && rnd.nextInt(3) != 0) {
                    long[] want = s.readsHeld.poll();
                    assertThat(want).as("QP %d: a READ the model holds", s.qp.qpn).isNotNull();
                    assertThat(new long[] {responder.readVa(s.qp, 0), responder.readRkey(s.qp, 0),
                            responder.readLength(s.qp, 0), responder.readPsn(s.qp, 0), responder.readPackets(s.qp, 0)})
                            .as("QP %d: oldest inbound READ", s.qp.qpn)
                            .containsExactly(want);
                    responder.readAnswered(s.qp);
                    assertThat(s.qp.resp.reads()).isEqualTo(s.readsHeld.size());
                    Msg m = s.msgAt(s.abs((int) want[3]));
                    m.answered++;
                    if (rnd.nextDouble() >= ackLoss) {
                        advance(s, s.abs((int) want[3]) + want[4]);
                    }
                }
                more |= s.ackPending || (s.qp.resp.reads() > 0 && !holdReads);
            }
            if (more) {
                txTick.scheduleIn(rnd.nextLong(1_500_000));
            }
        }

        // ------------------------------------------------------------ the peer's requester

        private void advance(Side s, long una) {
            if (una > s.una) {
                s.una = una;
                s.lastProgressPs = h.sim.now();
            }
            s.next = Math.max(s.next, s.una);
        }

        private void acknowledged(Side s, int syn, int psn) {
            long a = s.abs(psn);
            switch (Aeth.kind(syn)) {
                case Aeth.KIND_ACK -> advance(s, a + 1);
                case Aeth.KIND_RNR_NAK -> {
                    advance(s, a);
                    s.next = a;
                    s.pausedUntil = h.sim.now() + 1_000_000 + rnd.nextLong(8_000_000);
                }
                default -> {
                    if (Aeth.value(syn) == 0) {
                        advance(s, a);
                        s.next = a; // go back to the PSN the responder expects
                    } else {
                        s.stopped = true;
                    }
                }
            }
        }

        private void peer() {
            long now = h.sim.now();
            boolean more = false;
            int start = rnd.nextInt(sides.size());
            for (int i = 0; i < sides.size(); i++) {
                Side s = sides.get((start + i) % sides.size());
                if (s.done()) {
                    continue;
                }
                more = true;
                if (now - s.lastProgressPs > rto) {
                    s.next = s.una; // nothing came back for a while: send again from the oldest unacknowledged
                    s.lastProgressPs = now;
                }
                int burst = 1 + rnd.nextInt(3);
                while (burst-- > 0 && now >= s.pausedUntil && s.next < s.total && s.next < s.una + window) {
                    Frame f = endpoint.acquire();
                    if (f == null) {
                        break;
                    }
                    Msg m = s.msgAt(s.next);
                    int k = (int) (s.next - m.firstAbs);
                    assertThat(m.kind != Kind.READ || k == 0).as("a READ is sent whole").isTrue();
                    boolean last = k == m.packets - 1;
                    Pkt p = new Pkt(s, m, s.next, k, last, last || rnd.nextInt(8) == 0);
                    build(f, p);
                    s.next += m.kind == Kind.READ ? m.span : 1;
                    send(f, p);
                }
            }
            if (more) {
                peerTick.scheduleIn(100_000 + rnd.nextLong(900_000));
            }
        }

        private int opcode(Pkt p) {
            Msg m = p.msg();
            boolean only = m.packets == 1;
            boolean first = p.k() == 0;
            return switch (m.kind) {
                case READ -> Opcode.RDMA_READ_REQUEST;
                case SEND, SEND_IMM -> only ? (m.kind.imm() ? Opcode.SEND_ONLY_IMM : Opcode.SEND_ONLY)
                        : first ? Opcode.SEND_FIRST
                        : p.last() ? (m.kind.imm() ? Opcode.SEND_LAST_IMM : Opcode.SEND_LAST) : Opcode.SEND_MIDDLE;
                default -> only ? (m.kind.imm() ? Opcode.RDMA_WRITE_ONLY_IMM : Opcode.RDMA_WRITE_ONLY)
                        : first ? Opcode.RDMA_WRITE_FIRST
                        : p.last() ? (m.kind.imm() ? Opcode.RDMA_WRITE_LAST_IMM : Opcode.RDMA_WRITE_LAST)
                        : Opcode.RDMA_WRITE_MIDDLE;
            };
        }

        private int payloadLength(Pkt p) {
            Msg m = p.msg();
            return m.kind == Kind.READ ? 0 : Math.min(mtu, m.len - p.k() * mtu);
        }

        private void build(Frame f, Pkt p) {
            Msg m = p.msg();
            int op = opcode(p);
            writer.bth(op, p.side().qp.qpn, p.side().wire(p.abs())).ackRequest(p.ackReq())
                    .solicited(p.last() && m.solicited);
            if (Opcode.hasReth(op)) {
                writer.reth(m.va, m.rkey, (int) (m.rethLen >= 0 ? m.rethLen : m.len));
            }
            if (Opcode.hasImmediate(op)) {
                writer.immediate(m.imm);
            }
            f.length(writer.write(f.data(), m.data, Math.min(m.len, p.k() * mtu), payloadLength(p)));
        }

        /** Puts a frame on the wire: lost, duplicated or moved ahead of the one before it, at random. */
        private void send(Frame f, Pkt p) {
            if (rnd.nextDouble() < loss) {
                f.release();
                lost++;
                return;
            }
            enqueue(f, p);
            if (rnd.nextDouble() < dup) {
                Frame g = endpoint.acquire();
                if (g != null) {
                    System.arraycopy(f.data(), 0, g.data(), 0, f.length());
                    g.length(f.length());
                    enqueue(g, p);
                }
            }
        }

        private void enqueue(Frame f, Pkt p) {
            onWire.put(f, p);
            if (!wire.isEmpty() && rnd.nextDouble() < reorder) {
                Frame before = wire.pollLast();
                wire.add(f);
                wire.add(before);
            } else {
                wire.add(f);
            }
            if (current == null && !intakeStep.scheduled()) {
                intakeStep.scheduleIn(rnd.nextLong(200_000));
            }
        }

        /** Sends packet {@code abs} of the scripted QP (a READ's first PSN, or one packet of a message). */
        void feed(long abs) {
            Side s = sides.get(0);
            Msg m = s.msgAt(abs);
            int k = (int) (abs - m.firstAbs);
            Frame f = endpoint.acquire();
            boolean last = k == m.packets - 1;
            Pkt p = new Pkt(s, m, abs, k, last, last);
            build(f, p);
            enqueue(f, p);
        }

        // ------------------------------------------------------------ the frame intake, standing in

        private final class Intake implements Responder.Intake, PayloadWriter.Written {
            @Override
            public void resume() {
                if (current != null && waiting && !intakeStep.scheduled()) {
                    waiting = false;
                    intakeStep.scheduleIn(rnd.nextInt(3) == 0 ? 0 : rnd.nextLong(400_000));
                }
            }

            @Override
            public void written(Qp qp, Wr readWr) {
                assertThat(readWr).as("the responder's writes answer no READ").isNull();
                responder.messageWritten(qp);
                resume();
            }
        }

        private void step() {
            if (current == null) {
                current = wire.poll();
                if (current == null) {
                    return;
                }
                currentPkt = onWire.remove(current);
                postedAtOffer = currentPkt.side().posted;
            }
            Frame f = current;
            Pkt p = currentPkt;
            Side s = p.side();
            assertThat(reader.wrap(f.data(), f.length())).isEqualTo(FrameCheck.VALID);
            var t = s.qp.resp.transport();
            int psnBefore = t.expectedPsn();
            int acks = s.ackCalls;
            int reads = s.readCalls;
            long rnrBefore = rnr.value();
            long duplicatesBefore = duplicates.value();
            int r = responder.request(s.qp, f, reader.opcode(), reader);
            if (r < 0) {
                waits++;
                if (p.msg().kind == Kind.READ && s.qp.resp.reads() >= s.ird) {
                    readWaits++;
                } else if (p.msg().kind == Kind.READ) {
                    readWaitsForKeys++;
                }
                assertThat(t.expectedPsn()).as("a waiting packet changes nothing").isEqualTo(psnBefore);
                assertThat(duplicates.value()).as("a waiting packet counts nothing").isEqualTo(duplicatesBefore);
                assertThat(s.ackCalls).isEqualTo(acks);
                assertThat(s.readCalls).isEqualTo(reads);
                if (s.qp.resp.message() == Responder.Message.COMPLETING && cqe.full()) {
                    cqeWaits++;
                }
                waiting = true;
                return;
            }
            model(s, p, rnr.value() > rnrBefore);
            assertThat(s.ackCalls - acks).as("QP %d PSN %d: ACKs queued", s.qp.qpn, p.abs()).isEqualTo(modelAcks);
            assertThat(s.readCalls - reads).as("QP %d PSN %d: READs queued", s.qp.qpn, p.abs()).isEqualTo(modelReads);
            assertThat(t.expectedPsn()).as("QP %d: expected PSN", s.qp.qpn).isEqualTo(s.wire(s.exp));
            assertThat(t.msn()).isEqualTo(s.msn & 0xFF_FFFF);
            assertThat(t.nakOutstanding()).isEqualTo(s.nakOut);
            assertThat(t.openMessage() == null).as("QP %d: a message open", s.qp.qpn).isEqualTo(s.open == null);
            assertThat(s.qp.resp.reads()).as("inbound READs held").isEqualTo(s.readsHeld.size());
            assertThat(s.qp.state() == QpState.ERROR).isEqualTo(s.error);
            maxReadsSeen = Math.max(maxReadsSeen, s.qp.resp.reads());
            if (r == 0) {
                f.release();
            }
            current = null;
            currentPkt = null;
            if (!wire.isEmpty()) {
                intakeStep.scheduleIn(rnd.nextInt(4) == 0 ? rnd.nextLong(2_000_000) : rnd.nextLong(100_000));
            }
        }

        // ------------------------------------------------------------ the reference model

        private int modelAcks;
        private int modelReads;

        /** What the responder must have done with packet {@code p}, given whether it found no receive WQE. */
        private void model(Side s, Pkt p, boolean rnrSeen) {
            modelAcks = 0;
            modelReads = 0;
            boolean rnrExpected = false;
            Msg m = p.msg();
            int len = payloadLength(p);
            if (s.error) {
                droppedInError++;
            } else if (p.abs() < s.exp) {
                s.duplicates++;
                if (m.kind == Kind.READ && s.readsHeld.size() < s.ird) {
                    hold(s, m, p.abs()); // answered again
                } else {
                    ack(s, Aeth.ack(Aeth.CREDITS_INVALID));
                }
            } else if (p.abs() > s.exp) {
                if (!s.nakOut) {
                    s.nakOut = true;
                    s.seqNaks++;
                    ack(s, Aeth.nak(0));
                } else {
                    droppedAhead++;
                }
            } else if (m.kind == Kind.READ && s.ird == 0) {
                fatal(s, Aeth.nak(1)); // no inbound READs allowed
            } else if (m.kind.write() && p.k() == 0 && m.fault != Fault.BAD_RKEY
                    && len > (m.rethLen >= 0 ? m.rethLen : m.len)) {
                fatal(s, Aeth.nak(1)); // more than the RETH announced
            } else if (m.kind.write() && p.k() > 0 && len > s.writeRemaining) {
                fatal(s, Aeth.nak(1));
            } else if (m.kind == Kind.READ) {
                if (m.fault == Fault.BAD_RKEY) {
                    fatal(s, Aeth.nak(2));
                } else {
                    hold(s, m, p.abs());
                    exec(s, p, m.span);
                }
            } else if (m.kind.write()) {
                boolean withImm = p.last() && m.kind.imm();
                if (p.k() == 0 && m.fault == Fault.BAD_RKEY) {
                    fatal(s, Aeth.nak(2));
                } else if (withImm && rnrSeen) {
                    rnrExpected = true;
                    rnrNak(s);
                } else {
                    for (int i = 0; i < len; i++) {
                        long pa = s.target.pa(m.va + p.k() * mtu + i);
                        page(pa)[(int) (pa & 4095)] = m.data[p.k() * mtu + i];
                    }
                    placed += len;
                    s.writeRemaining = (p.k() == 0 ? (m.rethLen >= 0 ? m.rethLen : m.len) : s.writeRemaining) - len;
                    if (withImm) {
                        s.expected.add(new Expected(s.consumed & 0xFFFF, Cqe.RESP_WR_IMM, m.len, m.imm, m.solicited, 0));
                        s.consumed++;
                    }
                    exec(s, p, 1);
                }
            } else if (p.k() == 0 && rnrSeen) {
                rnrExpected = true;
                rnrNak(s);
            } else {
                if (p.k() == 0) {
                    s.recvOff = 0;
                }
                Recv r = s.recvs.get(s.consumed);
                if (s.recvOff + len > r.capacity) {
                    s.expected.add(new Expected(s.consumed & 0xFFFF, Cqe.RESP_ERR, 0, 0, false, CqeSyndrome.LOCAL_LENGTH));
                    s.consumed++;
                    fatal(s, Aeth.nak(1));
                } else if (touchesBad(r, s.recvOff, len)) {
                    s.expected.add(new Expected(s.consumed & 0xFFFF, Cqe.RESP_ERR, 0, 0, false, CqeSyndrome.LOCAL_PROT));
                    s.consumed++;
                    fatal(s, Aeth.nak(3));
                } else {
                    long pos = 0;
                    for (int i = 0; i < r.len.length; i++) {
                        for (int b = 0; b < r.len[i]; b++, pos++) {
                            if (pos >= s.recvOff && pos < s.recvOff + len) {
                                long pa = s.recvRegion.pa(r.addr[i] + b);
                                page(pa)[(int) (pa & 4095)] = m.data[(int) (p.k() * mtu + pos - s.recvOff)];
                            }
                        }
                    }
                    placed += len;
                    s.recvOff += len;
                    if (p.last()) {
                        s.expected.add(new Expected(s.consumed & 0xFFFF, m.kind.imm() ? Cqe.RESP_SEND_IMM : Cqe.RESP_SEND,
                                (int) s.recvOff, m.kind.imm() ? m.imm : 0, m.solicited, 0));
                        s.consumed++;
                    }
                    exec(s, p, 1);
                }
            }
            assertThat(rnrSeen).as("QP %d PSN %d: RNR NAK", s.qp.qpn, p.abs()).isEqualTo(rnrExpected);
            if (rnrExpected) {
                assertThat(postedAtOffer).as("an RNR NAK only when no receive was posted when the packet came")
                        .isLessThanOrEqualTo(s.consumed);
            }
        }

        private byte[] page(long pa) {
            byte[] b = expectedPages.get(pa & -4096L);
            assertThat(b).as("a page of a registered region").isNotNull();
            return b;
        }

        private boolean touchesBad(Recv r, long off, int len) {
            long pos = 0;
            for (int i = 0; i < r.len.length; i++) {
                if (r.bad[i] && Math.max(off, pos) < Math.min(off + len, pos + r.len[i])) {
                    return true;
                }
                pos += r.len[i];
            }
            return false;
        }

        private void hold(Side s, Msg m, long abs) {
            s.readsHeld.add(new long[] {m.va, m.rkey, m.len, s.wire(abs), m.span});
            assertThat(s.readsHeld.size()).as("inbound READs within the IRD").isLessThanOrEqualTo(s.ird);
            modelReads++;
        }

        private void exec(Side s, Pkt p, int span) {
            s.exp += span;
            s.nakOut = false;
            if (p.last()) {
                s.open = null;
                s.msn++;
            } else {
                s.open = p.msg().kind;
            }
            s.sinceAck++;
            if ((p.ackReq() || s.sinceAck >= ackEvery) && p.msg().kind != Kind.READ) {
                ack(s, Aeth.ack(Aeth.CREDITS_INVALID));
            }
        }

        private void ack(Side s, int syndrome) {
            s.sinceAck = 0;
            s.owed = syndrome;
            modelAcks++;
        }

        private void rnrNak(Side s) {
            s.rnrs++;
            ack(s, Aeth.rnrNak(1));
        }

        private void fatal(Side s, int syndrome) {
            s.fatals++;
            ack(s, syndrome);
            s.error = true;
            for (int i = s.consumed; i < s.posted; i++) {
                s.expected.add(new Expected(i & 0xFFFF, Cqe.RESP_ERR, 0, 0, false, CqeSyndrome.WR_FLUSH));
            }
        }

        // ------------------------------------------------------------ the driver

        private void driver() {
            byte[] b = new byte[Cqe.SIZE];
            while (true) {
                h.mem.read(cq.ring + Cqe.entryOffset(cqeConsumed, CQ_LOG), b, 0, Cqe.SIZE);
                if (!Cqe.isSoftwareOwned(b, 0, cqeConsumed, CQ_LOG)) {
                    break;
                }
                Side s = side(h.qp(Cqe.qpn(b, 0)));
                int op = Cqe.opcode(b, 0);
                Expected got = op == Cqe.RESP_ERR
                        ? new Expected(Cqe.wqeCounter(b, 0), op, 0, 0, false, Cqe.syndrome(b, 0))
                        : new Expected(Cqe.wqeCounter(b, 0), op, Cqe.byteCount(b, 0), Cqe.immediate(b, 0),
                                Cqe.solicited(b, 0), 0);
                assertThat(s.got.size()).as("QP %d: a completion the model expects (got %s)", s.qp.qpn, got)
                        .isLessThan(s.expected.size());
                assertThat(got).as("QP %d completion %d", s.qp.qpn, s.got.size()).isEqualTo(s.expected.get(s.got.size()));
                if (op == Cqe.RESP_SEND || op == Cqe.RESP_SEND_IMM) {
                    assertReceived(s, s.recvs.get(s.got.size()));
                }
                s.got.add(got);
                s.polled++;
                cqeConsumed++;
            }
            byte[] rec = new byte[8];
            Doorbells.putCqConsumerIndex(rec, 0, (int) cqeConsumed);
            h.mem.write(cq.dbRecord, rec, 0, 8);
            boolean more = false;
            for (Side s : sides) {
                if (s.qp.state() != QpState.ERROR && s.posted < s.postTarget && rnd.nextInt(3) == 0) {
                    post(s, 1 + rnd.nextInt(4));
                }
                more |= !s.done() || s.got.size() < s.expected.size()
                        || (s.qp.state() != QpState.ERROR && s.posted < s.postTarget);
            }
            more |= current != null || !wire.isEmpty();
            if (more) {
                driverTick.scheduleIn(rnd.nextInt(4) == 0 ? rnd.nextLong(6_000_000) : 100_000 + rnd.nextLong(1_000_000));
            }
        }

        /** Posts up to {@code n} receive WQEs (as the ring has room) and publishes the count in the doorbell record. */
        private void post(Side s, int n) {
            int ring = 1 << s.qp.cfg.rqLogSize();
            int stride = s.qp.cfg.rqStrideBytes();
            while (n-- > 0 && s.posted < s.postTarget && s.posted - s.polled < ring) {
                Recv r = s.recvs.get(s.posted);
                byte[] w = new byte[stride];
                for (int i = 0; i < r.len.length; i++) {
                    RecvWqe.writeSge(w, 0, i, r.addr[i], r.len[i], r.key[i]);
                }
                RecvWqe.terminate(w, 0, r.len.length, 1 << RQ_LOG_STRIDE);
                h.mem.write(s.qp.cfg.rqBase() + (long) (s.posted & (ring - 1)) * stride, w, 0, stride);
                s.posted++;
            }
            byte[] db = new byte[Doorbells.QP_RECORD_SIZE];
            Doorbells.putRecvCounter(db, 0, s.posted);
            h.mem.write(s.qp.cfg.dbRecord() + Doorbells.OFF_RECV_COUNTER, db, 0, 4);
        }

        /** A receive's completion is seen only once its message's bytes are in host memory. */
        private void assertReceived(Side s, Recv r) {
            long pos = 0;
            byte[] one = new byte[1];
            for (int i = 0; i < r.len.length && pos < r.msg.len; i++) {
                for (int b = 0; b < r.len[i] && pos < r.msg.len; b++, pos++) {
                    h.mem.read(s.recvRegion.pa(r.addr[i] + b), one, 0, 1);
                    assertThat(one[0]).as("QP %d: byte %d of a received message, when its CQE is seen", s.qp.qpn, pos)
                            .isEqualTo(r.msg.data[(int) pos]);
                }
            }
        }

        // ------------------------------------------------------------ the end

        void runAndCheck() {
            h.sim.runUntil(60_000_000_000L);
            assertThat(h.sim.pendingEvents()).as("nothing left to do").isZero();
            assertThat(current).as("no frame left in the intake").isNull();
            assertThat(wire).isEmpty();
            long dup = 0;
            long seq = 0;
            long rnrs = 0;
            long fatals = 0;
            for (Side s : sides) {
                String q = "QP " + s.qp.qpn;
                assertThat(s.done()).as(q + ": the peer finished").isTrue();
                boolean faulty = s.msgs.stream().anyMatch(m -> m.fault != Fault.NONE);
                if (!faulty) {
                    assertThat(s.exp).as(q + ": every PSN executed").isEqualTo(s.total);
                    assertThat(s.error).isFalse();
                    assertThat(s.consumed).as(q + ": every receive consumed").isEqualTo(s.recvs.size());
                    for (Msg m : s.msgs) {
                        if (m.kind == Kind.READ) {
                            assertThat(m.answered).as(q + ": READ at %d answered", m.firstAbs).isPositive();
                        }
                    }
                } else {
                    assertThat(s.error).as(q + ": the fault moved it to error").isTrue();
                }
                assertThat(s.qp.state() == QpState.ERROR).isEqualTo(s.error);
                assertThat(s.requeued).as(q + ": its send queue flushed once").isEqualTo(s.error ? 1 : 0);
                assertThat(s.got).as(q + ": receive completions").isEqualTo(s.expected);
                assertThat(responder.busyWith(s.qp)).as(q + ": responder busy").isFalse();
                assertThat(s.qp.resp.message()).isEqualTo(Responder.Message.IDLE);
                assertThat(s.qp.writes.pending()).isZero();
                assertThat(rq.busyWith(s.qp)).isFalse();
                assertThat(s.ackPending).isFalse();
                dup += s.duplicates;
                seq += s.seqNaks;
                rnrs += s.rnrs;
                fatals += s.fatals;
            }
            assertThat(duplicates.value()).as("duplicates").isEqualTo(dup);
            assertThat(sequenceErrors.value()).as("sequence NAKs").isEqualTo(seq);
            assertThat(rnr.value()).as("RNR NAKs").isEqualTo(rnrs);
            assertThat(accessErrors.value()).as("fatal NAKs").isEqualTo(fatals);
            assertThat(dropped.value()).as("dropped").isEqualTo(droppedInError + droppedAhead);
            assertThat(BlockHarness.counter(payload, "placedBytes")).as("every executed byte placed once").isEqualTo(placed);
            assertThat(endpoint.freeBuffers()).as("every frame back in its pool").isEqualTo(buffers);
            assertThat(cqe.queuedJobs()).isZero();
            assertThat(responder.stats().bounds()).as("no QP left at its inbound READ limit").noneMatch(b -> b.full());
            h.assertPages(expectedPages);
        }
    }

    /** The seeds exercise every rule the scoreboard checks: none passes by never happening. */
    @Test
    void theSeedsExerciseLossDuplicatesRnrReadLimitsCqeWaitsAndEveryFault() {
        long dup = 0;
        long seq = 0;
        long rnr = 0;
        long readWaits = 0;
        long readAgain = 0;
        long cqeWaits = 0;
        long droppedAhead = 0;
        long droppedInError = 0;
        long lost = 0;
        java.util.Set<String> faults = new java.util.TreeSet<>();
        for (long seed = 1; seed <= 12; seed++) {
            for (boolean fault : new boolean[] {false, true}) {
                Run r = new Run(fault ? seed + 20 : seed, fault);
                r.runAndCheck();
                dup += r.duplicates.value();
                seq += r.sequenceErrors.value();
                rnr += r.rnr.value();
                readWaits += r.readWaits;
                cqeWaits += r.cqeWaits;
                droppedAhead += r.droppedAhead;
                droppedInError += r.droppedInError;
                lost += r.lost;
                for (Run.Side s : r.sides) {
                    for (Msg m : s.msgs) {
                        readAgain += m.answered > 1 ? 1 : 0;
                        if (m.fault != Fault.NONE) {
                            faults.add(m.fault + " " + (m.kind.send() ? "SEND" : m.kind));
                        }
                    }
                }
            }
        }
        assertThat(lost).as("packets lost").isPositive();
        assertThat(dup).as("duplicates").isPositive();
        assertThat(seq).as("sequence NAKs").isPositive();
        assertThat(droppedAhead).as("packets dropped behind a sequence NAK").isPositive();
        assertThat(rnr).as("RNR NAKs").isPositive();
        assertThat(readWaits).as("READs waiting for the IRD").isPositive();
        assertThat(readAgain).as("duplicate READs answered again").isPositive();
        assertThat(cqeWaits).as("completions waiting for CQE room").isPositive();
        assertThat(droppedInError).as("packets dropped by a QP in error").isPositive();
        assertThat(faults).contains("BAD_RKEY WRITE", "BAD_RKEY WRITE_IMM", "BAD_RKEY READ", "SHORT_RECEIVE SEND",
                "BAD_LKEY SEND");
    }

    /** Packets after a gap: one sequence NAK, the ones behind it dropped quietly, then the stream executes once. */
    @Test
    void aGapIsNakedOnceAndThePacketsBehindItDropUntilTheExpectedOneComes() {
        Run r = new Run(41, false, 1, new Kind[] {Kind.SEND}, new int[] {3});
        Run.Side s = r.sides.get(0);
        r.feed(1);
        r.feed(2);
        r.feed(0);
        r.feed(1);
        r.feed(2);
        r.runAndCheck();
        assertThat(r.sequenceErrors.value()).isEqualTo(1);
        assertThat(r.droppedAhead).isEqualTo(1);
        assertThat(r.dropped.value()).isEqualTo(1);
        assertThat(s.exp).isEqualTo(3);
        assertThat(s.got).hasSize(1);
        assertThat(r.receivesReported).as("the SEND's receive reported with its stamps").isEqualTo(1);
        assertThat(r.taken).last().isEqualTo(Aeth.ack(Aeth.CREDITS_INVALID));
    }

    /** A READ to a QP that takes none (IRD 0) is an invalid request: NAK, QP in error, its send queue flushed. */
    @Test
    void aReadToAQpWithoutInboundReadsIsAnInvalidRequest() {
        Run r = new Run(42, false, 0, new Kind[] {Kind.SEND, Kind.READ}, new int[] {1, 1});
        Run.Side s = r.sides.get(0);
        s.msgs.get(1).fault = Fault.INVALID_REQUEST;
        r.feed(0);
        r.feed(1);
        r.runAndCheck();
        assertThat(s.qp.state()).isEqualTo(QpState.ERROR);
        assertThat(r.taken).contains(Aeth.nak(1));
        assertThat(r.accessErrors.value()).isEqualTo(1);
        assertThat(s.requeued).isEqualTo(1);
        assertThat(s.qp.resp.reads()).isZero();
    }

    /** A WRITE carrying more than its RETH announced: the first packet lands, the one beyond is NAKed invalid. */
    @Test
    void aWriteBeyondItsRethLengthIsAnInvalidRequest() {
        Run r = new Run(43, false, 1, new Kind[] {Kind.WRITE}, new int[] {2});
        Run.Side s = r.sides.get(0);
        Msg m = s.msgs.get(0);
        m.rethLen = m.len / 2;
        m.fault = Fault.INVALID_REQUEST;
        r.feed(0);
        r.feed(1);
        r.runAndCheck();
        assertThat(BlockHarness.counter(r.payload, "placedBytes")).as("the first packet").isEqualTo(m.len / 2);
        assertThat(s.qp.state()).isEqualTo(QpState.ERROR);
        assertThat(r.taken).last().isEqualTo(Aeth.nak(1));
    }

    /** A duplicate READ while the IRD is full is only re-ACKed; a READ held leaves the IRD when it is answered. */
    @Test
    void aDuplicateReadWhileTheIrdIsFullIsAckedAndTheHeldReadLeavesWhenAnswered() {
        Run r = new Run(44, false, 1, new Kind[] {Kind.READ, Kind.READ}, new int[] {2, 1});
        Run.Side s = r.sides.get(0);
        r.holdReads = true;
        r.feed(0);
        r.feed(0);
        r.feed(2);
        r.h.sim.runUntil(50_000_000);
        assertThat(s.qp.resp.reads()).as("one READ held: the IRD").isEqualTo(1);
        assertThat(r.responder.stats().bounds()).as("the IRD bound is full").allMatch(b -> b.full());
        assertThat(r.responder.busyWith(s.qp)).as("a READ held").isTrue();
        assertThat(r.duplicates.value()).isEqualTo(1);
        assertThat(r.taken).containsExactly(Aeth.ack(Aeth.CREDITS_INVALID));
        assertThat(r.current).as("the next READ waits for the IRD").isNotNull();
        assertThat(s.exp).isEqualTo(2);
        r.holdReads = false;
        r.wakeTx();
        r.runAndCheck();
        assertThat(s.msgs.get(0).answered).isEqualTo(1);
        assertThat(s.msgs.get(1).answered).isEqualTo(1);
        assertThat(s.exp).isEqualTo(3);
    }

    /**
     * A duplicate READ whose key context has left the cache waits for it to be fetched, then is answered again: it
     * counts as one duplicate however often the intake offers it while it waits.
     */
    @Test
    void aDuplicateReadWaitingForItsKeyContextIsAnsweredAgainAndCountedOnce() {
        Run r = new Run(45, false, 1, new Kind[] {Kind.READ}, new int[] {2});
        Run.Side s = r.sides.get(0);
        Msg m = s.msgs.get(0);
        r.feed(0);
        r.h.sim.runUntil(50_000_000);
        assertThat(m.answered).isEqualTo(1);
        long misses = r.keys.keyCache().misses();
        r.keys.keyCache().invalidate(m.rkey >>> 8);
        r.feed(0);
        r.runAndCheck();
        assertThat(r.keys.keyCache().misses()).as("the context fetched again").isEqualTo(misses + 1);
        assertThat(r.readWaitsForKeys).as("the duplicate offered again after waiting").isPositive();
        assertThat(r.duplicates.value()).isEqualTo(1);
        assertThat(m.answered).isEqualTo(2);
        assertThat(s.exp).isEqualTo(2);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
    void streamsOverALossyWireExecuteOnceInOrderWithTheAcksTheModelOwes(long seed) {
        new Run(seed, false).runAndCheck();
    }

    @ParameterizedTest
    @ValueSource(longs = {21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32})
    void aBrokenKeyOrReceiveNaksOnceMovesTheQpToErrorAndFlushesItsReceives(long seed) {
        new Run(seed, true).runAndCheck();
    }

    /** A QP opened without remote write or read access refuses WRITEs and READs and executes SENDs. */
    @Test
    void aQpOpenedWithoutRemoteAccessRefusesWritesAndReads() {
        Run r = new Run(45, false, 1, new Kind[] {Kind.SEND}, new int[] {1});
        for (int access : new int[] {AccessFlags.LOCAL_WRITE, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE,
            AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ}) {
            QpConfig cfg = new QpConfig(PD, 0, 0, 0, 0, 0, 2, RQ_LOG_STRIDE, 0, 1, MAX_RECV_SGE, 0, access);
            Qp qp = new Qp(0x60, cfg, 1, 1, 0, 1);
            r.responder.open(qp, 7);
            var t = qp.resp.transport();
            boolean write = (access & AccessFlags.REMOTE_WRITE) != 0;
            boolean read = (access & AccessFlags.REMOTE_READ) != 0;
            assertThat(t.check(7, RequestKind.WRITE, Position.ONLY, 8, 1024) == Verdict.EXECUTE).as("WRITE, access %d", access)
                    .isEqualTo(write);
            assertThat(t.check(7, RequestKind.READ, Position.ONLY, 0, 1024) == Verdict.EXECUTE).as("READ, access %d", access)
                    .isEqualTo(read);
            assertThat(t.check(7, RequestKind.SEND, Position.ONLY, 8, 1024)).isEqualTo(Verdict.EXECUTE);
        }
    }

    /**
     * A QP's responder is built with the QP's own remote access rights, before any connection opens it: WRITEs and
     * READs at its first PSN execute only if the QP allows them.
     */
    @Test
    void aQpsResponderStartsWithItsAccessRights() {
        for (int access : new int[] {AccessFlags.LOCAL_WRITE, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE,
            AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ,
            AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ}) {
            QpConfig cfg = new QpConfig(PD, 0, 0, 0, 0, 0, 2, RQ_LOG_STRIDE, 0, 1, MAX_RECV_SGE, 0, access);
            var t = new Qp(0x61, cfg, 1, 1, 0, 1).resp.transport();
            boolean write = (access & AccessFlags.REMOTE_WRITE) != 0;
            boolean read = (access & AccessFlags.REMOTE_READ) != 0;
            assertThat(t.check(0, RequestKind.WRITE, Position.ONLY, 8, 1024) == Verdict.EXECUTE).as("WRITE, access %d", access)
                    .isEqualTo(write);
            assertThat(t.check(0, RequestKind.READ, Position.ONLY, 0, 1024) == Verdict.EXECUTE).as("READ, access %d", access)
                    .isEqualTo(read);
        }
    }

    /**
     * A QP moved to error (as the firmware does) while a SEND is half received: the message is given up with its
     * receive WQE, which the flush completes with the others, so the responder holds no open message.
     */
    @Test
    void aQpMovedToErrorMidMessageGivesTheMessageUp() {
        Run r = new Run(46, false, 1, new Kind[] {Kind.SEND}, new int[] {3});
        Run.Side s = r.sides.get(0);
        r.feed(0);
        r.h.sim.runUntil(50_000_000);
        assertThat(s.qp.resp.message()).as("the SEND's first packet is placed").isEqualTo(Responder.Message.RECEIVING);
        s.qp.moveTo(QpState.ERROR);
        r.responder.startRecvFlush(s.qp);
        assertThat(s.qp.resp.message()).isEqualTo(Responder.Message.IDLE);
        assertThat(s.qp.rq.flushing()).isTrue();
        assertThat(r.responder.busyWith(s.qp)).isFalse();
    }
}
