package dev.rdmasim.adapter.format;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Big-endian field access on a {@code byte[]} at any offset (unaligned is fine). Every layout in
 * this package is big-endian like mlx5's, so driver and adapter agree byte for byte. All methods
 * are static and allocation-free.
 */
public final class BigEndian {
    private static final VarHandle I16 = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle I32 = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle I64 = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private BigEndian() {
    }

    public static int u8(byte[] b, int off) {
        return b[off] & 0xff;
    }

    public static void putU8(byte[] b, int off, int v) {
        b[off] = (byte) v;
    }

    public static int u16(byte[] b, int off) {
        return ((short) I16.get(b, off)) & 0xffff;
    }

    public static void putU16(byte[] b, int off, int v) {
        I16.set(b, off, (short) v);
    }

    /** Three bytes, most significant first (QP and CQ numbers). */
    public static int u24(byte[] b, int off) {
        return (b[off] & 0xff) << 16 | (b[off + 1] & 0xff) << 8 | (b[off + 2] & 0xff);
    }

    public static void putU24(byte[] b, int off, int v) {
        b[off] = (byte) (v >>> 16);
        b[off + 1] = (byte) (v >>> 8);
        b[off + 2] = (byte) v;
    }

    public static int i32(byte[] b, int off) {
        return (int) I32.get(b, off);
    }

    public static long u32(byte[] b, int off) {
        return ((int) I32.get(b, off)) & 0xffff_ffffL;
    }

    public static void putI32(byte[] b, int off, int v) {
        I32.set(b, off, v);
    }

    public static long i64(byte[] b, int off) {
        return (long) I64.get(b, off);
    }

    public static void putI64(byte[] b, int off, long v) {
        I64.set(b, off, v);
    }
}
