package dev.rdmasim.ndk;

/**
 * The consumer callbacks of NDKPI ({@code NDK_FN_*_COMPLETION}, {@code NDK_FN_*_CALLBACK}). The
 * provider calls them inside the simulation, in an event of their own, never from within the call
 * that started the request; a call that returns anything but {@link NtStatus#STATUS_PENDING} calls
 * no completion.
 */
public final class NdkCallbacks {
    private NdkCallbacks() {
    }

    /** {@code NDK_FN_CREATE_COMPLETION}: a create that returned PENDING has finished. */
    @FunctionalInterface
    public interface CreateCompletion {
        /** {@code object} is the new object when {@code status} is success, else null. */
        void createCompletion(Object requestContext, int status, NdkObject object);
    }

    /** {@code NDK_FN_REQUEST_COMPLETION}: a request (register, connect, accept, ...) that returned PENDING has finished. */
    @FunctionalInterface
    public interface RequestCompletion {
        void requestCompletion(Object requestContext, int status);
    }

    /** {@code NDK_FN_CLOSE_COMPLETION}: a close that returned PENDING has finished. */
    @FunctionalInterface
    public interface CloseCompletion {
        void closeCompletion(Object context);
    }

    /** {@code NDK_FN_CQ_NOTIFICATION_CALLBACK}: the CQ has a completion of the armed kind, or overran. */
    @FunctionalInterface
    public interface CqNotification {
        /** {@code cqStatus}: success, {@code STATUS_BUFFER_OVERFLOW} (overrun) or {@code STATUS_INTERNAL_ERROR}. */
        void cqNotification(Object cqNotificationContext, int cqStatus);
    }

    /** {@code NDK_FN_CONNECT_EVENT_CALLBACK}: a connection request arrived at a listener, as a new connector. */
    @FunctionalInterface
    public interface ConnectEvent {
        void connectEvent(Object connectEventContext, NdkConnector connector);
    }

    /** {@code NDK_FN_DISCONNECT_EVENT_CALLBACK}: the peer disconnected; called once per connection. */
    @FunctionalInterface
    public interface DisconnectEvent {
        void disconnectEvent(Object disconnectEventContext);
    }
}
