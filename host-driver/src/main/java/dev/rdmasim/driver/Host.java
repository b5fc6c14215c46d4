package dev.rdmasim.driver;

import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.adapter.nic.Adapter;
import dev.rdmasim.adapter.wire.LinkEndpoint;
import dev.rdmasim.kernel.Simulator;

/**
 * One host as the model assembles it: host memory, the adapter on its PCIe link, and the driver on the
 * host CPU. This is the only place that builds the adapter; the driver gets the memory and the adapter's
 * {@link dev.rdmasim.adapter.nic.AdapterControl} port, while whoever built the host keeps the whole adapter
 * for cabling, statistics and diagnostics.
 *
 * <p>The adapter is built first, as firmware is up before the driver loads: its context memory takes the
 * first pages of host memory and its statistics are listed before the driver's, an order the outputs keep.
 */
public final class Host {
    private final HostMemory memory;
    private final Adapter adapter;
    private final HostDriver driver;

    /**
     * Host {@code name} (its memory {@code name_mem}) with adapter {@code nicName} built from {@code profile};
     * {@code mac} and {@code ip} are the adapter port's addresses.
     */
    public Host(Simulator sim, String name, String nicName, Profile profile, long mac, int ip) {
        this(sim, name, nicName, profile, mac, ip, HostDriver.DEFAULT_CPU_QUEUE);
    }

    /** As {@link #Host(Simulator, String, String, Profile, long, int)}, with a host CPU queue of {@code cpuQueue} items. */
    public Host(Simulator sim, String name, String nicName, Profile profile, long mac, int ip, int cpuQueue) {
        memory = new HostMemory(name + "_mem");
        adapter = new Adapter(sim, nicName, profile, memory, mac, ip);
        driver = new HostDriver(sim, name, memory, adapter, cpuQueue);
    }

    public HostMemory memory() {
        return memory;
    }

    public Adapter adapter() {
        return adapter;
    }

    public HostDriver driver() {
        return driver;
    }

    /** Plugs the adapter's Ethernet port into a link end. */
    public void attach(LinkEndpoint port) {
        adapter.attach(port);
    }
}
