package dev.rdmasim.driver;

import static dev.rdmasim.driver.StatsProbe.counter;
import static dev.rdmasim.adapter.format.Command.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.format.WqeOpcode;
import dev.rdmasim.adapter.nic.QpState;
import dev.rdmasim.adapter.wire.EthernetLink;
import dev.rdmasim.kernel.Simulator;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class CommandQueueTest {
    private static final long NS = 1000;
    private static final long US = 1_000_000;

    /** What a callback reported, and when. */
    private record Got<T>(int status, T value, long atPs) {
    }

    private static final class Box<T> implements CommandQueue.Result<T> {
        final Simulator sim;
        Got<T> got;

        Box(Simulator sim) {
            this.sim = sim;
        }

        @Override
        public void done(int status, T value) {
            assertThat(got).as("one answer per command").isNull();
            got = new Got<>(status, value, sim.now());
        }

        T ok() {
            assertThat(got).as("answered").isNotNull();
            assertThat(statusName(got.status())).isEqualTo("OK");
            return got.value();
        }

        int status() {
            assertThat(got).as("answered").isNotNull();
            return got.status();
        }
    }

    private static Host host(Simulator sim, Profile profile, String name, long mac, int ip) {
        Host h = new Host(sim, "host" + name, "nic" + name, profile, mac, ip);
        h.driver().commands();
        return h;
    }

    private static long createCqTime(long latencyPs) {
        Simulator sim = new Simulator(1);
        Host h = host(sim, Profile.defaults().with("nic.firmwareCommandLatency", latencyPs + "ps"), "A", 2, 1);
        HostDriver d = h.driver();
        Box<CompletionQueue> cq = new Box<>(sim);
        assertThat(d.commands().createCq(6, cq)).isTrue();
        sim.run();
        assertThat(cq.ok().size()).isEqualTo(64);
        return cq.got.atPs();
    }

    @Test
    void createCqTakesTheFirmwareLatencyOnTopOfTheHostAndPcieWork() {
        long t0 = createCqTime(0);
        long t20 = createCqTime(20 * US);
        long t50 = createCqTime(50 * US);
        // The firmware time adds exactly: everything else is the same bytes on the same link.
        assertThat(t20 - t0).isEqualTo(20 * US);
        assertThat(t50 - t0).isEqualTo(50 * US);
        // The rest, bounded below by its parts (default profile): CPU stores of mailbox and entry (a WQE build each)
        // and the 8 B doorbell store; its uncore path and flight down the link; the entry and the mailbox reads, each
        // a request up, the host's read latency and a completion down; the event's write up the link and its commit
        // into host memory before the CPU can see it.
        Profile d = Profile.defaults();
        long link = d.getLong(dev.rdmasim.adapter.config.Parameters.PCIE_LINK_LATENCY);
        long floor = 2 * d.getLong(dev.rdmasim.adapter.config.Parameters.HOST_WQE_BUILD_TIME)
                + d.getLong(dev.rdmasim.adapter.config.Parameters.HOST_MMIO_STORE_TIME)
                + d.getLong(dev.rdmasim.adapter.config.Parameters.PCIE_MMIO_LATENCY) + link
                + 2 * (2 * link + d.getLong(dev.rdmasim.adapter.config.Parameters.PCIE_HOST_READ_LATENCY))
                + link + d.getLong(dev.rdmasim.adapter.config.Parameters.PCIE_HOST_WRITE_LATENCY);
        assertThat(t0).isGreaterThanOrEqualTo(floor);
        // Serialization of the small TLPs at 8 GT/s x16 (about 0.064 ns a byte: doorbell, two reads and their
        // completions, the 32 B output, the EQE and the MSI-X, some 420 B with headers) adds about 27 ns.
        assertThat(t0).isLessThan(floor + 40 * NS);
    }

    @Test
    void commandsRunOneAtATimeInOrder() {
        Simulator sim = new Simulator(1);
        Host h = host(sim, Profile.defaults(), "A", 2, 1);
        HostDriver d = h.driver();
        List<Integer> order = new ArrayList<>();
        long[] at = new long[3];
        for (int i = 0; i < 3; i++) {
            int k = i;
            assertThat(d.commands().allocatePd((s, pd) -> {
                order.add(pd);
                at[k] = sim.now();
            })).isTrue();
        }
        assertThat(d.commands().outstanding()).isEqualTo(3);
        sim.run();
        assertThat(order).containsExactly(1, 2, 3);
        assertThat(at[1] - at[0]).isGreaterThanOrEqualTo(20 * US);
        assertThat(at[2] - at[1]).isGreaterThanOrEqualTo(20 * US);
        assertThat(at[1]).as("the second is no earlier than two latencies after the submit").isGreaterThanOrEqualTo(40 * US);
        assertThat(d.commands().outstanding()).isZero();
        assertThat(counter(sim, "nicA.cmd.commands")).isEqualTo(3);
        assertThat(counter(sim, "nicA.cmd.firmwareTime")).isEqualTo(60 * US);
        assertThat(counter(sim, "hostA.commandsAnswered")).isEqualTo(3);
    }

    /** One host's objects made through commands. */
    private record Side(Host h, int pd, CompletionQueue cq, MemoryRegion mr, QueuePair qp) {
        HostDriver d() {
            return h.driver();
        }
    }

    private static <T> T settle(Simulator sim, Box<T> box) {
        sim.run();
        return box.ok();
    }

    private static Side build(Simulator sim, Host h) {
        HostDriver d = h.driver();
        Box<Integer> pd = new Box<>(sim);
        Box<CompletionQueue> cq = new Box<>(sim);
        d.commands().allocatePd(pd);
        d.commands().createCq(8, cq);
        sim.run();
        Box<MemoryRegion> mr = new Box<>(sim);
        Box<QueuePair> qp = new Box<>(sim);
        long buf = d.allocate(1 << 16);
        d.commands().registerMemory(pd.ok(), buf, 1 << 16, HostPair.ALL_ACCESS, mr);
        d.commands().createQp(QpOptions.of(cq.ok(), pd.ok(), HostPair.ALL_ACCESS), qp);
        sim.run();
        return new Side(h, pd.ok(), cq.ok(), mr.ok(), qp.ok());
    }

    private static Side[] connectedPair(Simulator sim, Profile profile) {
        Host ha = host(sim, profile, "A", 0x02_00_00_00_00_01L, 0x0A00_0001);
        Host hb = host(sim, profile, "B", 0x02_00_00_00_00_02L, 0x0A00_0002);
        HostDriver da = ha.driver();
        HostDriver db = hb.driver();
        EthernetLink link = HostPair.cable(sim, "wire", profile);
        ha.attach(link.a());
        hb.attach(link.b());
        Side a = build(sim, ha);
        Side b = build(sim, hb);
        Box<QueuePair> ca = new Box<>(sim);
        Box<QueuePair> cb = new Box<>(sim);
        da.commands().connect(a.qp(), b.qp().qpn(), db.mac(), db.ip(), 1000, 77, ca);
        db.commands().connect(b.qp(), a.qp().qpn(), da.mac(), da.ip(), 77, 1000, cb);
        sim.run();
        ca.ok();
        cb.ok();
        return new Side[] {a, b};
    }

    @Test
    void objectsMadeByCommandsCarryAWriteEndToEnd() {
        Simulator sim = new Simulator(1);
        Side[] p = connectedPair(sim, Profile.defaults());
        Side a = p[0];
        Side b = p[1];
        assertThat(a.h().adapter().qpState(a.qp().qpn())).isEqualTo(QpState.READY_TO_SEND);
        assertThat(a.mr().key() >>> 8).isEqualTo(1);
        byte[] data = new byte[3000];
        new SplittableRandom(5).nextBytes(data);
        a.d().memory().write(a.mr().address() + 64, data, 0, data.length);
        long target = b.mr().address() + 1000;
        assertThat(a.qp().sq().post(9, WqeOpcode.RDMA_WRITE, SendQueue.SIGNALED, 0, target, b.mr().rkey(),
                new SgeList(1).add(a.mr().address() + 64, data.length, a.mr().lkey()))).isTrue();
        sim.run();
        assertThat(b.d().memory().equalsRange(target, data, 0, data.length)).isTrue();
        Completion c = a.cq().poll();
        assertThat(c).isNotNull();
        assertThat(c.syndrome()).isZero();
        assertThat(c.wrId()).isEqualTo(9);
        assertThat(c.byteCount()).isEqualTo(3000);
    }

    @Test
    void exhaustionAnswersNoResourcesAndChangesNothing() {
        Simulator sim = new Simulator(1);
        Profile small = Profile.defaults().with("nic.maxCqs", "2").with("nic.maxQps", "3").with("nic.maxPds", "2")
                .with("nic.maxMrs", "2");
        Host h = host(sim, small, "A", 2, 1);
        HostDriver d = h.driver();
        Side s = build(sim, h);
        assertThat(s.cq().cqn()).isZero();
        assertThat(s.qp().qpn()).isEqualTo(dev.rdmasim.adapter.nic.Adapter.FIRST_DATA_QPN);
        Box<CompletionQueue> cq2 = new Box<>(sim);
        Box<CompletionQueue> cq3 = new Box<>(sim);
        Box<Integer> pd2 = new Box<>(sim);
        Box<MemoryRegion> mr2 = new Box<>(sim);
        Box<QueuePair> qp2 = new Box<>(sim);
        d.commands().createCq(4, cq2);
        d.commands().createCq(4, cq3);
        d.commands().allocatePd(pd2);
        d.commands().registerMemory(s.pd(), s.mr().address(), 4096, HostPair.ALL_ACCESS, mr2);
        d.commands().createQp(QpOptions.of(s.cq(), s.pd(), HostPair.ALL_ACCESS), qp2);
        sim.run();
        assertThat(cq2.ok().cqn()).isEqualTo(1);
        for (Box<?> b : List.of(cq3, pd2, mr2, qp2)) {
            assertThat(statusName(b.status())).isEqualTo("NO_RESOURCES");
            assertThat(b.got.value()).isNull();
        }
        assertThat(h.adapter().freeCqn()).isEqualTo(-1);
        assertThat(h.adapter().freeQpn()).isEqualTo(-1);
        assertThat(h.adapter().freePd()).isEqualTo(-1);
        assertThat(h.adapter().freeKeyIndex()).isEqualTo(-1);
        assertThat(h.adapter().cqExists(2)).isFalse();
        assertThat(h.adapter().qpExists(dev.rdmasim.adapter.nic.Adapter.FIRST_DATA_QPN + 1)).isFalse();
        assertThat(counter(sim, "nicA.cmd.failed")).isEqualTo(4);
        // Freeing one makes room again.
        Box<Void> gone = new Box<>(sim);
        d.commands().destroyCq(cq2.ok(), gone);
        Box<CompletionQueue> again = new Box<>(sim);
        d.commands().createCq(4, again);
        sim.run();
        assertThat(gone.status()).isEqualTo(STATUS_OK);
        assertThat(again.ok().cqn()).isEqualTo(1);
    }

    @Test
    void invalidTransitionsAnswerBadStateAndKeepTheState() {
        Simulator sim = new Simulator(1);
        Host h = host(sim, Profile.defaults(), "A", 2, 1);
        HostDriver d = h.driver();
        Side s = build(sim, h);
        int qpn = s.qp().qpn();
        Box<QueuePair> rts = new Box<>(sim);
        d.commands().modifyQp(s.qp(), OP_RTS2RTS_QP, rts);
        sim.run();
        assertThat(rts.status()).isEqualTo(STATUS_BAD_RESOURCE_STATE);
        assertThat(h.adapter().qpState(qpn)).isEqualTo(QpState.INIT);
        Box<QueuePair> err = new Box<>(sim);
        Box<QueuePair> connect = new Box<>(sim);
        d.commands().modifyQp(s.qp(), OP_2ERR_QP, err);
        d.commands().connect(s.qp(), 5, 0x0200_0000_0009L, 0x0A00_0009, 1, 2, connect);
        sim.run();
        assertThat(err.ok()).isSameAs(s.qp());
        assertThat(connect.status()).isEqualTo(STATUS_BAD_RESOURCE_STATE);
        assertThat(h.adapter().qpState(qpn)).isEqualTo(QpState.ERROR);
        Box<QueuePair> reset = new Box<>(sim);
        Box<QueuePair> init = new Box<>(sim);
        d.commands().modifyQp(s.qp(), OP_2RST_QP, reset);
        d.commands().modifyQp(s.qp(), OP_RST2INIT_QP, init);
        sim.run();
        assertThat(reset.ok()).isSameAs(s.qp());
        assertThat(init.ok()).isSameAs(s.qp());
        assertThat(h.adapter().qpState(qpn)).isEqualTo(QpState.INIT);
        Box<QueuePair> unknown = new Box<>(sim);
        d.commands().submit(OP_2ERR_QP, 0, 99, 0, 0, null, (st, o0, o1) -> unknown.done(st, null));
        Box<QueuePair> badOp = new Box<>(sim);
        d.commands().submit(0x7FF, 0, 0, 0, 0, null, (st, o0, o1) -> badOp.done(st, null));
        Box<QueuePair> badLength = new Box<>(sim);
        d.commands().submit(OP_CREATE_CQ, 0, 0, 0, 0, new byte[16], (st, o0, o1) -> badLength.done(st, null));
        sim.run();
        assertThat(unknown.status()).isEqualTo(STATUS_BAD_RESOURCE);
        assertThat(badOp.status()).isEqualTo(STATUS_BAD_OPCODE);
        assertThat(badLength.status()).isEqualTo(STATUS_BAD_INPUT_LENGTH);
    }

    @Test
    void moderationSetByCommandHoldsTheEventForItsCount() {
        Simulator sim = new Simulator(1);
        HostPair p = HostPair.create(sim, Profile.defaults());
        HostPair.Side a = p.a();
        Box<CompletionQueue> bad = new Box<>(sim);
        Box<CompletionQueue> mod = new Box<>(sim);
        a.driver().commands().moderateCq(a.cq(), 0, 0, bad);
        a.driver().commands().moderateCq(a.cq(), 3, 1_000 * US, mod);
        sim.runUntil(100 * US);
        assertThat(bad.status()).isEqualTo(STATUS_BAD_PARAM);
        assertThat(mod.ok()).isSameAs(a.cq());
        int[] events = {0};
        a.cq().setEventHandler(() -> events[0]++);
        assertThat(a.cq().arm(false)).isTrue();
        for (int i = 0; i < 3; i++) {
            assertThat(a.sq().post(i, WqeOpcode.RDMA_WRITE, SendQueue.SIGNALED, 0, p.b().mr().address(), p.b().mr().rkey(),
                    new SgeList(1).set(a.mr(), 0, 64))).isTrue();
            sim.runUntil(sim.now() + 20 * US);
            assertThat(events[0]).as("event after " + (i + 1) + " CQEs").isEqualTo(i < 2 ? 0 : 1);
        }
    }

    @Test
    void objectsInUseAreNotDestroyedAndFreeObjectsAre() {
        Simulator sim = new Simulator(1);
        Host h = host(sim, Profile.defaults(), "A", 2, 1);
        HostDriver d = h.driver();
        Side s = build(sim, h);
        Box<Void> cqBusy = new Box<>(sim);
        Box<Void> pdBusy = new Box<>(sim);
        d.commands().destroyCq(s.cq(), cqBusy);
        d.commands().deallocatePd(s.pd(), pdBusy);
        sim.run();
        assertThat(cqBusy.status()).isEqualTo(STATUS_RESOURCE_BUSY);
        assertThat(pdBusy.status()).isEqualTo(STATUS_RESOURCE_BUSY);
        assertThat(h.adapter().cqExists(s.cq().cqn())).isTrue();
        Box<Void> qp = new Box<>(sim);
        Box<Void> cq = new Box<>(sim);
        Box<Void> mr = new Box<>(sim);
        Box<Void> pd = new Box<>(sim);
        Box<Void> mrAgain = new Box<>(sim);
        d.commands().destroyQp(s.qp(), qp);
        d.commands().destroyCq(s.cq(), cq);
        d.commands().deregisterMemory(s.mr(), mr);
        d.commands().deallocatePd(s.pd(), pd);
        d.commands().deregisterMemory(s.mr(), mrAgain);
        sim.run();
        assertThat(List.of(qp.status(), cq.status(), mr.status(), pd.status())).containsOnly(STATUS_OK);
        assertThat(mrAgain.status()).isEqualTo(STATUS_BAD_RESOURCE);
        assertThat(h.adapter().qpExists(s.qp().qpn())).isFalse();
        assertThat(h.adapter().cqExists(s.cq().cqn())).isFalse();
        assertThat(h.adapter().keyRegistered(s.mr().key())).isFalse();
        assertThat(h.adapter().pdAllocated(s.pd())).isFalse();
        // The numbers are free again, lowest first.
        assertThat(h.adapter().freeCqn()).isZero();
        assertThat(h.adapter().freeQpn()).isEqualTo(dev.rdmasim.adapter.nic.Adapter.FIRST_DATA_QPN);
    }

    @Test
    void resizeKeepsCompletionsFlowingInOrder() {
        Simulator sim = new Simulator(1);
        HostPair p = HostPair.create(sim, Profile.defaults(), 1 << 20, 4, 8, 6); // CQs of 16
        HostPair.Side a = p.a();
        CommandQueue cmd = a.driver().commands();
        int[] next = {0};
        Runnable postOne = () -> assertThat(a.sq().post(next[0]++, WqeOpcode.RDMA_WRITE, SendQueue.SIGNALED, 0,
                p.b().mr().address(), p.b().mr().rkey(), new SgeList(1).set(a.mr(), 0, 64))).isTrue();
        for (int i = 0; i < 8; i++) {
            postOne.run();
        }
        sim.run(); // 8 CQEs wait, unpolled, in the 16-entry ring
        Box<CompletionQueue> resized = new Box<>(sim);
        long submit = sim.now();
        assertThat(cmd.resizeCq(a.cq(), 7, resized)).isTrue();
        // WRITEs keep completing across the switch (about 20.7 us after the submit): the first few land in the old
        // ring, which has room for 8 more, the later ones in the new.
        for (int i = 0; i < 40; i++) {
            sim.runUntil(submit + 17 * US + i * 400 * NS);
            postOne.run();
        }
        sim.run();
        assertThat(resized.ok().size()).isEqualTo(128);
        long switchAt = a.cq().switchIndex();
        assertThat(switchAt).as("some CQEs before the switch, some after").isGreaterThan(8).isLessThan(48 - 16);
        assertThat(counter(sim, "nicA.cqe.overflows")).isZero();
        List<Long> ids = new ArrayList<>();
        for (Completion c = a.cq().poll(); c != null; c = a.cq().poll()) {
            assertThat(c.syndrome()).isZero();
            ids.add(c.wrId());
        }
        assertThat(ids).hasSize(48);
        for (int i = 0; i < 48; i++) {
            assertThat(ids.get(i)).isEqualTo(i);
        }
        // And again, beyond the old size, all in the new ring.
        for (int i = 0; i < 100; i++) {
            postOne.run();
        }
        sim.run();
        int more = 0;
        for (Completion c = a.cq().poll(); c != null; c = a.cq().poll()) {
            assertThat(c.wrId()).isEqualTo(48 + more);
            more++;
        }
        assertThat(more).isEqualTo(100);
    }
}
