package dev.rdmasim.ndk;

import static dev.rdmasim.ndk.NdkConstants.NDK_CQ_NOTIFY_ANY;
import static dev.rdmasim.ndk.NdkConstants.NDK_CQ_NOTIFY_ERRORS;
import static dev.rdmasim.ndk.NdkConstants.NDK_CQ_NOTIFY_SOLICITED;
import static dev.rdmasim.ndk.NtStatus.*;

import dev.rdmasim.adapter.format.Cqe;
import dev.rdmasim.driver.Completion;
import dev.rdmasim.driver.CompletionQueue;
import dev.rdmasim.driver.HostCpu;
import dev.rdmasim.kernel.InvariantViolation;

/**
 * {@code NDK_CQ}: a completion queue. Its entries are real 64-byte CQEs the adapter writes into a
 * ring in host memory; {@link #getCqResults} reads them by the owner-bit rule (each read costs the
 * host's poll time) and turns each into an {@link NdkResult}.
 *
 * <p>Notification ({@link #armCq}) is one-shot: the callback is called once per arm, and only after
 * an arm. An arm for ANY or SOLICITED becomes the adapter's own arm (the adapter fires at once when
 * unconsumed matching CQEs are already there); ERRORS has no hardware equivalent, so it arms the
 * adapter for SOLICITED (errors always match it) and, when the event comes for a solicited success,
 * looks at the new entries and arms again past them. Two arms before a fire keep the stronger:
 * ANY over SOLICITED over ERRORS. An overrun is reported as {@code STATUS_BUFFER_OVERFLOW} to the
 * next (or current) arm; the CQ then returns no more results.
 */
public final class NdkCq extends NdkObject {
    private static final int NOT_ARMED = -1;

    private long depth;
    private final NdkCallbacks.CqNotification notification;
    private final Object notificationContext;
    CompletionQueue hw;
    private int armType = NOT_ARMED;
    /** Entries before this running index were looked at for an ERRORS arm and hold no error. */
    private long scannedTo;
    private boolean overrun;
    private boolean overrunReported;
    private boolean inCallback;

    NdkCq(NdkAdapter adapter, long depth, NdkCallbacks.CqNotification notification, Object notificationContext) {
        super(adapter, NdkConstants.NdkObjectTypeCq, adapter);
        this.depth = depth;
        this.notification = notification;
        this.notificationContext = notificationContext;
    }

    /** log2 of the ring for a CQ of {@code depth} completions: the next power of two above the depth. */
    static int logSizeFor(long depth) {
        return 64 - Long.numberOfLeadingZeros(depth);
    }

    void created(int status, CompletionQueue cq) {
        if (status != STATUS_SUCCESS) {
            return;
        }
        hw = cq;
        cq.setEventHandler(this::onEvent);
        cq.setOverrunHandler(this::onOverrun);
    }

    /**
     * A simulation aid: {@code listener} runs whenever the adapter writes a completion into this CQ's ring
     * (the write reaching host memory), which is what a thread busy-polling the CQ notices; the listener
     * usually calls {@link #getCqResults}. It replaces polling in a loop, which a simulation cannot afford.
     * Null removes it.
     */
    public void setLandedListener(Runnable listener) {
        checkUsable();
        hw.setLandedListener(listener);
    }

    /**
     * The host core whose thread polls this CQ: the one named by the creation's affinity, else the core of the
     * first QP created on it.
     */
    public HostCpu core() {
        if (hw == null) {
            throw new IllegalStateException("the CQ was not created");
        }
        return hw.core();
    }

    /** The depth the CQ was created (or last resized) with. */
    public long depth() {
        return depth;
    }

    /**
     * {@code NdkGetCqResults}: removes up to {@code nResults} completions into {@code pResults[0..]}
     * in the order the adapter wrote them; returns how many (0: none there).
     */
    public int getCqResults(NdkResult[] pResults, int nResults) {
        return recorded(pResults, nResults, poll(pResults, nResults));
    }

    /**
     * For a caller that stands for a thread spinning on this CQ: {@code n} calls of {@link #getCqResults} that found
     * nothing, made back to back (the last started by now) and not simulated one by one, counted and charged to the CQ's core as
     * they would have been. Not for a CQ whose calls are being recorded: the recording would lack them.
     */
    public void skippedEmptyPolls(long n) {
        checkUsable();
        if (adapter.recorder != null) {
            throw new IllegalStateException("empty polls skipped on " + this + " while its calls are recorded");
        }
        hw.skippedEmptyPolls(n);
    }

    /** CPU time a call of {@link #getCqResults} that finds nothing costs the CQ's core. */
    public long emptyPollPs() {
        return hw.emptyPollPs();
    }

    /** Whether this CQ's calls are being recorded as a trace. */
    public boolean recorded() {
        return adapter.recorder != null;
    }

    /** {@code NdkGetCqResultsEx}: as {@link #getCqResults}, with each result's operation type. */
    public int getCqResultsEx(NdkResultEx[] pResults, int nResults) {
        return recorded(pResults, nResults, poll(pResults, nResults));
    }

    private int recorded(NdkResult[] results, int requested, int got) {
        if (adapter.recorder != null) {
            adapter.recorder.polled(adapter.now(), this, requested, results, got);
        }
        return got;
    }

    private int poll(NdkResult[] out, int n) {
        checkUsable();
        if (n < 0 || n > out.length) {
            throw new IllegalArgumentException("nResults " + n + " outside the array of " + out.length);
        }
        if (overrun) {
            return 0;
        }
        int got = 0;
        while (got < n) {
            Completion c = hw.poll();
            if (c == null) {
                break;
            }
            NdkQp qp = adapter.qps.get(c.qpn());
            if (qp == null) {
                // The QP's close has completed: nothing more is delivered for it.
                continue;
            }
            NdkResult r = out[got];
            r.clear();
            int type = c.isRequester() ? qp.initiatorCompleted(c, r) : qp.receiveCompleted(c, r);
            r.status = StatusMap.completionStatus(c.syndrome(), !c.isRequester());
            if (r instanceof NdkResultEx ex) {
                ex.type = type;
            }
            if (r.status != STATUS_SUCCESS) {
                qp.sawError();
            }
            got++;
        }
        return got;
    }

    /**
     * {@code NdkResizeCq}: gives the CQ room for {@code cqDepth} completions (a new ring; the adapter moves
     * to it, and entries already in the old ring are still returned first, in order). Returns
     * {@code STATUS_PENDING} and reports through {@code requestCompletion};
     * {@code STATUS_NOT_SUPPORTED} without {@code NDK_ADAPTER_FLAG_CQ_RESIZE_SUPPORTED},
     * {@code STATUS_INVALID_PARAMETER} for a depth of 0 or above {@code MaxCqDepth},
     * {@code STATUS_DEVICE_BUSY} while an earlier resize still drains its old ring.
     */
    public int resizeCq(long cqDepth, NdkCallbacks.RequestCompletion requestCompletion, Object requestContext) {
        checkUsable();
        if (adapter.recorder != null) {
            adapter.recorder.resize(adapter.now(), this, cqDepth);
        }
        if (!adapter.info().has(NdkConstants.NDK_ADAPTER_FLAG_CQ_RESIZE_SUPPORTED)) {
            return STATUS_NOT_SUPPORTED;
        }
        if (cqDepth < 1 || cqDepth > adapter.info().maxCqDepth) {
            return STATUS_INVALID_PARAMETER;
        }
        if (!hw.canResize()) {
            return STATUS_DEVICE_BUSY;
        }
        requestStarted();
        adapter.firmware.resizeCq(hw, logSizeFor(cqDepth), (status, cq) -> {
            if (status == STATUS_SUCCESS) {
                depth = cqDepth;
            }
            requestDone();
            requestCompletion.requestCompletion(requestContext, status);
        });
        return STATUS_PENDING;
    }

    /**
     * {@code NdkControlCqInterruptModeration}: a notification waits for {@code moderationCount} completions
     * or {@code moderationInterval} microseconds after the first, whichever comes first (the adapter's
     * interrupt moderation, set by a firmware command). Returns {@code STATUS_SUCCESS}, or
     * {@code STATUS_NOT_SUPPORTED} without {@code NDK_ADAPTER_FLAG_CQ_INTERRUPT_MODERATION_SUPPORTED}.
     */
    public int controlCqInterruptModeration(long moderationInterval, long moderationCount) {
        checkUsable();
        if (adapter.recorder != null) {
            adapter.recorder.moderate(adapter.now(), this, moderationInterval, moderationCount);
        }
        if (!adapter.info().has(NdkConstants.NDK_ADAPTER_FLAG_CQ_INTERRUPT_MODERATION_SUPPORTED)) {
            return STATUS_NOT_SUPPORTED;
        }
        if (moderationInterval < 0 || moderationCount < 0 || moderationInterval > 0xFFFF_FFFFL
                || moderationCount > 0xFFFF_FFFFL) {
            return STATUS_INVALID_PARAMETER;
        }
        requestStarted();
        adapter.firmware.moderateCq(hw, (int) Math.max(1, Math.min(moderationCount, Integer.MAX_VALUE)),
                moderationInterval * 1_000_000L, (status, cq) -> requestDone());
        return STATUS_SUCCESS;
    }

    /**
     * {@code NdkArmCq}: asks for one notification of the next completion of {@code triggerType}
     * ({@code NDK_CQ_NOTIFY_ERRORS}, {@code _ANY} or {@code _SOLICITED}). Returns
     * {@code STATUS_SUCCESS}, or {@code STATUS_INVALID_PARAMETER} for another type.
     */
    public int armCq(int triggerType) {
        checkUsable();
        if (adapter.recorder != null) {
            adapter.recorder.arm(adapter.now(), this, triggerType);
        }
        if (triggerType != NDK_CQ_NOTIFY_ERRORS && triggerType != NDK_CQ_NOTIFY_ANY
                && triggerType != NDK_CQ_NOTIFY_SOLICITED) {
            return STATUS_INVALID_PARAMETER;
        }
        armType = stronger(armType, triggerType);
        if (overrun) {
            if (!overrunReported) {
                adapter.callback(this::reportOverrun);
            }
            return STATUS_SUCCESS;
        }
        scannedTo = hw.consumerIndex();
        // The adapter has no ERRORS arm; SOLICITED stands in for it (error CQEs always match SOLICITED).
        return hw.arm(armType != NDK_CQ_NOTIFY_ANY) ? STATUS_SUCCESS : STATUS_INSUFFICIENT_RESOURCES;
    }

    private static int stronger(int current, int requested) {
        return rank(requested) > rank(current) ? requested : current;
    }

    private static int rank(int type) {
        return switch (type) {
            case NDK_CQ_NOTIFY_ANY -> 3;
            case NDK_CQ_NOTIFY_SOLICITED -> 2;
            case NDK_CQ_NOTIFY_ERRORS -> 1;
            default -> 0;
        };
    }

    /** The adapter raised an event for this CQ (an EQE and an interrupt). */
    private void onEvent() {
        if (armType == NOT_ARMED || overrun || isClosed()) {
            return;
        }
        if (armType == NDK_CQ_NOTIFY_ERRORS) {
            long i = Math.max(scannedTo, hw.consumerIndex());
            boolean error = false;
            for (int op = hw.peek(i); op >= 0; op = hw.peek(++i)) {
                if (op == Cqe.REQ_ERR || op == Cqe.RESP_ERR) {
                    error = true;
                    break;
                }
            }
            if (!error) {
                // A solicited success woke the SOLICITED arm that stands in for ERRORS: arm again past it.
                scannedTo = i;
                if (!hw.arm(true, i)) {
                    throw new InvariantViolation(describe() + ": the host CPU's work queue is full");
                }
                return;
            }
        }
        fire(STATUS_SUCCESS);
    }

    private void onOverrun() {
        overrun = true;
        if (armType != NOT_ARMED) {
            reportOverrun();
        }
    }

    private void reportOverrun() {
        if (!overrunReported && armType != NOT_ARMED) {
            overrunReported = true;
            fire(STATUS_BUFFER_OVERFLOW);
        }
    }

    private void fire(int cqStatus) {
        armType = NOT_ARMED;
        inCallback = true;
        try {
            notification.cqNotification(notificationContext, cqStatus);
        } finally {
            inCallback = false;
        }
        progressClose();
    }

    @Override
    boolean closeHeldBack() {
        return inCallback;
    }

    @Override
    void teardown(Runnable done) {
        if (hw == null) {
            done.run();
            return;
        }
        adapter.firmware.destroyCq(hw, (status, none) -> done.run());
    }

    @Override
    String describe() {
        return "NDK CQ" + (hw == null ? "" : " " + hw.cqn()) + " of " + adapter.driver().fullName();
    }
}
