package dev.rdmasim.ndk;

import static dev.rdmasim.ndk.NtStatus.*;

import dev.rdmasim.adapter.wire.CmMad;
import dev.rdmasim.driver.Connection;

/**
 * {@code NDK_LISTENER}: listens on a port for connection requests. Each request that arrives is handed
 * to the connect event callback as a new passive {@link NdkConnector}; a request whose private data does
 * not start with an RDMA CM IP header is refused for the consumer.
 */
public final class NdkListener extends NdkObject {
    private final NdkCallbacks.ConnectEvent connectEvent;
    private final Object connectEventContext;
    private NdkAddress address;

    NdkListener(NdkAdapter adapter, NdkCallbacks.ConnectEvent connectEvent, Object connectEventContext) {
        super(adapter, NdkConstants.NdkObjectTypeListener, adapter);
        this.connectEvent = connectEvent;
        this.connectEventContext = connectEventContext;
    }

    /**
     * {@code NdkListen}: starts listening on {@code pAddress} (this host's address or 0, and a port).
     * Listening takes no hardware work: {@code STATUS_SUCCESS}, no completion. {@code STATUS_ADDRESS_ALREADY_EXISTS}
     * when another listener has the port, {@code STATUS_INVALID_ADDRESS} for another host's address,
     * {@code STATUS_INVALID_DEVICE_STATE} when this listener already listens.
     */
    public int listen(NdkAddress pAddress, NdkCallbacks.RequestCompletion requestCompletion, Object requestContext) {
        checkUsable();
        if (address != null) {
            return STATUS_INVALID_DEVICE_STATE;
        }
        int myIp = adapter.driver().ip();
        if (pAddress.ipv4() != 0 && pAddress.ipv4() != myIp) {
            return STATUS_INVALID_ADDRESS;
        }
        if (adapter.listeningPorts.contains(pAddress.port())) {
            return STATUS_ADDRESS_ALREADY_EXISTS;
        }
        address = new NdkAddress(myIp, pAddress.port());
        adapter.listeningPorts.add(pAddress.port());
        adapter.cm().listen(CmMad.tcpServiceId(pAddress.port()), this::requested);
        return STATUS_SUCCESS;
    }

    /** The address it listens on, or null before {@link #listen}. */
    public NdkAddress address() {
        return address;
    }

    private void requested(Connection request) {
        byte[] data = request.peerPrivateData();
        if (!CmaHeader.valid(data)) {
            adapter.cm().reject(request, null);
            return;
        }
        NdkConnector c = new NdkConnector(adapter, request, address, CmaHeader.source(data));
        connectEvent.connectEvent(connectEventContext, c);
    }

    @Override
    void beginClose() {
        if (address != null) {
            adapter.cm().stopListening(CmMad.tcpServiceId(address.port()));
            adapter.listeningPorts.remove(address.port());
        }
    }

    @Override
    String describe() {
        return "NDK listener " + (address == null ? "" : address + " ") + "of " + adapter.driver().fullName();
    }
}
