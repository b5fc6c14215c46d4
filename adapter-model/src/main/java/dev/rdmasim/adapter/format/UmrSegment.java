package dev.rdmasim.adapter.format;

/**
 * The 32-byte key segment of a UMR WQE (NDK FastRegister and Bind). This is the model's own
 * simplification of mlx5's UMR control + mkey segments: one fixed segment naming the new bounds and
 * rights, then (fast-register only) one data segment pointing at the translation list.
 *
 * <pre>
 * bytes 0-7   start virtual address
 * bytes 8-15  length in bytes
 * bytes 16-19 access flags ({@link AccessFlags})
 * bytes 20-23 parent key: bind = the MR the window lies in; fast-register = 0
 * byte  24    log2 page size (fast-register)
 * bytes 25-27 reserved
 * bytes 28-31 page count: translation entries to load (fast-register), 0 for bind
 * </pre>
 *
 * The control segment's immediate word holds the target key (the MR or MW being (re)programmed).
 * Fast-register WQE: control + key + data segment {byte count = pages * 8, lkey ignored, address of
 * the 8-byte big-endian physical page addresses}, ds = 4 (one BB). Bind WQE: control + key, ds = 3.
 */
public final class UmrSegment {
    public static final int SIZE = 32;
    public static final int OFF_START = 0;
    public static final int OFF_LENGTH = 8;
    public static final int OFF_ACCESS = 16;
    public static final int OFF_PARENT_KEY = 20;
    public static final int OFF_LOG_PAGE = 24;
    public static final int OFF_PAGE_COUNT = 28;

    public static final int DS_FAST_REGISTER = 4;
    public static final int DS_BIND = 3;

    private UmrSegment() {
    }

    public static void write(byte[] b, int off, long start, long length, int access, int parentKey, int logPageSize,
                             int pageCount) {
        BigEndian.putI64(b, off + OFF_START, start);
        BigEndian.putI64(b, off + OFF_LENGTH, length);
        BigEndian.putI32(b, off + OFF_ACCESS, access);
        BigEndian.putI32(b, off + OFF_PARENT_KEY, parentKey);
        BigEndian.putI32(b, off + OFF_LOG_PAGE, (logPageSize & 0xff) << 24);
        BigEndian.putI32(b, off + OFF_PAGE_COUNT, pageCount);
    }
}
