package dev.rdmasim.ndk;

/**
 * The smaller value sets of {@code ndkpi.h} and {@code ndkinfo.h}: CQ notification types, memory
 * registration flags, adapter flags, RDMA technologies and object types, under their C names.
 */
public final class NdkConstants {
    // NdkArmCq notification types.
    /** Notify on the next error completion only. */
    public static final int NDK_CQ_NOTIFY_ERRORS = 0;
    /** Notify on the next completion of any kind. */
    public static final int NDK_CQ_NOTIFY_ANY = 1;
    /** Notify on the next solicited receive completion or error completion. */
    public static final int NDK_CQ_NOTIFY_SOLICITED = 2;

    // NdkRegisterMr flags.
    public static final int NDK_MR_FLAG_LOCAL_READ = 0x0;
    public static final int NDK_MR_FLAG_ALLOW_LOCAL_WRITE = 0x1;
    public static final int NDK_MR_FLAG_ALLOW_REMOTE_READ = 0x2;
    /** Includes local write. */
    public static final int NDK_MR_FLAG_ALLOW_REMOTE_WRITE = 0x5;
    public static final int NDK_MR_FLAG_RDMA_READ_SINK = 0x8;

    // NDK_ADAPTER_INFO.AdapterFlags.
    public static final int NDK_ADAPTER_FLAG_IN_ORDER_DMA_SUPPORTED = 0x1;
    public static final int NDK_ADAPTER_FLAG_RDMA_READ_SINK_NOT_REQUIRED = 0x2;
    public static final int NDK_ADAPTER_FLAG_CQ_INTERRUPT_MODERATION_SUPPORTED = 0x4;
    public static final int NDK_ADAPTER_FLAG_MULTI_ENGINE_SUPPORTED = 0x8;
    public static final int NDK_ADAPTER_FLAG_RDMA_READ_LOCAL_INVALIDATE_SUPPORTED = 0x10;
    public static final int NDK_ADAPTER_FLAG_CQ_RESIZE_SUPPORTED = 0x100;
    public static final int NDK_ADAPTER_FLAG_LOOPBACK_CONNECTIONS_SUPPORTED = 0x10000;

    // NDK_RDMA_TECHNOLOGY.
    public static final int NdkUndefined = 0;
    public static final int NdkiWarp = 1;
    public static final int NdkInfiniBand = 2;
    public static final int NdkRoCE = 3;
    public static final int NdkRoCEv2 = 4;

    // NDK_OBJECT_TYPE.
    public static final int NdkObjectTypeAdapter = 1;
    public static final int NdkObjectTypeQp = 2;
    public static final int NdkObjectTypeCq = 3;
    public static final int NdkObjectTypeMr = 4;
    public static final int NdkObjectTypeMw = 5;
    public static final int NdkObjectTypePd = 6;
    public static final int NdkObjectTypeSharedEndpoint = 7;
    public static final int NdkObjectTypeConnector = 8;
    public static final int NdkObjectTypeListener = 9;
    public static final int NdkObjectTypeSrq = 10;

    private NdkConstants() {
    }

    /** The object type's name without the prefix (Adapter, Qp, ...). */
    public static String objectTypeName(int type) {
        return switch (type) {
            case NdkObjectTypeAdapter -> "Adapter";
            case NdkObjectTypeQp -> "Qp";
            case NdkObjectTypeCq -> "Cq";
            case NdkObjectTypeMr -> "Mr";
            case NdkObjectTypeMw -> "Mw";
            case NdkObjectTypePd -> "Pd";
            case NdkObjectTypeSharedEndpoint -> "SharedEndpoint";
            case NdkObjectTypeConnector -> "Connector";
            case NdkObjectTypeListener -> "Listener";
            case NdkObjectTypeSrq -> "Srq";
            default -> "0x" + Integer.toHexString(type);
        };
    }
}
