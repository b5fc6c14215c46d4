package dev.rdmasim.adapter.nic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.wire.Aeth;
import dev.rdmasim.adapter.wire.EthernetLink;
import dev.rdmasim.adapter.wire.Frame;
import dev.rdmasim.adapter.wire.LinkEndpoint;
import dev.rdmasim.adapter.wire.Opcode;
import dev.rdmasim.adapter.wire.RoceReader;
import dev.rdmasim.adapter.wire.RoceWriter;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.wave.SignalFilter;
import dev.rdmasim.kernel.wave.VcdWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The receiver alone: the far end of a real Ethernet link sends seeded streams of real RoCEv2 frames (requests,
 * ACKs, NAKs, READ responses, datagrams, frames for QPs that do not exist, frames with a bad ICRC) and the test
 * stands in for the requester transport, the responder and QP1. The stand-ins answer "wait" a random number of
 * times and wake the receiver late, hold frames and release them later through the written path, and the
 * scoreboard checks every valid frame reaches its owner exactly once in arrival order, bad ones are dropped and
 * counted, and the receiver takes a frame no sooner than its pipeline is free, without losing the one it refused.
 */
class ReceiverTest {
    private static final long MAC_PEER = 0x02_00_00_00_00_02L;
    private static final long MAC_NIC = 0x02_00_00_00_00_01L;
    private static final int QP1 = 1;
    private static final int FIRST_QP = 0x40;

    enum Kind { REQUEST, ACK, NAK, READ_RESPONSE, DATAGRAM, UNKNOWN_QP, BAD_ICRC }

    static LongStream seeds() {
        return LongStream.rangeClosed(1, 24);
    }

    /** One frame the peer sent, in send (= arrival) order; its PSN is its index, so every handoff names its frame. */
    record Sent(int index, Kind kind, int qpn, int op, int syndrome) {
    }

    /** A frame an owner kept: released later, as the payload writer does when its last write leaves. */
    record Held(Frame frame, Qp qp, Wr wr, int index) {
    }

    /** What an owner saw, in order: who got the frame, and which. */
    record Handoff(String owner, int qpn, int index, int detail) {
    }

    static final class Run implements Receiver.Requests, ReceiverRequests {
        final SplittableRandom rnd;
        final BlockHarness h;
        final EthernetLink cable;
        final LinkEndpoint nicEnd;
        final LinkEndpoint peer;
        final Receiver rx;
        final int packetCycles;
        final int pipelineCycles;
        final int total;
        final RoceWriter writer = new RoceWriter();
        final List<Sent> sent = new ArrayList<>();
        final List<Handoff> handed = new ArrayList<>();
        final List<Held> held = new ArrayList<>();
        final List<Qp> dataQps = new ArrayList<>();
        final Event peerTick;
        final Event resumeEvent;
        final Event releaseEvent;
        final Event spuriousEvent;
        final byte[] payload = new byte[1024];
        final double waitChance;
        final double holdChance;
        Responder.Intake intake;
        Responder.Counters counters;
        /** The frame being offered to an owner (-1 between frames) and the waits it still has to answer. */
        int offered = -1;
        int waitsLeft;
        int waitsGiven;
        int calls;
        long takenPs;
        long readyPs;
        /** The previous frame's index, handoff ready time and the time its owner was done with it. */
        int lastIndex = -1;
        long lastReadyPs;
        long lastDonePs;
        /** Frames from this index on find QP1 (connected while an owner handles the frame before it). */
        int qp1From = Integer.MAX_VALUE;
        int qp1At;
        long ownerDrops;
        long readDrops;
        long responseWritten;
        long messageWritten;
        long expectResponseWritten;
        long expectMessageWritten;
        long waits;
        long maxHeld;

        Run(long seed) {
            rnd = new SplittableRandom(seed);
            h = new BlockHarness(seed);
            packetCycles = 1 + rnd.nextInt(rnd.nextBoolean() ? 4 : 40);
            pipelineCycles = rnd.nextInt(3) == 0 ? 0 : rnd.nextInt(60);
            total = 200 + rnd.nextInt(300);
            waitChance = rnd.nextDouble() * 0.4;
            holdChance = rnd.nextDouble() * 0.6;
            int buffers = 4 + rnd.nextInt(28);
            cable = EthernetLink.cable(h.sim, "wire", new EthernetLink.Config(100, rnd.nextInt(3) * 5_000L, buffers));
            nicEnd = cable.a();
            peer = cable.b();
            for (int q = 0; q < 1 + rnd.nextInt(4); q++) {
                dataQps.add(h.addQp(FIRST_QP + q, 4, 1, 1, 64, 1, 0));
            }
            // The payload writer only wires itself to the receiver here: the stand-ins play its written path.
            PayloadWriter payloadWriter = new PayloadWriter(h.top, h.work, null, h.link.dma().addChannel("rxWrite", 4));
            rx = new Receiver(h.top, new Receiver.Params(packetCycles, pipelineCycles), h.clock, h.work, h, payloadWriter,
                    this, this);
            rx.attach(nicEnd);
            qp1At = rnd.nextInt(3) == 0 ? 0 : rnd.nextInt(total);
            if (qp1At == 0) {
                qp1From = 0;
                rx.onDatagram(this::datagram);
            }
            writer.macs(MAC_NIC, MAC_PEER).ipv4(0x0A00_0002, 0x0A00_0001);
            rnd.nextBytes(payload);
            peerTick = h.sim.event("peer", this::peerSend);
            resumeEvent = h.sim.event("resume", () -> rx.resume());
            releaseEvent = h.sim.event("release", this::releaseOne);
            spuriousEvent = h.sim.event("spurious", this::spurious);
            peer.onBufferFree(this::peerSend);
            peerTick.schedule(0);
            spuriousEvent.schedule(rnd.nextLong(200_000));
        }

        // ------------------------------------------------------------ the peer

        private void peerSend() {
            while (sent.size() < total) {
                Frame f = peer.acquire();
                if (f == null) {
                    return; // onBufferFree calls again
                }
                build(f, sent.size());
                peer.send(f);
                int gap = rnd.nextInt(4);
                if (gap != 0) {
                    if (!peerTick.scheduled()) {
                        peerTick.schedule(h.sim.now() + rnd.nextLong(1 + gap * 20_000L));
                    }
                    return;
                }
            }
        }

        private void build(Frame f, int index) {
            Kind kind = Kind.values()[rnd.nextInt(Kind.values().length)];
            Qp qp = dataQps.get(rnd.nextInt(dataQps.size()));
            int qpn = qp.qpn;
            int op;
            int syndrome = 0;
            int len = 0;
            switch (kind) {
                case ACK, NAK -> {
                    op = Opcode.ACKNOWLEDGE;
                    syndrome = kind == Kind.ACK ? Aeth.ack(rnd.nextInt(32))
                            : rnd.nextBoolean() ? Aeth.NAK_PSN_SEQUENCE_ERROR + rnd.nextInt(5)
                            : Aeth.rnrNak(rnd.nextInt(32));
                }
                case READ_RESPONSE -> {
                    op = Opcode.RDMA_READ_RESPONSE_FIRST + rnd.nextInt(4);
                    len = op == Opcode.RDMA_READ_RESPONSE_LAST || op == Opcode.RDMA_READ_RESPONSE_ONLY
                            ? rnd.nextInt(1024) : 256 << rnd.nextInt(3);
                }
                case DATAGRAM -> {
                    op = Opcode.UD_SEND_ONLY;
                    qpn = QP1;
                    len = rnd.nextInt(256);
                }
                case UNKNOWN_QP -> {
                    op = Opcode.SEND_ONLY;
                    qpn = 0x100 + rnd.nextInt(0x1000);
                    len = rnd.nextInt(512);
                }
                default -> {
                    int[] ops = {Opcode.SEND_ONLY, Opcode.SEND_FIRST, Opcode.RDMA_WRITE_ONLY, Opcode.RDMA_WRITE_FIRST,
                        Opcode.RDMA_READ_REQUEST, Opcode.SEND_ONLY_IMM, Opcode.RDMA_WRITE_LAST};
                    op = ops[rnd.nextInt(ops.length)];
                    len = !Opcode.hasPayload(op) ? 0 : Opcode.isOnly(op) || Opcode.isLast(op) ? rnd.nextInt(1024) : 256;
                }
            }
            writer.bth(op, qpn, index);
            if (Opcode.hasReth(op)) {
                writer.reth(0x7f00_0000_0000L + rnd.nextInt(1 << 20), rnd.nextInt(), op == Opcode.RDMA_READ_REQUEST ? 4096 : len);
            }
            if (Opcode.hasAeth(op)) {
                writer.aeth(syndrome, rnd.nextInt(1 << 24));
            }
            if (Opcode.hasImmediate(op)) {
                writer.immediate(rnd.nextInt());
            }
            if (Opcode.hasDeth(op)) {
                writer.deth(0x1111_1111, 0x10 + rnd.nextInt(100));
            }
            int n = writer.write(f.data(), payload, rnd.nextInt(payload.length - len + 1), len);
            f.length(n);
            if (kind == Kind.BAD_ICRC) {
                // One bit flipped after the BTH: covered by the ICRC and no other check.
                int at = 54 + rnd.nextInt(n - 54);
                f.data()[at] ^= (byte) (1 << rnd.nextInt(8));
            }
            sent.add(new Sent(index, kind, qpn, op, syndrome));
        }

        // ------------------------------------------------------------ the owners

        /** First call for a frame: records the instants; every call checks it is the frame being offered. */
        private boolean offer(int index, Frame f) {
            long now = h.sim.now();
            if (offered != index) {
                assertThat(offered).as("frame %d offered while frame %d still pending", index, offered).isEqualTo(-1);
                assertThat(index).as("frames taken in arrival order").isEqualTo(lastIndex + 1 + skippedBefore(index));
                offered = index;
                calls = 0;
                waitsLeft = rnd.nextDouble() < waitChance ? 1 + rnd.nextInt(3) : 0;
                waitsGiven = waitsLeft;
                takenPs = now;
                readyPs = h.work.at();
                checkTiming(index, f.arrivalPs());
            } else {
                // A frame resumed after a wait runs at its own instant, never before its pipeline cycles end.
                assertThat(now).as("resumed frame %d before its ready time", index).isGreaterThanOrEqualTo(readyPs);
            }
            calls++;
            if (waitsLeft > 0) {
                waitsLeft--;
                waits++;
                if (!resumeEvent.scheduled()) {
                    resumeEvent.schedule(now + rnd.nextLong(1 + rnd.nextInt(3) * 40_000L));
                }
                return true;
            }
            return false;
        }

        /** Frames before {@code index} since the last handed one that the receiver dropped on its own. */
        private int skippedBefore(int index) {
            int k = 0;
            for (int i = lastIndex + 1; i < index; i++) {
                if (!reachesOwner(i)) {
                    k++;
                }
            }
            return k;
        }

        private boolean reachesOwner(int i) {
            Sent s = sent.get(i);
            return switch (s.kind()) {
                case BAD_ICRC, UNKNOWN_QP -> false;
                case DATAGRAM -> i >= qp1From;
                default -> true;
            };
        }

        private void checkTiming(int index, long arrivalPs) {
            long period = h.clock.periodPs();
            long pipelinePs = h.clock.cyclesToPs(pipelineCycles);
            // Its effects are for the end of its packet and pipeline cycles, counted from the edge it was taken at.
            assertThat(readyPs).as("ready time of frame %d", index)
                    .isEqualTo(h.clock.edgeAtOrAfter(takenPs) + packetCycles * period + h.clock.cyclesToPs(pipelineCycles));
            if (lastIndex >= 0) {
                // Every frame between, dropped ones too, booked its packet cycles.
                assertThat(readyPs - lastReadyPs).as("frame %d after frame %d", index, lastIndex)
                        .isGreaterThanOrEqualTo((long) (index - lastIndex) * packetCycles * period);
                assertThat(takenPs).as("frame %d taken before frame %d was done", index, lastIndex)
                        .isGreaterThanOrEqualTo(lastDonePs);
                if (arrivalPs >= 0 && lastIndex == index - 1) {
                    // Taken as soon as it arrived and the pipeline was free: a refused frame is offered again then.
                    assertThat(takenPs).as("frame %d taken late", index)
                            .isEqualTo(Math.max(arrivalPs, Math.max(lastDonePs, lastReadyPs - pipelinePs)));
                }
            }
        }

        /** The owner is done with the frame (no wait): it is handed on exactly now. */
        private void finish(int index, Handoff handoff) {
            assertThat(calls).as("offers of frame %d: one, and one more per wait", index).isEqualTo(waitsGiven + 1);
            handed.add(handoff);
            lastIndex = index;
            lastReadyPs = readyPs;
            lastDonePs = h.sim.now();
            offered = -1;
            if (qp1From == Integer.MAX_VALUE && index >= qp1At) {
                qp1From = index + 1;
                rx.onDatagram(this::datagram);
            }
        }

        private void hold(Frame f, Qp qp, Wr w, int index) {
            held.add(new Held(f, qp, w, index));
            maxHeld = Math.max(maxHeld, held.size());
            if (!releaseEvent.scheduled()) {
                releaseEvent.schedule(h.sim.now() + rnd.nextLong(1 + rnd.nextInt(4) * 60_000L));
            }
        }

        /** The last write of a held frame left: the frame goes back to its pool, then the receiver is told. */
        private void releaseOne() {
            Held x = held.remove(rnd.nextInt(held.size()));
            long before = x.wr() != null ? responseWritten : messageWritten;
            x.frame().release();
            if (x.wr() != null) {
                expectResponseWritten++;
            } else {
                expectMessageWritten++;
            }
            heldNow = x;
            rx.written(x.qp(), x.wr());
            heldNow = null;
            assertThat(x.wr() != null ? responseWritten : messageWritten).as("written of frame %d passed on once", x.index())
                    .isEqualTo(before + 1);
            if (!held.isEmpty()) {
                releaseEvent.schedule(h.sim.now() + rnd.nextLong(1 + rnd.nextInt(4) * 60_000L));
            }
        }

        private Held heldNow;

        private void spurious() {
            rx.resume(); // a wake-up nothing waits for changes nothing
            if (sent.size() < total || !held.isEmpty() || offered >= 0) {
                spuriousEvent.schedule(h.sim.now() + rnd.nextLong(1, 300_000));
            }
        }

        @Override
        public void acknowledge(Qp qp, int psn) {
            assertThat(offered).as("ACK handed over while frame %d pending", offered).isEqualTo(-1);
            offered = psn;
            calls = 1;
            waitsGiven = 0;
            takenPs = h.sim.now();
            readyPs = h.work.at();
            assertThat(psn).isEqualTo(lastIndex + 1 + skippedBefore(psn));
            checkTiming(psn, -1);
            finish(psn, new Handoff("ack", qp.qpn, psn, 0));
        }

        @Override
        public void nak(Qp qp, int psn, int syndrome) {
            assertThat(offered).as("NAK handed over while frame %d pending", offered).isEqualTo(-1);
            offered = psn;
            calls = 1;
            waitsGiven = 0;
            takenPs = h.sim.now();
            readyPs = h.work.at();
            assertThat(psn).isEqualTo(lastIndex + 1 + skippedBefore(psn));
            checkTiming(psn, -1);
            finish(psn, new Handoff("nak", qp.qpn, psn, syndrome));
        }

        @Override
        public int readResponse(Qp qp, Frame f, RoceReader reader) {
            int index = reader.psn();
            if (offer(index, f)) {
                return RequesterTransport.WAIT;
            }
            int r = rnd.nextInt(8);
            int outcome = r == 0 ? RequesterTransport.DROPPED : rnd.nextDouble() < holdChance ? RequesterTransport.HELD
                    : RequesterTransport.DONE;
            finish(index, new Handoff("read", qp.qpn, index, reader.opcode()));
            if (outcome == RequesterTransport.DROPPED) {
                readDrops++;
            } else if (outcome == RequesterTransport.HELD) {
                hold(f, qp, new Wr(1, 0), index);
            }
            return outcome;
        }

        @Override
        public void responseWritten(Qp qp, Wr w) {
            assertThat(heldNow).as("responseWritten outside the written path").isNotNull();
            assertThat(w).isSameAs(heldNow.wr());
            assertThat(qp).isSameAs(heldNow.qp());
            responseWritten++;
        }

        @Override
        public void connect(Responder.Intake receiver, Responder.Counters c) {
            assertThat(intake).as("connected twice").isNull();
            intake = receiver;
            counters = c;
        }

        @Override
        public int request(Qp qp, Frame f, int op, RoceReader reader) {
            int index = reader.psn();
            if (offer(index, f)) {
                return -1;
            }
            finish(index, new Handoff("request", qp.qpn, index, op));
            int r = rnd.nextInt(8);
            if (r == 0) {
                counters.dropped().inc(); // as the responder does for a QP in error
                ownerDrops++;
                return 0;
            }
            if (rnd.nextDouble() < holdChance) {
                hold(f, qp, null, index);
                return 1;
            }
            return 0;
        }

        @Override
        public void messageWritten(Qp qp) {
            assertThat(heldNow).as("messageWritten outside the written path").isNotNull();
            assertThat(heldNow.wr()).isNull();
            assertThat(qp).isSameAs(heldNow.qp());
            messageWritten++;
        }

        private void datagram(RoceReader reader) {
            int index = reader.psn();
            assertThat(offered).as("datagram handed over while frame %d pending", offered).isEqualTo(-1);
            offered = index;
            calls = 1;
            waitsGiven = 0;
            takenPs = h.sim.now();
            readyPs = h.work.at();
            assertThat(index).isEqualTo(lastIndex + 1 + skippedBefore(index));
            checkTiming(index, -1);
            finish(index, new Handoff("qp1", reader.destQp(), index, -1));
        }

        // ------------------------------------------------------------ reference

        /** What the owners must have seen, from the frames sent alone. */
        List<Handoff> expected() {
            List<Handoff> e = new ArrayList<>();
            for (Sent s : sent) {
                if (!reachesOwner(s.index())) {
                    continue;
                }
                e.add(switch (s.kind()) {
                    case ACK -> new Handoff("ack", s.qpn(), s.index(), 0);
                    case NAK -> new Handoff("nak", s.qpn(), s.index(), s.syndrome());
                    case READ_RESPONSE -> new Handoff("read", s.qpn(), s.index(), s.op());
                    case DATAGRAM -> new Handoff("qp1", QP1, s.index(), -1);
                    default -> new Handoff("request", s.qpn(), s.index(), s.op());
                });
            }
            return e;
        }

        long expectedDrops() {
            long d = ownerDrops + readDrops;
            for (Sent s : sent) {
                if (!reachesOwner(s.index())) {
                    d++;
                }
            }
            return d;
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void everyFrameReachesItsOwnerOnceInOrder(long seed) {
        Run run = new Run(seed);
        // Bounded: a receiver that lost a frame or a buffer would leave the peer and the wake-ups running for ever.
        run.h.sim.runUntil(10_000_000_000L);

        assertThat(run.sent).hasSize(run.total);
        assertThat(run.offered).as("a frame left pending").isEqualTo(-1);
        assertThat(run.held).isEmpty();
        assertThat(run.handed).containsExactlyElementsOf(run.expected());
        long frames = BlockHarness.counter(run.rx, "frames");
        long dropped = BlockHarness.counter(run.rx, "dropped");
        assertThat(frames).as("frames the link delivered").isEqualTo(run.total)
                .isEqualTo(run.cable.bToA().framesDelivered());
        assertThat(dropped).isEqualTo(run.expectedDrops());
        // Nothing lost: every frame delivered was handed on (and kept or released) or dropped.
        assertThat(run.handed.size() - run.readDrops - run.ownerDrops + dropped).isEqualTo(frames);
        assertThat(run.responseWritten).isEqualTo(run.expectResponseWritten);
        assertThat(run.messageWritten).isEqualTo(run.expectMessageWritten);
        assertThat(run.peer.freeBuffers()).as("link buffers back in the pool").isEqualTo(run.peer.bufferCount());
        assertThat(run.counters.dropped()).isNotNull();
        assertThat(run.intake).isSameAs(run.rx);
    }

    // ------------------------------------------------------------ focused cases

    /** One receiver behind a link, with owners that answer from a script and record when each call came. */
    static final class Probe implements Receiver.Requests, ReceiverRequests {
        final BlockHarness h = new BlockHarness(7);
        final EthernetLink cable = EthernetLink.cable(h.sim, "wire", new EthernetLink.Config(100, 0, 8));
        final LinkEndpoint peer = cable.b();
        final Receiver rx;
        final RoceWriter writer = new RoceWriter();
        final Qp qp = h.addQp(FIRST_QP, 4, 1, 1, 64, 1, 0);
        /** Each call: owner, PSN, time, the work clock's instant. */
        final List<long[]> calls = new ArrayList<>();
        final List<String> owners = new ArrayList<>();
        /** Answers to request(): taken in turn, 0 once they run out. */
        final java.util.ArrayDeque<Integer> answers = new java.util.ArrayDeque<>();
        /** The frame the last answer 1 kept. */
        Frame held;
        int messageWritten;

        Probe(int packetCycles, int pipelineCycles) {
            this(packetCycles, pipelineCycles, null);
        }

        /** As above, with the receiver's signals written to {@code wave} (null: no waveform). */
        Probe(int packetCycles, int pipelineCycles, Writer wave) {
            if (wave != null) {
                h.sim.attachWave(new VcdWriter(wave, h.sim::now, SignalFilter.parse("nic.rx.*")));
            }
            PayloadWriter payloadWriter = new PayloadWriter(h.top, h.work, null, h.link.dma().addChannel("rxWrite", 4));
            rx = new Receiver(h.top, new Receiver.Params(packetCycles, pipelineCycles), h.clock, h.work, h, payloadWriter,
                    this, this);
            rx.attach(cable.a());
            writer.macs(MAC_NIC, MAC_PEER).ipv4(0x0A00_0002, 0x0A00_0001);
        }

        /** Sends a frame of {@code op} for {@code qpn} with {@code psn} now. */
        void send(int op, int qpn, int psn) {
            Frame f = peer.acquire();
            writer.bth(op, qpn, psn);
            if (Opcode.hasAeth(op)) {
                writer.aeth(Aeth.ack(Aeth.CREDITS_INVALID), 0);
            }
            if (Opcode.hasDeth(op)) {
                writer.deth(1, 2);
            }
            f.length(writer.write(f.data(), new byte[64], 0, Opcode.hasPayload(op) ? 64 : 0));
            peer.send(f);
        }

        private void record(String owner, int psn) {
            owners.add(owner);
            calls.add(new long[] {psn, h.sim.now(), h.work.at()});
        }

        @Override
        public void acknowledge(Qp q, int psn) {
            record("ack", psn);
        }

        @Override
        public void nak(Qp q, int psn, int syndrome) {
            record("nak", psn);
        }

        @Override
        public int readResponse(Qp q, Frame f, RoceReader reader) {
            record("read", reader.psn());
            return RequesterTransport.DONE;
        }

        @Override
        public void responseWritten(Qp q, Wr w) {
            record("responseWritten", -1);
        }

        @Override
        public void connect(Responder.Intake receiver, Responder.Counters counters) {
        }

        @Override
        public int request(Qp q, Frame f, int op, RoceReader reader) {
            record("request", reader.psn());
            Integer a = answers.poll();
            if (a != null && a == 1) {
                held = f;
            }
            return a == null ? 0 : a;
        }

        @Override
        public void messageWritten(Qp q) {
            messageWritten++;
        }
    }

    @Test
    void aFrameArrivingWhileThePipelineIsBusyIsRefusedAndTakenWhenItFrees() {
        Probe p = new Probe(100, 0);
        p.send(Opcode.ACKNOWLEDGE, FIRST_QP, 1);
        p.send(Opcode.ACKNOWLEDGE, FIRST_QP, 2);
        p.send(Opcode.ACKNOWLEDGE, FIRST_QP, 3);
        p.h.sim.run();

        assertThat(p.owners).containsExactly("ack", "ack", "ack");
        long cycle = p.h.clock.periodPs() * 100;
        long first = p.calls.get(0)[1];
        assertThat(p.calls.get(0)[2]).isEqualTo(p.h.clock.edgeAtOrAfter(first) + cycle);
        // The others arrive a few nanoseconds apart, long before 100 cycles: each waits on the link for the one before.
        assertThat(p.calls.get(1)[1]).isEqualTo(p.calls.get(0)[2]);
        assertThat(p.calls.get(2)[1]).isEqualTo(p.calls.get(1)[2]);
        assertThat(p.cable.bToA().refusals()).isEqualTo(2);
        assertThat(BlockHarness.counter(p.rx, "frames")).isEqualTo(3);
        assertThat(p.peer.freeBuffers()).isEqualTo(p.peer.bufferCount());
    }

    /**
     * Traced, the busy flag rises as the first frame is taken and stays up while the frames behind it are taken back
     * to back, each as the pipeline frees; it drops when the last one's cycles end, though no event of the receiver's
     * own happens then (its effects were worked out when it was taken).
     */
    @Test
    void theBusyFlagDropsWhenTheLastFramesCyclesEnd() {
        StringWriter wave = new StringWriter();
        Probe p = new Probe(100, 0, wave);
        p.send(Opcode.ACKNOWLEDGE, FIRST_QP, 1);
        p.send(Opcode.ACKNOWLEDGE, FIRST_QP, 2);
        p.h.sim.run();
        p.h.sim.wave().close();
        assertThat(p.owners).containsExactly("ack", "ack");
        long firstArrival = p.calls.get(0)[1];
        long lastEnd = p.calls.get(1)[2];
        assertThat(lastEnd - p.calls.get(1)[1]).isEqualTo(p.h.clock.periodPs() * 100);
        // The VCD as (time, value) of the one traced signal: the initial value, then each change.
        List<String> changes = new ArrayList<>();
        long time = 0;
        for (String line : wave.toString().split("\n")) {
            if (line.startsWith("#")) {
                time = Long.parseLong(line.substring(1));
            } else if (line.matches("[01]\\S+")) {
                changes.add(time + "=" + line.charAt(0));
            }
        }
        assertThat(wave.toString()).contains(" busy $end");
        assertThat(changes).containsExactly("0=0", firstArrival + "=1", p.calls.get(0)[2] + "=0", p.calls.get(0)[2] + "=1",
                lastEnd + "=0");
    }

    @Test
    void aWaitingFrameRunsAgainOnResumeButNotBeforeItsPipelineCyclesEnd() {
        Probe p = new Probe(10, 40);
        p.answers.add(-1);
        p.answers.add(-1);
        p.send(Opcode.SEND_ONLY, FIRST_QP, 5);
        p.send(Opcode.ACKNOWLEDGE, FIRST_QP, 6);
        p.h.sim.run();
        // Waiting: offered once, the next frame stays on the link.
        assertThat(p.owners).containsExactly("request");
        long ready = p.calls.get(0)[2];
        assertThat(ready - p.h.clock.edgeAtOrAfter(p.calls.get(0)[1])).isEqualTo(p.h.clock.periodPs() * 50);

        p.rx.resume();
        p.rx.resume(); // a second wake-up before the first ran offers it once only
        p.h.sim.run();
        assertThat(p.owners).containsExactly("request", "request");
        assertThat(p.calls.get(1)[1]).as("resumed at its ready time, not at once").isEqualTo(ready);

        p.h.sim.runUntil(p.h.sim.now() + 1_000_000);
        p.rx.resume();
        p.h.sim.run();
        assertThat(p.owners).containsExactly("request", "request", "request", "ack");
        assertThat(p.calls.get(2)[1]).isGreaterThan(ready);
        p.rx.resume(); // nothing waits: no call
        p.h.sim.run();
        assertThat(p.owners).hasSize(4);
        assertThat(p.peer.freeBuffers()).isEqualTo(p.peer.bufferCount());
    }

    @Test
    void aHeldFrameKeepsItsBufferUntilItsWritesHaveLeftAndTheirLeavingWakesAWaitingFrame() {
        Probe p = new Probe(4, 0);
        p.answers.add(1);
        p.answers.add(-1);
        p.send(Opcode.RDMA_WRITE_ONLY, FIRST_QP, 9);
        p.send(Opcode.SEND_ONLY, FIRST_QP, 10);
        p.h.sim.run();
        assertThat(p.owners).containsExactly("request", "request");
        assertThat(p.peer.freeBuffers()).isEqualTo(p.peer.bufferCount() - 2);
        assertThat(p.messageWritten).isZero();

        p.held.release();
        p.rx.written(p.qp, null);
        assertThat(p.messageWritten).isEqualTo(1);
        p.h.sim.run();
        assertThat(p.owners).as("the waiting frame is offered again").containsExactly("request", "request", "request");
        assertThat(p.peer.freeBuffers()).isEqualTo(p.peer.bufferCount());
    }

    @Test
    void datagramsAreDroppedUntilQp1ExistsAndFramesForUnknownQpsAlways() {
        Probe p = new Probe(2, 0);
        List<Integer> qp1 = new ArrayList<>();
        p.send(Opcode.UD_SEND_ONLY, QP1, 1);
        p.send(Opcode.SEND_ONLY, 0x999, 2);
        p.h.sim.run();
        assertThat(BlockHarness.counter(p.rx, "dropped")).isEqualTo(2);
        p.rx.onDatagram(r -> qp1.add(r.psn()));
        p.send(Opcode.UD_SEND_ONLY, QP1, 3);
        p.send(Opcode.UD_SEND_ONLY, FIRST_QP, 4); // a datagram to a data QP's number is still QP1's
        p.h.sim.run();
        assertThat(qp1).containsExactly(3, 4);
        assertThat(p.owners).isEmpty();
        assertThat(BlockHarness.counter(p.rx, "dropped")).isEqualTo(2);
        assertThat(BlockHarness.counter(p.rx, "frames")).isEqualTo(4);
        assertThat(p.peer.freeBuffers()).isEqualTo(p.peer.bufferCount());
    }
}
