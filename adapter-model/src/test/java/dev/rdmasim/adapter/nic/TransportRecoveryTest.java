package dev.rdmasim.adapter.nic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.format.AccessFlags;
import dev.rdmasim.adapter.format.Cqe;
import dev.rdmasim.adapter.format.WqeOpcode;
import dev.rdmasim.adapter.wire.LinkDirection;
import dev.rdmasim.adapter.wire.Opcode;
import dev.rdmasim.adapter.wire.RoceLayout;
import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.StatsGroup;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Loss recovery of the RC transport with chosen frames lost: each lost frame is found by a run with the
 * earlier losses and a tap on the cable (the n-th frame of an opcode in one direction), then dropped in the
 * next run by making that direction lose every frame for the instant the frame starts. The default
 * retransmission timeout (67 ms) is far longer than any of these exchanges, so a recovery that waits for
 * it shows in the completion time.
 */
class TransportRecoveryTest {
    static final int ALL = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;
    static final long MS = 1_000_000_000L;
    static final long RUN_PS = 200 * MS;

    /** A frame to lose: the {@code nth} (from 0) of {@code opcode} sent by B (or by A). */
    record Loss(boolean fromB, int opcode, int nth) {
    }

    /** One run of a scenario: the hosts, and the frames the cable carried as (start, from B, opcode, PSN). */
    static final class Run {
        Simulator sim;
        TestHost a;
        TestHost b;
        final List<long[]> frames = new ArrayList<>();

        long frameStart(Loss l) {
            int seen = 0;
            for (long[] f : frames) {
                if ((f[1] == 1) == l.fromB() && f[2] == l.opcode() && seen++ == l.nth()) {
                    return f[0];
                }
            }
            throw new AssertionError("no frame " + l + " in the run");
        }

        long count(boolean fromB, int opcode) {
            return frames.stream().filter(f -> (f[1] == 1) == fromB && f[2] == opcode).count();
        }

        long counter(String group, String name) {
            StatsGroup g = sim.stats().groups().stream().filter(x -> x.path().equals(group)).findFirst().orElseThrow();
            g.refresh();
            return g.stats().stream().filter(st -> st instanceof Counter && st.name().equals(name))
                    .map(st -> ((Counter) st).value()).findFirst().orElseThrow();
        }

        List<byte[]> completions() {
            List<byte[]> out = new ArrayList<>();
            for (byte[] c = a.poll(); c != null; c = a.poll()) {
                out.add(c);
            }
            return out;
        }
    }

    /** Runs {@code post} on a fresh pair, losing the frames at {@code dropAt} ({from B ? 1 : 0, start}), for 200 ms. */
    static Run run(Profile profile, Consumer<TestHost[]> post, List<long[]> dropAt) {
        Run r = new Run();
        r.sim = new Simulator(1);
        TestHost[] p = TestHost.pair(r.sim, profile, 1 << 20, ALL);
        r.a = p[0];
        r.b = p[1];
        dev.rdmasim.adapter.wire.EthernetLink link = TestHost.lastLink;
        link.addTap((t, data, len) -> {
            boolean fromB = (((data[RoceLayout.ETH_SRC + 4] & 0xFF) << 8) | (data[RoceLayout.ETH_SRC + 5] & 0xFF))
                    == (int) (r.b.nic.mac() & 0xFFFF);
            int op = data[RoceLayout.BTH_OFFSET] & 0xFF;
            int psn = ((data[RoceLayout.BTH_OFFSET + 9] & 0xFF) << 16) | ((data[RoceLayout.BTH_OFFSET + 10] & 0xFF) << 8)
                    | (data[RoceLayout.BTH_OFFSET + 11] & 0xFF);
            r.frames.add(new long[] {t, fromB ? 1 : 0, op, psn});
        });
        for (long[] d : dropAt) {
            LinkDirection dir = d[0] == 1 ? link.bToA() : link.aToB();
            r.sim.event("lose", () -> dir.setFaults(1, 0)).schedule(d[1] - 1);
            r.sim.event("keep", () -> dir.setFaults(0, 0)).schedule(d[1] + 1);
        }
        post.accept(p);
        r.sim.runUntil(RUN_PS);
        return r;
    }

    /** Runs the scenario with the given frames lost, finding each one by a run with the losses before it. */
    static Run runLosing(Profile profile, Consumer<TestHost[]> post, Loss... losses) {
        List<long[]> dropAt = new ArrayList<>();
        for (Loss l : losses) {
            Run probe = run(profile, post, dropAt);
            dropAt.add(new long[] {l.fromB() ? 1 : 0, probe.frameStart(l)});
        }
        Run r = run(profile, post, dropAt);
        long dropped = TestHost.lastLink.aToB().framesDropped() + TestHost.lastLink.bToA().framesDropped();
        assertThat(dropped).as("frames lost").isEqualTo(losses.length);
        return r;
    }

    private static byte[] pattern(long seed, int len) {
        byte[] b = new byte[len];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    /** A READ of 8 packets from B into A, after B's source bytes are in place. */
    private static Consumer<TestHost[]> oneRead(byte[] data) {
        return p -> {
            p[1].mem.write(p[1].buf, data, 0, data.length);
            p[0].post(WqeOpcode.RDMA_READ, p[1].buf, p[1].key, p[0].buf + (512 << 10), data.length, false, true);
        };
    }

    private static void assertReadLanded(Run r, byte[] data, int completions) {
        List<byte[]> cqes = r.completions();
        assertThat(cqes).hasSize(completions);
        for (byte[] c : cqes) {
            assertThat(Cqe.opcode(c, 0)).as("syndrome 0x%x", Cqe.syndrome(c, 0)).isEqualTo(Cqe.REQ);
        }
        assertThat(r.a.mem.equalsRange(r.a.buf + (512 << 10), data, 0, data.length)).isTrue();
    }

    @Test
    void aReadWithAResponseMissingIsAskedAgainOnlyForTheRest() {
        byte[] data = pattern(3, 8 * 1024);
        Run r = runLosing(Profile.defaults(), oneRead(data), new Loss(true, Opcode.RDMA_READ_RESPONSE_MIDDLE, 2));
        assertReadLanded(r, data, 1);
        // Responses 0..7, the fourth lost; the fifth shows the gap and the READ is asked again from the fourth:
        // five responses, not all eight once more.
        long responses = r.frames.stream().filter(f -> f[1] == 1 && f[2] >= Opcode.RDMA_READ_RESPONSE_FIRST
                && f[2] <= Opcode.RDMA_READ_RESPONSE_ONLY).count();
        assertThat(responses).isEqualTo(8 + 5);
        assertThat(r.count(false, Opcode.RDMA_READ_REQUEST)).isEqualTo(2);
        assertThat(r.counter("nicA.req", "timeouts")).isZero();
    }

    @Test
    void aTimeoutKeepsTheResponsesThatArrivedAndAsksForTheRest() {
        byte[] data = pattern(4, 8 * 1024);
        Profile fast = Profile.defaults().with("transport.ackTimeout", "100us");
        // The last response is lost: nothing shows the gap but the timer.
        Run r = runLosing(fast, oneRead(data), new Loss(true, Opcode.RDMA_READ_RESPONSE_LAST, 0));
        assertReadLanded(r, data, 1);
        assertThat(r.counter("nicA.req", "timeouts")).isEqualTo(1);
        // Asked again for the last packet only: one more response.
        assertThat(r.count(true, Opcode.RDMA_READ_RESPONSE_FIRST) + r.count(true, Opcode.RDMA_READ_RESPONSE_MIDDLE)
                + r.count(true, Opcode.RDMA_READ_RESPONSE_LAST) + r.count(true, Opcode.RDMA_READ_RESPONSE_ONLY))
                .isEqualTo(8 + 1);
    }

    @Test
    void responsesThatArriveAreProgressAndGiveTheRetriesBack() {
        byte[] data = pattern(5, 8 * 1024);
        // One retry: two timeouts in a row without progress fail the READ. Here every round loses the tail but
        // brings some responses, so the READ completes.
        Profile oneRetry = Profile.defaults().withOverrides(List.of("transport.ackTimeout=100us", "transport.retryCount=1"));
        Run r = runLosing(oneRetry, oneRead(data),
                new Loss(true, Opcode.RDMA_READ_RESPONSE_MIDDLE, 3), // responses 0..3 arrive, 4.. lost
                new Loss(true, Opcode.RDMA_READ_RESPONSE_MIDDLE, 4),
                new Loss(true, Opcode.RDMA_READ_RESPONSE_MIDDLE, 5),
                new Loss(true, Opcode.RDMA_READ_RESPONSE_LAST, 0),
                new Loss(true, Opcode.RDMA_READ_RESPONSE_MIDDLE, 6), // asked again from 4: 4 arrives, 5.. lost
                new Loss(true, Opcode.RDMA_READ_RESPONSE_MIDDLE, 7),
                new Loss(true, Opcode.RDMA_READ_RESPONSE_LAST, 1)); // asked again from 5: all arrive
        assertReadLanded(r, data, 1);
        assertThat(r.counter("nicA.req", "timeouts")).isEqualTo(2);
    }

    @Test
    void aReadLongerThanThePsnWindowIsAskedAgainFromAResponseBeyondTheWindow() {
        // 64 KiB at MTU 256 B: 256 responses, twice the default window of 128 unacknowledged PSNs. Response 150 is
        // lost: the READ is asked again from PSN first + 150, beyond the window counted from the READ's first PSN
        // (READ responses acknowledge nothing until the READ is complete). The READ took its window when it was
        // first asked, so asking again is not held back; held back, it would wait for an ACK nothing can send,
        // and every timeout would rewind without sending until the retries ran out.
        byte[] data = pattern(9, 64 * 1024);
        Profile smallMtu = Profile.defaults().with("link.mtu", "256");
        Run r = runLosing(smallMtu, oneRead(data), new Loss(true, Opcode.RDMA_READ_RESPONSE_MIDDLE, 149));
        assertReadLanded(r, data, 1);
        assertThat(r.count(false, Opcode.RDMA_READ_REQUEST)).isEqualTo(2);
        // Asked again from the missing response: 256 + 106 responses, within a millisecond, no timeout.
        assertThat(r.count(true, Opcode.RDMA_READ_RESPONSE_MIDDLE) + r.count(true, Opcode.RDMA_READ_RESPONSE_FIRST)
                + r.count(true, Opcode.RDMA_READ_RESPONSE_LAST)).isEqualTo(256 + 106);
        assertThat(r.counter("nicA.req", "timeouts")).isZero();
        assertThat(r.frames.get(r.frames.size() - 1)[0]).isLessThan(MS);
    }

    @Test
    void aLaterReadsResponseShowsThatAnEarlierReadLostItsLastResponse() {
        byte[] first = pattern(6, 3000);
        byte[] second = pattern(7, 3000);
        Consumer<TestHost[]> twoReads = p -> {
            p[1].mem.write(p[1].buf, first, 0, first.length);
            p[1].mem.write(p[1].buf + 8192, second, 0, second.length);
            p[0].post(WqeOpcode.RDMA_READ, p[1].buf, p[1].key, p[0].buf + (512 << 10), first.length, false, true);
            p[0].post(WqeOpcode.RDMA_READ, p[1].buf + 8192, p[1].key, p[0].buf + (520 << 10), second.length, false, true);
        };
        Run r = runLosing(Profile.defaults(), twoReads, new Loss(true, Opcode.RDMA_READ_RESPONSE_LAST, 0));
        List<byte[]> cqes = r.completions();
        assertThat(cqes).hasSize(2);
        assertThat(r.a.mem.equalsRange(r.a.buf + (512 << 10), first, 0, first.length)).isTrue();
        assertThat(r.a.mem.equalsRange(r.a.buf + (520 << 10), second, 0, second.length)).isTrue();
        // Asked again when the second READ's first response came, not after the 67 ms timeout.
        assertThat(r.counter("nicA.req", "timeouts")).isZero();
        assertThat(r.frames.get(r.frames.size() - 1)[0]).isLessThan(MS);
    }

    @Test
    void aSequenceNakMakesTheRequesterGoBackAtOnce() {
        byte[] data = pattern(8, 8 * 1024);
        Consumer<TestHost[]> oneWrite = p -> {
            p[0].mem.write(p[0].buf, data, 0, data.length);
            p[0].post(WqeOpcode.RDMA_WRITE, p[1].buf, p[1].key, p[0].buf, data.length, false, true);
        };
        // The third packet is lost: the fourth is ahead of the expected PSN, the responder NAKs it once and the
        // requester resends from the third, long before its 67 ms timer.
        Run r = runLosing(Profile.defaults(), oneWrite, new Loss(false, Opcode.RDMA_WRITE_MIDDLE, 1));
        List<byte[]> cqes = r.completions();
        assertThat(cqes).hasSize(1);
        assertThat(Cqe.opcode(cqes.get(0), 0)).isEqualTo(Cqe.REQ);
        assertThat(r.b.mem.equalsRange(r.b.buf, data, 0, data.length)).isTrue();
        assertThat(r.counter("nicB.rx", "sequenceNaks")).isEqualTo(1);
        assertThat(r.counter("nicA.req", "timeouts")).isZero();
        assertThat(r.counter("nicA.req", "rewinds")).isEqualTo(1);
        assertThat(r.frames.get(r.frames.size() - 1)[0]).isLessThan(MS);
    }
}
