package dev.rdmasim.ndk;

import static dev.rdmasim.ndk.NtStatus.STATUS_INVALID_PARAMETER;
import static dev.rdmasim.ndk.NtStatus.STATUS_PENDING;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.config.Parameters;
import dev.rdmasim.adapter.config.Profile;
import org.junit.jupiter.api.Test;

/** Placing CQs (creation affinity) and QPs (processor) on the host's cores ({@code host.cores}). */
class NdkCoresTest {
    @Test
    void affinityPlacesACqAndProcessorPlacesAQp() {
        NdkTestBed bed = new NdkTestBed(Profile.defaults().with(Parameters.HOST_CORES, 3L));
        NdkPd pd = bed.pd(bed.a);
        NdkTestBed.Created<NdkCq> c = new NdkTestBed.Created<>();
        assertThat(bed.a.createCq(64, (ctx, s) -> { }, null, 2, bed.into(c), null, new Out<>())).isEqualTo(STATUS_PENDING);
        NdkCq pinned = bed.await(c);
        assertThat(pinned.core()).isSameAs(bed.hostA.core(2));

        // Without affinity a CQ follows its first QP; QPs go round robin unless a processor is named.
        NdkCq free = bed.cq(bed.a, 64);
        NdkQp first = bed.qp(pd, free, free, "q0", 4, 4, 1, 1, 0);
        assertThat(free.core()).isSameAs(bed.hostA.core(0));
        NdkTestBed.Created<NdkQp> q = new NdkTestBed.Created<>();
        assertThat(pd.createQp(pinned, pinned, "q1", 4, 4, 1, 1, 0, 1, bed.into(q), null, new Out<>()))
                .isEqualTo(STATUS_PENDING);
        assertThat(first.core()).isSameAs(bed.hostA.core(0));
        assertThat(bed.await(q).core()).isSameAs(bed.hostA.core(1));
        assertThat(pinned.core()).as("an affinity outlives the QP's core").isSameAs(bed.hostA.core(2));
        NdkQp third = bed.qp(pd, free, free, "q2", 4, 4, 1, 1, 0);
        assertThat(third.core()).as("the third QP of the adapter").isSameAs(bed.hostA.core(2));
    }

    @Test
    void aCoreTheHostDoesNotHaveIsAnInvalidParameter() {
        NdkTestBed bed = new NdkTestBed(Profile.defaults().with(Parameters.HOST_CORES, 2L));
        NdkCq cq = bed.cq(bed.a, 16);
        NdkPd pd = bed.pd(bed.a);
        assertThat(bed.a.createCq(16, (ctx, s) -> { }, null, 2, (ctx, s, o) -> { }, null, new Out<>()))
                .isEqualTo(STATUS_INVALID_PARAMETER);
        assertThat(bed.a.createCq(16, (ctx, s) -> { }, null, -1, (ctx, s, o) -> { }, null, new Out<>()))
                .isEqualTo(STATUS_INVALID_PARAMETER);
        assertThat(pd.createQp(cq, cq, null, 4, 4, 1, 1, 0, 2, (ctx, s, o) -> { }, null, new Out<>()))
                .isEqualTo(STATUS_INVALID_PARAMETER);
        assertThat(pd.createQp(cq, cq, null, 4, 4, 1, 1, 0, -2, (ctx, s, o) -> { }, null, new Out<>()))
                .isEqualTo(STATUS_INVALID_PARAMETER);
    }
}
