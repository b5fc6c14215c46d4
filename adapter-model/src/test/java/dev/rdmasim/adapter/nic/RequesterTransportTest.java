package dev.rdmasim.adapter.nic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.adapter.cache.SetAssocCache;
import dev.rdmasim.adapter.format.AccessFlags;
import dev.rdmasim.adapter.format.BigEndian;
import dev.rdmasim.adapter.format.Cqe;
import dev.rdmasim.adapter.format.CqeSyndrome;
import dev.rdmasim.adapter.format.Eqe;
import dev.rdmasim.adapter.format.WqeOpcode;
import dev.rdmasim.adapter.transport.Psn;
import dev.rdmasim.adapter.wire.Aeth;
import dev.rdmasim.adapter.wire.EthernetLink;
import dev.rdmasim.adapter.wire.Frame;
import dev.rdmasim.adapter.wire.FrameCheck;
import dev.rdmasim.adapter.wire.LinkEndpoint;
import dev.rdmasim.adapter.wire.Opcode;
import dev.rdmasim.adapter.wire.RoceReader;
import dev.rdmasim.adapter.wire.RoceWriter;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.stats.Bound;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The requester transport alone. A stand-in parser claims, fills and posts requests (SEND, WRITE, READ of random
 * sizes, signaled or not, inline or not, some fenced) as the ring, the fetch signals and the inline buffer let it;
 * a stand-in transmitter builds the packets the real send scheduler asks for into a few slots (sometimes answering
 * that a key must be fetched first) and sends them; a stand-in responder on the far side executes them in PSN
 * order and answers with ACKs, sequence NAKs, RNR NAKs, remote-access NAKs and READ responses (real frames, placed
 * by a real payload writer and key unit into host memory), over a path that delays, drops and duplicates at random. The CQE
 * writer, the WQE credits and the scheduler are the real blocks.
 *
 * <p>Scoreboard, computed in the test: every request retires exactly once, per QP in posting order, signaled ones
 * (and every error) as a CQE with its fields, unsignaled successes through the retirement listener; each QP fails
 * exactly when its script makes it (the failing request with the scripted syndrome, the rest flushed); PSNs are
 * consecutive per QP; a packet is built only within the window from the newest acknowledgement delivered, never
 * during an RNR wait, a fenced request only after the earlier READs are complete, a READ only within the READ
 * depth; after a rewind the packets go out again in PSN order, skipping only READ responses already in; READ data
 * lands in host memory; inline bytes are all given back, the timer stops and the block is idle at the end.
 */
class RequesterTransportTest {
    private static final int CQN = 1;
    private static final int LKEY = 1 << 8 | 0x11;
    private static final long PS_PER_NS = 1000;

    /** What a QP's script makes of it. */
    enum Fate {
        HEALTHY, REMOTE_ACCESS, BAD_WQE, LOCAL_KEY, RNR_EXCEEDED, RETRY_EXCEEDED
    }

    /** One request as the test posted it, and what became of it. */
    static final class Req {
        final QpModel q;
        final int index;
        int opcode;
        long length;
        boolean signaled;
        boolean inline;
        boolean fence;
        int badSyndrome;
        Wr w;
        int firstPsn;
        int packets;
        /** READ: local buffers and the remote bytes the responses carry. */
        long[] sgeAddr;
        int[] sgeLen;
        byte[] remote;
        int accepted;
        /** RNR NAKs the responder still answers this SEND's first packet with. */
        int rnrLeft;
        boolean reported;
        int syndrome = -1;
        boolean viaCqe;

        Req(QpModel q, int index) {
            this.q = q;
            this.index = index;
        }

        int wqeIndex() {
            return index & 0xFFFF;
        }

        int lastPsn() {
            return Psn.add(firstPsn, packets - 1);
        }

        boolean read() {
            return opcode == WqeOpcode.RDMA_READ;
        }
    }

    /** One QP: the test's script and its record of what happened. */
    static final class QpModel {
        Qp qp;
        Fate fate = Fate.HEALTHY;
        int failIndex = -1;
        final List<Req> reqs = new ArrayList<>();
        int posted;
        int total;
        int prefetchDepth;
        int maxReadsOut;
        int rnrRetry;
        Event parseEvent;
        boolean waitRoom;
        boolean waitSent;
        boolean waitInline;
        // The responder's side.
        int expected;
        boolean nakSent;
        boolean dead;
        int silentFrom = -1;
        // The transmitter's side.
        int nextBuild;
        int ackBase;
        int nextPsnPosted;
        long rnrUntil;
        int recvFlushes;
        final Map<Wr, Req> byWr = new IdentityHashMap<>();
    }

    /** A request packet in flight to the responder. */
    record Packet(QpModel q, Req r, int k, int psn, boolean ack) {
    }

    /** Something on its way back: an ACK/NAK (syndrome) or READ response {@code k} of {@code r}. */
    record Back(QpModel q, int psn, int syndrome, Req r, int k) {
    }

    static final class Rig implements CqTable, RequesterTransport.Packetizer {
        final SplittableRandom rnd;
        final BlockHarness h;
        final RequesterTransport.Params params;
        final WqeCredits credits;
        final long inlineBytes;
        final ContextMemory contexts;
        final EventQueueUnit eq;
        final CqeWriter cqe;
        final Cq cq;
        final KeyUnit keys;
        final PayloadWriter payload;
        final SendScheduler scheduler;
        final RequesterTransport req;
        final LinkEndpoint frames;
        final RoceWriter roce = new RoceWriter();
        final RoceReader reader = new RoceReader();
        final List<QpModel> models = new ArrayList<>();
        final Map<Integer, QpModel> byQpn = new TreeMap<>();
        final List<Req> cqeReports = new ArrayList<>();
        final List<long[]> cqeFields = new ArrayList<>();
        long regionVa;
        long regionLen;
        long regionCursor;
        // Transmitter stand-in.
        final int slots;
        int slotsUsed;
        boolean built;
        long lastDeparture;
        boolean pumping;
        boolean pumpAgain;
        final Event keyPump;
        int keyWaits;
        int waitPercent;
        final List<Packet> packets = new ArrayList<>();
        // Paths.
        int dropPercent;
        int dupPercent;
        long lastArrival;
        long lastBack;
        final ArrayDeque<Back> backQueue = new ArrayDeque<>();
        final Event backStep;
        boolean backWaiting;
        int requeues;
        int sentOnes;
        int retransmittedPackets;
        boolean manual;
        /** Posts without handing the QP to the scheduler (the test queues it when the ring holds what it wants). */
        boolean holdQueue;

        Rig(long seed, SplittableRandom rnd, RequesterTransport.Params params, int cqeDepth, long inlineBytes) {
            this.rnd = rnd;
            this.params = params;
            this.inlineBytes = inlineBytes;
            h = new BlockHarness(seed, BlockHarness.randomPcie(rnd));
            credits = new WqeCredits(h.top, new WqeCredits.Params(64, inlineBytes));
            long ctx = h.mem.allocate(1 << 20, 4096);
            contexts = new ContextMemory(h.top, new ContextMemory.Params(8, 8, 4, 16, 4, SetAssocCache.Policy.LRU), h.mem,
                    ctx, h.port("writeBack", 16, 0));
            eq = new EventQueueUnit(h.top, 0xFEE0_0000L, 16);
            eq.create(h.mem.allocate(64 * Eqe.SIZE, 4096), 6);
            cqe = new CqeWriter(h.top, new CqeWriter.Params(cqeDepth, 2, 4, 2, SetAssocCache.Policy.LRU), h.clock, h.work,
                    this, contexts, eq, h.port("cqe", 1 + rnd.nextInt(8), 1), h.port("event", 16, 0), this::cqeRetired);
            int logSize = 12;
            long ring = h.mem.allocate((long) Cqe.SIZE << logSize, 4096);
            byte[] init = new byte[Cqe.SIZE << logSize];
            Cqe.initRing(init, 0, 1 << logSize);
            h.mem.write(ring, init, 0, init.length);
            long record = h.mem.allocate(64, 64);
            cq = new Cq(CQN, ring, logSize, record);
            cq.moderationCount = 1;
            cq.moderationTimer = h.sim.event("cq.moderation", () -> cqe.moderationExpired(cq));
            contexts.writeCqContext(CQN, ring, logSize, record);
            long keyCtx = h.mem.allocate(16L * KeyUnit.CONTEXT_BYTES, 4096);
            keys = new KeyUnit(h.top, new KeyUnit.Params(16, 4, 4, 8, 8, SetAssocCache.Policy.LRU), h.mem, keyCtx,
                    h.port("keyFill", 16, KeyUnit.MAX_FILLS), h.work);
            payload = new PayloadWriter(h.top, h.work, keys, h.link.dma().addChannel("rxWrite", 1 + rnd.nextInt(16)));
            scheduler = new SendScheduler(h);
            req = new RequesterTransport(h.top, params, h.work, h, credits, this::requeue, this::sentOne, cqe, scheduler,
                    this::unsignaledRetired);
            req.connect(this, payload, qp -> byQpn.get(qp.qpn).recvFlushes++);
            scheduler.connect(req);
            cqe.onSpace(req::cqeSpace);
            payload.connect((qp, w) -> {
                if (w != null) {
                    req.responseWritten(qp, w);
                }
                resumeBack();
            }, this::resumeBack);
            keys.addWaiter(this::resumeBack);
            frames = EthernetLink.cable(h.sim, "wire", new EthernetLink.Config(100, 0, 64)).a();
            credits.onInlineFreed(() -> {
                for (QpModel q : models) {
                    if (q.waitInline) {
                        q.waitInline = false;
                        schedule(q.parseEvent, 0);
                    }
                }
            });
            slots = 1 + rnd.nextInt(4);
            keyPump = h.sim.event("keyPump", this::pump);
            backStep = h.sim.event("back", this::backStep);
            registerRegion(1 << 20);
        }

        /** One region of contiguous pages for READ payload, under {@link #LKEY}. */
        private void registerRegion(long length) {
            long pa = h.mem.allocate(length, 4096);
            int n = (int) (length >>> 12);
            long mtt = h.mem.allocate(8L * n, 64);
            byte[] e = new byte[8 * n];
            for (int i = 0; i < n; i++) {
                BigEndian.putI64(e, 8 * i, pa + ((long) i << 12));
            }
            h.mem.write(mtt, e, 0, e.length);
            regionVa = 0x7f00_0000_0000L;
            regionLen = length;
            keys.writeContext(LKEY, 1, AccessFlags.LOCAL_WRITE, 12, regionVa, length, mtt, true);
            regionPa = pa;
        }

        long regionPa;

        QpModel addQp(int qpn, int outstanding, int startPsn, int retry, int rnrRetry, int maxReadsOut, int prefetch) {
            QpModel q = new QpModel();
            q.qp = h.addQp(qpn, 8, outstanding, 4, 0, 3, 256);
            q.maxReadsOut = maxReadsOut;
            q.rnrRetry = rnrRetry;
            q.prefetchDepth = prefetch;
            req.open(q.qp, "qp" + qpn + ".timer");
            req.start(q.qp, startPsn, retry, rnrRetry, maxReadsOut);
            q.expected = startPsn;
            q.nextBuild = startPsn;
            q.ackBase = startPsn;
            q.parseEvent = h.sim.event("parse" + qpn, () -> parse(q));
            models.add(q);
            byQpn.put(qpn, q);
            return q;
        }

        Req script(QpModel q, int opcode, long length, boolean signaled, boolean inline, boolean fence) {
            Req r = new Req(q, q.reqs.size());
            r.opcode = opcode;
            r.length = length;
            r.signaled = signaled;
            r.inline = inline;
            r.fence = fence;
            if (r.read()) {
                int sges = 1 + rnd.nextInt(3);
                r.sgeAddr = new long[sges];
                r.sgeLen = new int[sges];
                long left = length;
                for (int i = 0; i < sges; i++) {
                    int l = (int) (i == sges - 1 ? left : rnd.nextLong(left + 1));
                    left -= l;
                    regionCursor += rnd.nextInt(64);
                    r.sgeAddr[i] = regionVa + regionCursor;
                    r.sgeLen[i] = l;
                    regionCursor += l;
                }
                assertThat(regionCursor).as("test region big enough").isLessThan(regionLen);
                r.remote = new byte[(int) length];
                rnd.nextBytes(r.remote);
            }
            q.reqs.add(r);
            q.total = q.reqs.size();
            return r;
        }

        static void schedule(Event e, long delay) {
            if (!e.scheduled()) {
                e.scheduleIn(delay);
            }
        }

        // ------------------------------------------------------------ the parser stand-in

        /** Posts what it can: the ring must have room, few enough unsent requests, inline room. */
        void parse(QpModel q) {
            while (q.posted < q.total) {
                Qp qp = q.qp;
                if (req.full(qp)) {
                    q.waitRoom = true; // a retirement requeues the QP
                    return;
                }
                if (qp.req.unsent() >= q.prefetchDepth && qp.state() != QpState.ERROR) {
                    q.waitSent = true; // a request sent lets the fetch engine go further ahead
                    return;
                }
                Req r = q.reqs.get(q.posted);
                if (r.inline && !credits.inlineFits(r.length)) {
                    q.waitInline = true;
                    return;
                }
                post(q, r);
                if (rnd.nextInt(3) == 0) {
                    schedule(q.parseEvent, rnd.nextLong(400 * PS_PER_NS));
                    return;
                }
            }
        }

        void post(QpModel q, Req r) {
            Qp qp = q.qp;
            Wr w = req.claim(qp);
            w.wqeIndex = r.wqeIndex();
            w.bbs = 1;
            w.opcode = r.opcode;
            w.signaled = r.signaled;
            w.fence = r.fence;
            w.syndrome = r.badSyndrome;
            w.length = r.length;
            w.readyPs = h.sim.now();
            if (r.badSyndrome != 0) {
                w.signaled = true;
                w.packets = 0;
            } else {
                if (r.inline) {
                    w.inline = true;
                    credits.takeInline(r.length);
                } else if (r.read()) {
                    w.sgeCount = r.sgeAddr.length;
                    for (int i = 0; i < w.sgeCount; i++) {
                        w.sgeAddr[i] = r.sgeAddr[i];
                        w.sgeLen[i] = r.sgeLen[i];
                        w.sgeKey[i] = LKEY;
                    }
                }
                w.packets = r.length == 0 ? 1 : (int) ((r.length + params.mtu() - 1) / params.mtu());
            }
            req.post(qp, w);
            r.w = w;
            r.firstPsn = w.firstPsn;
            r.packets = w.packets;
            if (r.badSyndrome == 0) {
                q.nextPsnPosted = Psn.add(r.firstPsn, r.packets);
            }
            q.byWr.put(w, r);
            q.posted++;
            if (q.fate == Fate.RETRY_EXCEEDED && r.index == q.failIndex) {
                q.silentFrom = r.firstPsn;
            }
            if (!holdQueue) {
                req.queue(qp);
            }
        }

        void requeue(Qp qp) {
            requeues++;
            QpModel q = byQpn.get(qp.qpn);
            if (q.waitRoom || q.waitSent) {
                // As the fetch engine: room in the ring, and a new look at how many requests are unsent.
                q.waitRoom = false;
                q.waitSent = false;
                schedule(q.parseEvent, rnd.nextLong(100 * PS_PER_NS));
            }
        }

        void sentOne(Qp qp) {
            sentOnes++;
            QpModel q = byQpn.get(qp.qpn);
            if (q.waitSent) {
                q.waitSent = false;
                schedule(q.parseEvent, rnd.nextLong(100 * PS_PER_NS));
            }
        }

        // ------------------------------------------------------------ the transmitter stand-in

        @Override
        public int buildRequest(Qp qp, Wr w, int k, int psn, boolean ackRequest) {
            QpModel q = byQpn.get(qp.qpn);
            Req r = q.byWr.get(w);
            assertThat(r).as("QP %d builds a request it was given", qp.qpn).isNotNull();
            assertThat(built).as("one packet built at a time").isFalse();
            assertThat(slotsUsed).as("a slot is free when the scheduler gives a turn").isLessThan(slots);
            if (waitPercent > 0 && rnd.nextInt(100) < waitPercent) {
                keyWaits++;
                schedule(keyPump, rnd.nextLong(300 * PS_PER_NS)); // the key unit pumps the transmitter when its line is in
                return KeyUnit.WAIT;
            }
            if (q.fate == Fate.LOCAL_KEY && r.index == q.failIndex) {
                return CqeSyndrome.LOCAL_PROT;
            }
            checkPacket(q, r, k, psn, ackRequest);
            built = true;
            slotsUsed++;
            packets.add(new Packet(q, r, k, psn, ackRequest));
            return KeyUnit.OK;
        }

        private void checkPacket(QpModel q, Req r, int k, int psn, boolean ackRequest) {
            String at = "QP " + q.qp.qpn + " request " + r.index + " packet " + k;
            assertThat(q.qp.state()).as(at + ": only a ready-to-send QP sends").isEqualTo(QpState.READY_TO_SEND);
            assertThat(psn).as(at + ": PSN").isEqualTo(Psn.add(r.firstPsn, k));
            assertThat(k).as(at + ": within the request").isBetween(0, r.packets - 1);
            assertThat(Psn.diff(psn, q.ackBase)).as(at + ": within the window of unacknowledged PSNs")
                    .isLessThan(params.maxUnacked());
            assertThat(h.sim.now()).as(at + ": not during an RNR wait").isGreaterThanOrEqualTo(q.rnrUntil);
            if (r.read()) {
                assertThat(k).as(at + ": a READ asks from its first missing response").isEqualTo(r.accepted);
                assertThat(ackRequest).as(at + ": a READ asks for an answer").isTrue();
                int readsOut = 0;
                for (Req e : q.reqs.subList(0, r.index)) {
                    if (!e.reported && e.read() && e.accepted < e.packets) {
                        readsOut++;
                    }
                }
                assertThat(readsOut).as(at + ": within the READ depth").isLessThan(q.maxReadsOut);
            } else if (k == r.packets - 1) {
                assertThat(ackRequest).as(at + ": the last packet asks for an ACK").isTrue();
            } else {
                // Between, one packet in every ackEvery, counted from the oldest unacknowledged PSN, asks for one.
                assertThat(ackRequest).as(at + ": an ACK asked for every %d packets", params.ackEvery())
                        .isEqualTo((Psn.diff(psn, q.qp.req.unackedPsn()) + 1) % params.ackEvery() == 0);
            }
            if (k == 0 && r.fence) {
                for (Req e : q.reqs.subList(0, r.index)) {
                    if (!e.reported && e.read()) {
                        assertThat(e.accepted == e.packets && e.w.pendingWrites == 0)
                                .as(at + ": fenced behind READ %d", e.index).isTrue();
                    }
                }
            }
            // Go-back-N: packets go out in PSN order; going back is a rewind, going forward skips only PSNs
            // acknowledged or READ responses already in.
            int d = Psn.diff(psn, q.nextBuild);
            if (d > 0) {
                for (int p = q.nextBuild; p != psn; p = Psn.add(p, 1)) {
                    Req owner = owner(q, p);
                    boolean answered = owner != null && owner.read() && Psn.diff(p, owner.firstPsn) < owner.accepted;
                    assertThat(answered || Psn.diff(p, q.ackBase) < 0).as(at + ": PSN %d skipped", p).isTrue();
                }
            }
            if (d < 0) {
                retransmittedPackets++;
            }
            q.nextBuild = r.read() ? Psn.add(r.lastPsn(), 1) : Psn.add(psn, 1);
        }

        private static Req owner(QpModel q, int psn) {
            for (Req r : q.reqs) {
                if (r.w != null && r.packets > 0 && Psn.diff(psn, r.firstPsn) >= 0 && Psn.diff(psn, r.lastPsn()) <= 0) {
                    return r;
                }
            }
            return null;
        }

        @Override
        public void commitRequest() {
            assertThat(built).as("a commit follows a build").isTrue();
            built = false;
            Packet p = packets.get(packets.size() - 1);
            long start = Math.max(lastDeparture, h.sim.now());
            long end = start + 20 * PS_PER_NS + rnd.nextLong(300 * PS_PER_NS);
            lastDeparture = end;
            h.sim.event("tx", () -> {
                req.packetSent(p.q().qp, start);
                slotsUsed--;
                long arrive = Math.max(lastArrival, h.sim.now() + 300 * PS_PER_NS + rnd.nextLong(1500 * PS_PER_NS));
                lastArrival = arrive;
                if (!manual) {
                    h.sim.event("arrive", () -> arrive(p)).schedule(arrive);
                }
                pump();
            }).schedule(end);
        }

        @Override
        public void pump() {
            if (pumping) {
                pumpAgain = true;
                return;
            }
            pumping = true;
            try {
                do {
                    pumpAgain = false;
                    while (slotsUsed < slots && scheduler.step()) {
                        // one packet per turn
                    }
                } while (pumpAgain && slotsUsed < slots);
            } finally {
                pumping = false;
            }
        }

        // ------------------------------------------------------------ the responder stand-in

        boolean dropped() {
            return dropPercent > 0 && rnd.nextInt(100) < dropPercent;
        }

        void arrive(Packet p) {
            QpModel q = p.q();
            Req r = p.r();
            if (q.dead || (q.silentFrom >= 0 && Psn.diff(p.psn(), q.silentFrom) >= 0) || dropped()) {
                return;
            }
            int d = Psn.diff(p.psn(), q.expected);
            if (d > 0) {
                if (!q.nakSent) {
                    q.nakSent = true;
                    back(new Back(q, q.expected, Aeth.nak(0), null, 0), true);
                }
                return;
            }
            if (d < 0) {
                if (r.read()) {
                    for (int k = p.k(); k < r.packets; k++) {
                        back(new Back(q, Psn.add(r.firstPsn, k), 0, r, k), true);
                    }
                } else {
                    back(new Back(q, Psn.add(q.expected, -1), Aeth.ack(0), null, 0), true);
                }
                return;
            }
            if (q.fate == Fate.REMOTE_ACCESS && r.index == q.failIndex) {
                q.dead = true;
                back(new Back(q, p.psn(), Aeth.nak(2), null, 0), false);
                return;
            }
            if (p.k() == 0 && r.opcode == WqeOpcode.SEND && r.rnrLeft > 0) {
                r.rnrLeft--;
                back(new Back(q, p.psn(), Aeth.rnrNak(1), null, 0), true);
                return;
            }
            q.nakSent = false;
            if (r.read()) {
                q.expected = Psn.add(r.lastPsn(), 1);
                for (int k = 0; k < r.packets; k++) {
                    back(new Back(q, Psn.add(r.firstPsn, k), 0, r, k), true);
                }
            } else {
                q.expected = Psn.add(p.psn(), 1);
                if (p.ack()) {
                    back(new Back(q, p.psn(), Aeth.ack(0), null, 0), true);
                }
            }
        }

        /** Sends something back on the in-order return path, maybe lost. */
        void back(Back b, boolean mayDrop) {
            if (mayDrop && dropped()) {
                return;
            }
            long t = Math.max(lastBack, h.sim.now() + 300 * PS_PER_NS + rnd.nextLong(1500 * PS_PER_NS));
            lastBack = t;
            // Now and then the path delivers a frame twice: duplicate responses, ACKs and stale NAKs.
            boolean twice = mayDrop && dupPercent > 0 && rnd.nextInt(100) < dupPercent;
            h.sim.event("back", () -> {
                backQueue.add(b);
                if (twice) {
                    backQueue.add(b);
                }
                backStep();
            }).schedule(t);
        }

        void resumeBack() {
            if (backWaiting) {
                backWaiting = false;
                schedule(backStep, 0);
            }
        }

        /** The receive side: takes what came back in order; a READ response the payload writer cannot take yet waits. */
        void backStep() {
            while (!backQueue.isEmpty() && !backWaiting) {
                Back b = backQueue.peek();
                QpModel q = b.q();
                if (b.r() == null) {
                    deliver(b);
                    backQueue.poll();
                    continue;
                }
                Frame f = frames.acquire();
                if (f == null) {
                    backWaiting = true; // a frame comes back when its writes have left
                    return;
                }
                Req r = b.r();
                int len = (int) Math.min(params.mtu(), r.length - (long) b.k() * params.mtu());
                int op = r.packets == 1 ? Opcode.RDMA_READ_RESPONSE_ONLY
                        : b.k() == 0 ? Opcode.RDMA_READ_RESPONSE_FIRST
                                : b.k() == r.packets - 1 ? Opcode.RDMA_READ_RESPONSE_LAST : Opcode.RDMA_READ_RESPONSE_MIDDLE;
                roce.bth(op, q.qp.qpn, b.psn()).aeth(Aeth.ack(0), 0);
                int n = roce.write(f.data(), r.remote, b.k() * params.mtu(), Math.max(0, len));
                f.length(n);
                assertThat(reader.wrap(f.data(), n)).isEqualTo(FrameCheck.VALID);
                int res = req.readResponse(q.qp, f, reader);
                if (res == RequesterTransport.WAIT) {
                    f.release();
                    backWaiting = true; // the payload writer or the key unit calls back
                    return;
                }
                backQueue.poll();
                if (res == RequesterTransport.DONE || res == RequesterTransport.HELD) {
                    assertThat(b.k()).as("QP %d READ %d: the response placed is the one expected", q.qp.qpn, r.index)
                            .isEqualTo(r.accepted);
                    r.accepted++;
                    q.ackBase = Psn.diff(b.psn(), q.ackBase) >= 0 ? Psn.add(b.psn(), 1) : q.ackBase;
                } else {
                    assertThat(Psn.diff(b.psn(), Psn.add(r.firstPsn, r.accepted)) != 0 || r.reported)
                            .as("only a duplicate or early response is dropped").isTrue();
                }
                if (res != RequesterTransport.HELD) {
                    f.release();
                }
            }
        }

        private void deliver(Back b) {
            QpModel q = b.q();
            int kind = Aeth.kind(b.syndrome());
            if (Aeth.isAck(b.syndrome())) {
                advanceBase(q, Psn.add(b.psn(), 1));
                if (q.posted > 0 && Psn.add(b.psn(), 1) == q.nextPsnPosted) {
                    q.rnrUntil = 0; // every PSN acknowledged: nothing is left to resend after a wait
                }
                req.acknowledge(q.qp, b.psn());
                return;
            }
            boolean stale = Psn.diff(b.psn(), q.ackBase) < 0; // names a PSN already acknowledged
            advanceBase(q, b.psn());
            if (q.qp.state() == QpState.READY_TO_SEND && !stale) {
                // Go-back-N resumes at the PSN named (the rewind may build packets before nak() returns).
                q.nextBuild = b.psn();
                if (kind == Aeth.KIND_RNR_NAK) {
                    q.rnrUntil = h.sim.now() + params.rnrTimerPs();
                }
            }
            req.nak(q.qp, b.psn(), b.syndrome());
        }

        private static void advanceBase(QpModel q, int base) {
            if (Psn.diff(base, q.ackBase) > 0) {
                q.ackBase = base;
            }
        }

        // ------------------------------------------------------------ retirements

        void unsignaledRetired(int qpn, int wqeIndex, int wqeOpcode, long bytes, int syndrome, long[] stamps) {
            QpModel q = byQpn.get(qpn);
            Req r = report(q, wqeIndex, false);
            assertThat(r.signaled).as("QP %d request %d: only unsignaled requests skip the CQE", qpn, r.index).isFalse();
            assertThat(q.qp.req.wr(0)).as("it is the oldest in the ring").isSameAs(r.w);
            assertThat(syndrome).isZero();
            assertThat(wqeOpcode).isEqualTo(r.opcode);
            assertThat(bytes).isEqualTo(r.length);
            r.syndrome = 0;
        }

        void cqeRetired(int qpn, int wqeIndex, int wqeOpcode, long bytes, int syndrome, long[] stamps) {
            QpModel q = byQpn.get(qpn);
            Req r = report(q, wqeIndex, true);
            assertThat(syndrome).as("QP %d request %d: a CQE is written, not dropped", qpn, r.index).isNotEqualTo(-1);
            assertThat(r.signaled || syndrome != 0).as("a CQE for a signaled request or an error").isTrue();
            assertThat(wqeOpcode).isEqualTo(r.opcode);
            assertThat(bytes).isEqualTo(r.length);
            r.syndrome = syndrome;
            r.viaCqe = true;
            cqeReports.add(r);
            cqeFields.add(new long[] {qpn, wqeIndex, syndrome, r.length});
        }

        /** The request of QP {@code q} reported now: every earlier one must be reported already (or, for the
         * unsignaled channel, be on its way to a CQE). */
        private Req report(QpModel q, int wqeIndex, boolean cqeChannel) {
            Req found = null;
            for (Req r : q.reqs) {
                if (r.reported) {
                    continue;
                }
                if (r.wqeIndex() == wqeIndex && r.w != null) {
                    found = r;
                    break;
                }
                assertThat(!cqeChannel && r.signaled)
                        .as("QP %d: request %d retired before the earlier request %d", q.qp.qpn, wqeIndex, r.index)
                        .isTrue();
            }
            assertThat(found).as("QP %d: request %d retired once", q.qp.qpn, wqeIndex).isNotNull();
            found.reported = true;
            return found;
        }

        @Override
        public Cq cq(int cqn) {
            assertThat(cqn).isEqualTo(CQN);
            return cq;
        }

        @Override
        public void cqOverflowed(Cq c) {
            throw new AssertionError("the CQ never overflows here");
        }
    }

    // ================================================================ the seeded random workload

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
    void everyRequestRetiresOnceInOrderWithTheScriptedOutcome(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        int[] mtus = {256, 512, 1024};
        var params = new RequesterTransport.Params(4 + rnd.nextInt(61), 40_000 * PS_PER_NS, 3_000 * PS_PER_NS,
                1 + rnd.nextInt(4), mtus[rnd.nextInt(3)]);
        Rig rig = new Rig(seed, rnd, params, 1 + rnd.nextInt(8), 512 + rnd.nextInt(2048));
        rig.dropPercent = rnd.nextInt(4);
        rig.dupPercent = rnd.nextInt(4);
        rig.waitPercent = rnd.nextInt(10);
        int qpCount = 2 + rnd.nextInt(4);
        for (int i = 0; i < qpCount; i++) {
            // Start PSNs near the top of the 24-bit space so some QPs wrap around.
            int start = rnd.nextBoolean() ? rnd.nextInt(1 << 24) : 0xFF_FFFF - rnd.nextInt(40);
            Fate fate = i == 0 ? Fate.HEALTHY : Fate.values()[rnd.nextInt(Fate.values().length)];
            int rnrRetry = fate == Fate.RNR_EXCEEDED ? rnd.nextInt(3) : RequesterTransport.INFINITE_RNR_RETRY;
            QpModel q = rig.addQp(10 + i, 1 + rnd.nextInt(12), start, 7, rnrRetry, 1 + rnd.nextInt(4), 1 + rnd.nextInt(8));
            q.fate = fate;
            int n = 15 + rnd.nextInt(30);
            q.failIndex = fate == Fate.HEALTHY ? -1 : rnd.nextInt(n);
            for (int j = 0; j < n; j++) {
                int kind = rnd.nextInt(10);
                int opcode = kind < 4 ? WqeOpcode.SEND : kind < 7 ? WqeOpcode.RDMA_WRITE : WqeOpcode.RDMA_READ;
                if (j == q.failIndex && (fate == Fate.RNR_EXCEEDED)) {
                    opcode = WqeOpcode.SEND;
                }
                long len = rnd.nextInt(5) == 0 ? rnd.nextInt(64) : rnd.nextInt(4 * params.mtu() + 1);
                boolean inline = opcode != WqeOpcode.RDMA_READ && len <= 256 && rnd.nextBoolean();
                Req r = rig.script(q, opcode, len, rnd.nextInt(3) != 0, inline, rnd.nextInt(8) == 0);
                if (opcode == WqeOpcode.SEND && rnd.nextInt(6) == 0) {
                    r.rnrLeft = 1 + rnd.nextInt(2); // receiver not ready a few times; infinite RNR retry rides it out
                }
                if (j == q.failIndex && fate == Fate.RNR_EXCEEDED) {
                    r.rnrLeft = Integer.MAX_VALUE;
                }
                if (j == q.failIndex && fate == Fate.BAD_WQE) {
                    r.badSyndrome = CqeSyndrome.LOCAL_LENGTH;
                }
            }
            if (fate != Fate.RNR_EXCEEDED) {
                continue;
            }
            for (Req r : q.reqs) {
                if (r.index != q.failIndex) {
                    r.rnrLeft = 0; // a finite RNR retry count: only the failing SEND is refused
                }
            }
        }
        for (QpModel q : rig.models) {
            q.parseEvent.schedule(rnd.nextLong(2_000 * PS_PER_NS));
        }
        rig.h.sim.runUntil(2_000_000_000_000L);

        for (QpModel q : rig.models) {
            String at = "QP " + q.qp.qpn + " (" + q.fate + " at " + q.failIndex + ")";
            assertThat(q.posted).as(at + ": every request posted (parser waiting for room %s, a request sent %s, inline %s)",
                    q.waitRoom, q.waitSent, q.waitInline).isEqualTo(q.total);
            int expectedSyndrome = switch (q.fate) {
                case HEALTHY -> 0;
                case REMOTE_ACCESS -> CqeSyndrome.REMOTE_ACCESS;
                case BAD_WQE -> CqeSyndrome.LOCAL_LENGTH;
                case LOCAL_KEY -> CqeSyndrome.LOCAL_PROT;
                case RNR_EXCEEDED -> CqeSyndrome.RNR_RETRY_EXC;
                case RETRY_EXCEEDED -> CqeSyndrome.TRANSPORT_RETRY_EXC;
            };
            for (Req r : q.reqs) {
                assertThat(r.reported).as(at + ": request %d retired", r.index).isTrue();
                if (q.fate == Fate.HEALTHY || r.index < q.failIndex) {
                    // Before the failure: success, or flushed if the QP failed while it was still in flight.
                    assertThat(r.syndrome).as(at + ": request %d", r.index)
                            .isIn(q.fate == Fate.HEALTHY ? Set.of(0) : Set.of(0, CqeSyndrome.WR_FLUSH));
                } else if (r.index == q.failIndex) {
                    assertThat(r.syndrome).as(at + ": the failing request %d", r.index).isEqualTo(expectedSyndrome);
                } else {
                    assertThat(r.syndrome).as(at + ": request %d after the failure", r.index).isEqualTo(CqeSyndrome.WR_FLUSH);
                }
                if (r.syndrome == 0 && r.read()) {
                    checkReadData(rig, r, at);
                }
            }
            assertThat(q.qp.state()).as(at + ": in error exactly when the script fails it")
                    .isEqualTo(q.fate == Fate.HEALTHY ? QpState.READY_TO_SEND : QpState.ERROR);
            assertThat(q.recvFlushes).as(at + ": the receive queue flushed once on failure")
                    .isEqualTo(q.fate == Fate.HEALTHY ? 0 : 1);
            assertThat(rig.req.busyWith(q.qp)).as(at + ": idle at the end").isFalse();
            assertThat(rig.scheduler.busyWith(q.qp)).as(at + ": out of the round").isFalse();
            assertThat(q.qp.req.deadline()).as(at + ": timer stopped").isEqualTo(-1);
            if (q.fate == Fate.HEALTHY) {
                assertThat(q.expected).as(at + ": the responder executed every PSN").isEqualTo(q.qp.req.nextPsn());
            }
        }
        assertThat(rig.credits.inlineFree()).as("inline bytes all given back").isEqualTo(rig.inlineBytes);
        assertThat(rig.req.retired()).as("requests retired").isEqualTo(rig.models.stream().mapToLong(q -> q.total).sum());
        assertThat(rig.req.stats().bounds()).as("no QP left at its ring, window or READ limit").noneMatch(Bound::full);
        checkCqRing(rig);
        assertThat(rig.sentOnes).as("sentOne signals").isPositive();
    }

    /** A successful READ's bytes are in host memory where its SGEs point. */
    private static void checkReadData(Rig rig, Req r, String at) {
        int off = 0;
        for (int i = 0; i < r.sgeAddr.length; i++) {
            byte[] got = new byte[r.sgeLen[i]];
            rig.h.mem.read(rig.regionPa + (r.sgeAddr[i] - rig.regionVa), got, 0, got.length);
            byte[] want = java.util.Arrays.copyOfRange(r.remote, off, off + r.sgeLen[i]);
            assertThat(got).as(at + ": READ %d SGE %d data", r.index, i).isEqualTo(want);
            off += r.sgeLen[i];
        }
    }

    /** The CQEs in the ring, in report order, with their fields. */
    private static void checkCqRing(Rig rig) {
        byte[] b = new byte[Cqe.SIZE];
        for (int i = 0; i < rig.cqeFields.size(); i++) {
            long[] e = rig.cqeFields.get(i);
            rig.h.mem.read(rig.cq.ring + Cqe.entryOffset(i, rig.cq.logSize), b, 0, Cqe.SIZE);
            assertThat(Cqe.isSoftwareOwned(b, 0, i, rig.cq.logSize)).as("CQE %d written", i).isTrue();
            assertThat(Cqe.qpn(b, 0)).isEqualTo((int) e[0]);
            assertThat(Cqe.wqeCounter(b, 0)).isEqualTo((int) e[1]);
            if (e[2] != 0) {
                assertThat(Cqe.opcode(b, 0)).isEqualTo(Cqe.REQ_ERR);
                assertThat(Cqe.syndrome(b, 0)).isEqualTo((int) e[2]);
            } else {
                assertThat(Cqe.opcode(b, 0)).isEqualTo(Cqe.REQ);
                assertThat(Cqe.byteCount(b, 0)).isEqualTo((int) e[3]);
            }
        }
        rig.h.mem.read(rig.cq.ring + Cqe.entryOffset(rig.cqeFields.size(), rig.cq.logSize), b, 0, Cqe.SIZE);
        assertThat(Cqe.isSoftwareOwned(b, 0, rig.cqeFields.size(), rig.cq.logSize)).as("no CQE beyond those reported")
                .isFalse();
    }

    // ================================================================ focused cases

    /** A manual rig (window of two PSNs, ring of 8) whose one QP has posted three SENDs, run for 2 us: the third waits. */
    private static Rig threeSendsInAWindowOfTwo() {
        Rig rig = manualRig(2, 8);
        QpModel q = rig.models.get(0);
        for (int i = 0; i < 3; i++) {
            postSend(rig, q, true);
        }
        runFor(rig, 2_000 * PS_PER_NS);
        return rig;
    }

    /** A rig whose responder is the test itself: packets are recorded, answers are given by hand. */
    private static Rig manualRig(int maxUnacked, int outstanding) {
        SplittableRandom rnd = new SplittableRandom(99);
        var params = new RequesterTransport.Params(maxUnacked, 40_000 * PS_PER_NS, 3_000 * PS_PER_NS, 1, 1024);
        Rig rig = new Rig(99, rnd, params, 8, 4096);
        rig.manual = true;
        rig.addQp(5, outstanding, 100, 7, RequesterTransport.INFINITE_RNR_RETRY, 4, 16);
        return rig;
    }

    private static Req postSend(Rig rig, QpModel q, boolean signaled) {
        Req r = rig.script(q, WqeOpcode.SEND, 64, signaled, false, false);
        rig.post(q, r);
        return r;
    }

    private static void runFor(Rig rig, long ps) {
        rig.h.sim.runUntil(rig.h.sim.now() + ps);
    }

    private static List<Integer> psns(Rig rig) {
        return rig.packets.stream().map(Packet::psn).toList();
    }

    /** The test's responder answers by hand, through the rig's receive side (which keeps its model in step). */
    private static void answer(Rig rig, QpModel q, int psn, int syndrome) {
        rig.deliver(new Back(q, psn, syndrome, null, 0));
    }

    /**
     * A SEND's first copy is refused (RNR NAK) and a copy sent again at a timeout is accepted, so its ACK arrives
     * during the RNR wait, after the rewind. The ACK completes the SEND without resending it (were it resent and
     * the answer to the duplicate lost, timeouts would spend the retries on a request already acknowledged), and
     * with the ring empty the RNR wait is over: the next request goes out at once.
     */
    @Test
    void anAckDuringAnRnrWaitCompletesTheRewoundRequestAndEndsTheWait() {
        Rig rig = manualRig(16, 8);
        QpModel q = rig.models.get(0);
        Req a = postSend(rig, q, true);
        runFor(rig, 2_000 * PS_PER_NS);
        answer(rig, q, 100, Aeth.rnrNak(1));
        answer(rig, q, 100, Aeth.ack(0));
        Req b = postSend(rig, q, false);
        runFor(rig, 1_000 * PS_PER_NS); // less than the RNR delay
        assertThat(psns(rig)).as("the SEND is not resent; the next request goes out").containsExactly(100, 101);
        answer(rig, q, 101, Aeth.ack(0));
        runFor(rig, 400_000 * PS_PER_NS); // many ACK timeouts
        assertThat(q.qp.state()).as("acknowledged requests do not exhaust the retries").isEqualTo(QpState.READY_TO_SEND);
        assertThat(a.reported && b.reported).isTrue();
        assertThat(a.syndrome).isZero();
        assertThat(b.syndrome).isZero();
        assertThat(psns(rig)).containsExactly(100, 101);
        assertThat(rig.req.busyWith(q.qp)).isFalse();
        assertThat(q.qp.req.deadline()).isEqualTo(-1);
    }

    /**
     * RNR retries bound one stuck request, not the QP's life: with an RNR retry count of 1, each of three SENDs is
     * refused once and accepted when resent. The acknowledgement of each restores the count, so none fails; a
     * SEND refused twice in a row then exhausts it and fails with RNR_RETRY_EXC.
     */
    @Test
    void progressRestoresTheRnrRetries() {
        SplittableRandom rnd = new SplittableRandom(99);
        var params = new RequesterTransport.Params(16, 40_000 * PS_PER_NS, 3_000 * PS_PER_NS, 1, 1024);
        Rig rig = new Rig(99, rnd, params, 8, 4096);
        rig.manual = true;
        QpModel q = rig.addQp(5, 8, 100, 7, 1, 4, 16);
        Req[] sends = new Req[3];
        for (int i = 0; i < 3; i++) {
            sends[i] = postSend(rig, q, true);
            runFor(rig, 2_000 * PS_PER_NS);
            answer(rig, q, 100 + i, Aeth.rnrNak(1));
            runFor(rig, rig.params.rnrTimerPs() + 2_000 * PS_PER_NS);
            answer(rig, q, 100 + i, Aeth.ack(0));
            runFor(rig, 2_000 * PS_PER_NS);
            assertThat(q.qp.state()).as("SEND %d refused once", i).isEqualTo(QpState.READY_TO_SEND);
            assertThat(sends[i].reported).isTrue();
            assertThat(sends[i].syndrome).isZero();
        }
        Req last = postSend(rig, q, true);
        runFor(rig, 2_000 * PS_PER_NS);
        answer(rig, q, 103, Aeth.rnrNak(1));
        runFor(rig, rig.params.rnrTimerPs() + 2_000 * PS_PER_NS);
        answer(rig, q, 103, Aeth.rnrNak(1));
        runFor(rig, 2_000 * PS_PER_NS);
        assertThat(last.reported).isTrue();
        assertThat(last.syndrome).isEqualTo(CqeSyndrome.RNR_RETRY_EXC);
    }

    /**
     * A stale RNR NAK, for a PSN already acknowledged (a reordered or duplicated frame), arrives with nothing in
     * flight. The RNR wait it starts must end, or the QP never sends again.
     */
    @Test
    void aStaleRnrNakWithNothingInFlightDoesNotStallTheQp() {
        Rig rig = manualRig(16, 8);
        QpModel q = rig.models.get(0);
        postSend(rig, q, false);
        runFor(rig, 2_000 * PS_PER_NS);
        answer(rig, q, 100, Aeth.ack(0));
        answer(rig, q, 100, Aeth.rnrNak(1));
        runFor(rig, 100_000 * PS_PER_NS);
        Req b = postSend(rig, q, false);
        runFor(rig, 10_000 * PS_PER_NS);
        assertThat(psns(rig)).as("the next request is sent").containsExactly(100, 101);
        answer(rig, q, 101, Aeth.ack(0));
        runFor(rig, 100_000 * PS_PER_NS);
        assertThat(b.reported).isTrue();
        assertThat(rig.req.busyWith(q.qp)).isFalse();
        assertThat(q.qp.req.deadline()).isEqualTo(-1);
    }

    /**
     * An RNR NAK that also acknowledges earlier PSNs opens the window: the request waiting behind it must still
     * wait for the RNR delay rather than go out at once, ahead of the refused PSN it follows.
     */
    @Test
    void nothingLeavesDuringAnRnrWaitEvenWhenTheNakOpensTheWindow() {
        Rig rig = threeSendsInAWindowOfTwo();
        QpModel q = rig.models.get(0);
        assertThat(psns(rig)).as("two PSNs in the window").containsExactly(100, 101);
        long nakAt = rig.h.sim.now();
        answer(rig, q, 101, Aeth.rnrNak(1)); // 100 acknowledged, 101 refused
        runFor(rig, rig.params.rnrTimerPs() - 1);
        assertThat(psns(rig)).as("nothing during the RNR wait").containsExactly(100, 101);
        runFor(rig, 2_000 * PS_PER_NS);
        assertThat(psns(rig)).as("after it, from the refused PSN on").containsExactly(100, 101, 101, 102);
        assertThat(rig.h.sim.now()).isGreaterThan(nakAt + rig.params.rnrTimerPs());
    }

    /**
     * A QP fails with its ring full and more WQEs waiting upstream: the flush frees the ring, and the fetch engine
     * must hear of it (requeue), or the waiting WQEs are never parsed and never completed.
     */
    @Test
    void aFailureFlushTellsTheFetchEngineTheRingHasRoom() {
        Rig rig = manualRig(16, 2);
        QpModel q = rig.models.get(0);
        for (int i = 0; i < 5; i++) {
            rig.script(q, WqeOpcode.SEND, 64, true, false, false);
        }
        q.parseEvent.schedule(0);
        runFor(rig, 2_000 * PS_PER_NS);
        assertThat(q.posted).isEqualTo(2);
        assertThat(q.waitRoom).as("the parser waits for room in the ring").isTrue();
        answer(rig, q, 100, Aeth.nak(2)); // remote access error on the first
        runFor(rig, 100_000 * PS_PER_NS);
        assertThat(q.qp.state()).isEqualTo(QpState.ERROR);
        assertThat(q.posted).as("the WQEs behind were parsed after the flush").isEqualTo(5);
        assertThat(q.reqs).extracting(r -> r.syndrome).containsExactly(CqeSyndrome.REMOTE_ACCESS, CqeSyndrome.WR_FLUSH,
                CqeSyndrome.WR_FLUSH, CqeSyndrome.WR_FLUSH, CqeSyndrome.WR_FLUSH);
        assertThat(rig.req.busyWith(q.qp)).isFalse();
    }

    /**
     * A fenced SEND behind a READ waits until the READ's response has arrived and been written (each time its turn
     * comes it is counted as a fence wait), then goes out at once; the READ completes first, in order.
     */
    @Test
    void aFencedRequestWaitsForTheEarlierReadsResponse() {
        Rig rig = manualRig(16, 8);
        QpModel q = rig.models.get(0);
        Req read = rig.script(q, WqeOpcode.RDMA_READ, 100, true, false, false);
        rig.post(q, read);
        Req send = rig.script(q, WqeOpcode.SEND, 64, true, false, true);
        rig.post(q, send);
        runFor(rig, 20_000 * PS_PER_NS);
        assertThat(rig.req.busyWith(q.qp)).as("requests in flight").isTrue();
        assertThat(psns(rig)).as("the fenced SEND is held back").containsExactly(100);
        assertThat(BlockHarness.counter(rig.req, "fenceWaits")).isPositive();
        rig.back(new Back(q, 100, 0, read, 0), false);
        runFor(rig, 20_000 * PS_PER_NS);
        assertThat(psns(rig)).as("it leaves once the READ is complete").containsExactly(100, 101);
        assertThat(read.reported).isTrue();
        assertThat(read.syndrome).isZero();
        checkReadData(rig, read, "READ");
        answer(rig, q, 101, Aeth.ack(0));
        runFor(rig, 2_000 * PS_PER_NS);
        assertThat(send.reported).isTrue();
        assertThat(send.syndrome).isZero();
        assertThat(rig.req.busyWith(q.qp)).isFalse();
    }

    /** A fenced READ behind another READ waits for it, and then goes: it does not wait for itself. */
    @Test
    void aFencedReadWaitsForTheEarlierReadOnly() {
        Rig rig = manualRig(16, 8);
        QpModel q = rig.models.get(0);
        Req first = rig.script(q, WqeOpcode.RDMA_READ, 100, true, false, false);
        rig.post(q, first);
        Req second = rig.script(q, WqeOpcode.RDMA_READ, 200, true, false, true);
        rig.post(q, second);
        runFor(rig, 20_000 * PS_PER_NS);
        assertThat(psns(rig)).containsExactly(100);
        rig.back(new Back(q, 100, 0, first, 0), false);
        runFor(rig, 20_000 * PS_PER_NS);
        assertThat(psns(rig)).containsExactly(100, 101);
        rig.back(new Back(q, 101, 0, second, 0), false);
        runFor(rig, 20_000 * PS_PER_NS);
        assertThat(second.reported).isTrue();
        assertThat(second.syndrome).isZero();
        checkReadData(rig, second, "second READ");
    }

    /** Posting a request other than the ring's tail is a broken parser: an invariant violation, not a corrupt ring. */
    @Test
    void postingARequestThatIsNotTheRingsTailFailsLoudly() {
        Rig rig = manualRig(16, 8);
        QpModel q = rig.models.get(0);
        assertThatThrownBy(() -> rig.req.post(q.qp, new Wr(3, 256))).isInstanceOf(InvariantViolation.class);
    }

    /**
     * A WQE that failed validation, with requests before and after it in the ring: when its turn comes it fails with
     * its own syndrome, the request in flight before it and those after it complete flushed, and the QP goes to error.
     */
    @Test
    void aBadWqeInTheMiddleOfTheRingFailsItselfAndFlushesTheRest() {
        Rig rig = manualRig(16, 8);
        QpModel q = rig.models.get(0);
        rig.holdQueue = true;
        Req a = postSend(rig, q, false);
        Req bad = rig.script(q, WqeOpcode.SEND, 64, true, false, false);
        bad.badSyndrome = CqeSyndrome.LOCAL_LENGTH;
        rig.post(q, bad);
        Req c = postSend(rig, q, true);
        Req d = postSend(rig, q, true);
        rig.req.queue(q.qp);
        runFor(rig, 20_000 * PS_PER_NS);
        assertThat(psns(rig)).as("only the request before it left").containsExactly(100);
        assertThat(q.qp.state()).isEqualTo(QpState.ERROR);
        assertThat(List.of(a, bad, c, d)).extracting(r -> r.syndrome).containsExactly(CqeSyndrome.WR_FLUSH,
                CqeSyndrome.LOCAL_LENGTH, CqeSyndrome.WR_FLUSH, CqeSyndrome.WR_FLUSH);
        assertThat(q.recvFlushes).isEqualTo(1);
    }

    /** A QP connected with no outbound READs (initiator depth 0) fails a READ locally: LOCAL_QP_OP, the rest flushed. */
    @Test
    void aReadOnAQpWithoutOutboundReadsFailsLocally() {
        SplittableRandom rnd = new SplittableRandom(99);
        var params = new RequesterTransport.Params(16, 40_000 * PS_PER_NS, 3_000 * PS_PER_NS, 1, 1024);
        Rig rig = new Rig(99, rnd, params, 8, 4096);
        rig.manual = true;
        QpModel q = rig.addQp(5, 8, 100, 7, RequesterTransport.INFINITE_RNR_RETRY, 0, 16);
        rig.holdQueue = true;
        Req a = postSend(rig, q, true);
        Req read = rig.script(q, WqeOpcode.RDMA_READ, 100, true, false, false);
        rig.post(q, read);
        Req c = postSend(rig, q, true);
        rig.req.queue(q.qp);
        runFor(rig, 20_000 * PS_PER_NS);
        assertThat(psns(rig)).containsExactly(100);
        assertThat(q.qp.state()).isEqualTo(QpState.ERROR);
        assertThat(List.of(a, read, c)).extracting(r -> r.syndrome).containsExactly(CqeSyndrome.WR_FLUSH,
                CqeSyndrome.LOCAL_QP_OP, CqeSyndrome.WR_FLUSH);
    }

    /** An ACK naming the PSN after the last one assigned acknowledges nothing (it is stray); the right one does. */
    @Test
    void anAckForAPsnNeverAssignedIsIgnored() {
        Rig rig = manualRig(16, 8);
        QpModel q = rig.models.get(0);
        Req a = postSend(rig, q, true);
        runFor(rig, 2_000 * PS_PER_NS);
        rig.req.acknowledge(q.qp, 101);
        runFor(rig, 2_000 * PS_PER_NS);
        assertThat(a.reported).as("not acknowledged by a stray ACK").isFalse();
        assertThat(q.qp.req.unackedPsn()).isEqualTo(100);
        answer(rig, q, 100, Aeth.ack(0));
        runFor(rig, 2_000 * PS_PER_NS);
        assertThat(a.reported).isTrue();
        assertThat(a.syndrome).isZero();
    }

    /**
     * An RNR NAK arrives while an earlier WQE that failed validation waits behind the refused SEND, and an ACK for
     * the SEND comes during the RNR wait: the ACK retires the SEND but not the bad WQE, which fails the QP when its
     * turn comes (its own syndrome, the request after it flushed) instead of completing as if it had been sent.
     */
    @Test
    void anAckDuringAnRnrWaitStopsAtABadWqeNotYetSent() {
        Rig rig = manualRig(16, 8);
        QpModel q = rig.models.get(0);
        Req a = postSend(rig, q, false);
        runFor(rig, 2_000 * PS_PER_NS);
        answer(rig, q, 100, Aeth.rnrNak(1));
        Req bad = rig.script(q, WqeOpcode.SEND, 64, true, false, false);
        bad.badSyndrome = CqeSyndrome.LOCAL_LENGTH;
        rig.post(q, bad);
        Req c = postSend(rig, q, true);
        answer(rig, q, 100, Aeth.ack(0));
        assertThat(a.reported).isTrue();
        assertThat(bad.reported).as("the bad WQE waits for its turn").isFalse();
        runFor(rig, 100_000 * PS_PER_NS);
        assertThat(a.syndrome).isZero();
        assertThat(bad.syndrome).isEqualTo(CqeSyndrome.LOCAL_LENGTH);
        assertThat(c.syndrome).isEqualTo(CqeSyndrome.WR_FLUSH);
        assertThat(q.qp.state()).isEqualTo(QpState.ERROR);
        assertThat(psns(rig)).as("nothing after the refused SEND left").containsExactly(100);
    }

    /**
     * A READ's response is lost and the SEND after it is refused (RNR NAK): the NAK acknowledges the READ's PSN, but
     * an acknowledgement never covers READ data that has not arrived, so the timeout goes back to the READ and asks
     * for it again, not only for the SEND.
     */
    @Test
    void anRnrNakAfterAReadWhoseResponseWasLostDoesNotAcknowledgeTheRead() {
        Rig rig = manualRig(16, 8);
        QpModel q = rig.models.get(0);
        Req read = rig.script(q, WqeOpcode.RDMA_READ, 100, true, false, false);
        rig.post(q, read);
        Req send = postSend(rig, q, true);
        runFor(rig, 2_000 * PS_PER_NS);
        assertThat(psns(rig)).containsExactly(100, 101);
        answer(rig, q, 101, Aeth.rnrNak(1));
        assertThat(q.qp.req.unackedPsn()).as("the READ is not acknowledged").isEqualTo(100);
        runFor(rig, rig.params.rnrTimerPs() + 2_000 * PS_PER_NS);
        assertThat(psns(rig)).as("the SEND again after the RNR delay").containsExactly(100, 101, 101);
        runFor(rig, rig.params.ackTimeoutPs());
        assertThat(BlockHarness.counter(rig.req, "timeouts")).isEqualTo(1);
        assertThat(psns(rig)).as("the timeout goes back to the READ").containsExactly(100, 101, 101, 100, 101);
        rig.back(new Back(q, 100, 0, read, 0), false);
        answer(rig, q, 101, Aeth.ack(0));
        runFor(rig, 20_000 * PS_PER_NS);
        assertThat(read.reported && send.reported).isTrue();
        assertThat(read.syndrome).isZero();
        assertThat(send.syndrome).isZero();
        checkReadData(rig, read, "READ");
    }

    /**
     * A READ's response lost, the next READ's and a SEND's fine: a sequence NAK for the PSN just after the first READ
     * (the responder executed it; its response is on the way) resends from that PSN only, and does not ask the READ
     * before it again.
     */
    @Test
    void aSequenceNakJustAfterAReadDoesNotAskTheReadAgain() {
        Rig rig = manualRig(16, 8);
        QpModel q = rig.models.get(0);
        Req read = rig.script(q, WqeOpcode.RDMA_READ, 100, true, false, false);
        rig.post(q, read);
        Req s1 = postSend(rig, q, true);
        Req s2 = postSend(rig, q, true);
        runFor(rig, 2_000 * PS_PER_NS);
        assertThat(psns(rig)).containsExactly(100, 101, 102);
        answer(rig, q, 101, Aeth.nak(0));
        runFor(rig, 2_000 * PS_PER_NS);
        assertThat(psns(rig)).containsExactly(100, 101, 102, 101, 102);
        rig.back(new Back(q, 100, 0, read, 0), false);
        answer(rig, q, 102, Aeth.ack(0));
        runFor(rig, 20_000 * PS_PER_NS);
        assertThat(List.of(read, s1, s2)).extracting(r -> r.syndrome).containsOnly(0);
        assertThat(BlockHarness.counter(rig.req, "timeouts")).isZero();
    }

    /** An ACK that retires a request restarts the timer for the rest: no timeout while ACKs keep coming. */
    @Test
    void anAckThatMakesProgressRestartsTheTimer() {
        Rig rig = manualRig(16, 8);
        QpModel q = rig.models.get(0);
        Req a = postSend(rig, q, true);
        Req b = postSend(rig, q, true);
        long timeout = rig.params.ackTimeoutPs();
        runFor(rig, timeout * 3 / 4);
        answer(rig, q, 100, Aeth.ack(0));
        runFor(rig, timeout / 2);
        assertThat(a.reported).isTrue();
        assertThat(BlockHarness.counter(rig.req, "timeouts")).as("the timer restarted at the ACK").isZero();
        assertThat(psns(rig)).containsExactly(100, 101);
        runFor(rig, timeout);
        assertThat(BlockHarness.counter(rig.req, "timeouts")).as("and expires a timeout after it").isEqualTo(1);
        assertThat(psns(rig)).containsExactly(100, 101, 101);
        assertThat(b.reported).isFalse();
    }

    /** A READ whose responses trickle in, each within the timeout of the one before: each restarts the timer. */
    @Test
    void readResponsesInOrderRestartTheTimer() {
        Rig rig = manualRig(16, 8);
        QpModel q = rig.models.get(0);
        Req read = rig.script(q, WqeOpcode.RDMA_READ, 4 * 1024, true, false, false);
        rig.post(q, read);
        long step = rig.params.ackTimeoutPs() * 3 / 4;
        for (int k = 0; k < 4; k++) {
            runFor(rig, step);
            rig.back(new Back(q, 100 + k, 0, read, k), false);
        }
        runFor(rig, 20_000 * PS_PER_NS);
        assertThat(BlockHarness.counter(rig.req, "timeouts")).isZero();
        assertThat(psns(rig)).as("asked once").containsExactly(100);
        assertThat(read.reported).isTrue();
        assertThat(read.syndrome).isZero();
        checkReadData(rig, read, "READ");
    }

    /** A zero-length READ: its one empty response completes it at once, and the frame goes back to its pool. */
    @Test
    void aZeroLengthReadCompletesOnItsEmptyResponse() {
        Rig rig = manualRig(16, 8);
        QpModel q = rig.models.get(0);
        Req read = rig.script(q, WqeOpcode.RDMA_READ, 0, true, false, false);
        rig.post(q, read);
        runFor(rig, 2_000 * PS_PER_NS);
        rig.back(new Back(q, 100, 0, read, 0), false);
        runFor(rig, 5_000 * PS_PER_NS);
        assertThat(read.reported).isTrue();
        assertThat(read.syndrome).isZero();
        assertThat(BlockHarness.counter(rig.req, "timeouts")).isZero();
        assertThat(rig.frames.freeBuffers()).isEqualTo(rig.frames.bufferCount());
        assertThat(rig.req.busyWith(q.qp)).isFalse();
    }

    /**
     * A sequence NAK acknowledges the PSNs before the one it names: the request before completes at once, and only
     * the named one is sent again.
     */
    @Test
    void aSequenceNakAcknowledgesTheRequestsBeforeIt() {
        Rig rig = manualRig(16, 8);
        QpModel q = rig.models.get(0);
        Req a = postSend(rig, q, false);
        Req b = postSend(rig, q, true);
        runFor(rig, 2_000 * PS_PER_NS);
        answer(rig, q, 101, Aeth.nak(0));
        assertThat(a.reported).isTrue();
        assertThat(a.syndrome).isZero();
        runFor(rig, 2_000 * PS_PER_NS);
        assertThat(psns(rig)).containsExactly(100, 101, 101);
        assertThat(b.reported).isFalse();
    }

    /** A remote-access NAK acknowledges the PSNs before it too: the request before succeeds, the named one fails. */
    @Test
    void aRemoteAccessNakAcknowledgesTheRequestsBeforeIt() {
        Rig rig = manualRig(16, 8);
        QpModel q = rig.models.get(0);
        Req a = postSend(rig, q, true);
        Req b = postSend(rig, q, true);
        runFor(rig, 2_000 * PS_PER_NS);
        answer(rig, q, 101, Aeth.nak(2));
        runFor(rig, 2_000 * PS_PER_NS);
        assertThat(a.syndrome).isZero();
        assertThat(b.syndrome).isEqualTo(CqeSyndrome.REMOTE_ACCESS);
        assertThat(q.qp.state()).isEqualTo(QpState.ERROR);
    }

    /**
     * A remote-access NAK naming a PSN no request in the ring holds any more (it was acknowledged) still fails the
     * QP, whose responder side is in error: the oldest request takes the error.
     */
    @Test
    void aFatalNakForAPsnAlreadyRetiredFailsTheOldestRequest() {
        Rig rig = manualRig(16, 8);
        QpModel q = rig.models.get(0);
        Req a = postSend(rig, q, true);
        runFor(rig, 2_000 * PS_PER_NS);
        answer(rig, q, 100, Aeth.ack(0));
        Req b = postSend(rig, q, true);
        runFor(rig, 2_000 * PS_PER_NS);
        assertThat(a.syndrome).isZero();
        answer(rig, q, 100, Aeth.nak(2));
        runFor(rig, 2_000 * PS_PER_NS);
        assertThat(b.syndrome).isEqualTo(CqeSyndrome.REMOTE_ACCESS);
        assertThat(q.qp.state()).isEqualTo(QpState.ERROR);
    }

    /** The transport's bound named {@code name}. */
    private static Bound bound(Rig rig, String name) {
        return rig.req.stats().bounds().stream().filter(b -> b.fractionName().equals(name + "FullFraction")).findFirst().orElseThrow();
    }

    /**
     * Three SENDs with a window of two PSNs: the third waits for the window, and the QP counts as at the window's
     * limit. A remote-access NAK for the first fails the QP at once: the QP leaves the limit and its timer stops then,
     * not when something next looks at it. The ring tells the fetch engine how much room it has throughout.
     */
    @Test
    void aFailedQpLeavesItsWindowWaitAndStopsItsTimerAtOnce() {
        Rig rig = threeSendsInAWindowOfTwo();
        QpModel q = rig.models.get(0);
        assertThat(psns(rig)).containsExactly(100, 101);
        assertThat(q.qp.req.inFlight()).isEqualTo(3);
        assertThat(q.qp.req.room()).as("of a ring of 8").isEqualTo(5);
        assertThat(q.qp.req.retriesLeft()).isEqualTo(7);
        assertThat(q.qp.req.retireQueued()).isFalse();
        assertThat(bound(rig, "psnWindow").full()).as("the third SEND waits for the window").isTrue();
        assertThat(q.qp.req.deadline()).as("timer running").isPositive();
        answer(rig, q, 100, Aeth.nak(2));
        assertThat(q.qp.state()).isEqualTo(QpState.ERROR);
        assertThat(bound(rig, "psnWindow").full()).as("a failed QP waits for no window").isFalse();
        assertThat(q.qp.req.deadline()).as("timer stopped").isEqualTo(-1);
        assertThat(q.qp.req.inFlight()).isZero();
        assertThat(q.qp.req.room()).isEqualTo(8);
        runFor(rig, 100_000 * PS_PER_NS);
        assertThat(q.reqs).extracting(r -> r.syndrome).containsExactly(CqeSyndrome.REMOTE_ACCESS, CqeSyndrome.WR_FLUSH,
                CqeSyndrome.WR_FLUSH);
        assertThat(BlockHarness.counter(rig.req, "timeouts")).isZero();
    }

    /**
     * The same waiting QP moved to error from outside (as the firmware does on a modify to ERROR, then queueing it):
     * it is flushed at once, leaves the window's limit and stops its timer.
     */
    @Test
    void aQpMovedToErrorLeavesItsWindowWaitAndStopsItsTimerWhenFlushed() {
        Rig rig = threeSendsInAWindowOfTwo();
        QpModel q = rig.models.get(0);
        assertThat(bound(rig, "psnWindow").full()).isTrue();
        q.qp.moveTo(QpState.ERROR);
        rig.req.queue(q.qp);
        assertThat(bound(rig, "psnWindow").full()).isFalse();
        assertThat(q.qp.req.deadline()).isEqualTo(-1);
        runFor(rig, 100_000 * PS_PER_NS);
        assertThat(q.reqs).extracting(r -> r.syndrome).containsOnly(CqeSyndrome.WR_FLUSH).hasSize(3);
        assertThat(rig.req.busyWith(q.qp)).isFalse();
    }

    /**
     * The timer restarts, a full timeout ahead, the instant a timeout rewinds the QP and the instant an RNR wait ends,
     * as the resent packet is handed on; not later, when that packet leaves. Each timeout takes a retry.
     */
    @Test
    void aTimeoutAndTheEndOfAnRnrWaitRestartTheTimerAtOnce() {
        Rig rig = manualRig(16, 8);
        QpModel q = rig.models.get(0);
        long timeout = rig.params.ackTimeoutPs();
        postSend(rig, q, true);
        runFor(rig, 2_000 * PS_PER_NS);
        long first = q.qp.req.deadline();
        assertThat(first).isPositive();
        rig.h.sim.runUntil(first);
        assertThat(BlockHarness.counter(rig.req, "timeouts")).isEqualTo(1);
        assertThat(psns(rig)).as("resent at once").containsExactly(100, 100);
        assertThat(q.qp.req.deadline()).as("restarted as it rewound").isEqualTo(first + timeout);
        assertThat(q.qp.req.retriesLeft()).isEqualTo(6);
        runFor(rig, 2_000 * PS_PER_NS);
        answer(rig, q, 100, Aeth.rnrNak(1));
        long rnrEnd = q.qp.req.deadline();
        assertThat(rnrEnd).as("the RNR delay").isEqualTo(rig.h.sim.now() + rig.params.rnrTimerPs());
        rig.h.sim.runUntil(rnrEnd);
        assertThat(psns(rig)).as("resent when the wait ends").containsExactly(100, 100, 100);
        assertThat(q.qp.req.deadline()).as("restarted as the wait ended").isEqualTo(rnrEnd + timeout);
        assertThat(BlockHarness.counter(rig.req, "timeouts")).isEqualTo(1);
        answer(rig, q, 100, Aeth.ack(0));
        runFor(rig, 2_000 * PS_PER_NS);
        assertThat(q.reqs.get(0).reported).isTrue();
        assertThat(q.qp.req.retriesLeft()).as("given back by progress").isEqualTo(7);
    }

    /**
     * One ACK for twelve signaled SENDs: the CQE writer takes as many completions as it has room for, and the rest
     * of the retirements wait for its room, the QP flagged as waiting; they complete in order as room comes.
     */
    @Test
    void retirementsWaitForCqeRoomAndTheQpSaysSo() {
        Rig rig = manualRig(16, 16);
        QpModel q = rig.models.get(0);
        for (int i = 0; i < 12; i++) {
            postSend(rig, q, true);
        }
        runFor(rig, 20_000 * PS_PER_NS);
        assertThat(psns(rig)).hasSize(12);
        assertThat(q.qp.req.retireQueued()).isFalse();
        answer(rig, q, 111, Aeth.ack(0));
        assertThat(q.qp.req.retireQueued()).as("completions beyond the CQE writer's room wait").isTrue();
        assertThat(q.qp.req.inFlight()).as("the requests whose completion waits").isPositive().isLessThan(12);
        assertThat(rig.req.busyWith(q.qp)).isTrue();
        runFor(rig, 100_000 * PS_PER_NS);
        assertThat(q.qp.req.retireQueued()).isFalse();
        assertThat(q.qp.req.inFlight()).isZero();
        assertThat(q.reqs).allMatch(r -> r.reported && r.syndrome == 0);
        assertThat(rig.req.busyWith(q.qp)).isFalse();
    }

    /** Other QPs (from 40 on) post SENDs until every slot of the stand-in transmitter is taken: no QP gets a turn. */
    private static void takeEverySlot(Rig rig) {
        int qpn = 40 + rig.models.size();
        while (rig.slotsUsed < rig.slots) {
            QpModel other = rig.addQp(qpn++, 8, 1000, 7, RequesterTransport.INFINITE_RNR_RETRY, 4, 16);
            postSend(rig, other, false);
            postSend(rig, other, false);
        }
    }

    /**
     * A SEND waits for the PSN window; while every transmit slot is taken (so the QP gets no turn), an ACK that opens
     * the window, or a sequence NAK that rewinds the QP, ends the wait at once: the window's limit is no longer
     * counted from that instant, not from the QP's next turn.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void anAckOpeningTheWindowOrARewindEndsTheWindowWaitAtOnce(boolean rewind) {
        Rig rig = threeSendsInAWindowOfTwo();
        QpModel q = rig.models.get(0);
        assertThat(psns(rig)).containsExactly(100, 101);
        Bound window = bound(rig, "psnWindow");
        assertThat(window.full()).isTrue();
        takeEverySlot(rig);
        long before = rig.packets.size();
        long fullSince = window.fullTimePs();
        answer(rig, q, 100, rewind ? Aeth.nak(0) : Aeth.ack(0));
        assertThat(rig.packets).as("no turn: every slot is taken").hasSize((int) before);
        assertThat(window.full()).as("the wait is over").isFalse();
        assertThat(window.fullTimePs()).as("counted until the ACK or NAK").isEqualTo(fullSince);
        runFor(rig, 5_000 * PS_PER_NS);
        if (rewind) {
            assertThat(psns(rig)).as("sent again from the PSN named").containsSubsequence(100, 101, 100, 101);
        } else {
            assertThat(window.full()).isFalse();
            assertThat(window.fullTimePs()).isEqualTo(fullSince);
            assertThat(psns(rig)).contains(102);
        }
    }

    /**
     * A second READ waits for the QP's one outbound READ slot; the first READ's last response, taken while every
     * transmit slot is taken, frees the slot at once: the READ limit is no longer counted from that instant.
     */
    @Test
    void theLastResponseOfAReadEndsTheReadLimitWaitAtOnce() {
        SplittableRandom rnd = new SplittableRandom(98);
        var params = new RequesterTransport.Params(16, 40_000 * PS_PER_NS, 3_000 * PS_PER_NS, 1, 1024);
        Rig rig = new Rig(98, rnd, params, 8, 4096);
        rig.manual = true;
        QpModel q = rig.addQp(5, 8, 100, 7, RequesterTransport.INFINITE_RNR_RETRY, 1, 16);
        Req first = rig.script(q, WqeOpcode.RDMA_READ, 2 * 1024, true, false, false);
        rig.post(q, first);
        Req second = rig.script(q, WqeOpcode.RDMA_READ, 100, true, false, false);
        rig.post(q, second);
        runFor(rig, 2_000 * PS_PER_NS);
        assertThat(psns(rig)).containsExactly(100);
        Bound ord = bound(rig, "ord");
        assertThat(ord.full()).isTrue();
        rig.back(new Back(q, 100, 0, first, 0), false);
        runFor(rig, 20_000 * PS_PER_NS);
        assertThat(first.accepted).isEqualTo(1);
        takeEverySlot(rig);
        long fullSince = ord.fullTimePs();
        rig.backQueue.add(new Back(q, 101, 0, first, 1));
        rig.backStep();
        assertThat(first.accepted).as("the last response taken at once").isEqualTo(2);
        assertThat(ord.full()).as("the READ slot is free").isFalse();
        runFor(rig, 5_000 * PS_PER_NS);
        assertThat(ord.fullTimePs()).isEqualTo(fullSince);
        assertThat(psns(rig)).contains(102);
    }
}
