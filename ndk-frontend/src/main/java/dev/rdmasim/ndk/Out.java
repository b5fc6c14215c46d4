package dev.rdmasim.ndk;

/**
 * An out parameter, as the {@code NDK_xxx **ppObject} and {@code ULONG *pBufferSize} arguments of
 * the C interface: the call stores into {@link #value}. A create that returns
 * {@link NtStatus#STATUS_PENDING} leaves it untouched (the object comes with the completion).
 */
public final class Out<T> {
    public T value;

    public Out() {
    }

    public Out(T initial) {
        this.value = initial;
    }
}
