package dev.rdmasim.adapter.pcie;

/**
 * Test helper for block tests outside this package: shows every read request the root complex of a link serves, at
 * the instant it reads host memory (the root complex reads it when the request arrives), by tapping the link's
 * upstream end. Everything is forwarded unchanged.
 */
public final class HostReads {
    /** Told of each read request served: its host address and length in bytes. */
    @FunctionalInterface
    public interface Observer {
        void read(long address, int length);
    }

    private HostReads() {
    }

    /** Taps {@code link} so that {@code observer} sees each read request before host memory is read for it. */
    public static void observe(PcieLink link, Observer observer) {
        link.up().connect(link.dma().linkEnd, new TlpTap(link.host().linkEnd, t -> {
            if (t.kind() == TlpKind.MRD) {
                observer.read(t.address(), t.length());
            }
        }));
    }
}
