package dev.rdmasim.adapter.nic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.format.ControlSegment;
import dev.rdmasim.adapter.format.SendWqeBuilder;
import dev.rdmasim.adapter.format.WqeOpcode;
import dev.rdmasim.kernel.Event;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The WQE parser alone, between a stand-in fetch engine (builds random WQEs straight into QPs' staging buffers,
 * taking WQE cache credits, as fast as room allows) and a stand-in transmitter (retires requests at random paces,
 * giving inline bytes back and re-announcing staged WQEs, as retirement does). Scoreboard: every WQE becomes one
 * request, per QP in ring order, with its fields (opcode, flags, immediate, remote address, SGEs or inline bytes,
 * length, index, blocks) and consecutive PSNs (wrapping at 24 bits, none for an invalid WQE); each parse books the
 * parser's cycles, serially; WQE cache blocks and inline bytes come back to full; inline stalls resume.
 */
class WqeParserTest {
    private static final int BB = SendWqeBuilder.BB;
    private static final int MTU = 1024;
    private static final int[] OPCODES = {WqeOpcode.RDMA_WRITE, WqeOpcode.RDMA_WRITE_IMM, WqeOpcode.SEND, WqeOpcode.SEND_IMM,
        WqeOpcode.RDMA_READ};

    /** One WQE as the driver meant it. */
    private record Spec(int index, int bbs, int opcode, int flags, int imm, long raddr, int rkey, boolean bad, byte[] inline,
            long[] sgeAddr, int[] sgeLen, int[] sgeKey, long length) {
    }

    private static final class Run implements WqeParser.Output, WqeParser.StagingFreed, WqeParser.Requests {
        final SplittableRandom rnd;
        final BlockHarness h;
        final WqeCredits credits;
        final WqeParser parser;
        final int cacheBbs;
        final long inlineBytes;
        final long cyclePs;
        final int cycles;
        final int perQp;
        final List<Q> qs = new ArrayList<>();
        long lastReady = Long.MIN_VALUE;
        long inlineTaken;
        long inlineGiven;
        int bad;
        int parsed;

        final class Q {
            final Qp qp;
            final SendWqeBuilder builder;
            final List<Spec> specs = new ArrayList<>();
            int built;
            int seen;
            int retired;
            int psn;
            /** Blocks staged and blocks the parser gave back (16-bit counters). */
            int fetched;
            int freed;
            /** The requester's ring as the parser sees it: claimed at the tail, retired at the head. */
            final Wr[] ring;
            int head;
            int count;
            int nextPsn;
            boolean claimed;
            final Event produce;
            final Event retire;

            Q(Qp qp) {
                this.qp = qp;
                builder = new SendWqeBuilder(qp.sq.staging(), 0, Integer.numberOfTrailingZeros(qp.sq.stagingBbs()));
                psn = 0xFF_FFFF - rnd.nextInt(40);
                nextPsn = psn;
                ring = new Wr[2 + rnd.nextInt(7)];
                for (int i = 0; i < ring.length; i++) {
                    ring[i] = new Wr(qp.cfg.maxSendSge(), qp.cfg.maxInline());
                }
                produce = h.sim.event("fetch" + qp.qpn, this::produce);
                retire = h.sim.event("tx" + qp.qpn, this::retire);
            }

            /** Stages the next WQEs while staging and the WQE cache have room. */
            void produce() {
                while (built < perQp) {
                    Spec s = specs.size() > built ? specs.get(built) : next();
                    if (specs.size() == built) {
                        specs.add(s);
                    }
                    int staged = (fetched - freed) & 0xFFFF;
                    if (staged + s.bbs > qp.sq.stagingBbs() || credits.wqeCacheFree() < s.bbs) {
                        break; // the parser's progress (stagingFreed) or a later try brings room
                    }
                    build(s);
                    credits.reserveWqeCache(s.bbs);
                    fetched = (fetched + s.bbs) & 0xFFFF;
                    built++;
                    parser.staged(qp, fetched);
                    if (rnd.nextInt(3) == 0) {
                        break;
                    }
                }
                if (built < perQp && !produce.scheduled()) {
                    produce.scheduleIn(rnd.nextLong(200_000));
                }
            }

            Spec next() {
                int index = specs.isEmpty() ? 0 : (specs.get(specs.size() - 1).index + specs.get(specs.size() - 1).bbs) & 0xFFFF;
                int opcode = OPCODES[rnd.nextInt(OPCODES.length)];
                int flags = (rnd.nextBoolean() ? ControlSegment.FLAG_CQ_UPDATE : 0) | (rnd.nextBoolean() ? ControlSegment.FLAG_SOLICITED : 0)
                        | (rnd.nextInt(4) == 0 ? ControlSegment.FENCE_INITIATOR_SMALL : 0);
                int imm = rnd.nextInt();
                long raddr = WqeOpcode.hasRemoteAddress(opcode) ? rnd.nextLong() : 0;
                int rkey = WqeOpcode.hasRemoteAddress(opcode) ? rnd.nextInt() : 0;
                boolean isBad = rnd.nextInt(20) == 0;
                if (opcode != WqeOpcode.RDMA_READ && rnd.nextInt(3) == 0) {
                    byte[] data = new byte[1 + rnd.nextInt(qp.cfg.maxInline())];
                    rnd.nextBytes(data);
                    int bbs = (SendWqeBuilder.inlineWqeBytes(opcode, data.length) + BB - 1) / BB;
                    return new Spec(index, bbs, opcode, flags, imm, raddr, rkey, isBad, data, null, null, null, data.length);
                }
                int n = rnd.nextInt(qp.cfg.maxSendSge() + 1);
                long[] a = new long[n];
                int[] l = new int[n];
                int[] k = new int[n];
                long total = 0;
                for (int i = 0; i < n; i++) {
                    a[i] = rnd.nextLong();
                    l[i] = 1 + rnd.nextInt(rnd.nextBoolean() ? 100 : 5000);
                    k[i] = rnd.nextInt();
                    total += l[i];
                }
                int bbs = (SendWqeBuilder.wqeBytes(opcode, n) + BB - 1) / BB;
                return new Spec(index, bbs, opcode, flags, imm, raddr, rkey, isBad, null, a, l, k, total);
            }

            void build(Spec s) {
                // An invalid WQE names another QP: the parser must turn it into a request that completes in error.
                builder.begin(s.index, s.opcode, s.bad ? qp.qpn + 100 : qp.qpn, s.flags, s.imm);
                if (WqeOpcode.hasRemoteAddress(s.opcode)) {
                    builder.remoteAddress(s.raddr, s.rkey);
                }
                if (s.inline != null) {
                    builder.inlineData(s.inline, 0, s.inline.length);
                } else {
                    for (int i = 0; i < s.sgeAddr.length; i++) {
                        builder.data(s.sgeAddr[i], s.sgeLen[i], s.sgeKey[i]);
                    }
                }
                assertThat(builder.finish()).isEqualTo(s.bbs);
            }

            void retire() {
                int n = 1 + rnd.nextInt(Math.max(1, count));
                while (n-- > 0 && count > 0) {
                    Wr w = ring[head];
                    if (w.inline) {
                        inlineGiven += w.length;
                        credits.releaseInline(w.length);
                    }
                    head = head + 1 == ring.length ? 0 : head + 1;
                    count--;
                    retired++;
                }
                // Retirement frees ring entries: staged WQEs waiting for one are announced again.
                if (((fetched - freed) & 0xFFFF) > 0) {
                    parser.staged(qp, fetched);
                }
                if (count > 0 && !retire.scheduled()) {
                    retire.scheduleIn(rnd.nextLong(1_500_000));
                }
            }
        }

        Run(long seed) {
            rnd = new SplittableRandom(seed);
            h = new BlockHarness(seed);
            cacheBbs = 3 + rnd.nextInt(16);
            inlineBytes = 128 + rnd.nextInt(400);
            credits = new WqeCredits(h.top, new WqeCredits.Params(cacheBbs, inlineBytes));
            cycles = 1 + rnd.nextInt(8);
            cyclePs = h.clock.cyclesToPs(1);
            parser = new WqeParser(h.top, new WqeParser.Params(cycles, ControlSegment.MAX_DS, 4, MTU), h.clock, h.work, h, credits);
            parser.connect(this, this, this);
            perQp = 60 + rnd.nextInt(60);
            int n = 1 + rnd.nextInt(3);
            for (int i = 0; i < n; i++) {
                Qp qp = h.addQp(10 + i, 6, 16, 1 + rnd.nextInt(4), 256, 4, 128);
                Q q = new Q(qp);
                qs.add(q);
                q.produce.schedule(rnd.nextLong(100_000));
            }
        }

        Q of(Qp qp) {
            for (Q q : qs) {
                if (q.qp == qp) {
                    return q;
                }
            }
            throw new AssertionError();
        }

        @Override
        public void parsed(Qp qp) {
            Q q = of(qp);
            Spec s = q.specs.get(q.seen++);
            Wr w = q.ring[(q.head + q.count - 1) % q.ring.length];
            assertThat(q.claimed).as("the request posted is the one claimed").isFalse();
            long now = h.sim.now();
            assertThat(w.wqeIndex).as("QP %d request %d: its WQE's index", qp.qpn, q.seen - 1).isEqualTo(s.index);
            assertThat(w.bbs).isEqualTo(s.bbs);
            assertThat(w.opcode).isEqualTo(s.opcode);
            assertThat(w.readyPs).as("the parse is booked on the parser's clock").isGreaterThanOrEqualTo(now + cycles * cyclePs);
            assertThat(w.readyPs).as("parses are serial: one after the other")
                    .isGreaterThanOrEqualTo(lastReady + cycles * cyclePs);
            assertThat(w.stamps[Stage.WQE_FETCHED.ordinal()]).isEqualTo(w.readyPs);
            lastReady = w.readyPs;
            parsed++;
            if (s.bad) {
                bad++;
                assertThat(w.syndrome).as("an invalid WQE completes with an error").isNotZero();
                assertThat(w.signaled).as("errors always complete").isTrue();
                assertThat(w.packets).isZero();
                assertThat(q.nextPsn).as("an invalid WQE takes no PSN").isEqualTo(q.psn);
            } else {
                assertThat(w.syndrome).isZero();
                assertThat(w.signaled).isEqualTo((s.flags & ControlSegment.FLAG_CQ_UPDATE) != 0);
                assertThat(w.solicited).isEqualTo((s.flags & ControlSegment.FLAG_SOLICITED) != 0);
                assertThat(w.fence).isEqualTo((s.flags & ControlSegment.FENCE_MASK) != 0);
                assertThat(w.immediate).isEqualTo(s.imm);
                assertThat(w.remoteAddress).isEqualTo(s.raddr);
                assertThat(w.rkey).isEqualTo(s.rkey);
                assertThat(w.length).isEqualTo(s.length);
                if (s.inline != null) {
                    assertThat(w.inline).isTrue();
                    assertThat(Arrays.copyOf(w.inlineData, s.inline.length)).isEqualTo(s.inline);
                    inlineTaken += s.length;
                } else {
                    assertThat(w.inline).isFalse();
                    assertThat(w.sgeCount).isEqualTo(s.sgeAddr.length);
                    assertThat(Arrays.copyOf(w.sgeAddr, w.sgeCount)).isEqualTo(s.sgeAddr);
                    assertThat(Arrays.copyOf(w.sgeLen, w.sgeCount)).isEqualTo(s.sgeLen);
                    assertThat(Arrays.copyOf(w.sgeKey, w.sgeCount)).isEqualTo(s.sgeKey);
                }
                int packets = s.length == 0 ? 1 : (int) ((s.length + MTU - 1) / MTU);
                assertThat(w.packets).isEqualTo(packets);
                assertThat(w.firstPsn).as("QP %d request %d's first PSN", qp.qpn, q.seen - 1).isEqualTo(q.psn);
                q.psn = (q.psn + packets) & 0xFF_FFFF;
                assertThat(q.nextPsn).isEqualTo(q.psn);
            }
            assertThat(credits.inlineFree()).as("inline bytes held by unretired requests")
                    .isEqualTo(inlineBytes - (inlineTaken - inlineGiven));
            if (!q.retire.scheduled()) {
                q.retire.scheduleIn(rnd.nextLong(1_500_000));
            }
        }

        @Override
        public boolean full(Qp qp) {
            Q q = of(qp);
            return q.count == q.ring.length;
        }

        @Override
        public Wr claim(Qp qp) {
            Q q = of(qp);
            assertThat(q.count).as("no claim on a full ring").isLessThan(q.ring.length);
            assertThat(q.claimed).as("one claim per post").isFalse();
            q.claimed = true;
            Wr w = q.ring[(q.head + q.count) % q.ring.length];
            w.clear();
            return w;
        }

        @Override
        public void post(Qp qp, Wr w) {
            Q q = of(qp);
            assertThat(q.claimed).isTrue();
            assertThat(w).as("the entry posted is the tail just claimed").isSameAs(q.ring[(q.head + q.count) % q.ring.length]);
            q.claimed = false;
            // The requester's PSN assignment, as the real one does it: a failed WQE takes none.
            if (w.syndrome == 0) {
                w.firstPsn = q.nextPsn;
                q.nextPsn = (q.nextPsn + w.packets) & 0xFF_FFFF;
            }
            q.count++;
        }

        @Override
        public void stagingFreed(Qp qp, int bbs) {
            Q q = of(qp);
            q.freed = (q.freed + bbs) & 0xFFFF;
            assertThat((q.fetched - q.freed) & 0xFFFF).as("the parser never frees more than was staged")
                    .isLessThanOrEqualTo(qp.sq.stagingBbs());
            if (q.built < perQp && !q.produce.scheduled()) {
                q.produce.scheduleIn(rnd.nextLong(20_000));
            }
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void everyWqeBecomesOneRequestInOrderWithItsFieldsAndPsns(long seed) {
        Run run = new Run(seed);
        run.h.sim.run();

        for (Run.Q q : run.qs) {
            assertThat(q.built).isEqualTo(run.perQp);
            assertThat(q.seen).as("QP %d: every WQE parsed once", q.qp.qpn).isEqualTo(run.perQp);
            assertThat(q.retired).isEqualTo(run.perQp);
            assertThat(q.qp.parse.parsedBb()).isEqualTo(q.fetched);
            assertThat(q.freed).as("every staged block given back").isEqualTo(q.fetched);
        }
        assertThat(run.credits.wqeCacheFree()).as("WQE cache blocks all given back").isEqualTo(run.cacheBbs);
        assertThat(run.inlineGiven).as("inline bytes released == taken").isEqualTo(run.inlineTaken);
        assertThat(run.credits.inlineFree()).isEqualTo(run.inlineBytes);
        assertThat(run.parser.stalledOnInline()).isFalse();
        assertThat(BlockHarness.counter(run.parser, "wqesParsed")).isEqualTo(run.parsed);
        assertThat(BlockHarness.counter(run.parser, "badWqes")).isEqualTo(run.bad);
    }

    /** The seeds do exercise what the scoreboard relies on: inline stalls, invalid WQEs, the PSN wrap, inline WQEs. */
    @Test
    void theSeedsExerciseInlineStallsBadWqesAndPsnWrap() {
        long stalls = 0;
        long bad = 0;
        long inline = 0;
        for (long seed = 1; seed <= 8; seed++) {
            Run run = new Run(seed);
            run.h.sim.run();
            stalls += BlockHarness.counter(run.parser, "inlineStalls");
            run.credits.stats().refresh();
            long full = BlockHarness.counter(run.credits, "inlineFullTime");
            // A stall is time the inline buffer spends at its limit; without one it never is.
            assertThat(full > 0).as("seed %d: inline buffer full iff the parser stalled", seed)
                    .isEqualTo(BlockHarness.counter(run.parser, "inlineStalls") > 0);
            bad += run.bad;
            inline += run.inlineTaken;
            for (Run.Q q : run.qs) {
                assertThat(q.psn).as("PSNs started near 2^24 and wrapped").isLessThan(0x80_0000);
            }
        }
        assertThat(stalls).isPositive();
        assertThat(bad).isPositive();
        assertThat(inline).isPositive();
    }
}
