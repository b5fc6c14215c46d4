package dev.rdmasim.ndk;

import static dev.rdmasim.ndk.NdkOpFlags.*;
import static dev.rdmasim.ndk.NdkOperationType.*;
import static dev.rdmasim.ndk.NtStatus.*;

import dev.rdmasim.adapter.format.WqeOpcode;
import dev.rdmasim.driver.Completion;
import dev.rdmasim.driver.HostCpu;
import dev.rdmasim.driver.QueuePair;
import dev.rdmasim.driver.SendQueue;
import dev.rdmasim.driver.SgeList;
import dev.rdmasim.kernel.InvariantViolation;

/**
 * {@code NDK_QP}: a reliable-connected queue pair. Each initiator call ({@link #send}, {@link #write},
 * {@link #read}) checks its flags and limits as NDKPI defines, builds the WQE in the send ring in host
 * memory and rings the doorbell (or holds it back for {@link NdkOpFlags#NDK_OP_FLAG_DEFER}); each
 * {@link #receive} writes a receive WQE and updates the doorbell record. A refused call returns its
 * status and queues no completion; an accepted one always completes, in posting order per queue.
 */
public final class NdkQp extends NdkObject {
    private final NdkPd pd;
    final NdkCq receiveCq;
    final NdkCq initiatorCq;
    private final Object qpContext;
    private final int receiveDepth;
    private final int initiatorDepth;
    private final int maxReceiveSge;
    private final int maxInitiatorSge;
    private final int inlineDataSize;
    QueuePair hw;
    private boolean connected;
    private boolean inError;
    /** A connector uses it (connecting, connected or disconnected): it cannot join another connection. */
    boolean inConnection;

    // Request contexts in posting order, indexed by request number modulo a power of two >= depth.
    private final Object[] initiatorContexts;
    private final int[] initiatorTypes;
    private final int initiatorMask;
    private long initiatorPosted;
    private long initiatorRetired;
    private final Object[] receiveContexts;
    private final int receiveMask;
    private long receivePosted;
    private long receiveRetired;
    private int deferred;
    private SgeList sges;
    private int lastWqe = -1;

    NdkQp(NdkPd pd, NdkCq receiveCq, NdkCq initiatorCq, Object qpContext, int receiveDepth, int initiatorDepth,
            int maxReceiveSge, int maxInitiatorSge, int inlineDataSize) {
        super(pd.adapter, NdkConstants.NdkObjectTypeQp, pd, receiveCq, initiatorCq);
        this.pd = pd;
        this.receiveCq = receiveCq;
        this.initiatorCq = initiatorCq;
        this.qpContext = qpContext;
        this.receiveDepth = receiveDepth;
        this.initiatorDepth = initiatorDepth;
        this.maxReceiveSge = maxReceiveSge;
        this.maxInitiatorSge = maxInitiatorSge;
        this.inlineDataSize = inlineDataSize;
        int ic = 1 << NdkPd.log2Ceil(Math.max(1, initiatorDepth));
        initiatorContexts = new Object[ic];
        initiatorTypes = new int[ic];
        initiatorMask = ic - 1;
        int rc = 1 << NdkPd.log2Ceil(Math.max(1, receiveDepth));
        receiveContexts = new Object[rc];
        receiveMask = rc - 1;
        sges = new SgeList(Math.max(1, Math.max(maxReceiveSge, maxInitiatorSge)));
    }

    void created(int status, QueuePair qp) {
        if (status == STATUS_SUCCESS) {
            hw = qp;
            adapter.qps.put(qp.qpn(), this);
        }
    }

    /** The QP number the adapter knows it by. */
    public int qpn() {
        return hw.qpn();
    }

    /** The QPContext it was created with (returned in every {@link NdkResult} of its requests). */
    public Object qpContext() {
        return qpContext;
    }

    /** True between connection establishment and an error, flush or disconnect. */
    public boolean isConnected() {
        return connected && !inError;
    }

    /**
     * The 16-bit WQE counter of the last initiator request accepted (the index the adapter reports the
     * request's lifecycle under), or -1 before any. For tools that follow requests through the adapter.
     */
    public int lastPostedWqe() {
        return lastWqe;
    }

    /** The host core the QP's posts run on. */
    public HostCpu core() {
        if (hw == null) {
            throw new IllegalStateException("the QP was not created");
        }
        return hw.core();
    }

    /** Initiator requests posted and not yet retired by a completion the consumer took. */
    public long initiatorOutstanding() {
        return initiatorPosted - initiatorRetired;
    }

    /** Receive requests posted and not yet completed to the consumer. */
    public long receiveOutstanding() {
        return receivePosted - receiveRetired;
    }

    /** {@code NdkSend}: a SEND of the SGEs' bytes to the peer's next receive. */
    public int send(Object requestContext, NdkSge[] pSgl, int nSge, int flags) {
        return initiate(WqeOpcode.SEND, NdkOperationTypeSend, SEND_FLAGS, requestContext, pSgl, nSge, 0, 0, flags);
    }

    /** {@code NdkWrite}: an RDMA WRITE of the SGEs' bytes to {@code remoteAddress} in the peer's region {@code remoteToken}. */
    public int write(Object requestContext, NdkSge[] pSgl, int nSge, long remoteAddress, int remoteToken, int flags) {
        return initiate(WqeOpcode.RDMA_WRITE, NdkOperationTypeWrite, WRITE_FLAGS, requestContext, pSgl, nSge,
                remoteAddress, remoteToken, flags);
    }

    /** {@code NdkRead}: an RDMA READ from {@code remoteAddress} in the peer's region into the SGEs. */
    public int read(Object requestContext, NdkSge[] pSgl, int nSge, long remoteAddress, int remoteToken, int flags) {
        return initiate(WqeOpcode.RDMA_READ, NdkOperationTypeRead, READ_FLAGS, requestContext, pSgl, nSge,
                remoteAddress, remoteToken, flags);
    }

    private int initiate(int opcode, int type, int allowed, Object requestContext, NdkSge[] sgl, int nSge,
            long remoteAddress, int remoteToken, int flags) {
        checkUsable();
        if (adapter.recorder != null) {
            adapter.recorder.post(adapter.now(), this, type, requestContext, sgl, nSge, remoteAddress, remoteToken, flags);
        }
        if ((flags & ~allowed) != 0) {
            return fail(STATUS_INVALID_PARAMETER_4);
        }
        if ((flags & NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE) != 0
                && !adapter.info().has(NdkConstants.NDK_ADAPTER_FLAG_RDMA_READ_LOCAL_INVALIDATE_SUPPORTED)) {
            return fail(STATUS_NOT_SUPPORTED);
        }
        if (!connected || inError) {
            return fail(STATUS_CONNECTION_INVALID);
        }
        if (nSge < 0 || nSge > (sgl == null ? 0 : sgl.length)) {
            return fail(STATUS_INVALID_PARAMETER);
        }
        boolean inline = (flags & NDK_OP_FLAG_INLINE) != 0;
        long total = totalLength(sgl, nSge);
        if (inline) {
            if (total > inlineDataSize) {
                return fail(STATUS_BUFFER_OVERFLOW);
            }
        } else {
            long maxSge = opcode == WqeOpcode.RDMA_READ ? Math.min(maxInitiatorSge, adapter.info().maxReadRequestSge)
                    : maxInitiatorSge;
            if (nSge > maxSge) {
                return fail(STATUS_DATA_OVERRUN);
            }
        }
        if (total > adapter.info().maxTransferLength) {
            return fail(STATUS_BUFFER_OVERFLOW);
        }
        if (initiatorPosted - initiatorRetired >= initiatorDepth) {
            return fail(STATUS_NO_MORE_ENTRIES);
        }
        SgeList list = fill(sgl, nSge);
        boolean defer = (flags & NDK_OP_FLAG_DEFER) != 0 && deferred + 1 < adapter.deferLimit;
        int hwFlags = ((flags & NDK_OP_FLAG_SILENT_SUCCESS) == 0 ? SendQueue.SIGNALED : 0)
                | ((flags & NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT) != 0 ? SendQueue.SOLICITED : 0)
                | ((flags & NDK_OP_FLAG_READ_FENCE) != 0 ? SendQueue.FENCE : 0)
                | (inline ? SendQueue.INLINE : 0)
                | (defer ? SendQueue.DEFER : 0);
        long number = initiatorPosted;
        int wqe = hw.sq().producer() & 0xFFFF;
        if (!hw.sq().post(number, opcode, hwFlags, 0, remoteAddress, remoteToken, list)) {
            // The ring is sized for the depth, so only the host CPU's work queue can be full.
            return fail(STATUS_INSUFFICIENT_RESOURCES);
        }
        int slot = (int) (number & initiatorMask);
        initiatorContexts[slot] = requestContext;
        initiatorTypes[slot] = type;
        initiatorPosted++;
        lastWqe = wqe;
        deferred = defer ? deferred + 1 : 0;
        return STATUS_SUCCESS;
    }

    /**
     * {@code NdkReceive}: a receive request scattering an incoming SEND into the SGEs. Allowed before
     * the QP is connected. {@code STATUS_DATA_OVERRUN} for more SGEs than the QP's limit,
     * {@code STATUS_NO_MORE_ENTRIES} when the receive queue is full.
     */
    public int receive(Object requestContext, NdkSge[] pSgl, int nSge) {
        checkUsable();
        if (adapter.recorder != null) {
            adapter.recorder.post(adapter.now(), this, NdkOperationTypeReceive, requestContext, pSgl, nSge, 0, 0, 0);
        }
        if (nSge < 0 || nSge > (pSgl == null ? 0 : pSgl.length)) {
            return STATUS_INVALID_PARAMETER;
        }
        if (inError) {
            return STATUS_CONNECTION_INVALID;
        }
        if (nSge > maxReceiveSge) {
            return STATUS_DATA_OVERRUN;
        }
        if (totalLength(pSgl, nSge) > adapter.info().maxTransferLength) {
            return STATUS_BUFFER_OVERFLOW;
        }
        if (receivePosted - receiveRetired >= receiveDepth) {
            return STATUS_NO_MORE_ENTRIES;
        }
        long number = receivePosted;
        if (!hw.rq().post(number, fill(pSgl, nSge))) {
            return STATUS_INSUFFICIENT_RESOURCES;
        }
        receiveContexts[(int) (number & receiveMask)] = requestContext;
        receivePosted++;
        return STATUS_SUCCESS;
    }

    /**
     * {@code NdkFlush}: every pending receive and initiator request completes with
     * {@code STATUS_CANCELLED} (the QP is moved to the error state by a firmware command; the adapter
     * then flushes both queues).
     */
    public void flush() {
        checkUsable();
        if (adapter.recorder != null) {
            adapter.recorder.flush(adapter.now(), this);
        }
        ringDeferred();
        moveToError();
    }

    /** Any failure first hands the deferred requests to the hardware (NDKPI's rule for DEFER). */
    private int fail(int status) {
        ringDeferred();
        return status;
    }

    private void ringDeferred() {
        if (deferred > 0 && hw.sq().ringDoorbell()) {
            deferred = 0;
        }
    }

    private void moveToError() {
        if (inError) {
            return;
        }
        inError = true;
        requestStarted();
        adapter.firmware.qpToError(hw, (status, none) -> requestDone());
    }

    /** An error completion was taken: the connection is in error from now on (the adapter has flushed the rest). */
    void sawError() {
        inError = true;
    }

    /** The connection is established (both QPs ready to send). */
    void connectedNow() {
        connected = true;
    }

    /** The connection was disconnected (by either side): the connection manager has sent the QP to error. */
    void disconnected() {
        inError = true;
    }

    private static long totalLength(NdkSge[] sgl, int n) {
        long t = 0;
        for (int i = 0; i < n; i++) {
            t += sgl[i].length();
        }
        return t;
    }

    private SgeList fill(NdkSge[] sgl, int n) {
        if (n > sges.capacity()) {
            sges = new SgeList(n);
        }
        SgeList l = sges.clear();
        for (int i = 0; i < n; i++) {
            // A zero-length SGE moves nothing; the WQE format cannot express one (a data segment of 0 bytes means 2 GiB).
            if (sgl[i].length() > 0) {
                l.add(sgl[i].virtualAddress(), (int) sgl[i].length(), sgl[i].memoryRegionToken());
            }
        }
        return l;
    }

    /** Fills {@code r} for an initiator CQE (which retires it and the silent requests before it); returns the type. */
    int initiatorCompleted(Completion c, NdkResult r) {
        long last = initiatorRetired + c.retired() - 1;
        if (c.wrId() != last || last >= initiatorPosted) {
            throw new InvariantViolation(describe() + ": a CQE retires request " + c.wrId() + " but the next "
                    + c.retired() + " outstanding end at " + last);
        }
        initiatorRetired = last + 1;
        int slot = (int) (last & initiatorMask);
        r.qpContext = qpContext;
        r.requestContext = initiatorContexts[slot];
        initiatorContexts[slot] = null;
        r.bytesTransferred = 0;
        progressClose();
        return initiatorTypes[slot];
    }

    /** Fills {@code r} for a receive CQE; returns the type. */
    int receiveCompleted(Completion c, NdkResult r) {
        if (c.wrId() != receiveRetired) {
            throw new InvariantViolation(describe() + ": a receive CQE names request " + c.wrId() + ", expected "
                    + receiveRetired);
        }
        int slot = (int) (receiveRetired & receiveMask);
        receiveRetired++;
        r.qpContext = qpContext;
        r.requestContext = receiveContexts[slot];
        receiveContexts[slot] = null;
        r.bytesTransferred = c.byteCount();
        progressClose();
        return NdkOperationTypeReceive;
    }

    @Override
    void beginClose() {
        // Closing starts the flush of every pending request.
        if (hw != null) {
            ringDeferred();
            moveToError();
        }
    }

    @Override
    void teardown(Runnable done) {
        if (hw == null) {
            done.run();
            return;
        }
        adapter.firmware.destroyQp(hw, (status, none) -> {
            adapter.qps.remove(hw.qpn());
            done.run();
        });
    }

    @Override
    String describe() {
        return "NDK QP" + (hw == null ? "" : " " + hw.qpn()) + " of " + adapter.driver().fullName();
    }
}
