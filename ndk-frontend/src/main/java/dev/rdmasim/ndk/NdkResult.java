package dev.rdmasim.ndk;

/**
 * {@code NDK_RESULT}: one completion as {@code NdkGetCqResults} returns it. The caller passes an
 * array of these to be filled, as in C; an entry is overwritten by the next call that uses it.
 */
public class NdkResult {
    /** {@link NtStatus} value: success, or why the request failed. */
    public int status;
    /** Bytes received; meaningful for receive completions only. */
    public long bytesTransferred;
    /** The QPContext the QP was created with. */
    public Object qpContext;
    /** The RequestContext the request was posted with. */
    public Object requestContext;

    void clear() {
        status = 0;
        bytesTransferred = 0;
        qpContext = null;
        requestContext = null;
    }

    @Override
    public String toString() {
        return "NDK_RESULT{" + NtStatus.name(status) + ", bytes=" + bytesTransferred + ", qp=" + qpContext
                + ", request=" + requestContext + "}";
    }
}
