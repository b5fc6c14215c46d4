package dev.rdmasim.ndk;

import static dev.rdmasim.ndk.NtStatus.*;

import dev.rdmasim.adapter.config.Parameters;
import dev.rdmasim.driver.CmAgent;
import dev.rdmasim.driver.HostDriver;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.Simulator;
import java.util.ArrayDeque;
import org.eclipse.collections.impl.map.mutable.primitive.IntObjectHashMap;
import org.eclipse.collections.impl.set.mutable.primitive.IntHashSet;

/**
 * {@code NDK_ADAPTER}: the provider's view of one host's adapter, opened on the host's driver. It
 * creates CQs, PDs, connectors and listeners; PDs create MRs and QPs.
 *
 * <p>Every call runs inside the simulation (from an event, or before the run starts) and does what an
 * NDK provider does on real hardware through the modeled driver: WQE bytes into rings, doorbells,
 * firmware commands. Calls return at once with their NTSTATUS; their effects take simulated time.
 */
public final class NdkAdapter extends NdkObject {
    private final HostDriver driver;
    private final NdkAdapterInfo info;
    final Firmware firmware;
    final int deferLimit;
    /** QPs by number, for completions. */
    final IntObjectHashMap<NdkQp> qps = new IntObjectHashMap<>();
    /** Ports with a listener. */
    final IntHashSet listeningPorts = new IntHashSet();
    private final CmAgent cm;
    private final ArrayDeque<Runnable> callbacks = new ArrayDeque<>();
    /** Told of every call when set (a field read per call when not). */
    NdkRecorder recorder;
    private final Event callbackEvent;

    private NdkAdapter(HostDriver driver) {
        super(null, NdkConstants.NdkObjectTypeAdapter);
        this.driver = driver;
        this.info = new NdkAdapterInfo(driver.profile());
        this.firmware = new Firmware(driver);
        // The connection manager asks peers for a finite RNR retry count, so a SEND to a peer with no receive
        // posted fails with STATUS_IO_TIMEOUT instead of waiting forever.
        this.cm = driver.hasConnectionManager() ? driver.cm() : driver.cm(CmAgent.Config.defaults()
                .withRnrRetryCount(driver.profile().getInt(Parameters.HOST_CM_RNR_RETRY_COUNT)));
        this.deferLimit = driver.profile().getInt(Parameters.HOST_DEFER_LIMIT);
        this.callbackEvent = driver.sim().event(driver.fullName() + ".ndk.callbacks", this::runCallbacks);
    }

    /** {@code NdkOpenAdapter}: opens the NDK provider of the host that {@code driver} drives. */
    public static NdkAdapter open(HostDriver driver) {
        return new NdkAdapter(driver);
    }

    /** Tells {@code r} of every NDK call made on this adapter and its objects from now on; null stops it. */
    public void setRecorder(NdkRecorder r) {
        recorder = r;
    }

    /** The recorder set, or null. */
    public NdkRecorder recorder() {
        return recorder;
    }

    /** The current simulated time, in picoseconds (for recorders). */
    long now() {
        return driver.sim().now();
    }

    public HostDriver driver() {
        return driver;
    }

    Simulator sim() {
        return driver.sim();
    }

    /** The adapter information, for the provider's own checks. */
    NdkAdapterInfo info() {
        return info;
    }

    /**
     * {@code NdkQueryAdapterInfo}: fills {@code pInfo} if {@code pBufferSize} (in: the caller's
     * buffer size in bytes) is at least {@link NdkAdapterInfo#SIZE}; always stores the size needed
     * into {@code pBufferSize}. Returns {@code STATUS_SUCCESS} or {@code STATUS_BUFFER_TOO_SMALL}.
     */
    public int queryAdapterInfo(Out<NdkAdapterInfo> pInfo, Out<Long> pBufferSize) {
        checkUsable();
        long given = pBufferSize.value == null ? 0 : pBufferSize.value;
        pBufferSize.value = (long) NdkAdapterInfo.SIZE;
        if (given < NdkAdapterInfo.SIZE) {
            return STATUS_BUFFER_TOO_SMALL;
        }
        pInfo.value = info;
        return STATUS_SUCCESS;
    }

    /**
     * {@code NdkCreateCq}: a CQ that holds {@code cqDepth} completions. The CQ is created by a
     * firmware command, so this returns {@code STATUS_PENDING} and {@code createCompletion} delivers
     * the CQ; {@code STATUS_INVALID_PARAMETER} when the depth is 0 or above {@code MaxCqDepth}.
     *
     * @param affinity processor group affinity ({@code GROUP_AFFINITY}): an {@link Integer} names the host core
     *                 (0 .. {@code host.cores} - 1) whose thread polls the CQ, standing for an affinity of one
     *                 processor ({@code STATUS_INVALID_PARAMETER} for a core the host does not have); anything
     *                 else is ignored, as a provider may, and the CQ is polled on the core of its first QP
     */
    public int createCq(long cqDepth, NdkCallbacks.CqNotification cqNotification, Object cqNotificationContext,
            Object affinity, NdkCallbacks.CreateCompletion createCompletion, Object requestContext, Out<NdkCq> ppNdkCq) {
        checkUsable();
        if (cqDepth < 1 || cqDepth > info.maxCqDepth) {
            return STATUS_INVALID_PARAMETER;
        }
        int core = affinity instanceof Integer i ? i : -1;
        if (affinity instanceof Integer && (core < 0 || core >= driver().coreCount())) {
            return STATUS_INVALID_PARAMETER;
        }
        NdkCq cq = new NdkCq(this, cqDepth, cqNotification, cqNotificationContext);
        cq.requestStarted();
        firmware.createCq(NdkCq.logSizeFor(cqDepth), (status, hw) -> {
            if (status == STATUS_SUCCESS && core >= 0) {
                hw.setCore(core);
            }
            cq.created(status, hw);
            cq.requestDone();
            if (status == STATUS_SUCCESS && recorder != null) {
                recorder.cqCreated(now(), cq, cqDepth);
            }
            createCompletion.createCompletion(requestContext, status, status == STATUS_SUCCESS ? cq : null);
        });
        return STATUS_PENDING;
    }

    /** {@code NdkCreateConnector}: a connector for {@link NdkConnector#connect}; no hardware work, {@code STATUS_SUCCESS}. */
    public int createConnector(NdkCallbacks.CreateCompletion createCompletion, Object requestContext,
            Out<NdkConnector> ppNdkConnector) {
        checkUsable();
        ppNdkConnector.value = new NdkConnector(this);
        return STATUS_SUCCESS;
    }

    /**
     * {@code NdkCreateListener}: a listener whose requests come to {@code connectEvent}; no hardware work,
     * {@code STATUS_SUCCESS}.
     */
    public int createListener(NdkCallbacks.ConnectEvent connectEvent, Object connectEventContext,
            NdkCallbacks.CreateCompletion createCompletion, Object requestContext, Out<NdkListener> ppNdkListener) {
        checkUsable();
        ppNdkListener.value = new NdkListener(this, connectEvent, connectEventContext);
        return STATUS_SUCCESS;
    }

    CmAgent cm() {
        return cm;
    }

    /** {@code NdkCreatePd}: a protection domain, allocated by a firmware command ({@code STATUS_PENDING}). */
    public int createPd(NdkCallbacks.CreateCompletion createCompletion, Object requestContext, Out<NdkPd> ppNdkPd) {
        checkUsable();
        NdkPd pd = new NdkPd(this);
        pd.requestStarted();
        firmware.allocPd((status, number) -> {
            pd.created(status, number);
            pd.requestDone();
            if (status == STATUS_SUCCESS && recorder != null) {
                recorder.pdCreated(now(), pd);
            }
            createCompletion.createCompletion(requestContext, status, status == STATUS_SUCCESS ? pd : null);
        });
        return STATUS_PENDING;
    }

    /** Runs {@code r} in the provider's callback event at the current instant, after the current call returns. */
    void callback(Runnable r) {
        callbacks.add(r);
        if (!callbackEvent.scheduled()) {
            callbackEvent.schedule(sim().now());
        }
    }

    private void runCallbacks() {
        // Callbacks queued by these callbacks run too, in order, at this same instant.
        for (Runnable r = callbacks.poll(); r != null; r = callbacks.poll()) {
            r.run();
        }
    }

    @Override
    String describe() {
        return "NDK adapter of " + driver.fullName();
    }
}
