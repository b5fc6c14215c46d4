package dev.rdmasim.ndk;

/**
 * {@code NDK_SGE}: one buffer of a request, a virtual address inside a registered region (its
 * {@code MemoryRegionToken} is the region's local token). With {@link NdkOpFlags#NDK_OP_FLAG_INLINE}
 * the token is ignored: the provider copies the bytes into the work request.
 *
 * @param virtualAddress    start of the buffer in the host's memory
 * @param length            bytes ({@code ULONG}: 0 .. 2^32-1, held in a long)
 * @param memoryRegionToken the local token of the region holding the buffer
 */
public record NdkSge(long virtualAddress, long length, int memoryRegionToken) {
    public NdkSge {
        if (length < 0 || length > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("NDK_SGE Length must fit a ULONG, got " + length);
        }
    }
}
