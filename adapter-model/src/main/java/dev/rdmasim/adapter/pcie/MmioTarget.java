package dev.rdmasim.adapter.pcie;

/** Device-side receiver of host MMIO writes (doorbells, write-combined WQE chunks). */
@FunctionalInterface
public interface MmioTarget {
    /**
     * A posted write of {@code len} bytes at {@code barOffset} arrived. {@code data[off..off+len)} is valid only
     * during the call.
     */
    void mmioWrite(long barOffset, byte[] data, int off, int len);
}
