package dev.rdmasim.ndk;

import static dev.rdmasim.ndk.NtStatus.STATUS_PENDING;
import static dev.rdmasim.ndk.NtStatus.STATUS_SUCCESS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.adapter.nic.Adapter;
import dev.rdmasim.adapter.wire.EthernetLink;
import dev.rdmasim.driver.Host;
import dev.rdmasim.driver.HostDriver;
import dev.rdmasim.driver.HostPair;
import dev.rdmasim.kernel.Simulator;
import java.util.ArrayList;
import java.util.List;

/**
 * Two hosts with an NDK adapter each, cabled together, and helpers that create objects the way a
 * consumer does (call, then run the simulation until the create completion arrives) so that tests
 * read as NDK programs.
 */
final class NdkTestBed {
    final Simulator sim;
    final Profile profile;
    final HostDriver hostA;
    final HostDriver hostB;
    final Adapter nicA;
    final Adapter nicB;
    final EthernetLink link;
    final NdkAdapter a;
    final NdkAdapter b;

    NdkTestBed() {
        this(Profile.defaults());
    }

    NdkTestBed(Profile profile) {
        this.profile = profile;
        sim = new Simulator(7);
        Host ha = new Host(sim, "hostA", "nicA", profile, 0x02_00_00_00_00_01L, 0x0A00_0001);
        Host hb = new Host(sim, "hostB", "nicB", profile, 0x02_00_00_00_00_02L, 0x0A00_0002);
        hostA = ha.driver();
        hostB = hb.driver();
        nicA = ha.adapter();
        nicB = hb.adapter();
        link = HostPair.cable(sim, "wire", profile);
        ha.attach(link.a());
        hb.attach(link.b());
        // Each host has resolved the other's address (the ARP entry the connection manager needs).
        hostA.addNeighbour(hostB.ip(), hostB.mac());
        hostB.addNeighbour(hostA.ip(), hostA.mac());
        a = NdkAdapter.open(hostA);
        b = NdkAdapter.open(hostB);
    }

    /** What a create completion delivered. */
    static final class Created<T extends NdkObject> {
        boolean done;
        int status = -1;
        T object;
    }

    <T extends NdkObject> NdkCallbacks.CreateCompletion into(Created<T> c) {
        return (ctx, status, object) -> {
            assertThat(c.done).as("create completion called twice").isFalse();
            c.done = true;
            c.status = status;
            @SuppressWarnings("unchecked")
            T t = (T) object;
            c.object = t;
        };
    }

    /** Runs until {@code c} completed; fails if the simulation ends first. */
    <T extends NdkObject> T await(Created<T> c) {
        runUntil(() -> c.done);
        assertThat(c.done).as("creation completed").isTrue();
        assertThat(c.status).as("creation status " + NtStatus.name(c.status)).isEqualTo(STATUS_SUCCESS);
        return c.object;
    }

    NdkCq cq(NdkAdapter ad, long depth, NdkCallbacks.CqNotification notification) {
        Created<NdkCq> c = new Created<>();
        assertThat(ad.createCq(depth, notification, "cq", null, into(c), "create", new Out<>())).isEqualTo(STATUS_PENDING);
        return await(c);
    }

    NdkCq cq(NdkAdapter ad, long depth) {
        return cq(ad, depth, (ctx, status) -> { });
    }

    NdkPd pd(NdkAdapter ad) {
        Created<NdkPd> c = new Created<>();
        assertThat(ad.createPd(into(c), "pd", new Out<>())).isEqualTo(STATUS_PENDING);
        return await(c);
    }

    NdkQp qp(NdkPd pd, NdkCq rcq, NdkCq icq, Object qpContext, long rqDepth, long iqDepth, long rSge, long iSge,
            long inline) {
        Created<NdkQp> c = new Created<>();
        assertThat(pd.createQp(rcq, icq, qpContext, rqDepth, iqDepth, rSge, iSge, inline, into(c), "qp", new Out<>()))
                .isEqualTo(STATUS_PENDING);
        return await(c);
    }

    /** A registered buffer of {@code length} bytes in {@code ad}'s host memory, filled with {@code fill}. */
    NdkMr mr(NdkAdapter ad, NdkPd pd, long address, long length, int flags) {
        Out<NdkMr> out = new Out<>();
        assertThat(pd.createMr(false, null, null, out)).isEqualTo(STATUS_SUCCESS);
        int[] status = {-1};
        assertThat(out.value.registerMr(address, length, flags, (ctx, s) -> status[0] = s, "reg"))
                .isEqualTo(STATUS_PENDING);
        runUntil(() -> status[0] != -1);
        assertThat(status[0]).isEqualTo(STATUS_SUCCESS);
        return out.value;
    }

    /** Port B listens on in {@link #connect}. */
    static final int PORT = 7471;

    /**
     * Connects {@code x} (on adapter a) to {@code y} (on adapter b) as an NDK program does: B listens and
     * accepts on {@code y}, A connects {@code x} and completes; runs until both sides are connected.
     * Returns the two connectors (A's, B's).
     */
    NdkConnector[] connect(NdkQp x, NdkQp y) {
        return connect(x, y, 8, 8, 8, 8);
    }

    /** As {@link #connect(NdkQp, NdkQp)}, with the read limits each side asks for (inbound, outbound). */
    NdkConnector[] connect(NdkQp x, NdkQp y, long inX, long outX, long inY, long outY) {
        NdkConnector[] ends = new NdkConnector[2];
        int[] accepted = {-1};
        int[] connected = {-1};
        int[] completed = {-1};
        Out<NdkListener> l = new Out<>();
        assertThat(b.createListener((ctx, conn) -> {
            ends[1] = conn;
            assertThat(conn.accept(y, inY, outY, null, 0, null, null, (c, s) -> accepted[0] = s, null)).isEqualTo(STATUS_PENDING);
        }, null, null, null, l)).isEqualTo(STATUS_SUCCESS);
        assertThat(l.value.listen(new NdkAddress(0, PORT), null, null)).isEqualTo(STATUS_SUCCESS);
        Out<NdkConnector> c = new Out<>();
        assertThat(a.createConnector(null, null, c)).isEqualTo(STATUS_SUCCESS);
        ends[0] = c.value;
        assertThat(c.value.connect(x, new NdkAddress(0, 0), new NdkAddress(hostB.ip(), PORT), inX, outX, null, 0,
                (ctx, s) -> connected[0] = s, null)).isEqualTo(STATUS_PENDING);
        runUntil(() -> connected[0] != -1);
        assertThat(connected[0]).as(NtStatus.name(connected[0])).isEqualTo(STATUS_SUCCESS);
        assertThat(c.value.completeConnect(null, null, (ctx, s) -> completed[0] = s, null)).isEqualTo(STATUS_PENDING);
        runUntil(() -> completed[0] != -1 && accepted[0] != -1);
        assertThat(completed[0]).isEqualTo(STATUS_SUCCESS);
        assertThat(accepted[0]).isEqualTo(STATUS_SUCCESS);
        assertThat(x.isConnected()).isTrue();
        assertThat(y.isConnected()).isTrue();
        assertThat(l.value.close(null, null)).isEqualTo(STATUS_SUCCESS);
        return ends;
    }

    /** The value of counter {@code name} in the statistics of {@code module}'s own group. */
    static long counter(dev.rdmasim.kernel.hw.Module module, String name) {
        for (var st : module.stats().stats()) {
            if (st.name().equals(name) && st instanceof dev.rdmasim.kernel.stats.Counter c) {
                return c.value();
            }
        }
        throw new IllegalArgumentException("no counter " + name + " in " + module.fullName());
    }

    static HostMemory memory(NdkAdapter ad) {
        return ad.driver().memory();
    }

    /** Runs events one at a time until {@code condition} holds or nothing is left to run. */
    void runUntil(java.util.function.BooleanSupplier condition) {
        while (!condition.getAsBoolean() && sim.step()) {
            // keep going
        }
    }

    /**
     * Takes {@code n} results from {@code cq} the way a polling thread does: it polls when a CQE has
     * landed in the ring (the driver's landed hook), so empty polls do not load the host CPU.
     */
    List<NdkResultEx> take(NdkCq cq, int n) {
        List<NdkResultEx> got = new ArrayList<>();
        NdkResultEx[] buf = new NdkResultEx[8];
        for (int i = 0; i < buf.length; i++) {
            buf[i] = new NdkResultEx();
        }
        boolean[] landed = {true};
        cq.hw.setLandedListener(() -> landed[0] = true);
        while (got.size() < n) {
            if (landed[0]) {
                landed[0] = false;
                int k;
                while ((k = cq.getCqResultsEx(buf, Math.min(buf.length, n - got.size()))) > 0) {
                    for (int i = 0; i < k; i++) {
                        got.add(copy(buf[i]));
                    }
                }
            } else if (!sim.step()) {
                break;
            }
        }
        cq.hw.setLandedListener(null);
        assertThat(got).as("results on " + cq.describe()).hasSize(n);
        return got;
    }

    static NdkResultEx copy(NdkResultEx from) {
        NdkResultEx r = new NdkResultEx();
        r.status = from.status;
        r.bytesTransferred = from.bytesTransferred;
        r.qpContext = from.qpContext;
        r.requestContext = from.requestContext;
        r.type = from.type;
        return r;
    }

    /** Runs the simulation to its end and returns what {@code cq} holds then (nothing more arrives). */
    List<NdkResultEx> drain(NdkCq cq) {
        sim.run();
        List<NdkResultEx> got = new ArrayList<>();
        NdkResultEx[] buf = {new NdkResultEx()};
        while (cq.getCqResultsEx(buf, 1) == 1) {
            got.add(copy(buf[0]));
        }
        return got;
    }
}
