package dev.rdmasim.ndk;

import static dev.rdmasim.ndk.NtStatus.*;

import dev.rdmasim.adapter.format.AccessFlags;
import dev.rdmasim.adapter.format.SendWqeBuilder;
import dev.rdmasim.adapter.format.WqeOpcode;
import dev.rdmasim.driver.QpOptions;

/** {@code NDK_PD}: a protection domain, allocated in the adapter by a firmware command; it creates MRs and QPs. */
public final class NdkPd extends NdkObject {
    int number;

    NdkPd(NdkAdapter adapter) {
        super(adapter, NdkConstants.NdkObjectTypePd, adapter);
    }

    void created(int status, Integer pdNumber) {
        if (status == STATUS_SUCCESS) {
            number = pdNumber;
        }
    }

    /**
     * {@code NdkCreateMr}: an MR object of this PD, registered later with {@link NdkMr#registerMr}.
     * Creating it takes no hardware work, so it returns {@code STATUS_SUCCESS} with the MR in
     * {@code ppNdkMr}. Fast-register MRs are not modeled yet: {@code STATUS_NOT_SUPPORTED}.
     */
    public int createMr(boolean fastRegister, NdkCallbacks.CreateCompletion createCompletion, Object requestContext,
            Out<NdkMr> ppNdkMr) {
        checkUsable();
        if (fastRegister) {
            return STATUS_NOT_SUPPORTED;
        }
        ppNdkMr.value = new NdkMr(this);
        return STATUS_SUCCESS;
    }

    /**
     * {@code NdkCreateQp} with the nine parameters of the NDK reference: a QP of this PD whose receive
     * completions go to {@code pReceiveCq} and initiator completions to {@code pInitiatorCq}. Every limit
     * above the adapter's ({@link NdkAdapterInfo}) gives {@code STATUS_INVALID_PARAMETER}. The provider
     * sizes the send ring for {@code initiatorQueueDepth} of its largest WQE (all SGEs, or the whole inline
     * size) and creates the QP by a firmware command: {@code STATUS_PENDING}, the QP comes with
     * {@code createCompletion} ({@code STATUS_INSUFFICIENT_RESOURCES} there when the adapter has no QP left).
     */
    public int createQp(NdkCq pReceiveCq, NdkCq pInitiatorCq, Object qpContext, long receiveQueueDepth,
            long initiatorQueueDepth, long maxReceiveRequestSge, long maxInitiatorRequestSge, long inlineDataSize,
            NdkCallbacks.CreateCompletion createCompletion, Object requestContext, Out<NdkQp> ppNdkQp) {
        return createQp(pReceiveCq, pInitiatorCq, qpContext, receiveQueueDepth, initiatorQueueDepth,
                maxReceiveRequestSge, maxInitiatorRequestSge, inlineDataSize, -1, createCompletion, requestContext,
                ppNdkQp);
    }

    /**
     * As {@link #createQp(NdkCq, NdkCq, Object, long, long, long, long, long, NdkCallbacks.CreateCompletion,
     * Object, Out)}, naming the host core whose thread posts to the QP: {@code processor} 0 ..
     * {@code host.cores} - 1, or -1 for the provider's choice (the i-th QP of the adapter on core i mod cores). The
     * NDK call has no such parameter (a QP posts on whichever processor calls it); this stands for the consumer
     * pinning the QP's thread. A core the host does not have gives {@code STATUS_INVALID_PARAMETER}.
     */
    public int createQp(NdkCq pReceiveCq, NdkCq pInitiatorCq, Object qpContext, long receiveQueueDepth,
            long initiatorQueueDepth, long maxReceiveRequestSge, long maxInitiatorRequestSge, long inlineDataSize,
            int processor, NdkCallbacks.CreateCompletion createCompletion, Object requestContext,
            Out<NdkQp> ppNdkQp) {
        checkUsable();
        NdkAdapterInfo info = adapter.info();
        if (pReceiveCq == null || pInitiatorCq == null || pReceiveCq.adapter != adapter
                || pInitiatorCq.adapter != adapter || pReceiveCq.hw == null || pInitiatorCq.hw == null
                || receiveQueueDepth > info.maxReceiveQueueDepth || initiatorQueueDepth > info.maxInitiatorQueueDepth
                || maxReceiveRequestSge > info.maxReceiveRequestSge
                || maxInitiatorRequestSge > info.maxInitiatorRequestSge || inlineDataSize > info.maxInlineDataSize
                || receiveQueueDepth < 0 || initiatorQueueDepth < 0 || maxReceiveRequestSge < 0
                || maxInitiatorRequestSge < 0 || inlineDataSize < 0
                || processor < -1 || processor >= adapter.driver().coreCount()) {
            return STATUS_INVALID_PARAMETER;
        }
        pReceiveCq.checkUsable();
        pInitiatorCq.checkUsable();
        int sendSge = (int) Math.max(1, maxInitiatorRequestSge);
        int recvSge = (int) Math.max(1, maxReceiveRequestSge);
        int inline = (int) inlineDataSize;
        int wqeBytes = Math.max(SendWqeBuilder.wqeBytes(WqeOpcode.RDMA_WRITE, sendSge),
                SendWqeBuilder.inlineWqeBytes(WqeOpcode.RDMA_WRITE, inline));
        int bbsPerWqe = (wqeBytes + SendWqeBuilder.BB - 1) / SendWqeBuilder.BB;
        int sqLogBbs = Math.max(1, log2Ceil(Math.max(1, initiatorQueueDepth) * bbsPerWqe));
        int rqLogSize = log2Ceil(Math.max(1, receiveQueueDepth));
        QpOptions options = new QpOptions(pInitiatorCq.hw, pReceiveCq.hw, number, sqLogBbs, rqLogSize, sendSge,
                recvSge, inline, AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE | AccessFlags.LOCAL_WRITE,
                processor);
        NdkQp qp = new NdkQp(this, pReceiveCq, pInitiatorCq, qpContext, (int) receiveQueueDepth,
                (int) initiatorQueueDepth, (int) maxReceiveRequestSge, (int) maxInitiatorRequestSge, inline);
        qp.requestStarted();
        adapter.firmware.createQp(options, (status, hw) -> {
            qp.created(status, hw);
            qp.requestDone();
            if (status == STATUS_SUCCESS && adapter.recorder != null) {
                adapter.recorder.qpCreated(adapter.now(), this, qp, pReceiveCq, pInitiatorCq, qpContext,
                        receiveQueueDepth, initiatorQueueDepth, maxReceiveRequestSge, maxInitiatorRequestSge,
                        inlineDataSize);
            }
            createCompletion.createCompletion(requestContext, status, status == STATUS_SUCCESS ? qp : null);
        });
        return STATUS_PENDING;
    }

    static int log2Ceil(long n) {
        return 64 - Long.numberOfLeadingZeros(n - 1);
    }

    @Override
    void teardown(Runnable done) {
        adapter.firmware.deallocPd(number, (status, none) -> done.run());
    }

    @Override
    String describe() {
        return "NDK PD " + number + " of " + adapter.driver().fullName();
    }
}
