package dev.rdmasim.ndk;

/** {@code NDK_OPERATION_TYPE}: what a completion in an {@link NdkResultEx} was for. */
public final class NdkOperationType {
    public static final int NdkOperationTypeReceive = 1;
    public static final int NdkOperationTypeSend = 2;
    public static final int NdkOperationTypeFastRegister = 4;
    public static final int NdkOperationTypeBind = 8;
    public static final int NdkOperationTypeInvalidate = 16;
    public static final int NdkOperationTypeRead = 32;
    public static final int NdkOperationTypeWrite = 64;
    public static final int NdkOperationTypeReceiveAndInvalidate = 0x8001;

    private NdkOperationType() {
    }

    /** The short name (Receive, Send, ...) of a type value. */
    public static String name(int type) {
        return switch (type) {
            case NdkOperationTypeReceive -> "Receive";
            case NdkOperationTypeSend -> "Send";
            case NdkOperationTypeFastRegister -> "FastRegister";
            case NdkOperationTypeBind -> "Bind";
            case NdkOperationTypeInvalidate -> "Invalidate";
            case NdkOperationTypeRead -> "Read";
            case NdkOperationTypeWrite -> "Write";
            case NdkOperationTypeReceiveAndInvalidate -> "ReceiveAndInvalidate";
            default -> "0x" + Integer.toHexString(type);
        };
    }
}
