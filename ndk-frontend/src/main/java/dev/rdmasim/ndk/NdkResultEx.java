package dev.rdmasim.ndk;

/** {@code NDK_RESULT_EX}: an {@link NdkResult} with the operation type, as {@code NdkGetCqResultsEx} returns it. */
public class NdkResultEx extends NdkResult {
    /** {@link NdkOperationType} value. */
    public int type;
    /** For ReceiveAndInvalidate, the invalidated token; otherwise 0. */
    public long typeSpecificCompletionOutput;

    @Override
    void clear() {
        super.clear();
        type = 0;
        typeSpecificCompletionOutput = 0;
    }

    @Override
    public String toString() {
        return "NDK_RESULT_EX{" + NdkOperationType.name(type) + ", " + NtStatus.name(status) + ", bytes="
                + bytesTransferred + ", qp=" + qpContext + ", request=" + requestContext + "}";
    }
}
