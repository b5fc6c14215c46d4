package dev.rdmasim.ndk;

import static dev.rdmasim.ndk.NdkConstants.*;
import static dev.rdmasim.ndk.NdkOpFlags.*;
import static dev.rdmasim.ndk.NtStatus.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.host.HostMemory;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The NDK contract (docs/ndk.md, after the NDKPI digest) walked section by section, with every
 * negative case users know from the NetworkDirect test suite.
 */
class NdkConformanceTest {
    @Nested
    class AdapterInfo {
        @Test
        void queryNeedsTheWholeStructure() {
            NdkTestBed bed = new NdkTestBed();
            Out<NdkAdapterInfo> info = new Out<>();
            Out<Long> size = new Out<>(0x67L);
            assertThat(bed.a.queryAdapterInfo(info, size)).isEqualTo(STATUS_BUFFER_TOO_SMALL);
            assertThat(size.value).isEqualTo(0x68L);
            assertThat(info.value).isNull();
            assertThat(bed.a.queryAdapterInfo(info, size)).isEqualTo(STATUS_SUCCESS);
            NdkAdapterInfo i = info.value;
            assertThat(i.versionMajor).isEqualTo(1);
            assertThat(i.versionMinor).isEqualTo(2);
            assertThat(i.rdmaTechnology).isEqualTo(NdkRoCEv2);
            assertThat(i.frmrPageCount).isGreaterThanOrEqualTo(16);
            assertThat(i.maxInitiatorQueueDepth).isEqualTo(4096);
            assertThat(i.maxCallerData).isEqualTo(56);
            assertThat(i.maxCalleeData).isEqualTo(196);
            assertThat(i.has(NDK_ADAPTER_FLAG_CQ_INTERRUPT_MODERATION_SUPPORTED)).isTrue();
        }

        @Test
        void theProfileDecidesWhatTheConsumerIsTold() {
            NdkTestBed bed = new NdkTestBed(Profile.defaults().with("ndk.maxCqDepth", "1000"));
            Out<NdkAdapterInfo> info = new Out<>();
            assertThat(bed.a.queryAdapterInfo(info, new Out<>((long) NdkAdapterInfo.SIZE))).isEqualTo(STATUS_SUCCESS);
            assertThat(info.value.maxCqDepth).isEqualTo(1000);
            assertThat(bed.a.createCq(1001, null, null, null, null, null, new Out<>())).isEqualTo(STATUS_INVALID_PARAMETER);
            assertThat(bed.cq(bed.a, 1000).depth()).isEqualTo(1000);
        }
    }

    @Nested
    class Creation {
        @Test
        void cqDepthZeroOrAboveTheMaximumIsInvalid() {
            NdkTestBed bed = new NdkTestBed();
            assertThat(bed.a.createCq(0, null, null, null, null, null, new Out<>())).isEqualTo(STATUS_INVALID_PARAMETER);
        }

        @Test
        void qpLimitsAtTheMaximumSucceedAndOneAboveFails() {
            NdkTestBed bed = new NdkTestBed();
            NdkAdapterInfo i = bed.a.info();
            NdkCq cq = bed.cq(bed.a, 64);
            NdkPd pd = bed.pd(bed.a);
            long[] max = {i.maxReceiveQueueDepth, i.maxInitiatorQueueDepth, i.maxReceiveRequestSge,
                i.maxInitiatorRequestSge, i.maxInlineDataSize};
            for (int k = 0; k < max.length; k++) {
                long[] p = max.clone();
                p[k]++;
                assertThat(pd.createQp(cq, cq, null, p[0], p[1], p[2], p[3], p[4], null, null, new Out<>()))
                        .as("limit %d one above its maximum", k).isEqualTo(STATUS_INVALID_PARAMETER);
            }
            NdkQp qp = bed.qp(pd, cq, cq, "max", max[0], max[1], max[2], max[3], max[4]);
            assertThat(qp.hw.sq().ringBbs()).isLessThanOrEqualTo(1 << 15);
        }

        @Test
        void aCqOfAnotherAdapterIsInvalid() {
            NdkTestBed bed = new NdkTestBed();
            NdkCq cqB = bed.cq(bed.b, 8);
            NdkCq cqA = bed.cq(bed.a, 8);
            NdkPd pd = bed.pd(bed.a);
            assertThat(pd.createQp(cqB, cqA, null, 1, 1, 1, 1, 0, null, null, new Out<>()))
                    .isEqualTo(STATUS_INVALID_PARAMETER);
        }
    }

    @Nested
    class Posting {
        @Test
        void anUnconnectedQpRefusesInitiatorRequestsButTakesReceives() {
            NdkTestBed bed = new NdkTestBed();
            NdkCq cq = bed.cq(bed.a, 8);
            NdkPd pd = bed.pd(bed.a);
            NdkQp qp = bed.qp(pd, cq, cq, null, 4, 4, 1, 1, 0);
            assertThat(qp.send("s", null, 0, 0)).isEqualTo(STATUS_CONNECTION_INVALID);
            assertThat(qp.write("w", null, 0, 0, 0, 0)).isEqualTo(STATUS_CONNECTION_INVALID);
            assertThat(qp.read("r", null, 0, 0, 0, 0)).isEqualTo(STATUS_CONNECTION_INVALID);
            assertThat(qp.receive("r", null, 0)).isEqualTo(STATUS_SUCCESS);
            assertThat(bed.drain(cq)).isEmpty();
        }

        @Test
        void flagsAreCheckedPerCall() {
            NdkPair p = new NdkPair(64);
            assertThat(p.qpA.write("w", p.a(0, 8), 1, p.bufB, p.mrB.getRemoteToken(), NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT))
                    .isEqualTo(STATUS_INVALID_PARAMETER_4);
            assertThat(p.qpA.read("r", p.a(0, 8), 1, p.bufB, p.mrB.getRemoteToken(), NDK_OP_FLAG_INLINE))
                    .isEqualTo(STATUS_INVALID_PARAMETER_4);
            assertThat(p.qpA.send("s", p.a(0, 8), 1, NDK_OP_FLAG_ALLOW_REMOTE_READ))
                    .isEqualTo(STATUS_INVALID_PARAMETER_4);
            // The default adapter does not advertise RDMA_READ_LOCAL_INVALIDATE.
            assertThat(p.qpA.read("r", p.a(0, 8), 1, p.bufB, p.mrB.getRemoteToken(),
                    NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE)).isEqualTo(STATUS_NOT_SUPPORTED);
            assertThat(p.bed.drain(p.cqA)).isEmpty();
        }

        @Test
        void sgeCountAndInlineSizeAreEnforcedWithoutACompletion() {
            NdkPair p = new NdkPair(64);
            NdkSge[] three = {p.a(0, 8)[0], p.a(8, 8)[0], p.a(16, 8)[0]};
            assertThat(p.qpA.send("s", three, 3, 0)).isEqualTo(STATUS_DATA_OVERRUN);
            // INLINE is exempt from the SGE count, not from the inline size (64 B here).
            assertThat(p.qpB.receive("r", p.b(0, 64), 1)).isEqualTo(STATUS_SUCCESS);
            assertThat(p.qpA.send("inline3", three, 3, NDK_OP_FLAG_INLINE)).isEqualTo(STATUS_SUCCESS);
            assertThat(p.qpA.send("big", p.a(0, 65), 1, NDK_OP_FLAG_INLINE)).isEqualTo(STATUS_BUFFER_OVERFLOW);
            assertThat(p.qpB.receive("r3", three, 3)).isEqualTo(STATUS_DATA_OVERRUN);
            List<NdkResultEx> r = p.bed.take(p.cqA, 1);
            assertThat(r.get(0).requestContext).isEqualTo("inline3");
            assertThat(p.bed.drain(p.cqA)).isEmpty();
        }

        @Test
        void aFullQueueRefusesWithoutACompletionAndAcceptsAgainOnceACompletionIsTaken() {
            NdkPair p = new NdkPair(64);
            int token = p.mrB.getRemoteToken();
            for (int i = 0; i < 16; i++) {
                assertThat(p.qpA.write(i, p.a(0, 8), 1, p.bufB, token, 0)).isEqualTo(STATUS_SUCCESS);
            }
            assertThat(p.qpA.write("17th", p.a(0, 8), 1, p.bufB, token, 0)).isEqualTo(STATUS_NO_MORE_ENTRIES);
            assertThat(p.bed.take(p.cqA, 1).get(0).requestContext).isEqualTo(0);
            assertThat(p.qpA.write("17th", p.a(0, 8), 1, p.bufB, token, 0)).isEqualTo(STATUS_SUCCESS);
            List<NdkResultEx> rest = p.bed.take(p.cqA, 16);
            assertThat(rest.get(15).requestContext).isEqualTo("17th");
            for (int i = 0; i < 16; i++) {
                assertThat(p.qpB.receive(i, p.b(0, 8), 1)).isEqualTo(STATUS_SUCCESS);
            }
            assertThat(p.qpB.receive("17th", p.b(0, 8), 1)).isEqualTo(STATUS_NO_MORE_ENTRIES);
        }

        @Test
        void aFailedCallFirstHandsTheDeferredRequestsToTheAdapter() {
            NdkPair p = new NdkPair(64);
            int token = p.mrB.getRemoteToken();
            assertThat(p.qpA.write("d", p.a(0, 8), 1, p.bufB, token, NDK_OP_FLAG_DEFER)).isEqualTo(STATUS_SUCCESS);
            assertThat(p.qpA.write("bad", p.a(0, 8), 1, p.bufB, token, 0x8000)).isEqualTo(STATUS_INVALID_PARAMETER_4);
            assertThat(p.bed.take(p.cqA, 1).get(0).requestContext).isEqualTo("d");
        }

        @Test
        void theDeferLimitRingsTheDoorbellForALongBatch() {
            NdkPair p = new NdkPair(64);
            int token = p.mrB.getRemoteToken();
            int limit = p.bed.a.deferLimit;
            long before = NdkTestBed.counter(p.bed.hostA, "doorbells");
            // All deferred, none without the flag: the provider holds back limit - 1 and rings with the limit-th.
            for (int i = 0; i < limit - 1; i++) {
                assertThat(p.qpA.write(i, p.a(0, 8), 1, p.bufB, token, NDK_OP_FLAG_DEFER)).isEqualTo(STATUS_SUCCESS);
            }
            assertThat(p.bed.drain(p.cqA)).isEmpty();
            assertThat(NdkTestBed.counter(p.bed.hostA, "doorbells")).isEqualTo(before);
            assertThat(p.qpA.write(limit - 1, p.a(0, 8), 1, p.bufB, token, NDK_OP_FLAG_DEFER)).isEqualTo(STATUS_SUCCESS);
            assertThat(p.bed.take(p.cqA, limit)).extracting(r -> r.requestContext).startsWith(0, 1).endsWith(limit - 1);
            assertThat(NdkTestBed.counter(p.bed.hostA, "doorbells")).isEqualTo(before + 1);
        }
    }

    @Nested
    class TransportErrors {
        @Test
        void aSendLargerThanTheReceiveFailsTheReceiverWithBufferOverflowAndBreaksTheConnection() {
            NdkPair p = new NdkPair(64);
            assertThat(p.qpB.receive("small", p.b(0, 1023), 1)).isEqualTo(STATUS_SUCCESS);
            assertThat(p.qpB.receive("next", p.b(2048, 2048), 1)).isEqualTo(STATUS_SUCCESS);
            assertThat(p.qpA.send("big", p.a(0, 1024), 1, 0)).isEqualTo(STATUS_SUCCESS);
            List<NdkResultEx> rb = p.bed.take(p.cqB, 2);
            assertThat(rb.get(0).requestContext).isEqualTo("small");
            assertThat(rb.get(0).status).isEqualTo(STATUS_BUFFER_OVERFLOW);
            assertThat(rb.get(1).requestContext).isEqualTo("next");
            assertThat(rb.get(1).status).isEqualTo(STATUS_CANCELLED);
            NdkResultEx ra = p.bed.take(p.cqA, 1).get(0);
            assertThat(ra.requestContext).isEqualTo("big");
            assertThat(ra.status).isEqualTo(STATUS_REMOTE_RESOURCES);
            assertThat(p.qpA.isConnected()).isFalse();
            assertThat(p.qpB.isConnected()).isFalse();
        }

        private void badWrite(NdkPair p, long remote, int token, long length) {
            HostMemory memB = NdkTestBed.memory(p.bed.b);
            long digest = memB.digest(p.bufB, 1 << 16);
            assertThat(p.qpB.receive("pending1", p.b(0, 64), 1)).isEqualTo(STATUS_SUCCESS);
            assertThat(p.qpB.receive("pending2", p.b(64, 64), 1)).isEqualTo(STATUS_SUCCESS);
            assertThat(p.qpA.write("w", p.a(0, length), 1, remote, token, 0)).isEqualTo(STATUS_SUCCESS);
            assertThat(p.qpA.send("after", p.a(0, 8), 1, 0)).isEqualTo(STATUS_SUCCESS);
            List<NdkResultEx> ra = p.bed.take(p.cqA, 2);
            assertThat(ra.get(0).requestContext).isEqualTo("w");
            assertThat(ra.get(0).status).isEqualTo(STATUS_ACCESS_VIOLATION);
            assertThat(ra.get(1).requestContext).isEqualTo("after");
            assertThat(ra.get(1).status).isEqualTo(STATUS_CANCELLED);
            List<NdkResultEx> rb = p.bed.take(p.cqB, 2);
            assertThat(rb).extracting(r -> r.requestContext).containsExactly("pending1", "pending2");
            assertThat(rb).allMatch(r -> r.status == STATUS_CANCELLED);
            assertThat(memB.digest(p.bufB, 1 << 16)).as("the target is unchanged").isEqualTo(digest);
        }

        @Test
        void aWritePastTheRegionIsAnAccessViolation() {
            NdkPair p = new NdkPair(64);
            badWrite(p, p.bufB + (1 << 16) - 32, p.mrB.getRemoteToken(), 64);
        }

        @Test
        void aWriteToAReadOnlyRegionIsAnAccessViolation() {
            NdkPair p = new NdkPair(Profile.defaults(), 64, NDK_MR_FLAG_ALLOW_REMOTE_READ);
            badWrite(p, p.bufB, p.mrB.getRemoteToken(), 64);
        }

        @Test
        void aWriteWithAnInvalidatedTokenIsAnAccessViolation() {
            NdkPair p = new NdkPair(64);
            int token = p.mrB.getRemoteToken();
            int[] status = {-1};
            assertThat(p.mrB.deregisterMr((ctx, s) -> status[0] = s, null)).isEqualTo(STATUS_PENDING);
            p.bed.runUntil(() -> status[0] != -1);
            assertThat(status[0]).isEqualTo(STATUS_SUCCESS);
            badWrite(p, p.bufB, token, 64);
        }

        @Test
        void aSendWithNoReceivePostedTimesOutAtTheSender() {
            NdkPair p = new NdkPair(64);
            assertThat(p.qpA.send("lonely", p.a(0, 64), 1, 0)).isEqualTo(STATUS_SUCCESS);
            NdkResultEx r = p.bed.take(p.cqA, 1).get(0);
            assertThat(r.status).isEqualTo(STATUS_IO_TIMEOUT);
            // The connection manager asked for host.cmRnrRetryCount RNR retries: the first try and that many
            // more, each after an RNR wait.
            var profile = p.bed.profile;
            long retries = profile.getLong(dev.rdmasim.adapter.config.Parameters.HOST_CM_RNR_RETRY_COUNT);
            long wait = profile.getLong(dev.rdmasim.adapter.config.Parameters.TRANSPORT_RNR_TIMER);
            assertThat(p.bed.sim.now()).isGreaterThan(retries * wait);
            assertThat(NdkTestBed.counter(p.bed.nicB.children().stream()
                    .filter(m -> m.name().equals("rx")).findFirst().orElseThrow(), "rnrNaks")).isEqualTo(retries + 1);
        }
    }
}
