package dev.rdmasim.ndk;

import static dev.rdmasim.ndk.NdkConstants.*;

import dev.rdmasim.adapter.config.Profile;

/**
 * Two connected QPs (16 deep, 2 SGEs) on the two adapters of an {@link NdkTestBed}, each with its own CQ
 * and a registered 64 KiB buffer: the starting point of most data-path tests.
 */
final class NdkPair {
    static final int ALL_MR = NDK_MR_FLAG_ALLOW_LOCAL_WRITE | NDK_MR_FLAG_ALLOW_REMOTE_READ
            | NDK_MR_FLAG_ALLOW_REMOTE_WRITE;
    static final int BUFFER = 1 << 16;

    final NdkTestBed bed;
    final NdkCq cqA;
    final NdkCq cqB;
    final NdkPd pdA;
    final NdkPd pdB;
    final NdkQp qpA;
    final NdkQp qpB;
    final NdkMr mrA;
    final NdkMr mrB;
    final long bufA;
    final long bufB;

    /**
     * @param cqDepthA  depth of A's CQ (B's is 64)
     * @param inline    both QPs' inline size
     * @param mrFlagsB  registration flags of B's buffer (A's has every right)
     * @param onA       A's CQ notification callback (B's: {@code onB})
     */
    NdkPair(Profile profile, long cqDepthA, long inline, int mrFlagsB, NdkCallbacks.CqNotification onA,
            NdkCallbacks.CqNotification onB) {
        bed = new NdkTestBed(profile);
        cqA = bed.cq(bed.a, cqDepthA, onA);
        cqB = bed.cq(bed.b, 64, onB);
        pdA = bed.pd(bed.a);
        pdB = bed.pd(bed.b);
        qpA = bed.qp(pdA, cqA, cqA, "qpA", 16, 16, 2, 2, inline);
        qpB = bed.qp(pdB, cqB, cqB, "qpB", 16, 16, 2, 2, inline);
        bufA = bed.hostA.allocate(BUFFER);
        bufB = bed.hostB.allocate(BUFFER);
        mrA = bed.mr(bed.a, pdA, bufA, BUFFER, ALL_MR);
        mrB = bed.mr(bed.b, pdB, bufB, BUFFER, mrFlagsB);
        bed.connect(qpA, qpB);
    }

    NdkPair(Profile profile, long inline, int mrFlagsB) {
        this(profile, 64, inline, mrFlagsB, (ctx, s) -> { }, (ctx, s) -> { });
    }

    NdkPair(long inline) {
        this(Profile.defaults(), inline, ALL_MR);
    }

    /** One SGE over A's buffer. */
    NdkSge[] a(long offset, long length) {
        return new NdkSge[] {new NdkSge(bufA + offset, length, mrA.getLocalToken())};
    }

    /** One SGE over B's buffer. */
    NdkSge[] b(long offset, long length) {
        return new NdkSge[] {new NdkSge(bufB + offset, length, mrB.getLocalToken())};
    }
}
