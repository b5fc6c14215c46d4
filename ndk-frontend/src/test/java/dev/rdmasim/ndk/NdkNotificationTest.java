package dev.rdmasim.ndk;

import static dev.rdmasim.ndk.NdkConstants.*;
import static dev.rdmasim.ndk.NdkOpFlags.*;
import static dev.rdmasim.ndk.NtStatus.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.config.Profile;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** CQ notification (NdkArmCq and the notification callback): one-shot, kinds, precedence, immediate fire, overrun. */
class NdkNotificationTest {
    /** Notifications a CQ delivered: status per call. */
    private static final class Calls implements NdkCallbacks.CqNotification {
        final List<Integer> statuses = new ArrayList<>();
        final List<Object> contexts = new ArrayList<>();

        @Override
        public void cqNotification(Object ctx, int cqStatus) {
            statuses.add(cqStatus);
            contexts.add(ctx);
        }
    }

    private final Calls onA = new Calls();
    private final Calls onB = new Calls();
    private NdkPair p;

    private void setUp(long depthA) {
        p = new NdkPair(Profile.defaults(), depthA, 0, NdkPair.ALL_MR, onA, onB);
    }

    private void setUp() {
        setUp(64);
    }

    private void write(Object ctx, int token) {
        assertThat(p.qpA.write(ctx, p.a(0, 64), 1, p.bufB, token, 0)).isEqualTo(STATUS_SUCCESS);
    }

    private void settle() {
        p.bed.sim.run();
    }

    @Test
    void anyFiresOncePerArmAndNeverWithoutOne() {
        setUp();
        write("w0", p.mrB.getRemoteToken());
        settle();
        assertThat(onA.statuses).as("no arm, no notification").isEmpty();
        assertThat(p.bed.take(p.cqA, 1)).hasSize(1);
        assertThat(p.cqA.armCq(NDK_CQ_NOTIFY_ANY)).isEqualTo(STATUS_SUCCESS);
        settle();
        assertThat(onA.statuses).as("armed, but nothing new yet").isEmpty();
        write("w1", p.mrB.getRemoteToken());
        write("w2", p.mrB.getRemoteToken());
        settle();
        assertThat(onA.statuses).containsExactly(STATUS_SUCCESS);
        assertThat(onA.contexts).containsExactly("cq");
        assertThat(p.bed.take(p.cqA, 2)).extracting(r -> r.requestContext).containsExactly("w1", "w2");
        write("w3", p.mrB.getRemoteToken());
        settle();
        assertThat(onA.statuses).as("one-shot: the arm was used up").hasSize(1);
    }

    @Test
    void armingWithUnreportedCompletionsFiresAtOnce() {
        setUp();
        write("w", p.mrB.getRemoteToken());
        settle();
        assertThat(onA.statuses).isEmpty();
        assertThat(p.cqA.armCq(NDK_CQ_NOTIFY_ANY)).isEqualTo(STATUS_SUCCESS);
        settle();
        assertThat(onA.statuses).containsExactly(STATUS_SUCCESS);
        assertThat(p.bed.take(p.cqA, 1).get(0).requestContext).isEqualTo("w");
    }

    @Test
    void solicitedWaitsForASolicitedSendOrAnError() {
        setUp();
        for (int i = 0; i < 4; i++) {
            assertThat(p.qpB.receive("r" + i, p.b(i * 64L, 64), 1)).isEqualTo(STATUS_SUCCESS);
        }
        assertThat(p.cqB.armCq(NDK_CQ_NOTIFY_SOLICITED)).isEqualTo(STATUS_SUCCESS);
        assertThat(p.qpA.send("plain", p.a(0, 8), 1, 0)).isEqualTo(STATUS_SUCCESS);
        settle();
        assertThat(onB.statuses).as("a plain send does not wake a SOLICITED arm").isEmpty();
        assertThat(p.qpA.send("solicit", p.a(0, 8), 1, NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT)).isEqualTo(STATUS_SUCCESS);
        settle();
        assertThat(onB.statuses).containsExactly(STATUS_SUCCESS);
        assertThat(p.bed.take(p.cqB, 2)).extracting(r -> r.requestContext).containsExactly("r0", "r1");
        // Errors always match SOLICITED: a send larger than the next receive fails it.
        assertThat(p.cqB.armCq(NDK_CQ_NOTIFY_SOLICITED)).isEqualTo(STATUS_SUCCESS);
        assertThat(p.qpA.send("big", p.a(0, 100), 1, 0)).isEqualTo(STATUS_SUCCESS);
        settle();
        assertThat(onB.statuses).hasSize(2);
        NdkResultEx err = p.bed.take(p.cqB, 1).get(0);
        assertThat(err.status).isEqualTo(STATUS_BUFFER_OVERFLOW);
    }

    @Test
    void errorsIgnoresSuccessesAndFiresOnTheFirstError() {
        setUp();
        assertThat(p.cqA.armCq(NDK_CQ_NOTIFY_ERRORS)).isEqualTo(STATUS_SUCCESS);
        write("ok1", p.mrB.getRemoteToken());
        settle();
        // A solicited success would do too, but a write's completion is not solicited at all.
        assertThat(onA.statuses).isEmpty();
        write("bad", p.mrB.getRemoteToken() + 0x100);
        settle();
        assertThat(onA.statuses).containsExactly(STATUS_SUCCESS);
        List<NdkResultEx> r = p.bed.take(p.cqA, 2);
        assertThat(r).extracting(x -> x.status).containsExactly(STATUS_SUCCESS, STATUS_ACCESS_VIOLATION);
    }

    @Test
    void errorsLooksPastSolicitedSuccessesItWasWokenBy() {
        setUp();
        assertThat(p.qpA.receive("ra", p.a(0, 64), 1)).isEqualTo(STATUS_SUCCESS);
        assertThat(p.qpA.receive("rb", p.a(64, 64), 1)).isEqualTo(STATUS_SUCCESS);
        assertThat(p.cqA.armCq(NDK_CQ_NOTIFY_ERRORS)).isEqualTo(STATUS_SUCCESS);
        // A solicited receive completes at A: the adapter's SOLICITED arm (standing in for ERRORS) wakes, finds
        // no error, and arms again past it.
        assertThat(p.qpB.send("s", p.b(0, 8), 1, NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT)).isEqualTo(STATUS_SUCCESS);
        settle();
        assertThat(onA.statuses).isEmpty();
        // Then an error on A's side: the notification comes now.
        write("bad", p.mrB.getRemoteToken() + 0x100);
        settle();
        assertThat(onA.statuses).containsExactly(STATUS_SUCCESS);
    }

    @Test
    void twoArmsKeepTheStrongerKind() {
        setUp();
        // ERRORS then ANY: ANY wins, a plain success fires.
        assertThat(p.cqA.armCq(NDK_CQ_NOTIFY_ERRORS)).isEqualTo(STATUS_SUCCESS);
        assertThat(p.cqA.armCq(NDK_CQ_NOTIFY_ANY)).isEqualTo(STATUS_SUCCESS);
        write("w", p.mrB.getRemoteToken());
        settle();
        assertThat(onA.statuses).hasSize(1);
        p.bed.take(p.cqA, 1);
        // ANY then ERRORS: still ANY.
        assertThat(p.cqA.armCq(NDK_CQ_NOTIFY_ANY)).isEqualTo(STATUS_SUCCESS);
        assertThat(p.cqA.armCq(NDK_CQ_NOTIFY_ERRORS)).isEqualTo(STATUS_SUCCESS);
        write("w2", p.mrB.getRemoteToken());
        settle();
        assertThat(onA.statuses).hasSize(2);
        p.bed.take(p.cqA, 1);
        // SOLICITED then ERRORS on B: SOLICITED wins, a solicited send fires.
        assertThat(p.qpB.receive("r", p.b(0, 64), 1)).isEqualTo(STATUS_SUCCESS);
        assertThat(p.cqB.armCq(NDK_CQ_NOTIFY_SOLICITED)).isEqualTo(STATUS_SUCCESS);
        assertThat(p.cqB.armCq(NDK_CQ_NOTIFY_ERRORS)).isEqualTo(STATUS_SUCCESS);
        assertThat(p.qpA.send("s", p.a(0, 8), 1, NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT)).isEqualTo(STATUS_SUCCESS);
        settle();
        assertThat(onB.statuses).hasSize(1);
    }

    @Test
    void anUnknownTriggerTypeIsInvalid() {
        setUp();
        assertThat(p.cqA.armCq(3)).isEqualTo(STATUS_INVALID_PARAMETER);
    }

    @Test
    void anOverrunIsReportedAsBufferOverflowAndTheCqReturnsNothingMore() {
        setUp(3); // a ring of 4 entries
        assertThat(p.cqA.armCq(NDK_CQ_NOTIFY_ERRORS)).isEqualTo(STATUS_SUCCESS);
        for (int i = 0; i < 8; i++) {
            write("w" + i, p.mrB.getRemoteToken());
        }
        settle();
        assertThat(onA.statuses).contains(STATUS_BUFFER_OVERFLOW);
        NdkResult[] r = {new NdkResult()};
        assertThat(p.cqA.getCqResults(r, 1)).isZero();
    }

    @Test
    void interruptModerationHoldsTheNotificationForCountCompletionsOrThePeriod() {
        setUp();
        // An event after 3 completions, or 1000 us after the first.
        assertThat(p.cqA.controlCqInterruptModeration(1000, 3)).isEqualTo(STATUS_SUCCESS);
        settle();
        assertThat(p.cqA.armCq(NDK_CQ_NOTIFY_ANY)).isEqualTo(STATUS_SUCCESS);
        long start = p.bed.sim.now();
        write("w1", p.mrB.getRemoteToken());
        write("w2", p.mrB.getRemoteToken());
        p.bed.sim.runUntil(start + 500_000_000L);
        assertThat(onA.statuses).as("two completions of three, half the period: held").isEmpty();
        write("w3", p.mrB.getRemoteToken());
        p.bed.runUntil(() -> !onA.statuses.isEmpty());
        assertThat(onA.statuses).containsExactly(STATUS_SUCCESS);
        assertThat(p.bed.sim.now() - start).as("the third completion released it, before the period ran out")
                .isLessThan(1_000_000_000L);
        assertThat(p.bed.take(p.cqA, 3)).hasSize(3);
        // Two more and the period: released when it runs out.
        assertThat(p.cqA.armCq(NDK_CQ_NOTIFY_ANY)).isEqualTo(STATUS_SUCCESS);
        long second = p.bed.sim.now();
        write("w4", p.mrB.getRemoteToken());
        p.bed.runUntil(() -> onA.statuses.size() == 2);
        assertThat(p.bed.sim.now() - second).isGreaterThanOrEqualTo(1_000_000_000L);
    }

    @Test
    void aResizedCqKeepsItsCompletionsInOrder() {
        setUp(4);
        int token = p.mrB.getRemoteToken();
        for (int i = 0; i < 3; i++) {
            write(i, token);
        }
        settle();
        int[] status = {-1};
        assertThat(p.cqA.resizeCq(p.bed.a.info().maxCqDepth + 1, (ctx, s) -> status[0] = s, null))
                .isEqualTo(STATUS_INVALID_PARAMETER);
        assertThat(p.cqA.resizeCq(100, (ctx, s) -> status[0] = s, null)).isEqualTo(STATUS_PENDING);
        for (int i = 3; i < 12; i++) {
            if (i == 8) {
                // The QP holds 16; take the first results so the CQ (4 deep before the resize) cannot overflow.
                p.bed.runUntil(() -> status[0] != -1);
            }
            write(i, token);
        }
        p.bed.runUntil(() -> status[0] != -1);
        assertThat(status[0]).isEqualTo(STATUS_SUCCESS);
        assertThat(p.cqA.depth()).isEqualTo(100);
        assertThat(p.bed.take(p.cqA, 12)).extracting(r -> r.requestContext)
                .containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
    }
}
