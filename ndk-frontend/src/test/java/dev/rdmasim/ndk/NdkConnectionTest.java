package dev.rdmasim.ndk;

import static dev.rdmasim.ndk.NdkConstants.*;
import static dev.rdmasim.ndk.NtStatus.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Connectors and listeners across the modeled link: connect, accept, reject, connection data, disconnect. */
class NdkConnectionTest {
    private final NdkTestBed bed = new NdkTestBed();
    private final NdkCq cqA = bed.cq(bed.a, 64);
    private final NdkCq cqB = bed.cq(bed.b, 64);
    private final NdkPd pdA = bed.pd(bed.a);
    private final NdkPd pdB = bed.pd(bed.b);
    private final NdkQp qpA = bed.qp(pdA, cqA, cqA, "qpA", 8, 8, 1, 1, 0);
    private final NdkQp qpB = bed.qp(pdB, cqB, cqB, "qpB", 8, 8, 1, 1, 0);
    private final NdkAddress listenAt = new NdkAddress(bed.hostB.ip(), 5000);
    private final List<NdkConnector> requests = new ArrayList<>();
    private final int[] status = {-1};

    private static byte[] data(int n, long seed) {
        byte[] b = new byte[n];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    private NdkListener listen() {
        Out<NdkListener> l = new Out<>();
        assertThat(bed.b.createListener((ctx, c) -> requests.add(c), "listener", null, null, l)).isEqualTo(STATUS_SUCCESS);
        assertThat(l.value.listen(listenAt, null, null)).isEqualTo(STATUS_SUCCESS);
        return l.value;
    }

    private NdkConnector connector(NdkAdapter ad) {
        Out<NdkConnector> c = new Out<>();
        assertThat(ad.createConnector(null, null, c)).isEqualTo(STATUS_SUCCESS);
        return c.value;
    }

    private int connect(NdkConnector c, byte[] privateData, int length) {
        return c.connect(qpA, new NdkAddress(0, 0), listenAt, 4, 4, privateData, length, (ctx, s) -> status[0] = s, null);
    }

    private int awaitStatus() {
        bed.runUntil(() -> status[0] != -1);
        int s = status[0];
        status[0] = -1;
        return s;
    }

    @Test
    void callerDataUpToTheMaximumReachesTheListenerAndOneByteMoreIsRefused() {
        listen();
        NdkConnector c = connector(bed.a);
        int max = (int) bed.a.info().maxCallerData;
        assertThat(connect(c, new byte[max + 1], max + 1)).isEqualTo(STATUS_INVALID_BUFFER_SIZE);
        byte[] mine = data(max, 1);
        assertThat(connect(c, mine, max)).isEqualTo(STATUS_PENDING);
        bed.runUntil(() -> !requests.isEmpty());
        NdkConnector passive = requests.get(0);
        assertThat(passive.getPeerAddress().ipv4()).isEqualTo(bed.hostA.ip());
        assertThat(passive.getLocalAddress()).isEqualTo(listenAt);
        Out<Integer> len = new Out<>(10);
        Out<Long> in = new Out<>();
        Out<Long> out = new Out<>();
        byte[] buf = new byte[max];
        assertThat(passive.getConnectionData(in, out, buf, len)).isEqualTo(STATUS_BUFFER_TOO_SMALL);
        assertThat(len.value).isEqualTo(max);
        assertThat(passive.getConnectionData(in, out, buf, len)).isEqualTo(STATUS_SUCCESS);
        assertThat(buf).isEqualTo(mine);
        // The active side asked inbound 4, outbound 4: the peer sees them as its outbound and inbound limits.
        assertThat(in.value).isEqualTo(4);
        assertThat(out.value).isEqualTo(4);

        int calleeMax = (int) bed.b.info().maxCalleeData;
        assertThat(passive.accept(qpB, 2, 2, new byte[calleeMax + 1], calleeMax + 1, null, null, null, null))
                .isEqualTo(STATUS_INVALID_BUFFER_SIZE);
        byte[] theirs = data(calleeMax, 2);
        int[] accepted = {-1};
        assertThat(passive.accept(qpB, 2, 2, theirs, calleeMax, null, null, (ctx, s) -> accepted[0] = s, null))
                .isEqualTo(STATUS_PENDING);
        assertThat(awaitStatus()).isEqualTo(STATUS_SUCCESS);
        byte[] got = new byte[256];
        Out<Integer> gotLen = new Out<>(got.length);
        assertThat(c.getConnectionData(in, out, got, gotLen)).isEqualTo(STATUS_SUCCESS);
        assertThat(gotLen.value).isEqualTo(calleeMax);
        assertThat(Arrays.copyOf(got, calleeMax)).isEqualTo(theirs);
        assertThat(qpA.isConnected()).as("not before CompleteConnect").isFalse();
        assertThat(c.completeConnect(null, null, (ctx, s) -> status[0] = s, null)).isEqualTo(STATUS_PENDING);
        assertThat(awaitStatus()).isEqualTo(STATUS_SUCCESS);
        bed.runUntil(() -> accepted[0] != -1);
        assertThat(accepted[0]).isEqualTo(STATUS_SUCCESS);
        assertThat(qpA.isConnected()).isTrue();
        assertThat(qpB.isConnected()).isTrue();
        assertThat(connect(connector(bed.a), null, 0)).as("the QP is taken").isEqualTo(STATUS_CONNECTION_ACTIVE);
    }

    @Test
    void aRejectIsRefusedWithTheRejectersData() {
        listen();
        NdkConnector c = connector(bed.a);
        assertThat(connect(c, data(8, 3), 8)).isEqualTo(STATUS_PENDING);
        bed.runUntil(() -> !requests.isEmpty());
        byte[] why = data(100, 4);
        assertThat(requests.get(0).reject(why, 100)).isEqualTo(STATUS_SUCCESS);
        assertThat(awaitStatus()).isEqualTo(STATUS_CONNECTION_REFUSED);
        byte[] got = new byte[256];
        Out<Integer> len = new Out<>(got.length);
        assertThat(c.getConnectionData(null, null, got, len)).isEqualTo(STATUS_SUCCESS);
        assertThat(Arrays.copyOf(got, 100)).isEqualTo(why);
        assertThat(qpA.isConnected()).isFalse();
    }

    @Test
    void nobodyListeningIsRefused() {
        NdkConnector c = connector(bed.a);
        assertThat(connect(c, null, 0)).isEqualTo(STATUS_PENDING);
        assertThat(awaitStatus()).isEqualTo(STATUS_CONNECTION_REFUSED);
    }

    @Test
    void addressesAreChecked() {
        NdkListener l = listen();
        Out<NdkListener> other = new Out<>();
        assertThat(bed.b.createListener((ctx, c) -> { }, null, null, null, other)).isEqualTo(STATUS_SUCCESS);
        assertThat(other.value.listen(listenAt, null, null)).isEqualTo(STATUS_ADDRESS_ALREADY_EXISTS);
        assertThat(other.value.listen(new NdkAddress(bed.hostA.ip(), 5001), null, null)).isEqualTo(STATUS_INVALID_ADDRESS);
        NdkConnector c = connector(bed.a);
        assertThat(c.connect(qpA, new NdkAddress(0, 0), new NdkAddress(0x0A00_0063, 5000), 1, 1, null, 0, null, null))
                .isEqualTo(STATUS_INVALID_ADDRESS);
        // Closing the listener frees its port.
        assertThat(l.close(null, null)).isEqualTo(STATUS_SUCCESS);
        assertThat(other.value.listen(listenAt, null, null)).isEqualTo(STATUS_SUCCESS);
    }

    @Test
    void disconnectFlushesBothSidesAndTellsThePeerOnce() {
        int[] told = {0};
        listen();
        NdkConnector c = connector(bed.a);
        assertThat(connect(c, null, 0)).isEqualTo(STATUS_PENDING);
        bed.runUntil(() -> !requests.isEmpty());
        assertThat(requests.get(0).accept(qpB, 1, 1, null, 0, ctx -> told[0]++, "b", (ctx, s) -> { }, null))
                .isEqualTo(STATUS_PENDING);
        assertThat(awaitStatus()).isEqualTo(STATUS_SUCCESS);
        assertThat(c.completeConnect(ctx -> told[0] += 100, "a", (ctx, s) -> status[0] = s, null)).isEqualTo(STATUS_PENDING);
        assertThat(awaitStatus()).isEqualTo(STATUS_SUCCESS);
        bed.sim.run();
        long bufA = bed.hostA.allocate(4096);
        long bufB = bed.hostB.allocate(4096);
        NdkMr mrA = bed.mr(bed.a, pdA, bufA, 4096, NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
        NdkMr mrB = bed.mr(bed.b, pdB, bufB, 4096, NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
        for (int i = 0; i < 2; i++) {
            assertThat(qpA.receive("a" + i, new NdkSge[] {new NdkSge(bufA, 64, mrA.getLocalToken())}, 1)).isEqualTo(STATUS_SUCCESS);
            assertThat(qpB.receive("b" + i, new NdkSge[] {new NdkSge(bufB, 64, mrB.getLocalToken())}, 1)).isEqualTo(STATUS_SUCCESS);
        }
        assertThat(c.disconnect((ctx, s) -> status[0] = s, null)).isEqualTo(STATUS_PENDING);
        assertThat(awaitStatus()).isEqualTo(STATUS_SUCCESS);
        bed.sim.run();
        assertThat(told[0]).as("B heard of it once, A (who disconnected) not at all").isEqualTo(1);
        assertThat(bed.take(cqA, 2)).allMatch(r -> r.status == STATUS_CANCELLED);
        assertThat(bed.take(cqB, 2)).allMatch(r -> r.status == STATUS_CANCELLED);
        assertThat(qpA.send("late", null, 0, 0)).isEqualTo(STATUS_CONNECTION_INVALID);
        assertThat(qpB.send("late", null, 0, 0)).isEqualTo(STATUS_CONNECTION_INVALID);
        assertThat(c.disconnect(null, null)).isEqualTo(STATUS_CONNECTION_INVALID);
    }

    /** Time from posting four 4 KiB READs on A to their last completion, with A's outbound limit {@code out}. */
    private static long fourReads(long out) {
        NdkTestBed t = new NdkTestBed();
        NdkCq c1 = t.cq(t.a, 16);
        NdkCq c2 = t.cq(t.b, 16);
        NdkPd p1 = t.pd(t.a);
        NdkPd p2 = t.pd(t.b);
        NdkQp q1 = t.qp(p1, c1, c1, null, 8, 8, 1, 1, 0);
        NdkQp q2 = t.qp(p2, c2, c2, null, 8, 8, 1, 1, 0);
        long b1 = t.hostA.allocate(1 << 16);
        long b2 = t.hostB.allocate(1 << 16);
        NdkMr m1 = t.mr(t.a, p1, b1, 1 << 16, NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
        NdkMr m2 = t.mr(t.b, p2, b2, 1 << 16, NDK_MR_FLAG_ALLOW_REMOTE_READ);
        NdkConnector[] ends = t.connect(q1, q2, 8, out, 8, 8);
        Out<Long> in = new Out<>();
        Out<Long> outLimit = new Out<>();
        assertThat(ends[1].getConnectionData(in, outLimit, null, new Out<>(256))).isIn(STATUS_SUCCESS, STATUS_BUFFER_TOO_SMALL);
        assertThat(in.value).as("B sees A's outbound limit as the reads coming in").isEqualTo(out);
        t.sim.run();
        long start = t.sim.now();
        for (int i = 0; i < 4; i++) {
            assertThat(q1.read(i, new NdkSge[] {new NdkSge(b1 + i * 4096L, 4096, m1.getLocalToken())}, 1,
                    b2 + i * 4096L, m2.getRemoteToken(), 0)).isEqualTo(STATUS_SUCCESS);
        }
        t.take(c1, 4);
        return t.sim.now() - start;
    }

    @Test
    void theNegotiatedReadLimitIsWhatTheAdapterEnforces() {
        long one = fourReads(1);
        long eight = fourReads(8);
        // One READ at a time: the responder's host-memory read for each later READ cannot overlap the earlier
        // ones' any more, so each of the last three adds at least the host read latency.
        long hostRead = dev.rdmasim.adapter.config.Profile.defaults()
                .getLong(dev.rdmasim.adapter.config.Parameters.PCIE_HOST_READ_LATENCY);
        assertThat(one - eight).isGreaterThan(3 * hostRead);
    }
}
