package dev.rdmasim.adapter.nic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.cache.SetAssocCache;
import dev.rdmasim.adapter.format.AccessFlags;
import dev.rdmasim.adapter.format.WqeOpcode;
import dev.rdmasim.adapter.nic.BlockHarness.Region;
import dev.rdmasim.adapter.transport.Position;
import dev.rdmasim.adapter.transport.Psn;
import dev.rdmasim.adapter.transport.RequestKind;
import dev.rdmasim.adapter.wire.Aeth;
import dev.rdmasim.adapter.wire.EthernetLink;
import dev.rdmasim.adapter.wire.Frame;
import dev.rdmasim.adapter.wire.FrameCheck;
import dev.rdmasim.adapter.wire.Opcode;
import dev.rdmasim.adapter.wire.RoceLayout;
import dev.rdmasim.adapter.wire.RoceReader;
import dev.rdmasim.adapter.wire.RoceWriter;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.tlm.Acceptor;
import dev.rdmasim.kernel.wave.SignalFilter;
import dev.rdmasim.kernel.wave.VcdWriter;
import java.io.StringWriter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The transmitter alone. The send scheduler is the real one; a stand-in requester transport takes each QP's turn
 * and has request packets built and committed (SEND, WRITE, READ requests, gathered from host memory through the
 * real key unit or copied inline); a stand-in responder owes ACKs and holds inbound READs whose responses are read
 * from host memory; a sink at the far end of the link decodes every frame with the RoCEv2 reader, refuses some
 * deliveries and holds frame buffers for random times, so the transmitter meets link-buffer backpressure.
 *
 * <p>Scoreboard: every packet whose slot was taken is emitted exactly once, in slot order, as a valid RoCEv2 frame
 * with its fields (opcode, QP, PSN, flags, RETH, AETH, immediate) and its payload equal to host memory at the
 * packet's offset; request packets of a QP go out in PSN order and the requester hears of each as it leaves;
 * every inbound READ is answered once, in order, after its last response; frames start at least the packetizer's
 * cycles apart; nothing is left queued at the end.
 */
class TransmitterTest {
    private static final int MAX_KEYS = 16;
    private static final long MAC = 0x02_00_00_00_00_0AL;
    private static final int IP = 0x0A00_0001;
    private static final long NIC_CYCLE_PS = 1_000_000_000_000L / BlockHarness.NIC_HZ;
    private static final int KIND_REQUEST = 0;
    private static final int KIND_ACK = 1;
    private static final int KIND_READ_RESPONSE = 2;

    /** A packet as its slot was taken: what the frame must say. */
    private static final class Packet {
        int kind;
        Qp qp;
        int opcode;
        int psn;
        boolean ackRequest;
        boolean solicited;
        int immediate;
        long rethVa;
        int rethKey;
        int rethLength;
        int syndrome;
        int msn;
        byte[] payload;
        long sentPs = -1;
        /** A request packet's message and its index in it. */
        Wr wr;
        int k;
        long arrivedPs = -1;

        @Override
        public String toString() {
            return "kind " + kind + " QP " + qp.qpn + " opcode " + opcode + " PSN " + psn;
        }
    }

    /** An inbound READ the stand-in responder holds. */
    private static final class InRead {
        long va;
        int rkey;
        long length;
        int psn;
        int packets;
        int built;
    }

    /** One QP as the stand-ins see it. */
    private static final class QpState {
        final Qp qp;
        final ArrayDeque<Wr> posted = new ArrayDeque<>();
        Wr current;
        int k;
        int nextPsn;
        int ackSyndrome = Aeth.ack(Aeth.CREDITS_INVALID);
        final List<InRead> reads = new ArrayList<>();
        int ird;
        int answered;
        boolean windowClosed;

        QpState(Qp qp) {
            this.qp = qp;
        }
    }

    private static final class Rig implements SendScheduler.Requester, ResponderReplies, Transmitter.Requests,
            Acceptor<Frame> {
        final SplittableRandom rnd;
        final BlockHarness h;
        final KeyUnit keys;
        final SendScheduler scheduler;
        final Transmitter tx;
        final EthernetLink link;
        final int mtu;
        final int packetCycles;
        final int maxSge;
        final int maxInline;
        final List<Region> regions = new ArrayList<>();
        final Map<Integer, QpState> states = new HashMap<>();
        final Map<Integer, QpState> byRemote = new HashMap<>();
        /** Packets in the order their slots were taken; {@code seen} of them have arrived at the sink. */
        final List<Packet> taken = new ArrayList<>();
        final ArrayDeque<Packet> requestsUnsent = new ArrayDeque<>();
        int seen;
        final RoceReader reader = new RoceReader();
        final ArrayDeque<Frame> heldFrames = new ArrayDeque<>();
        final Event releaseFrame;
        final Event retryDelivery;
        long lastStartPs = Long.MIN_VALUE;
        int refusals;
        /** Times the transmitter told its first listener (QP1) that a link buffer freed. */
        int bufferFrees;
        int keyWaits;
        int acksTaken;
        /** Chance in 16 that the sink refuses a delivery (0: never), and the most it holds a frame's buffer (ps). */
        int refuseIn16;
        /** Chance in 12 that a QP's turn finds its window closed for a while. */
        int windowClosesIn12 = 1;
        long holdMax = 2_000_000;
        /** Key checks the stand-in requester saw fail, as "k=packet st=status", when {@link #allowKeyErrors} is set. */
        final List<String> keyErrors = new ArrayList<>();
        boolean allowKeyErrors;
        final StringWriter wave = new StringWriter();
        VcdWriter vcd;

        /** A transmitter of {@code slots} slots and the given MTU, sending from {@code buffers} link buffers. */
        Rig(long seed, SplittableRandom rnd, int slots, int mtu, int buffers) {
            this(seed, rnd, slots, mtu, buffers, 0);
        }

        /** As above, with {@code sges} SGEs a message at most (0: 1 to 4, at random). */
        Rig(long seed, SplittableRandom rnd, int slots, int mtu, int buffers, int sges) {
            this(seed, rnd, slots, mtu, buffers, sges, 0);
        }

        /** As above, with {@code pipelineCycles} of packetizer pipeline after each frame's booking. */
        Rig(long seed, SplittableRandom rnd, int slots, int mtu, int buffers, int sges, int pipelineCycles) {
            this(seed, rnd, slots, mtu, buffers, sges, pipelineCycles, null);
        }

        /** As above, with the signals {@code traced} selects written to {@link #wave} (null: no waveform). */
        Rig(long seed, SplittableRandom rnd, int slots, int mtu, int buffers, int sges, int pipelineCycles,
                SignalFilter traced) {
            this.rnd = rnd;
            h = new BlockHarness(seed, BlockHarness.randomPcie(rnd));
            if (traced != null) {
                vcd = new VcdWriter(wave, h.sim::now, traced);
                h.sim.attachWave(vcd);
            }
            this.mtu = mtu;
            // A 400 Gb/s line sends the largest frame within the packetizer's cycles: frames start when it says.
            packetCycles = 48 + rnd.nextInt(32);
            maxSge = sges > 0 ? sges : 1 + rnd.nextInt(4);
            maxInline = 64 << rnd.nextInt(3);
            link = EthernetLink.cable(h.sim, "wire", new EthernetLink.Config(400, rnd.nextLong(100_000), buffers));
            long ctx = h.mem.allocate((long) MAX_KEYS * KeyUnit.CONTEXT_BYTES, 4096);
            keys = new KeyUnit(h.top, new KeyUnit.Params(MAX_KEYS, 4 * (1 + rnd.nextInt(3)), 4, 8 * (1 + rnd.nextInt(4)), 8,
                    SetAssocCache.Policy.LRU), h.mem, ctx, h.port("keyFill", 16, KeyUnit.MAX_FILLS), h.work);
            scheduler = new SendScheduler(h);
            tx = new Transmitter(h.top, new Transmitter.Params(slots, Transmitter.Params.pieces(maxSge, mtu), packetCycles, mtu,
                    pipelineCycles),
                    h.clock, h.work, h, keys, h.link.dma().addChannel("payload", 1 + rnd.nextInt(16)), this, scheduler, MAC, IP);
            scheduler.connect(this);
            tx.connect(this, () -> bufferFrees++);
            tx.attach(link.a());
            keys.addWaiter(tx::pump);
            link.b().connectReceiver(this);
            releaseFrame = h.sim.event("sink.release", this::releaseOne);
            retryDelivery = h.sim.event("sink.retry", () -> link.b().retryDelivery());
            for (int r = 0; r < 3; r++) {
                register(r + 1, 12 + rnd.nextInt(2), 4096L * (4 + rnd.nextInt(12))); // more than 3 MTUs
            }
        }

        /** Registers a region at a page-unaligned VA over scattered pages of random bytes, for local and remote reads. */
        void register(int index, int logPage, long length) {
            long va = (0x7f00_0000_0000L + rnd.nextLong(1L << 30)) & -8L;
            regions.add(h.registerScattered(keys, rnd, index << 8 | (0x11 * index), 1, AccessFlags.REMOTE_READ, logPage,
                    va, length, () -> rnd.nextBoolean() ? 1 + rnd.nextInt(3) : 0, null));
        }

        QpState addQp(int qpn) {
            Qp qp = h.addQp(qpn, 4, 4, 1, 0, maxSge, maxInline);
            qp.remoteQpn = 0x100 + qpn * 3;
            qp.peerMac = 0x02_00_00_00_01_00L + qpn;
            qp.peerIp = 0x0A00_0100 + qpn;
            QpState q = new QpState(qp);
            q.nextPsn = rnd.nextInt(1 << 24);
            q.ird = 1 + rnd.nextInt(4);
            qp.resp.transport().reset(rnd.nextInt(1 << 24), true, true);
            states.put(qpn, q);
            byRemote.put(qp.remoteQpn, q);
            return q;
        }

        QpState state(Qp qp) {
            return states.get(qp.qpn);
        }

        /** The bytes of [va, va + len) of the region holding them, from host memory. */
        byte[] bytes(long va, int len) {
            byte[] out = new byte[len];
            for (Region r : regions) {
                if (va >= r.va() && va + len <= r.va() + r.length()) {
                    for (int i = 0; i < len; i++) {
                        out[i] = h.mem.getByte(r.pa(va + i));
                    }
                    return out;
                }
            }
            throw new AssertionError("no region holds " + Long.toHexString(va) + "+" + len);
        }

        /** A range of {@code len} bytes inside a random region: {va, key}. */
        long[] range(long len) {
            Region r = regions.get(rnd.nextInt(regions.size()));
            return new long[] {r.va() + rnd.nextLong(r.length() - len + 1), r.key()};
        }

        // ------------------------------------------------------------ the stand-in requester transport

        /** Posts a random message to the QP: SEND or WRITE (with or without immediate, gathered or inline) or READ. */
        void post(QpState q) {
            Wr w = new Wr(maxSge, maxInline);
            w.clear();
            int[] ops = {WqeOpcode.SEND, WqeOpcode.SEND_IMM, WqeOpcode.RDMA_WRITE, WqeOpcode.RDMA_WRITE_IMM, WqeOpcode.RDMA_READ};
            w.opcode = ops[rnd.nextInt(ops.length)];
            long len = rnd.nextInt(6) == 0 ? 0 : 1 + rnd.nextInt(rnd.nextBoolean() ? 3 * mtu : 200);
            w.length = len;
            w.solicited = rnd.nextBoolean();
            w.immediate = rnd.nextInt();
            w.remoteAddress = rnd.nextLong(1L << 48);
            w.rkey = rnd.nextInt();
            if (w.opcode != WqeOpcode.RDMA_READ && len > 0 && len <= maxInline && rnd.nextInt(3) == 0) {
                w.inline = true;
                for (int i = 0; i < len; i++) {
                    w.inlineData[i] = (byte) rnd.nextInt();
                }
            } else if (len > 0) {
                // Split the message over 1..maxSge SGEs, each inside one region.
                int n = (int) Math.min(len, 1 + rnd.nextInt(maxSge));
                long left = len;
                for (int i = 0; i < n; i++) {
                    long l = i == n - 1 ? left : 1 + rnd.nextLong(left - (n - 1 - i));
                    long[] at = range(l);
                    w.sgeAddr[i] = at[0];
                    w.sgeLen[i] = (int) l;
                    w.sgeKey[i] = (int) at[1];
                    left -= l;
                }
                w.sgeCount = n;
            }
            w.packets = (int) Math.max(1, (len + mtu - 1) / mtu);
            w.firstPsn = q.nextPsn;
            q.nextPsn = Psn.add(q.nextPsn, w.packets);
            q.posted.add(w);
            scheduler.add(q.qp);
            tx.pump();
        }

        /** The message bytes [off, off + len) of {@code w}, from its inline data or its SGEs in host memory. */
        byte[] message(Wr w, int off, int len) {
            if (w.inline) {
                return Arrays.copyOfRange(w.inlineData, off, off + len);
            }
            byte[] out = new byte[len];
            long pos = 0;
            for (int i = 0; i < w.sgeCount; i++) {
                long a = Math.max(off, pos);
                long b = Math.min(off + len, pos + w.sgeLen[i]);
                if (a < b) {
                    System.arraycopy(bytes(w.sgeAddr[i] + (a - pos), (int) (b - a)), 0, out, (int) (a - off), (int) (b - a));
                }
                pos += w.sgeLen[i];
            }
            return out;
        }

        static int requestOpcode(Wr w, int k) {
            boolean first = k == 0;
            boolean last = k == w.packets - 1;
            return switch (w.opcode) {
                case WqeOpcode.RDMA_READ -> Opcode.RDMA_READ_REQUEST;
                case WqeOpcode.RDMA_WRITE -> first && last ? Opcode.RDMA_WRITE_ONLY : first ? Opcode.RDMA_WRITE_FIRST
                        : last ? Opcode.RDMA_WRITE_LAST : Opcode.RDMA_WRITE_MIDDLE;
                case WqeOpcode.RDMA_WRITE_IMM -> first && last ? Opcode.RDMA_WRITE_ONLY_IMM : first ? Opcode.RDMA_WRITE_FIRST
                        : last ? Opcode.RDMA_WRITE_LAST_IMM : Opcode.RDMA_WRITE_MIDDLE;
                case WqeOpcode.SEND -> first && last ? Opcode.SEND_ONLY : first ? Opcode.SEND_FIRST
                        : last ? Opcode.SEND_LAST : Opcode.SEND_MIDDLE;
                default -> first && last ? Opcode.SEND_ONLY_IMM : first ? Opcode.SEND_FIRST
                        : last ? Opcode.SEND_LAST_IMM : Opcode.SEND_MIDDLE;
            };
        }

        @Override
        public int nextRequestPacket(Qp qp) {
            QpState q = state(qp);
            if (q.windowClosed) {
                return 0;
            }
            if (q.current == null) {
                q.current = q.posted.poll();
                q.k = 0;
                if (q.current == null) {
                    return 0;
                }
            }
            if (rnd.nextInt(12) < windowClosesIn12) {
                // The window is full for now: the QP leaves the round until an ACK opens it.
                q.windowClosed = true;
                h.sim.event("window" + qp.qpn, () -> {
                    q.windowClosed = false;
                    scheduler.add(qp);
                    tx.pump();
                }).scheduleIn(rnd.nextLong(1_000_000));
                return 0;
            }
            Wr w = q.current;
            boolean read = w.opcode == WqeOpcode.RDMA_READ;
            int k = q.k;
            int last = read ? 0 : w.packets - 1;
            boolean ackRequest = k == last || rnd.nextInt(6) == 0;
            int psn = Psn.add(w.firstPsn, k);
            int st = tx.buildRequest(qp, w, k, psn, ackRequest);
            if (st == KeyUnit.WAIT) {
                keyWaits++;
                return -1;
            }
            if (st != KeyUnit.OK && allowKeyErrors) {
                // The message ends here: the requester completes it with the error (not modelled here).
                keyErrors.add("k=" + k + " st=" + st);
                q.current = null;
                return q.posted.isEmpty() ? 0 : 1;
            }
            assertThat(st).as("QP %d: key check of a registered range", qp.qpn).isEqualTo(KeyUnit.OK);
            Packet p = new Packet();
            p.kind = KIND_REQUEST;
            p.qp = qp;
            p.opcode = requestOpcode(w, k);
            p.psn = psn;
            p.ackRequest = ackRequest;
            p.solicited = w.solicited && k == w.packets - 1;
            p.immediate = w.immediate;
            p.rethVa = w.remoteAddress;
            p.rethKey = w.rkey;
            p.rethLength = (int) w.length;
            int len = read ? 0 : (int) Math.min(mtu, w.length - (long) k * mtu);
            p.payload = message(w, k * mtu, len);
            p.wr = w;
            p.k = k;
            taken.add(p);
            requestsUnsent.add(p);
            tx.commitRequest();
            q.k++;
            if (q.k > last) {
                q.current = null;
            }
            return q.current != null || !q.posted.isEmpty() ? 1 : 0;
        }

        @Override
        public void packetSent(Qp qp, long t) {
            Packet p = requestsUnsent.poll();
            assertThat(p).as("a request packet sent that was never built").isNotNull();
            assertThat(p.qp).as("request packets are handed to the MAC in slot order").isSameAs(qp);
            p.sentPs = t;
        }

        // ------------------------------------------------------------ the stand-in responder

        void owe(QpState q) {
            int[] syndromes = {Aeth.ack(Aeth.CREDITS_INVALID), Aeth.ack(Aeth.CREDITS_INVALID), Aeth.rnrNak(1 + rnd.nextInt(30)),
                Aeth.nak(0), Aeth.nak(2)};
            q.ackSyndrome = syndromes[rnd.nextInt(syndromes.length)];
            var rsp = q.qp.resp.transport();
            if (rnd.nextInt(4) == 0) {
                rsp.reset(rnd.nextInt(1 << 24), true, true);
            }
            // Messages received since: the expected PSN and the MSN the ACK carries move on.
            for (int n = rnd.nextInt(4); n > 0; n--) {
                rsp.accept(RequestKind.SEND, Position.ONLY, 1);
            }
            tx.queueAck(q.qp);
        }

        /** Holds a new inbound READ of a registered range, if the QP's IRD has room. */
        void inboundRead(QpState q) {
            if (q.reads.size() >= q.ird || tx.readQueueFull()) {
                return;
            }
            InRead r = new InRead();
            r.length = rnd.nextInt(8) == 0 ? 0 : 1 + rnd.nextInt(rnd.nextBoolean() ? 3 * mtu : 300);
            long[] at = range(r.length);
            r.va = at[0];
            r.rkey = (int) at[1];
            r.psn = rnd.nextInt(1 << 24);
            r.packets = (int) Math.max(1, (r.length + mtu - 1) / mtu);
            q.reads.add(r);
            tx.queueReadResponse(q.qp);
        }

        @Override
        public int takeAck(Qp qp) {
            QpState q = state(qp);
            int syn = q.ackSyndrome;
            q.ackSyndrome = Aeth.ack(Aeth.CREDITS_INVALID);
            var rsp = qp.resp.transport();
            Packet p = new Packet();
            p.kind = KIND_ACK;
            p.qp = qp;
            p.opcode = Opcode.ACKNOWLEDGE;
            p.syndrome = syn;
            p.msn = rsp.msn();
            p.psn = syn == Aeth.ack(Aeth.CREDITS_INVALID) ? Psn.add(rsp.expectedPsn(), -1) : rsp.expectedPsn();
            p.payload = new byte[0];
            taken.add(p);
            acksTaken++;
            return syn;
        }

        @Override
        public int reads(Qp qp) {
            return state(qp).reads.size();
        }

        @Override
        public long readVa(Qp qp, int i) {
            return state(qp).reads.get(i).va;
        }

        @Override
        public int readRkey(Qp qp, int i) {
            return state(qp).reads.get(i).rkey;
        }

        @Override
        public long readLength(Qp qp, int i) {
            return state(qp).reads.get(i).length;
        }

        /** Asked once as each response packet takes its slot: the packet is logged in slot order here. */
        @Override
        public int readPsn(Qp qp, int i) {
            InRead r = state(qp).reads.get(i);
            int k = r.built++;
            assertThat(k).as("QP %d: READ %d built past its %d responses", qp.qpn, i, r.packets).isLessThan(r.packets);
            Packet p = new Packet();
            p.kind = KIND_READ_RESPONSE;
            p.qp = qp;
            p.opcode = r.packets == 1 ? Opcode.RDMA_READ_RESPONSE_ONLY : k == 0 ? Opcode.RDMA_READ_RESPONSE_FIRST
                    : k == r.packets - 1 ? Opcode.RDMA_READ_RESPONSE_LAST : Opcode.RDMA_READ_RESPONSE_MIDDLE;
            p.psn = Psn.add(r.psn, k);
            p.syndrome = Aeth.ack(Aeth.CREDITS_INVALID);
            p.msn = qp.resp.transport().msn();
            int len = (int) Math.min(mtu, r.length - (long) k * mtu);
            p.payload = len > 0 ? bytes(r.va + (long) k * mtu, len) : new byte[0];
            taken.add(p);
            return r.psn;
        }

        @Override
        public int readPackets(Qp qp, int i) {
            return state(qp).reads.get(i).packets;
        }

        @Override
        public void readAnswered(Qp qp) {
            QpState q = state(qp);
            assertThat(q.reads).as("QP %d: a READ answered that was not held", qp.qpn).isNotEmpty();
            InRead r = q.reads.remove(0);
            assertThat(r.built).as("QP %d: READ answered before all its responses were built", qp.qpn).isEqualTo(r.packets);
            q.answered++;
        }

        // ------------------------------------------------------------ the sink at the far end of the link

        @Override
        public boolean accept(Frame f) {
            if (rnd.nextInt(16) < refuseIn16) {
                refusals++;
                if (!retryDelivery.scheduled()) {
                    retryDelivery.scheduleIn(rnd.nextLong(holdMax + 1));
                }
                return false;
            }
            check(f);
            heldFrames.add(f);
            if (!releaseFrame.scheduled()) {
                releaseFrame.scheduleIn(rnd.nextLong(holdMax + 1));
            }
            return true;
        }

        void releaseOne() {
            int n = 1 + rnd.nextInt(3);
            while (n-- > 0 && !heldFrames.isEmpty()) {
                heldFrames.poll().release();
            }
            if (!heldFrames.isEmpty()) {
                releaseFrame.scheduleIn(rnd.nextLong(holdMax + 1));
            }
        }

        /** The frame is the next packet in slot order, with every field and payload byte it should have. */
        void check(Frame f) {
            assertThat(reader.wrap(f.data(), f.length())).isEqualTo(FrameCheck.VALID);
            assertThat(seen).as("a frame beyond the %d packets whose slots were taken", taken.size()).isLessThan(taken.size());
            Packet p = taken.get(seen++);
            String what = "frame " + (seen - 1) + " (" + p + ")";
            QpState q = byRemote.get(reader.destQp());
            assertThat(q).as("%s: destination QP %d", what, reader.destQp()).isNotNull();
            assertThat(q.qp).as(what).isSameAs(p.qp);
            assertThat(reader.opcode()).as("%s: opcode", what).isEqualTo(p.opcode);
            assertThat(reader.psn()).as("%s: PSN", what).isEqualTo(p.psn);
            assertThat(reader.ackRequest()).as("%s: ack request", what).isEqualTo(p.ackRequest);
            assertThat(reader.solicited()).as("%s: solicited", what).isEqualTo(p.solicited);
            assertThat(reader.dstMac()).isEqualTo(p.qp.peerMac);
            assertThat(reader.srcMac()).isEqualTo(MAC);
            assertThat(reader.srcIp()).isEqualTo(IP);
            assertThat(reader.dstIp()).isEqualTo(p.qp.peerIp);
            assertThat(reader.udpDestinationPort()).isEqualTo(RoceLayout.ROCEV2_PORT);
            assertThat(reader.udpSourcePort()).isEqualTo(RoceWriter.entropyPort(p.qp.qpn, p.qp.remoteQpn));
            assertThat(reader.hasReth()).isEqualTo(Opcode.hasReth(p.opcode));
            if (reader.hasReth()) {
                assertThat(reader.rethVirtualAddress()).as("%s: RETH VA", what).isEqualTo(p.rethVa);
                assertThat(reader.rethRkey()).isEqualTo(p.rethKey);
                assertThat(reader.rethDmaLength()).isEqualTo(p.rethLength);
            }
            assertThat(reader.hasAeth()).isEqualTo(Opcode.hasAeth(p.opcode));
            if (reader.hasAeth()) {
                assertThat(reader.aethSyndrome()).as("%s: AETH syndrome", what).isEqualTo(p.syndrome);
                assertThat(reader.aethMsn()).as("%s: AETH MSN", what).isEqualTo(p.msn & 0xFF_FFFF);
            }
            if (reader.hasImmediate()) {
                assertThat(reader.immediate()).isEqualTo(p.immediate);
            }
            p.arrivedPs = h.sim.now();
            // As the peer's receiver does when it has placed the bytes: the last packet of a request tells its record.
            f.placed(p.arrivedPs);
            byte[] payload = Arrays.copyOfRange(reader.bytes(), reader.payloadOffset(),
                    reader.payloadOffset() + reader.payloadLength());
            assertThat(payload).as("%s: payload", what).isEqualTo(p.payload);
            if (refuseIn16 > 0) {
                return; // a refused delivery stalls the line: frames start later than the transmitter said
            }
            // The line is faster than the packetizer and never stalls: each frame starts at its ready time.
            if (p.kind == KIND_REQUEST) {
                assertThat(f.txStartPs()).as("%s: the requester heard of it as it left", what).isEqualTo(p.sentPs);
            }
            if (lastStartPs != Long.MIN_VALUE) {
                assertThat(f.txStartPs() - lastStartPs).as("%s: packetizer cycles after the previous frame", what)
                        .isGreaterThanOrEqualTo(packetCycles * NIC_CYCLE_PS);
            }
            lastStartPs = f.txStartPs();
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
    void everyPacketLeavesOnceInSlotOrderWithItsBytes(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        int[] mtus = {256, 512, 1024, 4096};
        Rig rig = new Rig(seed, rnd, 1 + rnd.nextInt(16), mtus[rnd.nextInt(mtus.length)], 1 + rnd.nextInt(8));
        rig.refuseIn16 = rnd.nextBoolean() ? 0 : 1 + rnd.nextInt(3);
        int qpCount = 1 + rnd.nextInt(4);
        List<QpState> qs = new ArrayList<>();
        for (int i = 0; i < qpCount; i++) {
            qs.add(rig.addQp(20 + i));
        }
        int[] work = {200 + rnd.nextInt(100)};
        Event[] ev = new Event[1];
        ev[0] = rig.h.sim.event("workload", () -> {
            int n = 1 + rnd.nextInt(3);
            while (n-- > 0 && work[0] > 0) {
                QpState q = qs.get(rnd.nextInt(qs.size()));
                int what = rnd.nextInt(10);
                if (what < 5) {
                    rig.post(q);
                } else if (what < 8) {
                    rig.owe(q);
                } else {
                    rig.inboundRead(q);
                }
                work[0]--;
            }
            if (work[0] > 0) {
                ev[0].scheduleIn(rnd.nextInt(3) == 0 ? rnd.nextLong(3_000_000) : rnd.nextLong(200_000));
            }
        });
        ev[0].schedule(0);
        rig.h.sim.runUntil(2_000_000_000_000L);

        assertThat(rig.seen).as("every packet whose slot was taken arrived").isEqualTo(rig.taken.size());
        assertThat(rig.requestsUnsent).isEmpty();
        for (QpState q : qs) {
            assertThat(q.posted).as("QP %d: every posted message sent", q.qp.qpn).isEmpty();
            assertThat(q.current).isNull();
            assertThat(q.reads).as("QP %d: every inbound READ answered", q.qp.qpn).isEmpty();
            assertThat(rig.tx.busyWith(q.qp)).isFalse();
            assertThat(rig.scheduler.busyWith(q.qp)).isFalse();
        }
        assertThat(rig.taken).extracting(p -> p.kind).contains(KIND_REQUEST, KIND_ACK);
        assertThat(BlockHarness.counter(rig.tx, "packets")).isEqualTo(rig.taken.size());
        assertThat(rig.link.a().freeBuffers()).isEqualTo(rig.link.a().bufferCount());
        checkCountsAndStamps(rig);
    }

    /**
     * The ACK and NAK counters split the acknowledgements by their syndrome, the payload counter sums every packet's
     * payload, and each request's lifecycle stamps say when its first and last packets left (READs: the one request
     * packet) and, when bytes were read from host memory for it, that they were on chip by the first.
     */
    private static void checkCountsAndStamps(Rig rig) {
        long acks = rig.taken.stream().filter(p -> p.kind == KIND_ACK && Aeth.isAck(p.syndrome)).count();
        long naks = rig.taken.stream().filter(p -> p.kind == KIND_ACK && !Aeth.isAck(p.syndrome)).count();
        long payload = rig.taken.stream().mapToLong(p -> p.payload.length).sum();
        assertThat(BlockHarness.counter(rig.tx, "acks")).isEqualTo(acks);
        assertThat(BlockHarness.counter(rig.tx, "naks")).isEqualTo(naks);
        assertThat(BlockHarness.counter(rig.tx, "payloadBytes")).isEqualTo(payload);
        for (Packet p : rig.taken) {
            if (p.kind != KIND_REQUEST) {
                continue;
            }
            Wr w = p.wr;
            boolean read = w.opcode == WqeOpcode.RDMA_READ;
            long[] st = w.stamps;
            if (p.k == 0) {
                assertThat(st[Stage.FIRST_PACKET.ordinal()]).as("%s: first packet stamp", p).isEqualTo(p.sentPs);
                boolean dma = !read && !w.inline && w.length > 0;
                if (dma) {
                    assertThat(st[Stage.PAYLOAD_READ.ordinal()]).as("%s: payload read stamp", p)
                            .isNotEqualTo(Stage.NOT_REACHED).isLessThanOrEqualTo(p.sentPs);
                } else {
                    assertThat(st[Stage.PAYLOAD_READ.ordinal()]).as("%s: no payload read", p).isEqualTo(Stage.NOT_REACHED);
                }
            }
            if (read || p.k == w.packets - 1) {
                assertThat(st[Stage.LAST_PACKET.ordinal()]).as("%s: last packet stamp", p).isEqualTo(p.sentPs);
                assertThat(st[Stage.REMOTE_PLACED.ordinal()]).as("%s: the last frame carries its request's record", p)
                        .isEqualTo(p.arrivedPs);
            }
        }
    }
    /**
     * With every slot taken and an ACK, READ responses and requests all waiting, the freed slots go to the ACKs
     * first, then to the READ responses, then to the requests of the round.
     */
    @Test
    void acksGoFirstThenReadResponsesThenRequests() {
        Rig rig = new Rig(11, new SplittableRandom(11), 2, 256, 1);
        rig.holdMax = 1_000_000_000; // the sink keeps the one link buffer for up to a millisecond
        QpState a = rig.addQp(20);
        QpState b = rig.addQp(21);
        QpState c = rig.addQp(22);
        QpState d = rig.addQp(23);
        for (int i = 0; i < 4; i++) {
            rig.post(a);
        }
        rig.h.sim.runUntil(20_000_000); // the first frame is out and held; both slots are taken behind it
        int before = rig.taken.size();
        assertThat(before).isGreaterThanOrEqualTo(2);
        rig.post(b);
        rig.owe(c);
        d.ird = 2;
        rig.inboundRead(d);
        rig.inboundRead(d);
        rig.owe(b);
        assertThat(rig.tx.busyWith(c.qp)).as("an ACK queued").isTrue();
        assertThat(rig.tx.busyWith(d.qp)).as("READ responses queued").isTrue();
        assertThat(rig.tx.busyWith(a.qp)).isFalse();
        int responses = d.reads.get(0).packets + d.reads.get(1).packets;
        assertThat(rig.taken).as("nothing more fits now").hasSize(before);
        rig.h.sim.runUntil(2_000_000_000_000L);

        List<Integer> kinds = rig.taken.subList(before, rig.taken.size()).stream().map(p -> p.kind).toList();
        int firstRequest = kinds.indexOf(KIND_REQUEST);
        assertThat(kinds.subList(0, 2)).as("the two ACKs first").containsOnly(KIND_ACK);
        assertThat(kinds.subList(2, firstRequest)).as("then every READ response").containsOnly(KIND_READ_RESPONSE)
                .hasSize(responses);
        assertThat(kinds.subList(firstRequest, kinds.size())).as("then the requests").containsOnly(KIND_REQUEST);
        assertThat(d.answered).isEqualTo(2);
        assertThat(rig.seen).isEqualTo(rig.taken.size());
        assertThat(rig.bufferFrees).as("QP1 hears of each freed link buffer first").isPositive();
    }

    /**
     * A 4 KiB SEND gathered from four SGEs that each cross a page boundary needs eight DMA reads: a slot has room for
     * them (it had max(4, SGEs + 2) = 6, and the transmitter stopped with an internal error).
     */
    @Test
    void aPacketGatheredFromSgesThatEachCrossAPageLeaves() {
        Rig rig = new Rig(12, new SplittableRandom(12), 4, 4096, 4, 4);
        QpState q = rig.addQp(20);
        rig.register(4, 12, 8 * 4096);
        Region r = rig.regions.get(3);
        Wr w = new Wr(4, 64);
        w.clear();
        w.opcode = WqeOpcode.SEND;
        w.length = 4096;
        long pageSize = 1L << r.logPage();
        long firstPageEnd = (r.va() & -pageSize) + pageSize;
        for (int i = 0; i < 4; i++) {
            // Each SGE starts 100 bytes before the end of a page of the region: its 1024 bytes are two DMA pieces.
            w.sgeAddr[i] = firstPageEnd + i * pageSize - 100;
            w.sgeLen[i] = 1024;
            w.sgeKey[i] = r.key();
        }
        w.sgeCount = 4;
        w.packets = 1;
        postAndRun(rig, q, w);
        assertThat(rig.seen).as("the packet left, with its bytes").isEqualTo(1);
    }

    /**
     * An inline SEND on an idle transmitter: its frame is built in the packetizer's cycles from the first clock edge
     * and reaches the MAC after the pipeline's cycles too; the requester hears of it at that instant. Back-to-back
     * frames still start the packetizer's cycles apart (the pipeline adds latency, not time per frame).
     */
    @Test
    void aFrameLeavesAfterThePacketCyclesAndThePipeline() {
        int pipeline = 17;
        Rig rig = new Rig(13, new SplittableRandom(13), 4, 256, 4, 1, pipeline);
        rig.windowClosesIn12 = 0;
        QpState q = rig.addQp(20);
        inlineSends(rig, q, 3);
        rig.h.sim.runUntil(2_000_000_000_000L);
        assertThat(rig.seen).isEqualTo(3);
        long cycle = NIC_CYCLE_PS;
        for (int i = 0; i < 3; i++) {
            assertThat(rig.taken.get(i).sentPs).as("frame %d", i)
                    .isEqualTo((long) (i + 1) * rig.packetCycles * cycle + pipeline * cycle);
        }
    }

    /** Posts {@code w} as the QP's next request, gives the QP its turn, and runs until nothing is left to do. */
    private static void postAndRun(Rig rig, QpState q, Wr w) {
        w.firstPsn = q.nextPsn;
        q.posted.add(w);
        rig.scheduler.add(q.qp);
        rig.tx.pump();
        rig.h.sim.runUntil(2_000_000_000_000L);
    }

    /** Inline SENDs queued on {@code q}, one packet each. */
    private static void inlineSends(Rig rig, QpState q, int n) {
        for (int i = 0; i < n; i++) {
            Wr w = new Wr(1, 64);
            w.clear();
            w.opcode = WqeOpcode.SEND;
            w.length = 32;
            w.inline = true;
            w.packets = 1;
            w.firstPsn = q.nextPsn;
            q.nextPsn = Psn.add(q.nextPsn, 1);
            q.posted.add(w);
        }
        rig.scheduler.add(q.qp);
        rig.tx.pump();
    }

    /**
     * One slot and inline SENDs (no payload read, so no DMA completion pumps the transmitter): the slot is freed when
     * its frame has been built, by an event, and the next packet takes it at once, so frames leave back to back. The
     * slots bound counts the time the one slot is taken; the statistics brought up to date afterwards show it free.
     */
    @Test
    void oneSlotSendsBackToBackAndItsOccupancyIsCounted() {
        Rig rig = new Rig(14, new SplittableRandom(14), 1, 256, 4, 1, 0);
        rig.windowClosesIn12 = 0;
        QpState q = rig.addQp(20);
        inlineSends(rig, q, 4);
        rig.h.sim.runUntil(2_000_000_000_000L);
        assertThat(rig.seen).as("every frame left").isEqualTo(4);
        for (int i = 0; i < 4; i++) {
            assertThat(rig.taken.get(i).sentPs).as("frame %d", i).isEqualTo((long) (i + 1) * rig.packetCycles * NIC_CYCLE_PS);
        }
        rig.tx.stats().refresh();
        dev.rdmasim.kernel.stats.Bound slots = rig.tx.stats().bounds().get(0);
        assertThat(slots.full()).as("the slot is free at the end").isFalse();
        assertThat(slots.fullTimePs()).as("taken while each frame was built").isEqualTo(4L * rig.packetCycles * NIC_CYCLE_PS);
        dev.rdmasim.kernel.stats.TimeAverage inUse = rig.tx.stats().stats().stream()
                .filter(st -> st.name().equals("slotsInUse")).map(st -> (dev.rdmasim.kernel.stats.TimeAverage) st)
                .findFirst().orElseThrow();
        assertThat(inUse.level()).isZero();
        assertThat(inUse.max()).isEqualTo(1);
    }

    /** A slot freed lazily (no event: nothing waits for it) shows as free once the statistics are brought up to date. */
    @Test
    void refreshingTheStatisticsFreesTheSlotsWhoseFramesLeft() {
        Rig rig = new Rig(16, new SplittableRandom(16), 4, 256, 4, 1, 0);
        rig.windowClosesIn12 = 0;
        QpState q = rig.addQp(20);
        inlineSends(rig, q, 2);
        rig.h.sim.runUntil(2_000_000_000_000L);
        assertThat(rig.seen).isEqualTo(2);
        dev.rdmasim.kernel.stats.TimeAverage inUse = rig.tx.stats().stats().stream()
                .filter(st -> st.name().equals("slotsInUse")).map(st -> (dev.rdmasim.kernel.stats.TimeAverage) st)
                .findFirst().orElseThrow();
        rig.tx.stats().refresh();
        assertThat(inUse.level()).isZero();
    }

    /**
     * A QP queued for READ responses with none held (nothing left to answer) leaves the queue and sends nothing; the
     * requests waiting behind it in the same turn of the pump still go.
     */
    @Test
    void aQpQueuedForReadResponsesWithNoneHeldSendsNothing() {
        Rig rig = new Rig(17, new SplittableRandom(17), 4, 256, 4, 1, 0);
        rig.windowClosesIn12 = 0;
        QpState q = rig.addQp(20);
        Wr w = new Wr(1, 64);
        w.clear();
        w.opcode = WqeOpcode.SEND;
        w.length = 16;
        w.inline = true;
        w.packets = 1;
        w.firstPsn = q.nextPsn;
        q.posted.add(w);
        rig.scheduler.add(q.qp);
        rig.tx.queueReadResponse(q.qp);
        rig.h.sim.runUntil(2_000_000_000_000L);
        assertThat(rig.taken).extracting(p -> p.kind).containsExactly(KIND_REQUEST);
        assertThat(rig.seen).isEqualTo(1);
        assertThat(rig.tx.busyWith(q.qp)).isFalse();
    }

    /** The READ-response queue reports itself full at 16 QPs, so the responder holds back further inbound READs. */
    @Test
    void theReadResponseQueueIsFullAtSixteenQps() {
        Rig rig = new Rig(15, new SplittableRandom(15), 1, 256, 1);
        rig.holdMax = 1_000_000_000; // the sink keeps the one link buffer: the slot stays taken
        List<QpState> qs = new ArrayList<>();
        for (int i = 0; i < 18; i++) {
            qs.add(rig.addQp(40 + i));
        }
        int queuedAtFull = -1;
        for (int i = 0; i < qs.size() && queuedAtFull < 0; i++) {
            rig.inboundRead(qs.get(i));
            if (rig.tx.readQueueFull()) {
                queuedAtFull = i + 1;
            }
        }
        assertThat(queuedAtFull).as("QPs with READs when the queue was full").isBetween(16, 18);
        rig.h.sim.runUntil(2_000_000_000_000L);
        for (QpState q : qs) {
            assertThat(q.reads).as("QP %d: its READ answered", q.qp.qpn).isEmpty();
        }
        assertThat(rig.seen).isEqualTo(rig.taken.size());
    }

    /** An inline SEND of one packet on {@code q} whose request was parsed at {@code readyPs}, queued for its turn. */
    private static void inlineSendReadyAt(Rig rig, QpState q, long readyPs) {
        Wr w = new Wr(1, 64);
        w.clear();
        w.opcode = WqeOpcode.SEND;
        w.length = 32;
        w.inline = true;
        w.packets = 1;
        w.readyPs = readyPs;
        w.firstPsn = q.nextPsn;
        q.nextPsn = Psn.add(q.nextPsn, 1);
        q.posted.add(w);
        rig.scheduler.add(q.qp);
        rig.tx.pump();
    }

    /** The waveform's levels of signal {@code name} as "time=value" after each instant it changes, from 0. */
    private static List<String> steps(Rig rig, String name) {
        rig.vcd.close();
        Map<String, String> ids = new HashMap<>();
        List<long[]> changes = new ArrayList<>();
        List<String> scope = new ArrayList<>();
        long time = 0;
        for (String line : rig.wave.toString().split("\n")) {
            String[] w = line.split(" ");
            if (line.startsWith("$scope")) {
                scope.add(w[2]);
            } else if (line.startsWith("$upscope")) {
                scope.remove(scope.size() - 1);
            } else if (line.startsWith("$var")) {
                ids.put(String.join(".", scope) + "." + w[4], w[3]);
            } else if (line.startsWith("#")) {
                time = Long.parseLong(line.substring(1));
            } else if (line.startsWith("b") && w[1].equals(ids.get(name))) {
                changes.add(new long[] {time, Long.parseLong(w[0].substring(1), 2)});
            } else if ((line.startsWith("0") || line.startsWith("1")) && line.substring(1).equals(ids.get(name))) {
                changes.add(new long[] {time, line.charAt(0) - '0'});
            }
        }
        assertThat(ids).as("signal %s traced", name).containsKey(name);
        List<String> out = new ArrayList<>();
        long level = 0;
        for (int i = 0; i < changes.size(); i++) {
            long[] c = changes.get(i);
            if ((i + 1 < changes.size() && changes.get(i + 1)[0] == c[0]) || c[1] == level) {
                continue; // a later change at the same instant wins
            }
            out.add(c[0] + "=" + c[1]);
            level = c[1];
        }
        return out;
    }

    /**
     * Traced, the transmitter's occupancy and busy flag change at the instants slots are taken and freed: three inline
     * SENDs take three of four slots at once, each slot frees as its frame has been built (the packetizer's cycles
     * each, back to back), and the flag drops with the last. Either signal traced alone arms the event that frees the
     * slots at their instants, though no packet waits for a slot. Only the frame being built holds a link buffer: the
     * two behind the busy packetizer take theirs one at a time as it frees.
     */
    @ParameterizedTest
    @ValueSource(strings = {"nic.tx.*", "nic.tx.busy", "nic.tx.slotsInUse"})
    void theOccupancyAndBusySignalsChangeAsSlotsAreTakenAndFreed(String traced) {
        Rig rig = new Rig(21, new SplittableRandom(21), 4, 256, 4, 1, 0, SignalFilter.parse(traced));
        rig.windowClosesIn12 = 0;
        QpState q = rig.addQp(20);
        inlineSends(rig, q, 3);
        assertThat(rig.link.a().freeBuffers()).as("link buffers taken at once").isEqualTo(rig.link.a().bufferCount() - 1);
        rig.h.sim.runUntil(2_000_000_000_000L);
        assertThat(rig.seen).isEqualTo(3);
        long p = rig.packetCycles * NIC_CYCLE_PS;
        assertThat(rig.taken).extracting(k -> k.sentPs).containsExactly(p, 2 * p, 3 * p);
        if (!traced.endsWith("slotsInUse")) {
            assertThat(steps(rig, "nic.tx.busy")).containsExactly("0=1", 3 * p + "=0");
        }
        if (!traced.endsWith("busy")) {
            assertThat(steps(rig, "nic.tx.slotsInUse")).containsExactly("0=3", p + "=2", 2 * p + "=1", 3 * p + "=0");
        }
    }

    /**
     * A packet whose request is parsed later than the packetizer frees is booked ahead for its ready time, so two
     * slots are handed over at once; when the first frees, the event that frees the second is armed for its
     * instant (nothing else happens then to arm it), and the waveform shows both.
     */
    @Test
    void aSlotBookedAheadForItsReadyTimeFreesAtItsInstant() {
        Rig rig = new Rig(22, new SplittableRandom(22), 4, 256, 4, 1, 0, SignalFilter.parse("nic.tx.*"));
        rig.windowClosesIn12 = 0;
        QpState q = rig.addQp(20);
        long p = rig.packetCycles * NIC_CYCLE_PS;
        inlineSendReadyAt(rig, q, 0);
        inlineSendReadyAt(rig, q, 10 * p);
        rig.h.sim.runUntil(2_000_000_000_000L);
        assertThat(rig.seen).isEqualTo(2);
        assertThat(rig.taken).extracting(k -> k.sentPs).containsExactly(p, 11 * p);
        assertThat(steps(rig, "nic.tx.slotsInUse")).containsExactly("0=2", p + "=1", 11 * p + "=0");
        assertThat(steps(rig, "nic.tx.busy")).containsExactly("0=1", 11 * p + "=0");
    }

    /**
     * With both slots taken (the one link buffer is held by a frame the far end keeps refusing), a QP's transmit state
     * says what it has queued: READ responses with three of four taken, an ACK owed and not yet sent.
     */
    @Test
    void aQpsTransmitStateSaysWhatItHasQueued() {
        Rig rig = new Rig(23, new SplittableRandom(23), 2, 256, 1, 1, 0);
        rig.windowClosesIn12 = 0;
        rig.refuseIn16 = 16;
        rig.holdMax = 1_000_000_000;
        QpState b = rig.addQp(20);
        QpState c = rig.addQp(21);
        InRead r = new InRead();
        r.length = 3 * 256 + 10;
        r.packets = 4;
        Region region = rig.regions.get(0);
        r.va = region.va() + 100;
        r.rkey = region.key();
        r.psn = 5;
        b.reads.add(r);
        rig.tx.queueReadResponse(b.qp);
        assertThat(b.qp.tx.readQueued()).isTrue();
        assertThat(b.qp.tx.ackQueued()).isFalse();
        rig.h.sim.runUntil(1_000_000_000);
        // The first response holds the link buffer, the second waits for it, the third took the first's slot.
        assertThat(r.built).isEqualTo(3);
        assertThat(b.qp.tx.readSent()).as("responses of the READ queued").isEqualTo(3);
        assertThat(b.qp.tx.readQueued()).isTrue();
        rig.owe(c);
        assertThat(c.qp.tx.ackQueued()).isTrue();
        assertThat(c.qp.tx.readQueued()).isFalse();
        assertThat(b.qp.tx.ackQueued()).isFalse();
        assertThat(rig.tx.busyWith(c.qp)).isTrue();
        assertThat(rig.acksTaken).isZero();
    }

    /**
     * A READ of no bytes is answered at once, without a key check (its response reads nothing), and the QP leaves
     * the READ-response queue as its one response takes the only slot, before the pump's next turn.
     */
    @Test
    void aReadOfNoBytesIsAnsweredAtOnceWithoutAKeyCheck() {
        Rig rig = new Rig(24, new SplittableRandom(24), 1, 256, 1, 1, 0);
        rig.windowClosesIn12 = 0;
        QpState b = rig.addQp(20);
        InRead r = new InRead();
        Region region = rig.regions.get(0);
        r.va = region.va();
        r.rkey = region.key();
        r.packets = 1;
        b.reads.add(r);
        rig.tx.queueReadResponse(b.qp);
        assertThat(rig.taken).extracting(k -> k.kind).containsExactly(KIND_READ_RESPONSE);
        assertThat(b.qp.tx.readQueued()).isFalse();
        assertThat(rig.tx.busyWith(b.qp)).isFalse();
        assertThat(b.answered).as("answered as its response was handed to the MAC").isEqualTo(1);
        rig.h.sim.runUntil(2_000_000_000_000L);
        assertThat(rig.seen).isEqualTo(1);
        assertThat(BlockHarness.counter(rig.keys, "checks")).isZero();
    }

    /**
     * A SEND of two packets whose second SGE names no valid key: the first packet, which holds exactly the first SGE,
     * leaves with its bytes, since the key of an SGE it has no byte of is not checked for it; the second fails its check.
     */
    @Test
    void aBadKeyInTheNextSgeDoesNotStopThePacketBeforeIt() {
        Rig rig = new Rig(25, new SplittableRandom(25), 4, 256, 4, 2, 0);
        rig.windowClosesIn12 = 0;
        rig.allowKeyErrors = true;
        QpState q = rig.addQp(20);
        Region region = rig.regions.get(0);
        Wr w = new Wr(2, 64);
        w.clear();
        w.opcode = WqeOpcode.SEND;
        w.length = 256 + 16;
        w.sgeAddr[0] = region.va() + 8;
        w.sgeLen[0] = 256;
        w.sgeKey[0] = region.key();
        w.sgeAddr[1] = region.va() + 1024;
        w.sgeLen[1] = 16;
        w.sgeKey[1] = 9 << 8 | 0x99; // a context never written
        w.sgeCount = 2;
        w.packets = 2;
        postAndRun(rig, q, w);
        assertThat(rig.keyErrors).containsExactly("k=1 st=" + dev.rdmasim.adapter.format.CqeSyndrome.LOCAL_PROT);
        assertThat(rig.seen).as("the first packet left, with its bytes").isEqualTo(1);
        assertThat(rig.taken).extracting(k -> k.k).containsExactly(0);
    }
}
