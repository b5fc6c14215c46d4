package dev.rdmasim.ndk;

import static dev.rdmasim.ndk.NtStatus.STATUS_PENDING;
import static dev.rdmasim.ndk.NtStatus.STATUS_SUCCESS;

import dev.rdmasim.kernel.InvariantViolation;

/**
 * An NDK object ({@code NDK_OBJECT_HEADER}): its type, the antecedents it was created from, and the
 * lifetime rules of {@code NdkCloseObject}.
 *
 * <p>Close never fails. It returns {@link NtStatus#STATUS_SUCCESS} when the object is gone at once,
 * else {@link NtStatus#STATUS_PENDING} and the close completion is called later. A close stays
 * pending while the object has open successors (closing an antecedent first is legal), while
 * requests on it are pending, and while the hardware tears it down (a QP is flushed, then
 * destroyed by a firmware command). Nothing is delivered for an object after its close completes.
 */
public abstract class NdkObject {
    final NdkAdapter adapter;
    private final int objectType;
    private final NdkObject[] antecedents;
    private int openSuccessors;
    /** Asynchronous requests started on this object and not completed (creation included). */
    int pendingRequests;
    private boolean closeRequested;
    private boolean tearingDown;
    private boolean closed;
    private NdkCallbacks.CloseCompletion closeCompletion;
    private Object closeContext;
    private boolean closeReturned;

    NdkObject(NdkAdapter adapter, int objectType, NdkObject... antecedents) {
        this.adapter = adapter == null ? (NdkAdapter) this : adapter;
        this.objectType = objectType;
        this.antecedents = antecedents;
        for (NdkObject a : antecedents) {
            a.openSuccessors++;
        }
    }

    /** {@code NDK_OBJECT_HEADER.ObjectType}: one of {@code NdkConstants.NdkObjectType*}. */
    public final int objectType() {
        return objectType;
    }

    /** The adapter this object belongs to. */
    public final NdkAdapter adapter() {
        return adapter;
    }

    /** True once the close has completed. */
    public final boolean isClosed() {
        return closed;
    }

    /** True from the close call on. */
    public final boolean isClosing() {
        return closeRequested;
    }

    /**
     * {@code NdkCloseObject}: closes this object. Returns {@code STATUS_SUCCESS} (closed now, no
     * callback) or {@code STATUS_PENDING} ({@code completion} is called when it is closed).
     *
     * @throws IllegalStateException if the object was already closed or is closing (a consumer bug)
     */
    public final int close(NdkCallbacks.CloseCompletion completion, Object context) {
        if (closeRequested) {
            throw new IllegalStateException(describe() + " is already " + (closed ? "closed" : "closing"));
        }
        closeRequested = true;
        if (adapter != null && adapter.recorder != null) {
            adapter.recorder.close(adapter.now(), this);
        }
        closeCompletion = completion;
        closeContext = context;
        beginClose();
        progressClose();
        closeReturned = true;
        return closed ? STATUS_SUCCESS : STATUS_PENDING;
    }

    /** Throws if the object can no longer be used: a consumer calling into a closed object is a bug. */
    final void checkUsable() {
        if (closeRequested) {
            throw new IllegalStateException(describe() + " is " + (closed ? "closed" : "closing")
                    + ": no call may use it");
        }
    }

    /** Hook at the close call: stop work, start flushes (before waiting for successors). */
    void beginClose() {
    }

    /**
     * Releases the object's hardware resources; calls {@code done} when they are released (at once,
     * or from a later event). Called once, when no successor is open and no request pending.
     */
    void teardown(Runnable done) {
        done.run();
    }

    /** Whether anything besides successors and requests still holds the close back (e.g. a callback running). */
    boolean closeHeldBack() {
        return false;
    }

    /** Re-checks whether a pending close can go on; called whenever something it waits for finishes. */
    final void progressClose() {
        if (!closeRequested || tearingDown || closed || openSuccessors > 0 || pendingRequests > 0 || closeHeldBack()) {
            return;
        }
        tearingDown = true;
        teardown(this::finishClose);
    }

    private void finishClose() {
        if (closed) {
            throw new InvariantViolation(describe() + ": torn down twice");
        }
        closed = true;
        // Inside close() itself the call returns SUCCESS and calls nothing; later, the completion reports it,
        // before those of the antecedents this close releases.
        if (closeReturned && closeCompletion != null) {
            NdkCallbacks.CloseCompletion cb = closeCompletion;
            Object ctx = closeContext;
            adapter.callback(() -> cb.closeCompletion(ctx));
        }
        for (NdkObject a : antecedents) {
            a.openSuccessors--;
            a.progressClose();
        }
    }

    /** A request on this object started (it holds a close back until it completes). */
    final void requestStarted() {
        pendingRequests++;
    }

    /** A request on this object completed. */
    final void requestDone() {
        if (--pendingRequests < 0) {
            throw new InvariantViolation(describe() + ": more requests completed than started");
        }
        progressClose();
    }

    /** "Qp #3 of adapter nicA" and the like, for messages. */
    String describe() {
        return "NDK " + NdkConstants.objectTypeName(objectType) + " object";
    }
}
