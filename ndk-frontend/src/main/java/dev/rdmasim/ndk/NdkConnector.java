package dev.rdmasim.ndk;

import static dev.rdmasim.ndk.NtStatus.*;

import dev.rdmasim.adapter.wire.CmMad;
import dev.rdmasim.driver.CmAgent;
import dev.rdmasim.driver.Connection;

/**
 * {@code NDK_CONNECTOR}: one end of a connection, set up by the IB connection manager over the modeled
 * link (REQ, REP, RTU, REJ, DREQ, DREP as RoCEv2 UD datagrams to QP1; see docs/cm.md).
 *
 * <p>Active side: {@link #connect} sends the REQ (with the RDMA CM IP header and the caller's private
 * data) and completes when the REP arrived and the QP is ready to send, or with
 * {@code STATUS_CONNECTION_REFUSED} (rejected, nobody listening) or {@code STATUS_IO_TIMEOUT}; the
 * consumer then reads {@link #getConnectionData} and calls {@link #completeConnect} (RTU) or
 * {@link #reject}. Passive side: a listener's connect event hands over a connector for the request;
 * the consumer reads its data and calls {@link #accept} or {@link #reject}. Either side may
 * {@link #disconnect}; the other hears its disconnect event once.
 */
public final class NdkConnector extends NdkObject {
    private final CmAgent cm;
    private Connection connection;
    private NdkQp qp;
    private NdkAddress local;
    private NdkAddress peer;
    private boolean established;
    private boolean disconnected;
    private NdkCallbacks.DisconnectEvent disconnectEvent;
    private Object disconnectContext;
    /** The pending connect, accept, complete-connect or disconnect request. */
    private NdkCallbacks.RequestCompletion pending;
    private Object pendingContext;

    /** An active connector ({@code NdkCreateConnector}). */
    NdkConnector(NdkAdapter adapter) {
        super(adapter, NdkConstants.NdkObjectTypeConnector, adapter);
        this.cm = adapter.cm();
    }

    /** A passive connector for a request that arrived at a listener on {@code local}. */
    NdkConnector(NdkAdapter adapter, Connection request, NdkAddress local, NdkAddress peer) {
        this(adapter);
        this.connection = request;
        this.local = local;
        this.peer = peer;
    }

    /**
     * {@code NdkConnect}: connects {@code pNdkQp} to whoever listens on {@code destAddress}. Returns
     * {@code STATUS_PENDING}; the completion reports {@code STATUS_SUCCESS} (the REP arrived: read the
     * connection data, then {@link #completeConnect}), {@code STATUS_CONNECTION_REFUSED} or
     * {@code STATUS_IO_TIMEOUT}. Inline failures: {@code STATUS_INVALID_BUFFER_SIZE} for more private data
     * than {@code MaxCallerData}, {@code STATUS_INVALID_ADDRESS} for an address this host cannot reach,
     * {@code STATUS_CONNECTION_ACTIVE} when the connector or the QP is already in use.
     */
    public int connect(NdkQp pNdkQp, NdkAddress srcAddress, NdkAddress destAddress, long inboundReadLimit,
            long outboundReadLimit, byte[] pPrivateData, int privateDataLength,
            NdkCallbacks.RequestCompletion requestCompletion, Object requestContext) {
        checkUsable();
        pNdkQp.checkUsable();
        if (connection != null || pNdkQp.inConnection) {
            return STATUS_CONNECTION_ACTIVE;
        }
        if (!privateDataFits(pPrivateData, privateDataLength, adapter.info().maxCallerData)) {
            return STATUS_INVALID_BUFFER_SIZE;
        }
        if (pNdkQp.adapter != adapter || inboundReadLimit < 0 || outboundReadLimit < 0) {
            return STATUS_INVALID_PARAMETER;
        }
        int myIp = adapter.driver().ip();
        if ((srcAddress.ipv4() != 0 && srcAddress.ipv4() != myIp) || adapter.driver().neighbourMac(destAddress.ipv4()) < 0) {
            return STATUS_INVALID_ADDRESS;
        }
        local = new NdkAddress(myIp, srcAddress.port());
        peer = destAddress;
        qp = pNdkQp;
        qp.inConnection = true;
        byte[] req = CmaHeader.request(local, destAddress, pPrivateData, privateDataLength);
        start(requestCompletion, requestContext);
        if (adapter.recorder != null) {
            adapter.recorder.connecting(adapter.now(), this, qp, destAddress, inboundReadLimit, outboundReadLimit,
                    pPrivateData, privateDataLength);
        }
        connection = cm.connect(qp.hw, destAddress.ipv4(), CmMad.tcpServiceId(destAddress.port()),
                clamp(inboundReadLimit, adapter.info().maxInboundReadLimit),
                clamp(outboundReadLimit, adapter.info().maxOutboundReadLimit), req, new Events());
        return STATUS_PENDING;
    }

    /**
     * {@code NdkCompleteConnect}: after a successful connect, sends the RTU; the QP is connected when the
     * completion reports {@code STATUS_SUCCESS}. {@code disconnectEvent} hears the peer's disconnect.
     */
    public int completeConnect(NdkCallbacks.DisconnectEvent disconnectEvent, Object disconnectEventContext,
            NdkCallbacks.RequestCompletion requestCompletion, Object requestContext) {
        checkUsable();
        if (connection == null || !connection.isActive() || connection.state() != Connection.State.REP_RECEIVED
                || pending != null) {
            return STATUS_INVALID_DEVICE_STATE;
        }
        this.disconnectEvent = disconnectEvent;
        this.disconnectContext = disconnectEventContext;
        start(requestCompletion, requestContext);
        cm.completeConnect(connection);
        return STATUS_PENDING;
    }

    /**
     * {@code NdkAccept}: accepts the request this passive connector stands for on {@code pNdkQp}, with up to
     * {@code MaxCalleeData} bytes of private data. Completes with {@code STATUS_SUCCESS} once the peer's RTU
     * arrived (the QP is connected), or {@code STATUS_IO_TIMEOUT} / {@code STATUS_CONNECTION_ABORTED}.
     */
    public int accept(NdkQp pNdkQp, long inboundReadLimit, long outboundReadLimit, byte[] pPrivateData,
            int privateDataLength, NdkCallbacks.DisconnectEvent disconnectEvent, Object disconnectEventContext,
            NdkCallbacks.RequestCompletion requestCompletion, Object requestContext) {
        checkUsable();
        pNdkQp.checkUsable();
        if (connection == null || connection.isActive() || connection.state() != Connection.State.REQ_RECEIVED) {
            return STATUS_INVALID_DEVICE_STATE;
        }
        if (pNdkQp.inConnection) {
            return STATUS_CONNECTION_ACTIVE;
        }
        if (!privateDataFits(pPrivateData, privateDataLength, adapter.info().maxCalleeData)) {
            return STATUS_INVALID_BUFFER_SIZE;
        }
        if (pNdkQp.adapter != adapter || inboundReadLimit < 0 || outboundReadLimit < 0) {
            return STATUS_INVALID_PARAMETER;
        }
        qp = pNdkQp;
        qp.inConnection = true;
        this.disconnectEvent = disconnectEvent;
        this.disconnectContext = disconnectEventContext;
        start(requestCompletion, requestContext);
        if (adapter.recorder != null) {
            adapter.recorder.accepting(adapter.now(), this, qp, inboundReadLimit, outboundReadLimit, pPrivateData,
                    privateDataLength);
        }
        cm.accept(connection, qp.hw, clamp(inboundReadLimit, adapter.info().maxInboundReadLimit),
                clamp(outboundReadLimit, adapter.info().maxOutboundReadLimit), copy(pPrivateData, privateDataLength),
                new Events());
        return STATUS_PENDING;
    }

    /**
     * {@code NdkReject}: refuses the request (passive) or the REP (active) with up to {@code MaxCalleeData}
     * bytes of private data for the peer. Returns {@code STATUS_SUCCESS}, or
     * {@code STATUS_INVALID_BUFFER_SIZE} for too much data.
     */
    public int reject(byte[] pPrivateData, int privateDataLength) {
        checkUsable();
        if (!privateDataFits(pPrivateData, privateDataLength, adapter.info().maxCalleeData)) {
            return STATUS_INVALID_BUFFER_SIZE;
        }
        if (connection == null || connection.state() != Connection.State.REQ_RECEIVED) {
            return STATUS_INVALID_DEVICE_STATE;
        }
        cm.reject(connection, copy(pPrivateData, privateDataLength));
        return STATUS_SUCCESS;
    }

    /**
     * {@code NdkGetConnectionData}: the read limits and private data the peer sent (its REQ on the passive
     * side, without the RDMA CM header; its REP or REJ on the active side). {@code pPrivateDataLength} is
     * in: the buffer's size, out: the data's length; {@code STATUS_BUFFER_TOO_SMALL} when it does not fit.
     */
    public int getConnectionData(Out<Long> pInboundReadLimit, Out<Long> pOutboundReadLimit, byte[] pPrivateData,
            Out<Integer> pPrivateDataLength) {
        checkUsable();
        if (connection == null) {
            return STATUS_INVALID_DEVICE_STATE;
        }
        byte[] data = connection.peerPrivateData();
        int from = !connection.isActive() && CmaHeader.valid(data) ? CmaHeader.SIZE : 0;
        int n = data.length - from;
        int room = pPrivateDataLength.value == null ? 0 : pPrivateDataLength.value;
        pPrivateDataLength.value = n;
        if (pInboundReadLimit != null) {
            pInboundReadLimit.value = (long) connection.peerOutboundReadLimit();
        }
        if (pOutboundReadLimit != null) {
            pOutboundReadLimit.value = (long) connection.peerInboundReadLimit();
        }
        if (room < n || (n > 0 && (pPrivateData == null || pPrivateData.length < n))) {
            return STATUS_BUFFER_TOO_SMALL;
        }
        System.arraycopy(data, from, pPrivateData, 0, n);
        return STATUS_SUCCESS;
    }

    /** {@code NdkGetLocalAddress}. */
    public NdkAddress getLocalAddress() {
        return local;
    }

    /** {@code NdkGetPeerAddress}. */
    public NdkAddress getPeerAddress() {
        return peer;
    }

    /**
     * {@code NdkDisconnect}: graceful disconnect (DREQ); the QP is flushed. Completes when the peer answered
     * (or its answers ran out). Returns {@code STATUS_PENDING}, or {@code STATUS_CONNECTION_INVALID} when not
     * connected.
     */
    public int disconnect(NdkCallbacks.RequestCompletion requestCompletion, Object requestContext) {
        checkUsable();
        if (adapter.recorder != null) {
            adapter.recorder.disconnect(adapter.now(), this);
        }
        if (!established || disconnected || pending != null) {
            return STATUS_CONNECTION_INVALID;
        }
        disconnected = true;
        qp.disconnected();
        start(requestCompletion, requestContext);
        cm.disconnect(connection, null);
        return STATUS_PENDING;
    }

    private void start(NdkCallbacks.RequestCompletion completion, Object context) {
        pending = completion;
        pendingContext = context;
        requestStarted();
    }

    private void finish(int status) {
        NdkCallbacks.RequestCompletion c = pending;
        Object ctx = pendingContext;
        pending = null;
        pendingContext = null;
        requestDone();
        if (c != null) {
            c.requestCompletion(ctx, status);
        }
    }

    /** Whether {@code length} bytes of {@code data} are there and at most {@code max} (MaxCallerData / MaxCalleeData). */
    private static boolean privateDataFits(byte[] data, int length, long max) {
        return length >= 0 && length <= max && (length == 0 || (data != null && data.length >= length));
    }

    private static int clamp(long value, long max) {
        return (int) Math.min(Math.min(value, max), 255);
    }

    private static byte[] copy(byte[] data, int length) {
        byte[] b = new byte[length];
        if (length > 0) {
            System.arraycopy(data, 0, b, 0, length);
        }
        return b;
    }

    /** What the connection manager reports, turned into NDK completions and events. */
    private final class Events implements Connection.Events {
        @Override
        public void replied(Connection c) {
            finish(STATUS_SUCCESS);
        }

        @Override
        public void established(Connection c) {
            established = true;
            qp.connectedNow();
            finish(STATUS_SUCCESS);
        }

        @Override
        public void failed(Connection c, Connection.Outcome why) {
            if (qp != null) {
                qp.inConnection = false;
            }
            finish(switch (why) {
                case REJECTED, NO_LISTENER -> STATUS_CONNECTION_REFUSED;
                case TIMED_OUT -> STATUS_IO_TIMEOUT;
            });
        }

        @Override
        public void disconnected(Connection c) {
            disconnected = true;
            qp.disconnected();
            if (disconnectEvent != null && !isClosed()) {
                disconnectEvent.disconnectEvent(disconnectContext);
            }
        }

        @Override
        public void disconnectCompleted(Connection c) {
            finish(STATUS_SUCCESS);
        }
    }

    @Override
    void teardown(Runnable done) {
        if (established && !disconnected) {
            // Closing a connected connector aborts the connection: disconnect first.
            disconnected = true;
            qp.disconnected();
            pending = (ctx, status) -> done.run();
            requestStarted();
            cm.disconnect(connection, null);
            return;
        }
        done.run();
    }

    @Override
    String describe() {
        return "NDK connector " + (local == null ? "" : local + " -> " + peer) + " of " + adapter.driver().fullName();
    }
}
