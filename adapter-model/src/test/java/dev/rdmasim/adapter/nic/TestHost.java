package dev.rdmasim.adapter.nic;

import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.format.AccessFlags;
import dev.rdmasim.adapter.format.ControlSegment;
import dev.rdmasim.adapter.format.Cqe;
import dev.rdmasim.adapter.format.Doorbells;
import dev.rdmasim.adapter.format.Eqe;
import dev.rdmasim.adapter.format.RecvWqe;
import dev.rdmasim.adapter.format.SendWqeBuilder;
import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.kernel.Simulator;

/**
 * A minimal driver for end-to-end tests: one host with its memory, an adapter, one CQ, one QP and
 * one registered buffer, posting WQEs into the rings and ringing doorbells as a driver does.
 */
final class TestHost {
    static final int LOG_SQ_BBS = 8;
    static final int LOG_RQ = 6;
    static final int LOG_CQ = 8;
    static final int QPN = Adapter.FIRST_DATA_QPN;
    static final int PD = 7;

    final Simulator sim;
    final HostMemory mem;
    final Adapter nic;
    final long sqBase;
    final long rqBase;
    final long cqRing;
    final long cqDb;
    final long qpDb;
    final long buf;
    final long bufSize;
    final int key;
    final byte[] sqMirror = new byte[(1 << LOG_SQ_BBS) * 64];
    final SendWqeBuilder builder = new SendWqeBuilder(sqMirror, 0, LOG_SQ_BBS);
    int sqPi;
    int rqPi;
    long cqCi;

    TestHost(Simulator sim, String name, Profile profile, int index, long bufSize, int access) {
        this.sim = sim;
        mem = new HostMemory(name + "_mem");
        nic = new Adapter(sim, name, profile, mem, 0x02_00_00_00_00_00L + index, 0x0A000000 + index);
        sqBase = mem.allocate(sqMirror.length, 4096);
        rqBase = mem.allocate((1 << LOG_RQ) * 16L, 4096);
        cqRing = mem.allocate((1 << LOG_CQ) * 64L, 4096);
        byte[] init = new byte[(1 << LOG_CQ) * 64];
        Cqe.initRing(init, 0, 1 << LOG_CQ);
        mem.write(cqRing, init, 0, init.length);
        cqDb = mem.allocate(8, 64);
        qpDb = mem.allocate(8, 64);
        long eq = mem.allocate(64L * 64, 4096);
        byte[] eqInit = new byte[64 * 64];
        Eqe.initRing(eqInit, 0, 64);
        mem.write(eq, eqInit, 0, eqInit.length);
        nic.createEq(eq, 6);
        this.bufSize = bufSize;
        buf = mem.allocate(bufSize, 4096);
        // Translation table: identity mapping, one 8-byte entry per 4 KiB page.
        long pages = (bufSize + 4095) / 4096;
        long mtt = mem.allocate(pages * 8, 64);
        for (long p = 0; p < pages; p++) {
            mem.putLongBE(mtt + p * 8, buf + p * 4096);
        }
        key = (index + 1) << 8 | 0x5A;
        nic.registerMemory(key, PD, access, 12, buf, bufSize, mtt);
        nic.createCq(1, cqRing, LOG_CQ, cqDb);
        nic.createQp(QPN, new QpConfig(PD, 1, 1, sqBase, LOG_SQ_BBS, rqBase, LOG_RQ, 0, qpDb, 4, 1, 220,
                AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.LOCAL_WRITE));
    }

    static dev.rdmasim.adapter.wire.EthernetLink lastLink;

    static TestHost[] pair(Simulator sim, Profile profile, long bufSize, int access) {
        TestHost a = new TestHost(sim, "nicA", profile, 0, bufSize, access);
        TestHost b = new TestHost(sim, "nicB", profile, 1, bufSize, access);
        dev.rdmasim.adapter.wire.EthernetLink link = dev.rdmasim.adapter.wire.EthernetLink.cable(sim, "wire",
                new dev.rdmasim.adapter.wire.EthernetLink.Config((int) (profile.getLong(dev.rdmasim.adapter.config.Parameters.LINK_RATE) / 1_000_000_000L),
                        10_000, 64));
        lastLink = link;
        a.nic.attach(link.a());
        b.nic.attach(link.b());
        a.nic.connectQp(QPN, QPN, b.nic.mac, b.nic.ip, 100, 5000);
        b.nic.connectQp(QPN, QPN, a.nic.mac, a.nic.ip, 5000, 100);
        return new TestHost[] {a, b};
    }

    /** Posts one WQE: opcode with a remote address (or not), one SGE or inline bytes; rings the doorbell. */
    void post(int opcode, long raddr, int rkey, long laddr, int len, boolean inline, boolean signaled) {
        builder.begin(sqPi & 0xFFFF, opcode, QPN, signaled ? ControlSegment.FLAG_CQ_UPDATE : 0, 0);
        if (raddr >= 0) {
            builder.remoteAddress(raddr, rkey);
        }
        if (inline) {
            byte[] data = new byte[len];
            mem.read(laddr, data, 0, len);
            builder.inlineData(data, 0, len);
        } else if (len > 0) {
            builder.data(laddr, len, key);
        }
        int ctrl = builder.lastCtrlOffset();
        int bbs = builder.finish();
        ctrl = builder.lastCtrlOffset();
        int mask = (1 << LOG_SQ_BBS) - 1;
        for (int b = 0; b < bbs; b++) {
            int slot = (sqPi + b) & mask;
            mem.write(sqBase + slot * 64L, sqMirror, slot * 64, 64);
        }
        sqPi += bbs;
        mem.putIntBE(qpDb + Doorbells.OFF_SEND_COUNTER, sqPi & 0xFFFF);
        // A CPU whose posted-write queue is full stalls until the link drains it.
        while (!nic.host().mmioWrite(Doorbells.sqDoorbellOffset(QPN), sqMirror, ctrl, 8)) {
            if (!sim.step()) {
                throw new IllegalStateException("MMIO queue full and nothing left to run");
            }
        }
    }

    void postRecv(long addr, int len) {
        byte[] w = new byte[16];
        RecvWqe.writeSge(w, 0, 0, addr, len, key);
        mem.write(rqBase + (rqPi & ((1 << LOG_RQ) - 1)) * 16L, w, 0, 16);
        rqPi++;
        mem.putIntBE(qpDb + Doorbells.OFF_RECV_COUNTER, rqPi & 0xFFFF);
    }

    /** The next CQE if software owns it (advancing the consumer index), else null. */
    byte[] poll() {
        byte[] c = new byte[64];
        mem.read(cqRing + Cqe.entryOffset(cqCi, LOG_CQ), c, 0, 64);
        if (!Cqe.isSoftwareOwned(c, 0, cqCi, LOG_CQ)) {
            return null;
        }
        cqCi++;
        mem.putIntBE(cqDb + Doorbells.OFF_CQ_SET_CI, (int) (cqCi & 0xFFFFFF));
        return c;
    }
}
