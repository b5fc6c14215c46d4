package dev.rdmasim.adapter.pcie;

import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.hw.Module;
import java.util.Objects;

/**
 * One adapter's PCIe attachment: the {@link DmaEngine} on the device side, the {@link HostBridge} (root complex) on
 * the host side, and a {@link LinkTransmitter} for each direction between them ({@code up}: device to host,
 * {@code down}: host to device). Children: {@code up}, {@code down}, {@code rc}, {@code dma}.
 */
public final class PcieLink extends Module {
    private final PcieConfig config;
    private final Parts parts;

    /** A top-level link, for tests and tools. */
    public PcieLink(Simulator sim, String name, PcieConfig config, HostMemory memory) {
        super(sim, name);
        this.config = Objects.requireNonNull(config, "config");
        this.parts = build(this, config, memory);
    }

    /** A link inside an adapter model. */
    public PcieLink(Module parent, String name, PcieConfig config, HostMemory memory) {
        super(parent, name);
        this.config = Objects.requireNonNull(config, "config");
        this.parts = build(this, config, memory);
    }

    private record Parts(LinkTransmitter up, LinkTransmitter down, HostBridge rc, DmaEngine dma, TlpPool pool) {
    }

    private static Parts build(PcieLink self, PcieConfig cfg, HostMemory memory) {
        int cplLimit = cfg.readTags() * HostBridge.maxCompletionsPerRead(cfg);
        LinkTransmitter up = new LinkTransmitter(self, "up", cfg, cfg.deviceTxDepth(), cfg.deviceTxDepth(), 0);
        LinkTransmitter down = new LinkTransmitter(self, "down", cfg, cfg.mmioQueueDepth(), 0, cplLimit);
        // Every live TLP sits in a bounded place: a transmit queue, a serializer, the wire or the read pipeline.
        int bound = 2 * cfg.deviceTxDepth() + cfg.mmioQueueDepth() + cplLimit + cfg.readTags() + 2
                + up.wireCapacity() + down.wireCapacity();
        TlpPool pool = new TlpPool(cfg.mps(), Math.min(bound, 64), bound);
        HostBridge rc = new HostBridge(self, "rc", cfg, memory, pool, down, up);
        DmaEngine dma = new DmaEngine(self, "dma", cfg, pool, up, down);
        up.connect(dma.linkEnd, rc.linkEnd);
        down.connect(rc.linkEnd, dma.linkEnd);
        up.setLateHandover(true);
        down.setLateHandover(true);
        return new Parts(up, down, rc, dma, pool);
    }

    /**
     * With {@code perTlp}, every TLP is delivered, and every device write committed, in an event of its own: the
     * reference behaviour. Without (the default), TLPs whose arrival nothing waits for (data writes nobody watches,
     * completions before a read's last) are handed over when something next looks, with the same timing and the same
     * host memory contents at every access. Only while the link is idle.
     */
    public void setEventPerTlp(boolean perTlp) {
        parts.up.setLateHandover(!perTlp);
        parts.down.setLateHandover(!perTlp);
    }

    public PcieConfig config() {
        return config;
    }

    /** Device-to-host direction. */
    public LinkTransmitter up() {
        return parts.up;
    }

    /** Host-to-device direction. */
    public LinkTransmitter down() {
        return parts.down;
    }

    /** The root complex: host memory side, MMIO issue, interrupts. */
    public HostBridge host() {
        return parts.rc;
    }

    /** The device's DMA engine. */
    public DmaEngine dma() {
        return parts.dma;
    }

    /** TLP objects created so far; stays flat in steady state. */
    public int tlpsAllocated() {
        return parts.pool.created();
    }
}
