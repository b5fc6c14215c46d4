package dev.rdmasim.traces.perf;

import static dev.rdmasim.ndk.NdkConstants.NDK_MR_FLAG_ALLOW_LOCAL_WRITE;
import static dev.rdmasim.ndk.NdkConstants.NDK_MR_FLAG_ALLOW_REMOTE_READ;
import static dev.rdmasim.ndk.NdkConstants.NDK_MR_FLAG_ALLOW_REMOTE_WRITE;
import static dev.rdmasim.ndk.NtStatus.STATUS_INSUFFICIENT_RESOURCES;
import static dev.rdmasim.ndk.NtStatus.STATUS_PENDING;
import static dev.rdmasim.ndk.NtStatus.STATUS_SUCCESS;

import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.ndk.NdkAdapter;
import dev.rdmasim.ndk.NdkAdapterInfo;
import dev.rdmasim.ndk.NdkAddress;
import dev.rdmasim.ndk.NdkCallbacks;
import dev.rdmasim.ndk.NdkConnector;
import dev.rdmasim.ndk.NdkCq;
import dev.rdmasim.ndk.NdkListener;
import dev.rdmasim.ndk.NdkMr;
import dev.rdmasim.ndk.NdkObject;
import dev.rdmasim.ndk.NdkPd;
import dev.rdmasim.ndk.NdkQp;
import dev.rdmasim.ndk.NdkResult;
import dev.rdmasim.ndk.NdkSge;
import dev.rdmasim.ndk.NtStatus;
import dev.rdmasim.ndk.Out;
import dev.rdmasim.traces.perf.PerfTest.Verb;
import dev.rdmasim.traces.record.TraceRecorder;
import java.util.function.BooleanSupplier;

/**
 * One host's side of a perf run, set up as perftest sets up its side, with NDK calls: an initiator CQ and a
 * receive CQ shared by the side's QPs, a PD, the QPs, and per QP one registered buffer of two areas, the
 * receive area (what the peer writes or sends into, and where READs land) and the source area (what this side
 * sends or writes from, and what the peer reads). Buffer addresses and remote tokens reach the peer directly,
 * standing for perftest's out-of-band exchange over its TCP socket.
 *
 * <p>A host with several cores ({@code host.cores}) runs one thread per core, as many as there are QPs: QP q
 * posts on core q mod cores, and each core's thread has its own initiator and receive CQ for its QPs (pinned to
 * its core by the creation's affinity), as a multi-threaded benchmark gives each thread its own. With one thread
 * the side is exactly perftest's.
 */
final class PerfSide {
    /** perftest's default TCP port, used here for the listener. */
    static final int PORT = 18515;
    private static final int PAGE = 4096;
    private static final int ALL_ACCESS = NDK_MR_FLAG_ALLOW_LOCAL_WRITE | NDK_MR_FLAG_ALLOW_REMOTE_READ
            | NDK_MR_FLAG_ALLOW_REMOTE_WRITE;

    private final Simulator sim;
    private final NdkAdapter adapter;
    private final HostMemory memory;
    private final String name;
    private final NdkAdapterInfo info;
    /** Threads of this side (one per core in use); QP q belongs to thread q mod threads. */
    private final int threads;
    private final NdkCq[] initiatorCqs;
    private final NdkCq[] receiveCqs;
    /**
     * Per thread: what one empty poll of its initiator and receive CQ costs, for the thread to sleep through the next
     * ones ({@link #sleepOnCqs}); null while it never sleeps.
     */
    private final HostThread.IdleTurns[] initiatorIdle;
    private final HostThread.IdleTurns[] receiveIdle;
    private final NdkQp[] qps;
    private final NdkMr[] mrs;
    private final long[] buffers;
    private final int area;
    private final NdkSge[][] receiveSge;
    private final NdkSge[][] sourceSge;
    private final NdkSge[][] readSinkSge;
    private final long[] remoteWriteAt;
    private final long[] remoteReadAt;
    private final int[] remoteToken;
    private final int[] owed;
    private final int[] owedTotal;

    PerfSide(Simulator sim, NdkAdapter adapter, String name, int qpCount, int area, int rqDepth, int iqDepth,
            int inline) {
        this.sim = sim;
        this.adapter = adapter;
        this.memory = adapter.driver().memory();
        this.name = name;
        this.area = area;
        Out<NdkAdapterInfo> i = new Out<>();
        expect(adapter.queryAdapterInfo(i, new Out<>((long) NdkAdapterInfo.SIZE)), STATUS_SUCCESS, "NdkQueryAdapterInfo");
        info = i.value;
        int cores = adapter.driver().coreCount();
        threads = Math.min(cores, qpCount);
        initiatorCqs = new NdkCq[threads];
        receiveCqs = new NdkCq[threads];
        if (threads == 1) {
            initiatorCqs[0] = cq((long) iqDepth * qpCount, null);
            receiveCqs[0] = cq((long) rqDepth * qpCount, null);
        } else {
            for (int t = 0; t < threads; t++) {
                long qpsOfThread = (qpCount - t + threads - 1) / threads;
                initiatorCqs[t] = cq(iqDepth * qpsOfThread, t);
                receiveCqs[t] = cq(rqDepth * qpsOfThread, t);
            }
        }
        owedTotal = new int[threads];
        initiatorIdle = new HostThread.IdleTurns[threads];
        receiveIdle = new HostThread.IdleTurns[threads];
        NdkPd pd = create("NdkCreatePd", c -> adapter.createPd(c, null, new Out<>()));
        qps = new NdkQp[qpCount];
        mrs = new NdkMr[qpCount];
        buffers = new long[qpCount];
        receiveSge = new NdkSge[qpCount][];
        sourceSge = new NdkSge[qpCount][];
        readSinkSge = new NdkSge[qpCount][];
        remoteWriteAt = new long[qpCount];
        remoteReadAt = new long[qpCount];
        remoteToken = new int[qpCount];
        owed = new int[qpCount];
        for (int q = 0; q < qpCount; q++) {
            Integer context = q;
            int t = q % threads;
            int processor = q % cores;
            qps[q] = create("NdkCreateQp", c -> pd.createQp(receiveCqs[t], initiatorCqs[t], context, rqDepth, iqDepth,
                    1, 1, inline, processor, c, null, new Out<>()));
            buffers[q] = adapter.driver().allocate(2L * area);
            if (adapter.recorder() instanceof TraceRecorder r) {
                r.fill(adapter, buffers[q], "zero"); // fresh host memory, zeroed
            }
            mrs[q] = register(pd, buffers[q], 2L * area);
            receiveSge[q] = new NdkSge[] {new NdkSge(buffers[q], area, mrs[q].getLocalToken())};
        }
    }

    /** Bytes of each area for messages up to {@code maxSize}: whole pages. */
    static int areaFor(int maxSize) {
        return (maxSize + PAGE - 1) / PAGE * PAGE;
    }

    String name() {
        return name;
    }

    /** Threads of this side: one per core in use, at most one per QP. */
    int threads() {
        return threads;
    }

    /** Thread {@code t}'s initiator CQ (that of its QPs). */
    NdkCq initiatorCq(int t) {
        return initiatorCqs[t];
    }

    /** Thread {@code t}'s receive CQ. */
    NdkCq receiveCq(int t) {
        return receiveCqs[t];
    }

    /**
     * Thread t of {@code threads} (this side's, one per core in use) sleeps through empty polls of its CQs: a CQE landing
     * in either wakes it (a wake for the CQ it is not polling only makes it look again, as it would have). Not while the
     * run is recorded: the trace holds every poll call.
     */
    void sleepOnCqs(HostThread[] threads) {
        for (int t = 0; t < threads.length; t++) {
            NdkCq icq = initiatorCqs[t];
            NdkCq rcq = receiveCqs[t];
            if (icq.recorded() || rcq.recorded()) {
                continue;
            }
            icq.setLandedListener(threads[t]::wake);
            rcq.setLandedListener(threads[t]::wake);
            initiatorIdle[t] = HostThread.idleTurns(icq::emptyPollPs, icq::skippedEmptyPolls);
            receiveIdle[t] = HostThread.idleTurns(rcq::emptyPollPs, rcq::skippedEmptyPolls);
        }
    }

    /** What an empty poll of thread t's initiator CQ costs, or null if the thread does not sleep on it. */
    HostThread.IdleTurns initiatorIdle(int t) {
        return initiatorIdle[t];
    }

    /** What an empty poll of thread t's receive CQ costs, or null if the thread does not sleep on it. */
    HostThread.IdleTurns receiveIdle(int t) {
        return receiveIdle[t];
    }

    /** The first thread's initiator CQ (latency tests have one QP, one thread). */
    NdkCq initiatorCq() {
        return initiatorCqs[0];
    }

    NdkCq receiveCq() {
        return receiveCqs[0];
    }

    /** A CQ of {@code depth}, polled on core {@code core} (null: where its first QP posts). */
    private NdkCq cq(long depth, Integer core) {
        return create("NdkCreateCq", c -> adapter.createCq(depth, (ctx, s) -> { }, null, core, c, null, new Out<>()));
    }

    private NdkMr register(NdkPd pd, long address, long length) {
        Out<NdkMr> mr = new Out<>();
        expect(pd.createMr(false, null, null, mr), STATUS_SUCCESS, "NdkCreateMr");
        int[] status = {-1};
        expect(mr.value.registerMr(address, length, ALL_ACCESS, (ctx, s) -> status[0] = s, null), STATUS_PENDING,
                "NdkRegisterMr");
        await(sim, () -> status[0] != -1, "NdkRegisterMr");
        expect(status[0], STATUS_SUCCESS, "NdkRegisterMr completion");
        return mr.value;
    }

    /** Calls {@code call} with a create completion, runs until it came, and returns the object. */
    @SuppressWarnings("unchecked")
    private <T extends NdkObject> T create(String what, java.util.function.ToIntFunction<NdkCallbacks.CreateCompletion> call) {
        Object[] got = {null};
        int[] status = {-1};
        expect(call.applyAsInt((ctx, s, obj) -> {
            status[0] = s;
            got[0] = obj;
        }), STATUS_PENDING, what);
        await(sim, () -> status[0] != -1, what);
        expect(status[0], STATUS_SUCCESS, what + " completion");
        return (T) got[0];
    }

    private void expect(int status, int wanted, String what) {
        if (status != wanted) {
            throw new PerfFailure(name + ": " + what + " returned " + NtStatus.name(status) + ", expected "
                    + NtStatus.name(wanted));
        }
    }

    /** Runs the simulation until {@code condition} holds. */
    static void await(Simulator sim, BooleanSupplier condition, String what) {
        while (!condition.getAsBoolean()) {
            if (!sim.step()) {
                throw new PerfFailure("the simulation ended while waiting for " + what);
            }
        }
    }

    /**
     * Connects every QP of {@code client} to the same-numbered QP of {@code server}: the server listens on
     * {@link #PORT} and accepts each request on its next QP; the client connects its QPs one after the other and
     * completes each connection. Both sides ask for the adapter's largest read limits, as perftest asks for the
     * device's maximum outstanding reads.
     */
    static void connect(Simulator sim, PerfSide client, PerfSide server) {
        int[] accepted = {0};
        int[] acceptStatus = new int[server.qps.length];
        java.util.Arrays.fill(acceptStatus, -1);
        Out<NdkListener> listener = new Out<>();
        server.expect(server.adapter.createListener((ctx, conn) -> {
            int q = accepted[0]++;
            server.expect(conn.accept(server.qps[q], server.info.maxInboundReadLimit, server.info.maxOutboundReadLimit,
                    null, 0, null, null, (c, s) -> acceptStatus[q] = s, null), STATUS_PENDING, "NdkAccept");
        }, null, null, null, listener), STATUS_SUCCESS, "NdkCreateListener");
        server.expect(listener.value.listen(new NdkAddress(0, PORT), null, null), STATUS_SUCCESS, "NdkListen");
        int serverIp = server.adapter.driver().ip();
        for (int q = 0; q < client.qps.length; q++) {
            Out<NdkConnector> c = new Out<>();
            client.expect(client.adapter.createConnector(null, null, c), STATUS_SUCCESS, "NdkCreateConnector");
            int[] connected = {-1};
            int[] completed = {-1};
            client.expect(c.value.connect(client.qps[q], new NdkAddress(0, 0), new NdkAddress(serverIp, PORT),
                    client.info.maxInboundReadLimit, client.info.maxOutboundReadLimit, null, 0,
                    (ctx, s) -> connected[0] = s, null), STATUS_PENDING, "NdkConnect");
            await(sim, () -> connected[0] != -1, "NdkConnect");
            client.expect(connected[0], STATUS_SUCCESS, "NdkConnect completion");
            client.expect(c.value.completeConnect(null, null, (ctx, s) -> completed[0] = s, null), STATUS_PENDING,
                    "NdkCompleteConnect");
            int qq = q;
            await(sim, () -> completed[0] != -1 && acceptStatus[qq] != -1, "NdkCompleteConnect and NdkAccept");
            client.expect(completed[0], STATUS_SUCCESS, "NdkCompleteConnect completion");
            server.expect(acceptStatus[q], STATUS_SUCCESS, "NdkAccept completion");
        }
        server.expect(listener.value.close(null, null), STATUS_SUCCESS, "NdkCloseListener");
    }

    /** Points this side's requests of {@code size} bytes at {@code peer}'s areas. */
    void prepare(int size, PerfSide peer) {
        for (int q = 0; q < qps.length; q++) {
            sourceSge[q] = new NdkSge[] {new NdkSge(buffers[q] + area, size, mrs[q].getLocalToken())};
            readSinkSge[q] = new NdkSge[] {new NdkSge(buffers[q], size, mrs[q].getLocalToken())};
            remoteWriteAt[q] = peer.buffers[q];
            remoteReadAt[q] = peer.buffers[q] + peer.area;
            remoteToken[q] = peer.mrs[q].getRemoteToken();
        }
    }

    /** Posts one request of {@code verb} on QP {@code q}; returns the call's status. */
    int post(int q, Verb verb, int flags) {
        return switch (verb) {
            case SEND -> qps[q].send(null, sourceSge[q], 1, flags);
            case WRITE -> qps[q].write(null, sourceSge[q], 1, remoteWriteAt[q], remoteToken[q], flags);
            case READ -> qps[q].read(null, readSinkSge[q], 1, remoteReadAt[q], remoteToken[q], flags);
        };
    }

    /** Posts a receive over QP {@code q}'s whole receive area. */
    void postReceive(int q) {
        expect(qps[q].receive(null, receiveSge[q], 1), STATUS_SUCCESS, "NdkReceive");
    }

    /** QP {@code q} owes one receive (its last one completed). */
    void owe(int q) {
        owed[q]++;
        owedTotal[q % threads]++;
    }

    /** Whether thread {@code t}'s QPs owe receives not yet reposted. */
    boolean owesReposts(int t) {
        return owedTotal[t] > 0;
    }

    /** Reposts the receives thread {@code t}'s QPs owe, as far as its core's work queue takes them. */
    void repostOwed(int t) {
        for (int q = t; q < qps.length && owedTotal[t] > 0; q += threads) {
            while (owed[q] > 0) {
                int s = qps[q].receive(null, receiveSge[q], 1);
                if (s == STATUS_INSUFFICIENT_RESOURCES) {
                    return;
                }
                expect(s, STATUS_SUCCESS, "NdkReceive");
                owed[q]--;
                owedTotal[t]--;
            }
        }
    }

    /** A successful completion's QP index; a failed one ends the run. */
    int check(NdkResult r, String what) {
        if (r.status != STATUS_SUCCESS) {
            throw new PerfFailure(what + ": a completion of " + name + " QP " + r.qpContext + " failed with "
                    + NtStatus.name(r.status));
        }
        return (Integer) r.qpContext;
    }

    /** The provider agrees with the workload on how many requests of QP {@code q} are outstanding. */
    void checkOutstanding(int q, long expected) {
        if (qps[q].initiatorOutstanding() != expected) {
            throw new IllegalStateException(name + " QP " + q + ": the provider has " + qps[q].initiatorOutstanding()
                    + " requests outstanding, the workload counts " + expected);
        }
    }

    /** write_lat: clears the arrival flag, the last byte of the receive area for {@code size} (latency tests have one QP). */
    void clearFlag(int size) {
        memory.putByte(buffers[0] + size - 1, (byte) 0);
    }

    /** write_lat: puts {@code value} into the last byte of what this side writes next. */
    void setFlag(int size, byte value) {
        memory.putByte(buffers[0] + area + size - 1, value);
    }

    /**
     * write_lat: has {@code onWrite} run when a device write lands on the arrival flag for {@code size} (null: no
     * longer).
     */
    void watchFlag(int size, Runnable onWrite) {
        adapter.driver().watchByte(buffers[0] + size - 1, onWrite);
    }

    /** write_lat: whether the last byte of the receive area holds {@code value} (what the spinning thread reads). */
    boolean flagIs(int size, byte value) {
        if (memory.getByte(buffers[0] + size - 1) != value) {
            return false;
        }
        // The peer's WRITE just landed: the polled line was invalidated by the adapter, so this read misses.
        adapter.driver().chargePollMiss();
        return true;
    }
}
