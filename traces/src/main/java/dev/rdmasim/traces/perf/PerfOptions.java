package dev.rdmasim.traces.perf;

import static dev.rdmasim.adapter.config.Parameters.*;

import dev.rdmasim.adapter.config.Profile;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What one perf run does, with every default resolved (so that a report can show it). Built by
 * {@link #builder}, which takes perftest's flags by their meaning and checks them; an impossible value is an
 * {@link IllegalArgumentException} naming the flag.
 *
 * @param test       the workload
 * @param profile    the profile both hosts and the cable are built from ({@code link.mtu} set to {@code mtu})
 * @param seed       the simulator's seed
 * @param sizes      message sizes in bytes, run in this order on the same connections
 * @param iterations {@code -n}: messages per QP and size (latency tests: round trips or reads)
 * @param txDepth    {@code -t}: initiator queue depth of each QP, the most requests kept outstanding
 * @param rxDepth    {@code -r}: receive queue depth of each QP, the receives kept posted in send tests
 * @param inlineSize {@code -I}: requests of at most this many bytes go INLINE (0 for the read tests)
 * @param qps        {@code -q}: QPs connected between the two hosts (bandwidth tests)
 * @param postList   {@code -l}: requests posted per doorbell, all but the last with DEFER (bandwidth tests)
 * @param cqMod      {@code -Q}: every cqMod-th request of a QP is signaled, the others SILENT_SUCCESS
 * @param mtu        {@code -m}: the link MTU in bytes
 */
public record PerfOptions(PerfTest test, Profile profile, long seed, List<Integer> sizes, int iterations, int txDepth,
        int rxDepth, int inlineSize, int qps, int postList, int cqMod, int mtu) {

    /** Largest message: the top of {@code -a}'s range (8 MiB), as perftest's. */
    public static final int MAX_SIZE = 8 << 20;
    /** Most QPs a run connects (each has buffers of the largest size on both hosts). */
    public static final int MAX_QPS = 256;
    /** perftest's default CQ moderation, before it is fitted to the depth. */
    public static final int PERFTEST_CQ_MOD = 100;

    public PerfOptions {
        Objects.requireNonNull(test, "test");
        Objects.requireNonNull(profile, "profile");
        sizes = List.copyOf(sizes);
        if (sizes.isEmpty()) {
            throw new IllegalArgumentException("no message sizes");
        }
        for (int s : sizes) {
            check(s >= 1 && s <= MAX_SIZE, "-s", "between 1 and " + MAX_SIZE + " bytes", s);
        }
        check(iterations >= (test.isBandwidth() ? 1 : 4), "-n",
                test.isBandwidth() ? "at least 1" : "at least 4 (two samples are dropped, as perftest does)", iterations);
        check(txDepth >= 1 && txDepth <= profile.getLong(NDK_MAX_INITIATOR_QUEUE_DEPTH), "-t",
                "between 1 and ndk.maxInitiatorQueueDepth " + profile.getLong(NDK_MAX_INITIATOR_QUEUE_DEPTH), txDepth);
        check(rxDepth >= 1 && rxDepth <= profile.getLong(NDK_MAX_RECEIVE_QUEUE_DEPTH), "-r",
                "between 1 and ndk.maxReceiveQueueDepth " + profile.getLong(NDK_MAX_RECEIVE_QUEUE_DEPTH), rxDepth);
        check(inlineSize >= 0 && inlineSize <= profile.getLong(NDK_MAX_INLINE_DATA_SIZE), "-I",
                "between 0 and ndk.maxInlineDataSize " + profile.getLong(NDK_MAX_INLINE_DATA_SIZE), inlineSize);
        check(qps >= 1 && qps <= MAX_QPS, "-q", "between 1 and " + MAX_QPS, qps);
        check(test.isBandwidth() || qps == 1, "-q", "1 for latency tests (one QP ping-pongs)", qps);
        check(postList >= 1 && postList <= txDepth, "-l", "between 1 and the depth -t " + txDepth, postList);
        check(test.isBandwidth() || postList == 1, "-l", "1 for latency tests (post lists are for bandwidth tests)",
                postList);
        check(iterations % postList == 0, "-n", "a multiple of the post list -l " + postList, iterations);
        check(cqMod >= 1 && cqMod <= txDepth, "-Q", "between 1 and the depth -t " + txDepth, cqMod);
        check(postList % cqMod == 0 || postList == 1, "-Q", "a divisor of the post list -l " + postList, cqMod);
        check(mtu >= 256 && mtu <= 4096 && Integer.bitCount(mtu) == 1, "-m", "one of 256, 512, 1024, 2048, 4096", mtu);
        check(test.verb() != PerfTest.Verb.READ || inlineSize == 0, "-I", "0 for read tests (reads carry no inline data)",
                inlineSize);
    }

    private static void check(boolean ok, String flag, String what, long got) {
        if (!ok) {
            throw new IllegalArgumentException(flag + " must be " + what + ", got " + got);
        }
    }

    /** perftest's default size: 64 KiB for bandwidth tests, 2 B for latency tests. */
    public static int defaultSize(PerfTest test) {
        return test.isBandwidth() ? 65536 : 2;
    }

    /** perftest's default iterations: 5000 for bandwidth tests, 1000 for latency tests. */
    public static int defaultIterations(PerfTest test) {
        return test.isBandwidth() ? 5000 : 1000;
    }

    /** {@code -a}: 2 B to 8 MiB, doubling. */
    public static List<Integer> allSizes() {
        List<Integer> l = new ArrayList<>();
        for (int s = 2; s <= MAX_SIZE; s *= 2) {
            l.add(s);
        }
        return l;
    }

    /**
     * The CQ moderation used when {@code -Q} is not given: the post list when there is one (perftest's rule, so
     * that the last request of every list is signaled); else perftest's 100, but at most half the depth rounded
     * up, so that a window of {@code -t} outstanding requests always holds two signaled ones and the poster
     * refills one half while the other is still in flight (perftest's plain {@code min(100, t)} leaves 28 of 128
     * in flight when the signaled one completes).
     */
    public static int defaultCqMod(int txDepth, int postList) {
        if (postList > 1) {
            return postList;
        }
        return Math.max(1, Math.min(PERFTEST_CQ_MOD, (txDepth + 1) / 2));
    }

    /** The profile the hosts are built from: the given one with {@code link.mtu} set to {@link #mtu}. */
    public Profile effectiveProfile() {
        return profile.with(LINK_MTU, (long) mtu);
    }

    public static Builder builder(PerfTest test, Profile profile) {
        return new Builder(test, profile);
    }

    /** Flags as a command line gives them; what is not set takes perftest's or the profile's default. */
    public static final class Builder {
        private final PerfTest test;
        private final Profile profile;
        private long seed = 1;
        private List<Integer> sizes;
        private Integer iterations;
        private Integer txDepth;
        private Integer rxDepth;
        private Integer inlineSize;
        private int qps = 1;
        private int postList = 1;
        private Integer cqMod;
        private Integer mtu;

        private Builder(PerfTest test, Profile profile) {
            this.test = Objects.requireNonNull(test, "test");
            this.profile = Objects.requireNonNull(profile, "profile");
        }

        public Builder seed(long v) {
            seed = v;
            return this;
        }

        /** {@code -s}. */
        public Builder size(int v) {
            sizes = List.of(v);
            return this;
        }

        /** {@code -a}. */
        public Builder allSizes() {
            sizes = PerfOptions.allSizes();
            return this;
        }

        public Builder sizes(List<Integer> v) {
            sizes = List.copyOf(v);
            return this;
        }

        /** {@code -n}; default 5000 (bandwidth) or 1000 (latency). */
        public Builder iterations(int v) {
            iterations = v;
            return this;
        }

        /** {@code -t}; default the profile's {@code qp.initiatorQueueDepth}. */
        public Builder txDepth(int v) {
            txDepth = v;
            return this;
        }

        /** {@code -r}; default the profile's {@code qp.receiveQueueDepth}. */
        public Builder rxDepth(int v) {
            rxDepth = v;
            return this;
        }

        /** {@code -I}; default the profile's {@code qp.inlineDataSize} (0 for read tests). */
        public Builder inlineSize(int v) {
            inlineSize = v;
            return this;
        }

        /** {@code -q}; default 1. */
        public Builder qps(int v) {
            qps = v;
            return this;
        }

        /** {@code -l}; default 1. */
        public Builder postList(int v) {
            postList = v;
            return this;
        }

        /** {@code -Q}; default {@link #defaultCqMod}. */
        public Builder cqMod(int v) {
            cqMod = v;
            return this;
        }

        /** {@code -m}; default the profile's {@code link.mtu}. */
        public Builder mtu(int v) {
            mtu = v;
            return this;
        }

        public PerfOptions build() {
            int t = txDepth != null ? txDepth : profile.getInt(QP_INITIATOR_QUEUE_DEPTH);
            int inline = inlineSize != null ? inlineSize
                    : test.verb() == PerfTest.Verb.READ ? 0 : profile.getInt(QP_INLINE_DATA_SIZE);
            return new PerfOptions(test, profile, seed, sizes != null ? sizes : List.of(defaultSize(test)),
                    iterations != null ? iterations : defaultIterations(test), t,
                    rxDepth != null ? rxDepth : profile.getInt(QP_RECEIVE_QUEUE_DEPTH), inline, qps, postList,
                    cqMod != null ? cqMod : defaultCqMod(t, postList), mtu != null ? mtu : profile.getInt(LINK_MTU));
        }
    }
}
