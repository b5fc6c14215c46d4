package dev.rdmasim.driver;

/**
 * A registered buffer: host address range, protection domain, access flags
 * ({@code format.AccessFlags}) and its key, used both as lkey in local SGEs and as rkey by the
 * peer. {@code translationTable} is the host address of its page list (8 bytes per 4 KiB page).
 */
public record MemoryRegion(long address, long length, int pd, int access, int key, long translationTable) {
    public int lkey() {
        return key;
    }

    public int rkey() {
        return key;
    }
}
