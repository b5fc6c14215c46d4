package dev.rdmasim.ndk;

import static dev.rdmasim.ndk.NdkConstants.*;
import static dev.rdmasim.ndk.NdkOperationType.*;
import static dev.rdmasim.ndk.NtStatus.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.host.HostMemory;
import java.util.ArrayDeque;
import java.util.SplittableRandom;

/**
 * One side of a NetworkDirect example program, written as the program would be: a QP with its own
 * receive CQ and initiator CQ, one registered buffer, and the few things the examples do over and
 * over (post a receive, send bytes from the buffer, wait for the next completion and check it is the
 * one expected, in posting order).
 *
 * <p>Waiting for a completion is done in one of two ways, as the examples offer: {@link Wait#POLL}
 * polls the CQ whenever a CQE has landed (a busy-polling thread), {@link Wait#ARMED} arms the CQ for
 * {@code NDK_CQ_NOTIFY_ANY}, runs the simulation until the notification callback has been called,
 * then polls everything there and arms again the next time it has to wait.
 */
final class NdkScenarioPeer {
    /** Size of the {address, token, length} message the examples advertise a buffer with. */
    static final int ADVERT_BYTES = 16;
    static final int ALL_MR = NDK_MR_FLAG_ALLOW_LOCAL_WRITE | NDK_MR_FLAG_ALLOW_REMOTE_READ
            | NDK_MR_FLAG_ALLOW_REMOTE_WRITE;

    /** How a program waits for its next completion. */
    enum Wait { POLL, ARMED }

    /** A CQ together with what its notification callback saw and the results polled but not yet used. */
    final class Watched implements NdkCallbacks.CqNotification {
        NdkCq cq;
        int arms;
        int notifications;
        int lastStatus = -1;
        private final ArrayDeque<NdkResultEx> polled = new ArrayDeque<>();
        private final NdkResultEx[] buf = {new NdkResultEx(), new NdkResultEx(), new NdkResultEx(), new NdkResultEx()};

        @Override
        public void cqNotification(Object context, int cqStatus) {
            assertThat(context).as("notification context").isSameAs(this);
            notifications++;
            lastStatus = cqStatus;
        }

        /** The next completion of this CQ, waiting for it the way {@link #wait} says. */
        NdkResultEx next() {
            if (!polled.isEmpty()) {
                return polled.poll();
            }
            if (wait == Wait.POLL) {
                return bed.take(cq, 1).get(0);
            }
            int before = notifications;
            assertThat(cq.armCq(NDK_CQ_NOTIFY_ANY)).isEqualTo(STATUS_SUCCESS);
            arms++;
            bed.runUntil(() -> notifications > before);
            assertThat(notifications).as(name + ": one notification per arm").isEqualTo(before + 1);
            assertThat(lastStatus).as(name + ": notification status").isEqualTo(STATUS_SUCCESS);
            int k;
            while ((k = cq.getCqResultsEx(buf, buf.length)) > 0) {
                for (int i = 0; i < k; i++) {
                    polled.add(NdkTestBed.copy(buf[i]));
                }
            }
            assertThat(polled).as(name + ": a notification means a completion is there").isNotEmpty();
            return polled.poll();
        }

        /** Nothing was delivered that the program did not take. */
        void assertEmpty() {
            assertThat(polled).as(name + ": results left over").isEmpty();
            NdkResultEx[] one = {new NdkResultEx()};
            assertThat(cq.getCqResultsEx(one, 1)).as(name + ": results left in the CQ").isZero();
        }
    }

    final NdkTestBed bed;
    final NdkAdapter adapter;
    final HostMemory mem;
    final String name;
    final Wait wait;
    final NdkAdapterInfo info;
    final Watched recv = new Watched();
    final Watched init = new Watched();
    final NdkPd pd;
    final NdkQp qp;
    final long buf;
    final long bufBytes;
    final NdkMr mr;
    final long inline;
    private long receivesPosted;
    private long receivesTaken;
    // Request contexts and types of the outstanding initiator requests, and receive offsets, in posting order.
    private final ArrayDeque<Object> initiatorExpected = new ArrayDeque<>();
    private final ArrayDeque<Integer> initiatorTypes = new ArrayDeque<>();
    private final ArrayDeque<Long> receiveSlots = new ArrayDeque<>();

    /**
     * Opens the side: queries the adapter information, creates the two CQs, the PD, a QP whose inline
     * size is the adapter's maximum, and registers a {@code bufBytes} buffer for local and remote access.
     */
    NdkScenarioPeer(NdkTestBed bed, NdkAdapter adapter, String name, Wait wait, long bufBytes, int rqDepth,
            int iqDepth) {
        this.bed = bed;
        this.adapter = adapter;
        this.mem = NdkTestBed.memory(adapter);
        this.name = name;
        this.wait = wait;
        Out<NdkAdapterInfo> i = new Out<>();
        assertThat(adapter.queryAdapterInfo(i, new Out<>((long) NdkAdapterInfo.SIZE))).isEqualTo(STATUS_SUCCESS);
        info = i.value;
        inline = info.maxInlineDataSize;
        recv.cq = createCq(rqDepth, recv);
        init.cq = createCq(iqDepth, init);
        pd = bed.pd(adapter);
        qp = bed.qp(pd, recv.cq, init.cq, name, rqDepth, iqDepth, 1, 1, inline);
        this.bufBytes = bufBytes;
        buf = adapter.driver().allocate(bufBytes);
        mr = bed.mr(adapter, pd, buf, bufBytes, ALL_MR);
    }

    /** {@code NdkCreateCq} with the watcher as both the notification callback and its context. */
    private NdkCq createCq(long depth, Watched w) {
        NdkTestBed.Created<NdkCq> c = new NdkTestBed.Created<>();
        assertThat(adapter.createCq(depth, w, w, null, bed.into(c), name, new Out<>())).isEqualTo(STATUS_PENDING);
        return bed.await(c);
    }

    NdkSge[] sge(long offset, long length) {
        assertThat(offset + length).as("inside the buffer").isLessThanOrEqualTo(bufBytes);
        return new NdkSge[] {new NdkSge(buf + offset, length, mr.getLocalToken())};
    }

    /** Posts a receive into {@code [offset, offset + length)}; its request context is its running number. */
    void postReceive(long offset, long length) {
        assertThat(qp.receive(receivesPosted, sge(offset, length), 1)).isEqualTo(STATUS_SUCCESS);
        receivesPosted++;
        receiveSlots.add(offset);
    }

    /**
     * Waits for the next receive completion, checks it is the next one posted, that it succeeded with
     * {@code bytes} bytes and that those bytes are {@code expected} (null: checked by the caller);
     * returns the offset it landed at.
     */
    long expectReceive(byte[] expected, int bytes) {
        NdkResultEx r = recv.next();
        assertThat(r.status).as(name + " receive " + receivesTaken + " status " + NtStatus.name(r.status))
                .isEqualTo(STATUS_SUCCESS);
        assertThat(r.type).isEqualTo(NdkOperationTypeReceive);
        assertThat(r.qpContext).isEqualTo(name);
        assertThat(r.requestContext).as(name + ": receives complete in posting order").isEqualTo(receivesTaken);
        assertThat(r.bytesTransferred).as(name + " receive BytesTransferred").isEqualTo(bytes);
        receivesTaken++;
        long at = receiveSlots.poll();
        if (expected != null && bytes > 0) {
            assertThat(mem.equalsRange(buf + at, expected, 0, bytes))
                    .as(name + ": the %d bytes received at offset %d", bytes, at).isTrue();
        }
        return at;
    }

    /** Writes {@code data[0..n)} into the buffer at {@code offset}, as the program fills its send buffer. */
    void fill(long offset, byte[] data, int n) {
        mem.write(buf + offset, data, 0, n);
    }

    /** {@code NdkSend} of {@code [offset, offset + n)}, INLINE when it fits the QP's inline size; null n = 0. */
    void send(Object context, long offset, long n, int flags) {
        int f = flags | (n > 0 && n <= inline ? NdkOpFlags.NDK_OP_FLAG_INLINE : 0);
        int s = n == 0 ? qp.send(context, null, 0, f) : qp.send(context, sge(offset, n), 1, f);
        assertThat(s).as(name + " send " + context + ": " + NtStatus.name(s)).isEqualTo(STATUS_SUCCESS);
        posted(context, NdkOperationTypeSend);
    }

    void write(Object context, long offset, long n, long remoteAddress, int remoteToken) {
        int s = qp.write(context, sge(offset, n), 1, remoteAddress, remoteToken, 0);
        assertThat(s).as(name + " write " + context + ": " + NtStatus.name(s)).isEqualTo(STATUS_SUCCESS);
        posted(context, NdkOperationTypeWrite);
    }

    void read(Object context, long offset, long n, long remoteAddress, int remoteToken) {
        int s = qp.read(context, sge(offset, n), 1, remoteAddress, remoteToken, 0);
        assertThat(s).as(name + " read " + context + ": " + NtStatus.name(s)).isEqualTo(STATUS_SUCCESS);
        posted(context, NdkOperationTypeRead);
    }

    private void posted(Object context, int type) {
        initiatorExpected.add(context);
        initiatorTypes.add(type);
    }

    /** Initiator requests posted whose completion the program has not taken. */
    int initiatorOutstanding() {
        return initiatorExpected.size();
    }

    /** Waits for the next initiator completion and checks it is the oldest outstanding request, successful. */
    NdkResultEx expectInitiator() {
        assertThat(initiatorExpected).as(name + ": a request is outstanding").isNotEmpty();
        NdkResultEx r = init.next();
        Object want = initiatorExpected.poll();
        int type = initiatorTypes.poll();
        assertThat(r.requestContext).as(name + ": initiator requests complete in posting order").isEqualTo(want);
        assertThat(r.status).as(name + " " + want + " status " + NtStatus.name(r.status)).isEqualTo(STATUS_SUCCESS);
        assertThat(r.type).as(name + " " + want + " type").isEqualTo(type);
        assertThat(r.qpContext).isEqualTo(name);
        return r;
    }

    /** Takes the completions of every outstanding initiator request. */
    void reapInitiator() {
        while (!initiatorExpected.isEmpty()) {
            expectInitiator();
        }
    }

    /**
     * Tells the peer where its buffer is, as the NetworkDirect examples do: a small SEND of
     * {@code {UINT64 address, UINT32 token, UINT32 length}} in host (little-endian) byte order, built at
     * {@code offset} of the buffer.
     */
    void advertise(long offset, long address, long length) {
        mem.putLongLE(buf + offset, address);
        mem.putIntLE(buf + offset + 8, mr.getRemoteToken());
        mem.putIntLE(buf + offset + 12, (int) length);
        send("advertise", offset, ADVERT_BYTES, 0);
    }

    /** The peer's advertised buffer, read from a receive that landed at {@code offset}. */
    record Remote(long address, int token, long length) {
    }

    Remote parseAdvert(long offset) {
        return new Remote(mem.getLongLE(buf + offset), mem.getIntLE(buf + offset + 8),
                mem.getIntLE(buf + offset + 12) & 0xFFFF_FFFFL);
    }

    /** Checks that both CQs hold nothing more and, when armed, that every arm was answered once. */
    void assertQuiet() {
        recv.assertEmpty();
        init.assertEmpty();
        assertThat(recv.notifications).as(name + " receive CQ notifications").isEqualTo(recv.arms);
        assertThat(init.notifications).as(name + " initiator CQ notifications").isEqualTo(init.arms);
        if (wait == Wait.POLL) {
            assertThat(recv.notifications + init.notifications).as(name + ": never armed, never notified").isZero();
        }
    }

    /** {@code n} seeded bytes; the same (seed, stream) gives the same bytes. */
    static byte[] pattern(long seed, long stream, int n) {
        byte[] b = new byte[n];
        new SplittableRandom(seed * 0x9E37_79B9_7F4A_7C15L + stream).nextBytes(b);
        return b;
    }
}
