package dev.rdmasim.traces;

import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.wire.EthernetLink;
import dev.rdmasim.driver.Host;
import dev.rdmasim.driver.HostDriver;
import dev.rdmasim.driver.HostPair;
import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.ndk.NdkAdapter;

/**
 * Two hosts, each with its adapter and NDK provider, cabled back to back: what replays and perf
 * workloads run on. Host A is 10.0.0.1 (MAC 02:00:00:00:00:01, adapter {@code nicA}), host B 10.0.0.2;
 * each has the other's address resolved, as the connection manager needs.
 */
public final class Topology {
    public static final int IP_A = 0x0A00_0001;
    public static final int IP_B = 0x0A00_0002;
    public static final long MAC_A = 0x02_00_00_00_00_01L;
    public static final long MAC_B = 0x02_00_00_00_00_02L;

    private final Host[] hosts;
    private final NdkAdapter[] adapters;
    private final EthernetLink link;

    private Topology(Host a, Host b, EthernetLink link) {
        this.hosts = new Host[] {a, b};
        this.link = link;
        a.attach(link.a());
        b.attach(link.b());
        HostDriver da = a.driver();
        HostDriver db = b.driver();
        da.addNeighbour(db.ip(), db.mac());
        db.addNeighbour(da.ip(), da.mac());
        this.adapters = new NdkAdapter[] {NdkAdapter.open(da), NdkAdapter.open(db)};
    }

    /**
     * Host A on {@code profileA}, host B on {@code profileB}, and a cable as {@code profileA}'s {@code link.*}
     * parameters describe it (rate, propagation delay, buffers, seeded faults).
     */
    public static Topology twoHosts(Simulator sim, Profile profileA, Profile profileB) {
        Host a = new Host(sim, "hostA", "nicA", profileA, MAC_A, IP_A);
        Host b = new Host(sim, "hostB", "nicB", profileB, MAC_B, IP_B);
        return new Topology(a, b, HostPair.cable(sim, "wire", profileA));
    }

    public static Topology twoHosts(Simulator sim, Profile profile) {
        return twoHosts(sim, profile, profile);
    }

    /** Host 0 (A) or 1 (B): its memory, adapter and driver. */
    public Host host(int i) {
        return hosts[i];
    }

    /** The NDK provider of host 0 (A) or 1 (B). */
    public NdkAdapter adapter(int i) {
        return adapters[i];
    }

    public EthernetLink link() {
        return link;
    }
}
