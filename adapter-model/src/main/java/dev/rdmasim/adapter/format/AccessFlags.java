package dev.rdmasim.adapter.format;

/**
 * Memory access rights, one bit each, shared by UMR key segments, memory key contexts and QP contexts.
 * NDK's MR flags map as LOCAL_WRITE 0x1 -> {@link #LOCAL_WRITE}, REMOTE_READ 0x2 -> {@link #REMOTE_READ},
 * REMOTE_WRITE 0x5 -> {@link #REMOTE_WRITE} | {@link #LOCAL_WRITE}, RDMA_READ_SINK 0x8 -> {@link #READ_SINK}.
 */
public final class AccessFlags {
    public static final int LOCAL_WRITE = 0x01;
    public static final int REMOTE_READ = 0x02;
    public static final int REMOTE_WRITE = 0x04;
    public static final int REMOTE_ATOMIC = 0x08;
    /** The region may be the sink of an RDMA READ (NDK RDMA_READ_SINK). */
    public static final int READ_SINK = 0x10;
    public static final int ALL = 0x1f;

    private AccessFlags() {
    }
}
