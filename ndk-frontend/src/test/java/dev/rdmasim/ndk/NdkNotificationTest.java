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
    private static final int ALL_MR = NDK_MR_FLAG_ALLOW_LOCAL_WRITE | NDK_MR_FLAG_ALLOW_REMOTE_READ
            | NDK_MR_FLAG_ALLOW_REMOTE_WRITE;

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
    private NdkTestBed bed;
    private NdkCq cqA;
    private NdkCq cqB;
    private NdkQp qpA;
    private NdkQp qpB;
    private NdkMr mrA;
    private NdkMr mrB;
    private long bufA;
    private long bufB;

    private void setUp(long depthA) {
        bed = new NdkTestBed(Profile.defaults());
        cqA = bed.cq(bed.a, depthA, onA);
        cqB = bed.cq(bed.b, 64, onB);
        NdkPd pdA = bed.pd(bed.a);
        NdkPd pdB = bed.pd(bed.b);
        qpA = bed.qp(pdA, cqA, cqA, "qpA", 16, 16, 1, 1, 0);
        qpB = bed.qp(pdB, cqB, cqB, "qpB", 16, 16, 1, 1, 0);
        bufA = bed.hostA.allocate(1 << 16);
        bufB = bed.hostB.allocate(1 << 16);
        mrA = bed.mr(bed.a, pdA, bufA, 1 << 16, ALL_MR);
        mrB = bed.mr(bed.b, pdB, bufB, 1 << 16, ALL_MR);
        bed.connect(qpA, qpB);
    }

    private void setUp() {
        setUp(64);
    }

    private NdkSge[] a(long off, long len) {
        return new NdkSge[] {new NdkSge(bufA + off, len, mrA.getLocalToken())};
    }

    private NdkSge[] b(long off, long len) {
        return new NdkSge[] {new NdkSge(bufB + off, len, mrB.getLocalToken())};
    }

    private void write(Object ctx, int token) {
        assertThat(qpA.write(ctx, a(0, 64), 1, bufB, token, 0)).isEqualTo(STATUS_SUCCESS);
    }

    private void settle() {
        bed.sim.run();
    }

    @Test
    void anyFiresOncePerArmAndNeverWithoutOne() {
        setUp();
        write("w0", mrB.getRemoteToken());
        settle();
        assertThat(onA.statuses).as("no arm, no notification").isEmpty();
        assertThat(bed.take(cqA, 1)).hasSize(1);
        assertThat(cqA.armCq(NDK_CQ_NOTIFY_ANY)).isEqualTo(STATUS_SUCCESS);
        settle();
        assertThat(onA.statuses).as("armed, but nothing new yet").isEmpty();
        write("w1", mrB.getRemoteToken());
        write("w2", mrB.getRemoteToken());
        settle();
        assertThat(onA.statuses).containsExactly(STATUS_SUCCESS);
        assertThat(onA.contexts).containsExactly("cq");
        assertThat(bed.take(cqA, 2)).extracting(r -> r.requestContext).containsExactly("w1", "w2");
        write("w3", mrB.getRemoteToken());
        settle();
        assertThat(onA.statuses).as("one-shot: the arm was used up").hasSize(1);
    }

    @Test
    void armingWithUnreportedCompletionsFiresAtOnce() {
        setUp();
        write("w", mrB.getRemoteToken());
        settle();
        assertThat(onA.statuses).isEmpty();
        assertThat(cqA.armCq(NDK_CQ_NOTIFY_ANY)).isEqualTo(STATUS_SUCCESS);
        settle();
        assertThat(onA.statuses).containsExactly(STATUS_SUCCESS);
        assertThat(bed.take(cqA, 1).get(0).requestContext).isEqualTo("w");
    }

    @Test
    void solicitedWaitsForASolicitedSendOrAnError() {
        setUp();
        for (int i = 0; i < 4; i++) {
            assertThat(qpB.receive("r" + i, b(i * 64L, 64), 1)).isEqualTo(STATUS_SUCCESS);
        }
        assertThat(cqB.armCq(NDK_CQ_NOTIFY_SOLICITED)).isEqualTo(STATUS_SUCCESS);
        assertThat(qpA.send("plain", a(0, 8), 1, 0)).isEqualTo(STATUS_SUCCESS);
        settle();
        assertThat(onB.statuses).as("a plain send does not wake a SOLICITED arm").isEmpty();
        assertThat(qpA.send("solicit", a(0, 8), 1, NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT)).isEqualTo(STATUS_SUCCESS);
        settle();
        assertThat(onB.statuses).containsExactly(STATUS_SUCCESS);
        assertThat(bed.take(cqB, 2)).extracting(r -> r.requestContext).containsExactly("r0", "r1");
        // Errors always match SOLICITED: a send larger than the next receive fails it.
        assertThat(cqB.armCq(NDK_CQ_NOTIFY_SOLICITED)).isEqualTo(STATUS_SUCCESS);
        assertThat(qpA.send("big", a(0, 100), 1, 0)).isEqualTo(STATUS_SUCCESS);
        settle();
        assertThat(onB.statuses).hasSize(2);
        NdkResultEx err = bed.take(cqB, 1).get(0);
        assertThat(err.status).isEqualTo(STATUS_BUFFER_OVERFLOW);
    }

    @Test
    void errorsIgnoresSuccessesAndFiresOnTheFirstError() {
        setUp();
        assertThat(cqA.armCq(NDK_CQ_NOTIFY_ERRORS)).isEqualTo(STATUS_SUCCESS);
        write("ok1", mrB.getRemoteToken());
        settle();
        // A solicited success would do too, but a write's completion is not solicited at all.
        assertThat(onA.statuses).isEmpty();
        write("bad", mrB.getRemoteToken() + 0x100);
        settle();
        assertThat(onA.statuses).containsExactly(STATUS_SUCCESS);
        List<NdkResultEx> r = bed.take(cqA, 2);
        assertThat(r).extracting(x -> x.status).containsExactly(STATUS_SUCCESS, STATUS_ACCESS_VIOLATION);
    }

    @Test
    void errorsLooksPastSolicitedSuccessesItWasWokenBy() {
        setUp();
        assertThat(qpA.receive("ra", a(0, 64), 1)).isEqualTo(STATUS_SUCCESS);
        assertThat(qpA.receive("rb", a(64, 64), 1)).isEqualTo(STATUS_SUCCESS);
        assertThat(cqA.armCq(NDK_CQ_NOTIFY_ERRORS)).isEqualTo(STATUS_SUCCESS);
        // A solicited receive completes at A: the adapter's SOLICITED arm (standing in for ERRORS) wakes, finds
        // no error, and arms again past it.
        assertThat(qpB.send("s", b(0, 8), 1, NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT)).isEqualTo(STATUS_SUCCESS);
        settle();
        assertThat(onA.statuses).isEmpty();
        // Then an error on A's side: the notification comes now.
        write("bad", mrB.getRemoteToken() + 0x100);
        settle();
        assertThat(onA.statuses).containsExactly(STATUS_SUCCESS);
    }

    @Test
    void twoArmsKeepTheStrongerKind() {
        setUp();
        // ERRORS then ANY: ANY wins, a plain success fires.
        assertThat(cqA.armCq(NDK_CQ_NOTIFY_ERRORS)).isEqualTo(STATUS_SUCCESS);
        assertThat(cqA.armCq(NDK_CQ_NOTIFY_ANY)).isEqualTo(STATUS_SUCCESS);
        write("w", mrB.getRemoteToken());
        settle();
        assertThat(onA.statuses).hasSize(1);
        bed.take(cqA, 1);
        // ANY then ERRORS: still ANY.
        assertThat(cqA.armCq(NDK_CQ_NOTIFY_ANY)).isEqualTo(STATUS_SUCCESS);
        assertThat(cqA.armCq(NDK_CQ_NOTIFY_ERRORS)).isEqualTo(STATUS_SUCCESS);
        write("w2", mrB.getRemoteToken());
        settle();
        assertThat(onA.statuses).hasSize(2);
        bed.take(cqA, 1);
        // SOLICITED then ERRORS on B: SOLICITED wins, a solicited send fires.
        assertThat(qpB.receive("r", b(0, 64), 1)).isEqualTo(STATUS_SUCCESS);
        assertThat(cqB.armCq(NDK_CQ_NOTIFY_SOLICITED)).isEqualTo(STATUS_SUCCESS);
        assertThat(cqB.armCq(NDK_CQ_NOTIFY_ERRORS)).isEqualTo(STATUS_SUCCESS);
        assertThat(qpA.send("s", a(0, 8), 1, NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT)).isEqualTo(STATUS_SUCCESS);
        settle();
        assertThat(onB.statuses).hasSize(1);
    }

    @Test
    void anUnknownTriggerTypeIsInvalid() {
        setUp();
        assertThat(cqA.armCq(3)).isEqualTo(STATUS_INVALID_PARAMETER);
    }

    @Test
    void anOverrunIsReportedAsBufferOverflowAndTheCqReturnsNothingMore() {
        setUp(3); // a ring of 4 entries
        assertThat(cqA.armCq(NDK_CQ_NOTIFY_ERRORS)).isEqualTo(STATUS_SUCCESS);
        for (int i = 0; i < 8; i++) {
            write("w" + i, mrB.getRemoteToken());
        }
        settle();
        assertThat(onA.statuses).contains(STATUS_BUFFER_OVERFLOW);
        NdkResult[] r = {new NdkResult()};
        assertThat(cqA.getCqResults(r, 1)).isZero();
    }
}
