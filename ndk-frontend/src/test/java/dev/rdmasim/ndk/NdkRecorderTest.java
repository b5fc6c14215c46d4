package dev.rdmasim.ndk;

import static dev.rdmasim.ndk.NdkOperationType.*;
import static dev.rdmasim.ndk.NtStatus.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The recorder hook hears each call once, with its arguments and the simulated time it was made at. */
class NdkRecorderTest {
    /** Writes each call as one line: "time call details". */
    private static final class Log implements NdkRecorder {
        final List<String> lines = new ArrayList<>();

        @Override
        public void cqCreated(long ps, NdkCq cq, long depth) {
            lines.add(ps + " cq " + depth);
        }

        @Override
        public void pdCreated(long ps, NdkPd pd) {
            lines.add(ps + " pd");
        }

        @Override
        public void mrRegistered(long ps, NdkPd pd, NdkMr mr, long address, long length, int flags) {
            lines.add(ps + " mr " + length + " " + flags);
        }

        @Override
        public void qpCreated(long ps, NdkPd pd, NdkQp qp, NdkCq receiveCq, NdkCq initiatorCq, Object qpContext,
                long receiveDepth, long initiatorDepth, long receiveSge, long initiatorSge, long inlineSize) {
            lines.add(ps + " qp " + qpContext);
        }

        @Override
        public void connecting(long ps, NdkConnector connector, NdkQp qp, NdkAddress dest, long in, long out,
                byte[] data, int length) {
            lines.add(ps + " connect " + dest.port());
        }

        @Override
        public void accepting(long ps, NdkConnector connector, NdkQp qp, long in, long out, byte[] data, int length) {
            lines.add(ps + " accept");
        }

        @Override
        public void post(long ps, NdkQp qp, int type, Object ctx, NdkSge[] sgl, int nSge, long remoteAddress,
                int remoteToken, int flags) {
            lines.add(ps + " post " + NdkOperationType.name(type) + " " + ctx + " " + nSge + " " + sgl[0].length());
        }

        @Override
        public void arm(long ps, NdkCq cq, int triggerType) {
            lines.add(ps + " arm " + triggerType);
        }

        @Override
        public void polled(long ps, NdkCq cq, int requested, NdkResult[] results, int got) {
            lines.add(ps + " poll " + requested + " " + got + (got > 0 ? " " + results[0].requestContext : ""));
        }

        @Override
        public void flush(long ps, NdkQp qp) {
            lines.add(ps + " flush");
        }

        @Override
        public void moderate(long ps, NdkCq cq, long intervalUs, long count) {
            lines.add(ps + " moderate");
        }

        @Override
        public void resize(long ps, NdkCq cq, long depth) {
            lines.add(ps + " resize");
        }

        @Override
        public void disconnect(long ps, NdkConnector connector) {
            lines.add(ps + " disconnect");
        }

        @Override
        public void close(long ps, NdkObject object) {
            lines.add(ps + " close " + object.objectType());
        }
    }

    @Test
    void callsAreHeardWithTheirTimeAndNothingWithoutARecorder() {
        NdkPair p = new NdkPair(0);
        Log log = new Log();
        p.bed.a.setRecorder(log);
        assertThat(p.bed.a.recorder()).isSameAs(log);
        NdkSge[] sge = {new NdkSge(p.bufA, 100, p.mrA.getLocalToken())};
        NdkSge[] sgeB = {new NdkSge(p.bufB, 256, p.mrB.getLocalToken())};
        // B has no recorder: its receive is not heard.
        assertThat(p.qpB.receive("r", sgeB, 1)).isEqualTo(STATUS_SUCCESS);
        long t0 = p.bed.a.now();
        assertThat(p.qpA.send("s", sge, 1, 0)).isEqualTo(STATUS_SUCCESS);
        assertThat(p.cqA.armCq(NdkConstants.NDK_CQ_NOTIFY_ANY)).isEqualTo(STATUS_SUCCESS);
        NdkResultEx got = p.bed.take(p.cqA, 1).get(0);
        assertThat(got.requestContext).isEqualTo("s");
        assertThat(log.lines.get(0)).isEqualTo(t0 + " post " + NdkOperationType.name(NdkOperationTypeSend) + " s 1 100");
        assertThat(log.lines.get(1)).isEqualTo(t0 + " arm " + NdkConstants.NDK_CQ_NOTIFY_ANY);
        // The polls (the test bed's loop), each with the time it was made at; one took the send's completion.
        List<String> polls = log.lines.subList(2, log.lines.size());
        assertThat(polls).isNotEmpty().allMatch(l -> l.contains(" poll "));
        String took = polls.stream().filter(l -> l.endsWith(" poll 1 1 s")).findFirst().orElseThrow();
        long at = Long.parseLong(took.split(" ")[0]);
        assertThat(at).isGreaterThan(t0).isLessThanOrEqualTo(p.bed.a.now());
        assertThat(polls).allMatch(l -> Long.parseLong(l.split(" ")[0]) >= t0);
        p.qpA.flush();
        assertThat(log.lines.get(log.lines.size() - 1)).isEqualTo(p.bed.a.now() + " flush");
        p.bed.a.setRecorder(null);
        int before = log.lines.size();
        p.qpA.flush();
        assertThat(log.lines).hasSize(before);
    }
}
