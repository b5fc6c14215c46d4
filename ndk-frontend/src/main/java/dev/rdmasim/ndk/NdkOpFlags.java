package dev.rdmasim.ndk;

/** {@code NDK_OP_FLAG_*} values of {@code ndkpi.h}, and which calls accept which. */
public final class NdkOpFlags {
    /** No completion on success; a failure still completes. */
    public static final int NDK_OP_FLAG_SILENT_SUCCESS = 0x00000001;
    /** Every earlier RDMA read of the QP completes before this request starts. */
    public static final int NDK_OP_FLAG_READ_FENCE = 0x00000002;
    /** The peer's CQ notifies, if armed for solicited completions, when this send's receive completes. */
    public static final int NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT = 0x00000004;
    public static final int NDK_OP_FLAG_ALLOW_REMOTE_READ = 0x00000008;
    public static final int NDK_OP_FLAG_ALLOW_LOCAL_WRITE = 0x00000010;
    public static final int NDK_OP_FLAG_ALLOW_REMOTE_WRITE = 0x00000030;
    /** The payload is copied into the work request; the SGEs' tokens are ignored. */
    public static final int NDK_OP_FLAG_INLINE = 0x00000040;
    public static final int NDK_OP_FLAG_RDMA_READ_SINK = 0x00000080;
    public static final int NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE = 0x00000100;
    /** The provider may hold the request back from the hardware until a request without this flag. */
    public static final int NDK_OP_FLAG_DEFER = 0x00000200;

    /** Flags {@code NdkSend} accepts. */
    public static final int SEND_FLAGS = NDK_OP_FLAG_SILENT_SUCCESS | NDK_OP_FLAG_READ_FENCE
            | NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT | NDK_OP_FLAG_INLINE | NDK_OP_FLAG_DEFER;
    /** Flags {@code NdkWrite} accepts (inline writes are allowed up to the QP's inline size). */
    public static final int WRITE_FLAGS = NDK_OP_FLAG_SILENT_SUCCESS | NDK_OP_FLAG_READ_FENCE
            | NDK_OP_FLAG_INLINE | NDK_OP_FLAG_DEFER;
    /** Flags {@code NdkRead} accepts. */
    public static final int READ_FLAGS = NDK_OP_FLAG_SILENT_SUCCESS | NDK_OP_FLAG_READ_FENCE
            | NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE | NDK_OP_FLAG_DEFER;

    // Wider flags before the flags whose bits they include (ALLOW_REMOTE_WRITE includes ALLOW_LOCAL_WRITE).
    private static final int[] VALUES = {NDK_OP_FLAG_SILENT_SUCCESS, NDK_OP_FLAG_READ_FENCE,
        NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT, NDK_OP_FLAG_ALLOW_REMOTE_READ, NDK_OP_FLAG_ALLOW_REMOTE_WRITE,
        NDK_OP_FLAG_ALLOW_LOCAL_WRITE, NDK_OP_FLAG_INLINE, NDK_OP_FLAG_RDMA_READ_SINK,
        NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE, NDK_OP_FLAG_DEFER};
    private static final String[] NAMES = {"NDK_OP_FLAG_SILENT_SUCCESS", "NDK_OP_FLAG_READ_FENCE",
        "NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT", "NDK_OP_FLAG_ALLOW_REMOTE_READ", "NDK_OP_FLAG_ALLOW_REMOTE_WRITE",
        "NDK_OP_FLAG_ALLOW_LOCAL_WRITE", "NDK_OP_FLAG_INLINE", "NDK_OP_FLAG_RDMA_READ_SINK",
        "NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE", "NDK_OP_FLAG_DEFER"};

    private NdkOpFlags() {
    }

    /** The flag names set in {@code flags}, joined by {@code |}, for messages and traces; "0" for none. */
    public static String describe(int flags) {
        StringBuilder b = new StringBuilder();
        int rest = flags;
        for (int i = 0; i < VALUES.length; i++) {
            if ((rest & VALUES[i]) == VALUES[i]) {
                b.append(b.length() == 0 ? "" : "|").append(NAMES[i]);
                rest &= ~VALUES[i];
            }
        }
        if (rest != 0) {
            b.append(b.length() == 0 ? "" : "|").append(String.format(java.util.Locale.US, "0x%X", rest));
        }
        return b.length() == 0 ? "0" : b.toString();
    }

    /** The value of one flag name (with or without the {@code NDK_OP_FLAG_} prefix), or -1. */
    public static int valueOf(String name) {
        String n = name.startsWith("NDK_OP_FLAG_") ? name : "NDK_OP_FLAG_" + name;
        for (int i = 0; i < NAMES.length; i++) {
            if (NAMES[i].equals(n)) {
                return VALUES[i];
            }
        }
        return -1;
    }
}
