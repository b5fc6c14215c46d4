package dev.rdmasim.adapter.wire;

/**
 * Observes every frame an {@link EthernetLink} puts on the line, as sent (before any injected drop or
 * corruption), at the simulated time its first bit leaves. The bytes are only valid during the call.
 */
@FunctionalInterface
public interface FrameTap {
    void frame(long timePs, byte[] data, int length);
}
