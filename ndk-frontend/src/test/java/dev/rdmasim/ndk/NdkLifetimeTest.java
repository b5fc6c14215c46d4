package dev.rdmasim.ndk;

import static dev.rdmasim.ndk.NdkConstants.*;
import static dev.rdmasim.ndk.NtStatus.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** NdkCloseObject: SUCCESS or PENDING, antecedents wait for their successors, nothing after close. */
class NdkLifetimeTest {
    private final NdkTestBed bed = new NdkTestBed();
    private final List<String> closed = new ArrayList<>();

    private NdkCallbacks.CloseCompletion record(String what) {
        return ctx -> closed.add(what + "@" + ctx);
    }

    @Test
    void closingAntecedentsFirstStaysPendingUntilTheirSuccessorsAreClosed() {
        NdkCq cq = bed.cq(bed.a, 8);
        NdkPd pd = bed.pd(bed.a);
        NdkQp qp = bed.qp(pd, cq, cq, null, 4, 4, 1, 1, 0);
        assertThat(bed.a.close(record("adapter"), 1)).isEqualTo(STATUS_PENDING);
        assertThat(pd.close(record("pd"), 2)).isEqualTo(STATUS_PENDING);
        assertThat(cq.close(record("cq"), 3)).isEqualTo(STATUS_PENDING);
        bed.sim.run();
        assertThat(closed).as("all wait for the QP").isEmpty();
        assertThat(qp.close(record("qp"), 4)).isEqualTo(STATUS_PENDING);
        bed.sim.run();
        // The QP goes first (flush, destroy), then the PD and CQ it held (their own commands), then the adapter.
        assertThat(closed).hasSize(4);
        assertThat(closed.get(0)).isEqualTo("qp@4");
        assertThat(closed.subList(1, 3)).containsExactlyInAnyOrder("pd@2", "cq@3");
        assertThat(closed.get(3)).isEqualTo("adapter@1");
        assertThat(qp.isClosed() && pd.isClosed() && cq.isClosed() && bed.a.isClosed()).isTrue();
    }

    @Test
    void anObjectWithoutHardwareClosesAtOnceWithoutACallback() {
        NdkPd pd = bed.pd(bed.a);
        Out<NdkMr> mr = new Out<>();
        assertThat(pd.createMr(false, null, null, mr)).isEqualTo(STATUS_SUCCESS);
        assertThat(mr.value.close(record("mr"), null)).isEqualTo(STATUS_SUCCESS);
        Out<NdkConnector> c = new Out<>();
        assertThat(bed.a.createConnector(null, null, c)).isEqualTo(STATUS_SUCCESS);
        assertThat(c.value.close(record("connector"), null)).isEqualTo(STATUS_SUCCESS);
        bed.sim.run();
        assertThat(closed).isEmpty();
        assertThat(mr.value.isClosed()).isTrue();
    }

    @Test
    void aClosedObjectCannotBeUsedOrClosedAgain() {
        NdkPd pd = bed.pd(bed.a);
        Out<NdkMr> mr = new Out<>();
        assertThat(pd.createMr(false, null, null, mr)).isEqualTo(STATUS_SUCCESS);
        assertThat(mr.value.close(null, null)).isEqualTo(STATUS_SUCCESS);
        assertThatThrownBy(() -> mr.value.registerMr(0, 1, 0, null, null)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        assertThatThrownBy(() -> mr.value.close(null, null)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void closingAQpFlushesItsRequestsAndNothingIsDeliveredAfterTheCloseCompletes() {
        NdkCq cq = bed.cq(bed.a, 8);
        NdkPd pd = bed.pd(bed.a);
        NdkQp qp = bed.qp(pd, cq, cq, null, 4, 4, 1, 1, 0);
        long buf = bed.hostA.allocate(4096);
        NdkMr mr = bed.mr(bed.a, pd, buf, 4096, NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
        for (int i = 0; i < 3; i++) {
            assertThat(qp.receive(i, new NdkSge[] {new NdkSge(buf, 64, mr.getLocalToken())}, 1)).isEqualTo(STATUS_SUCCESS);
        }
        assertThat(qp.close(record("qp"), null)).isEqualTo(STATUS_PENDING);
        bed.sim.run();
        assertThat(closed).containsExactly("qp@null");
        // The flush completions were written before the QP was destroyed, but its close has completed.
        assertThat(bed.drain(cq)).isEmpty();
        assertThat(NdkTestBed.counter(bed.hostA, "orphanCqes")).isEqualTo(3);
    }

    @Test
    void deregisteringWhileRegistrationIsPendingIsRefused() {
        NdkPd pd = bed.pd(bed.a);
        Out<NdkMr> mr = new Out<>();
        assertThat(pd.createMr(false, null, null, mr)).isEqualTo(STATUS_SUCCESS);
        int[] s = {-1};
        assertThat(mr.value.registerMr(bed.hostA.allocate(4096), 4096, NDK_MR_FLAG_ALLOW_REMOTE_READ,
                (ctx, st) -> s[0] = st, null)).isEqualTo(STATUS_PENDING);
        assertThat(mr.value.deregisterMr(null, null)).isEqualTo(STATUS_INVALID_PARAMETER);
        assertThat(mr.value.close(record("mr"), null)).as("a request is pending").isEqualTo(STATUS_PENDING);
        bed.sim.run();
        assertThat(s[0]).isEqualTo(STATUS_SUCCESS);
        assertThat(closed).containsExactly("mr@null");
    }

    @Test
    void registrationFlagsAreChecked() {
        NdkPd pd = bed.pd(bed.a);
        Out<NdkMr> mr = new Out<>();
        assertThat(pd.createMr(false, null, null, mr)).isEqualTo(STATUS_SUCCESS);
        long buf = bed.hostA.allocate(4096);
        // Remote write without local write: the 0x4 bit alone.
        assertThat(mr.value.registerMr(buf, 4096, 0x4, null, null)).isEqualTo(STATUS_INVALID_PARAMETER_MIX);
        assertThat(mr.value.registerMr(buf, 4096, 0x40, null, null)).isEqualTo(STATUS_INVALID_PARAMETER);
        assertThat(mr.value.registerMr(buf, 0, NDK_MR_FLAG_ALLOW_LOCAL_WRITE, null, null)).isEqualTo(STATUS_INVALID_PARAMETER);
        assertThat(pd.createMr(true, null, null, new Out<>())).isEqualTo(STATUS_NOT_SUPPORTED);
    }

    @Test
    void resourcesRunningOutFailTheCreationAsynchronously() {
        NdkTestBed small = new NdkTestBed(dev.rdmasim.adapter.config.Profile.defaults().with("nic.maxCqs", "2"));
        small.cq(small.a, 4);
        small.cq(small.a, 4);
        NdkTestBed.Created<NdkCq> c = new NdkTestBed.Created<>();
        assertThat(small.a.createCq(4, null, null, null, small.into(c), null, new Out<>())).isEqualTo(STATUS_PENDING);
        small.runUntil(() -> c.done);
        assertThat(c.status).isEqualTo(STATUS_INSUFFICIENT_RESOURCES);
        assertThat(c.object).isNull();
    }
}
