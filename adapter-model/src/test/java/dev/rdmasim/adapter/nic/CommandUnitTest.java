package dev.rdmasim.adapter.nic;

import static dev.rdmasim.adapter.format.Command.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.format.BigEndian;
import dev.rdmasim.adapter.format.CqContext;
import dev.rdmasim.adapter.format.Eqe;
import dev.rdmasim.adapter.format.MkeyContext;
import dev.rdmasim.adapter.format.QpContext;
import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.adapter.pcie.DmaPort;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.hw.Module;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The command unit alone, with the real firmware tables, event queue unit, PCIe model and host memory. The firmware
 * tables reach every block that holds per-QP state (a QP destroy asks each whether it is busy), so they are taken
 * from an adapter that is never attached to a link and never sees a doorbell; the command unit under test is built
 * beside it on a DMA channel of its own, and the test is its driver: it writes real entries and mailboxes into the
 * command ring at random paces (with random PCIe latencies, read tags and request sizes), a share of them malformed
 * or refused, and rings the doorbell directly.
 *
 * <p>Scoreboard: a reference model of the object tables, kept by the test, predicts each command's status and
 * outputs at the moment it is posted (commands take effect in ring order). Each command is answered exactly once,
 * in ring order, with that status and those outputs, its inputs untouched and ownership handed back; the answer,
 * its COMMAND EQE (index and token) and the MSI-X message reach the host in that order, one command at a time, and
 * at least the firmware latency after the entry was posted and after the previous command's interrupt. At the end
 * the tables equal the reference's, object by object, with the same lowest free numbers.
 */
class CommandUnitTest {

    /** The reference's view of a QP. */
    private static final class RefQp {
        QpState state = QpState.INIT;
        final int pd;
        final int sendCqn;
        final int recvCqn;
        final int sqLogBbs;
        int remoteQpn;
        int expectedPsn;
        int sendPsn;
        boolean peered;

        RefQp(int pd, int sendCqn, int recvCqn, int sqLogBbs) {
            this.pd = pd;
            this.sendCqn = sendCqn;
            this.recvCqn = recvCqn;
            this.sqLogBbs = sqLogBbs;
        }
    }

    /** What the test posted and what it expects back. */
    private record Posted(int index, byte[] entry, int status, int out0, int out1, long postedPs) {
    }

    private static final class Run {
        final SplittableRandom rnd;
        final Simulator sim;
        final HostMemory mem = new HostMemory("host");
        final Adapter nic;
        final FirmwareTables fw;
        final CommandUnit unit;
        final long latencyPs;
        final int logSize;
        final int logEq;
        final long ring;
        final long eqRing;
        final long[] mailboxes;
        final int maxPds;
        final int maxCqs;
        final int maxMrs;
        final int maxQps;
        final int total;
        final long msix;
        final Event driver;
        final Event bell;

        // The reference tables.
        final TreeSet<Integer> pds = new TreeSet<>();
        final TreeMap<Integer, long[]> cqs = new TreeMap<>(); // cqn -> {ring, logSize, dbRecord, count, periodPs}
        final TreeMap<Integer, int[]> keys = new TreeMap<>(); // index -> {key, pd}
        final TreeMap<Integer, RefQp> qps = new TreeMap<>();

        final List<Posted> posted = new ArrayList<>();
        final List<String> hostOrder = new ArrayList<>();
        final List<String> wanted = new ArrayList<>();
        final long[] answerPs;
        int rung;
        int answered;
        long lastInterruptPs = -1;
        int failures;

        Run(long seed) {
            rnd = new SplittableRandom(seed);
            sim = new Simulator(seed);
            maxPds = 2 + rnd.nextInt(4);
            maxCqs = 1 + rnd.nextInt(4);
            maxMrs = 2 + rnd.nextInt(4);
            maxQps = 3 + rnd.nextInt(4);
            latencyPs = rnd.nextInt(4) == 0 ? 0 : rnd.nextLong(30_000_000);
            Profile p = Profile.defaults()
                    .with("nic.maxPds", Integer.toString(maxPds)).with("nic.maxCqs", Integer.toString(maxCqs))
                    .with("nic.maxMrs", Integer.toString(maxMrs)).with("nic.maxQps", Integer.toString(maxQps))
                    .with("pcie.hostReadLatency", (50 + rnd.nextInt(2000)) + "ns")
                    .with("pcie.hostWriteLatency", rnd.nextInt(300) + "ns")
                    .with("pcie.readTags", Integer.toString(1 + rnd.nextInt(4)))
                    .with("pcie.mrrs", (128 << rnd.nextInt(3)) + "B");
            nic = new Adapter(sim, "nic", p, mem, 0x02_00_00_00_00_01L, 0x0A00_0001);
            fw = nic.firmware;
            logSize = rnd.nextInt(4);
            logEq = rnd.nextInt(4);
            ring = mem.allocate((long) ENTRY_SIZE << logSize, 4096);
            eqRing = mem.allocate((long) Eqe.SIZE << logEq, 4096);
            byte[] init = new byte[Eqe.SIZE << logEq];
            Eqe.initRing(init, 0, 1 << logEq);
            mem.write(eqRing, init, 0, init.length);
            nic.createEq(eqRing, logEq);
            mailboxes = new long[1 << logSize];
            for (int i = 0; i < mailboxes.length; i++) {
                mailboxes[i] = mem.allocate(MAX_MAILBOX, 4096);
            }
            msix = nic.pcie().config().msixAddress(0);
            unit = new CommandUnit(nic, fw, nic.eq, new DmaPort(nic.pcie().dma().addChannel("command", 3 + rnd.nextInt(2)), 0),
                    ring, logSize, latencyPs);
            total = 150 + rnd.nextInt(100);
            answerPs = new long[total];
            driver = sim.event("driver", this::burst);
            bell = sim.event("bell", () -> unit.doorbell(posted.size()));
            nic.host().setWriteObserver(this::hostWrite);
            nic.host().setInterruptHandler((vector, data) -> interrupt());
        }

        String name(long addr) {
            if (addr == msix) {
                return "msi";
            }
            if (addr >= ring && addr < ring + ((long) ENTRY_SIZE << logSize)) {
                return "out@" + (addr - ring) / ENTRY_SIZE + "+" + (addr - ring) % ENTRY_SIZE;
            }
            if (addr >= eqRing && addr < eqRing + ((long) Eqe.SIZE << logEq)) {
                return "eqe@" + (addr - eqRing) / Eqe.SIZE;
            }
            return "?" + Long.toHexString(addr);
        }

        void hostWrite(long addr, long len) {
            String n = name(addr);
            hostOrder.add(n + "/" + len);
            if (n.startsWith("out@")) {
                int i = answeredAtHost();
                assertThat(i).as("an answer for a command not posted").isLessThan(posted.size());
                answerPs[i] = sim.now();
            }
        }

        private int outs;

        int answeredAtHost() {
            return outs++;
        }

        int free() {
            return (1 << logSize) - (posted.size() - answered);
        }

        void burst() {
            int n = 1 + rnd.nextInt(Math.max(1, free()));
            while (n-- > 0 && free() > 0 && posted.size() < total) {
                post();
            }
            if (rnd.nextBoolean()) {
                unit.doorbell(posted.size());
            } else if (!bell.scheduled()) {
                bell.scheduleIn(rnd.nextLong(3_000_000));
            }
            if (posted.size() < total && free() > 0 && rnd.nextBoolean()) {
                driver.scheduleIn(rnd.nextLong(5_000_000));
            }
        }

        void interrupt() {
            int i = answered;
            Posted c = posted.get(i);
            lastInterruptPs = sim.now();
            byte[] got = new byte[ENTRY_SIZE];
            mem.read(ring + (long) (i & ((1 << logSize) - 1)) * ENTRY_SIZE, got, 0, ENTRY_SIZE);
            String what = "command " + i + " (opcode 0x" + Integer.toHexString(opcode(c.entry, 0)) + ")";
            assertThat(adapterOwned(got, 0)).as("%s handed back", what).isFalse();
            assertThat(statusName(status(got, 0))).as("%s status", what).isEqualTo(statusName(c.status));
            assertThat(syndrome(got, 0)).isZero();
            if (c.status == STATUS_OK) {
                assertThat(out0(got, 0)).as("%s out0", what).isEqualTo(c.out0);
                assertThat(out1(got, 0)).as("%s out1", what).isEqualTo(c.out1);
            }
            assertThat(Arrays.copyOfRange(got, 0, OUTPUT_START)).as("%s inputs untouched", what)
                    .isEqualTo(Arrays.copyOfRange(c.entry, 0, OUTPUT_START));
            assertThat(token(got, 0)).isEqualTo(token(c.entry, 0));
            assertThat(BigEndian.i64(got, OFF_OUTPUT_MAILBOX)).isZero();
            assertThat(BigEndian.i32(got, OFF_OUTPUT_LENGTH)).isEqualTo(INLINE_OUTPUT);
            byte[] eqe = new byte[Eqe.SIZE];
            mem.read(eqRing + (long) (i & ((1 << logEq) - 1)) * Eqe.SIZE, eqe, 0, Eqe.SIZE);
            assertThat(Eqe.type(eqe, 0)).isEqualTo(Eqe.TYPE_COMMAND);
            assertThat(Eqe.commandIndex(eqe, 0)).as("EQE of %s", what).isEqualTo(i);
            assertThat(Eqe.commandToken(eqe, 0)).isEqualTo(token(c.entry, 0));
            assertThat(Eqe.isSoftwareOwned(eqe, 0, i, logEq)).isTrue();
            assertThat(answerPs[i]).as("%s answered no sooner than the firmware latency after its post", what)
                    .isGreaterThanOrEqualTo(c.postedPs + latencyPs);
            answered++;
            if (posted.size() < total && !driver.scheduled() && rnd.nextInt(3) > 0) {
                driver.scheduleIn(rnd.nextInt(3) == 0 ? 0 : rnd.nextLong(4_000_000));
            } else if (posted.size() < total && !driver.scheduled() && posted.size() == answered) {
                driver.scheduleIn(rnd.nextLong(1_000_000));
            }
        }

        // ------------------------------------------------------------------ the driver and its reference

        void post() {
            int index = posted.size();
            int slot = index & ((1 << logSize) - 1);
            long mbAddr = mailboxes[slot];
            byte[] mb = new byte[MAX_MAILBOX];
            byte[] e = new byte[ENTRY_SIZE];
            int[] outcome = command(e, mb, mbAddr, rnd.nextInt(256));
            mem.write(mbAddr, mb, 0, mb.length);
            mem.write(ring + (long) slot * ENTRY_SIZE, e, 0, ENTRY_SIZE);
            if (outcome[0] != STATUS_OK) {
                failures++;
            }
            posted.add(new Posted(index, e, outcome[0], outcome[1], outcome[2], sim.now()));
            wanted.add("out@" + slot + "+" + OUTPUT_START + "/" + (ENTRY_SIZE - OUTPUT_START));
            wanted.add("eqe@" + (index & ((1 << logEq) - 1)) + "/" + Eqe.SIZE);
            wanted.add("msi/4");
        }

        static int lowest(java.util.Set<Integer> used, int first, int limit) {
            for (int n = first; n < limit; n++) {
                if (!used.contains(n)) {
                    return n;
                }
            }
            return -1;
        }

        /** Some existing number of {@code set} most of the time, else one that names nothing (or is reserved). */
        int pick(java.util.NavigableSet<Integer> set, int limit) {
            if (!set.isEmpty() && rnd.nextInt(5) > 0) {
                Integer[] a = set.toArray(new Integer[0]);
                return a[rnd.nextInt(a.length)];
            }
            return rnd.nextInt(limit + 3);
        }

        /** Fills a command into {@code e} and {@code mb}; returns the reference's {status, out0, out1}. */
        int[] command(byte[] e, byte[] mb, long mbAddr, int token) {
            int kind = rnd.nextInt(100);
            if (kind < 8) {
                return malformed(e, mb, mbAddr, token);
            }
            if (kind < 18) {
                writeEntry(e, 0, OP_ALLOC_PD, 0, 0, 0, 0, 0, 0, token);
                int pd = lowest(pds, 1, maxPds);
                if (pd < 0) {
                    return new int[] {STATUS_NO_RESOURCES, 0, 0};
                }
                pds.add(pd);
                return new int[] {STATUS_OK, pd, 0};
            }
            if (kind < 24) {
                int pd = pick(pds, maxPds);
                writeEntry(e, 0, OP_DEALLOC_PD, 0, pd, 0, 0, 0, 0, token);
                if (!pds.contains(pd)) {
                    return refused(STATUS_BAD_RESOURCE);
                }
                boolean used = qps.values().stream().anyMatch(q -> q.pd == pd) || keys.values().stream().anyMatch(k -> k[1] == pd);
                if (used) {
                    return refused(STATUS_RESOURCE_BUSY);
                }
                pds.remove(pd);
                return refused(STATUS_OK);
            }
            if (kind < 34) {
                int log = rnd.nextInt(8) == 0 ? 23 : rnd.nextInt(6);
                long cqRing = 0x1000_0000L + rnd.nextInt(1 << 16) * 4096L;
                long db = mem.allocate(64, 64);
                BigEndian.putI64(mb, CqContext.OFF_RING_BASE, cqRing);
                mb[CqContext.OFF_LOG_SIZE] = (byte) log;
                BigEndian.putI64(mb, CqContext.OFF_DOORBELL_RECORD, db);
                writeEntry(e, 0, OP_CREATE_CQ, 0, 0, 0, 0, mbAddr, CqContext.SIZE, token);
                int cqn = lowest(cqs.keySet(), 0, maxCqs);
                if (cqn < 0) {
                    return refused(STATUS_NO_RESOURCES);
                }
                if (log > 22) {
                    return refused(STATUS_BAD_PARAM);
                }
                cqs.put(cqn, new long[] {cqRing, log, db, nic.profile().getInt(dev.rdmasim.adapter.config.Parameters.CQ_MODERATION_COUNT),
                        nic.profile().getLong(dev.rdmasim.adapter.config.Parameters.CQ_MODERATION_PERIOD)});
                return new int[] {STATUS_OK, cqn, 0};
            }
            if (kind < 39) {
                int cqn = pick(cqs.navigableKeySet(), maxCqs);
                writeEntry(e, 0, OP_DESTROY_CQ, 0, cqn, 0, 0, 0, 0, token);
                if (!cqs.containsKey(cqn)) {
                    return refused(STATUS_BAD_RESOURCE);
                }
                if (qps.values().stream().anyMatch(q -> q.sendCqn == cqn || q.recvCqn == cqn)) {
                    return refused(STATUS_RESOURCE_BUSY);
                }
                cqs.remove(cqn);
                return refused(STATUS_OK);
            }
            if (kind < 45) {
                int cqn = pick(cqs.navigableKeySet(), maxCqs);
                int bad = rnd.nextInt(6);
                int count = bad == 0 ? 0 : bad == 1 ? 65_536 + rnd.nextInt(10) : 1 + rnd.nextInt(65_535);
                long periodNs = bad == 2 ? 65_535_001L + rnd.nextInt(1000) : rnd.nextLong(65_535_001L);
                writeEntry(e, 0, OP_MODIFY_CQ, CQ_MODERATION, cqn, count, (int) periodNs, 0, 0, token);
                if (bad <= 2) {
                    return refused(STATUS_BAD_PARAM);
                }
                if (!cqs.containsKey(cqn)) {
                    return refused(STATUS_BAD_RESOURCE);
                }
                cqs.get(cqn)[3] = count;
                cqs.get(cqn)[4] = periodNs * 1000;
                return refused(STATUS_OK);
            }
            if (kind < 50) {
                int cqn = pick(cqs.navigableKeySet(), maxCqs);
                int log = rnd.nextInt(6) == 0 ? 23 + rnd.nextInt(3) : rnd.nextInt(6);
                long cqRing = 0x2000_0000L + rnd.nextInt(1 << 16) * 4096L;
                BigEndian.putI64(mb, CqContext.OFF_RING_BASE, cqRing);
                mb[CqContext.OFF_LOG_SIZE] = (byte) log;
                writeEntry(e, 0, OP_MODIFY_CQ, CQ_RESIZE, cqn, 0, 0, mbAddr, CqContext.SIZE, token);
                if (!cqs.containsKey(cqn)) {
                    return refused(STATUS_BAD_RESOURCE);
                }
                if (log > 22) {
                    return refused(STATUS_BAD_PARAM);
                }
                cqs.get(cqn)[0] = cqRing;
                cqs.get(cqn)[1] = log;
                // No CQE was ever written: the new ring starts at running index 0.
                return new int[] {STATUS_OK, 0, 0};
            }
            if (kind < 60) {
                return createMkey(e, mb, mbAddr, token);
            }
            if (kind < 65) {
                int key;
                int variant = rnd.nextInt(256);
                if (!keys.isEmpty() && rnd.nextInt(4) > 0) {
                    int[] k = keys.values().toArray(new int[0][])[rnd.nextInt(keys.size())];
                    key = rnd.nextInt(4) == 0 ? k[0] ^ (1 + rnd.nextInt(255)) : k[0];
                } else {
                    key = rnd.nextInt(maxMrs + 2) << 8 | variant;
                }
                writeEntry(e, 0, OP_DESTROY_MKEY, 0, key, 0, 0, 0, 0, token);
                int[] k = keys.get(key >>> 8);
                if (k == null || k[0] != key) {
                    return refused(STATUS_BAD_RESOURCE);
                }
                keys.remove(key >>> 8);
                return refused(STATUS_OK);
            }
            if (kind < 77) {
                return createQp(e, mb, mbAddr, token);
            }
            if (kind < 83) {
                int qpn = pick(qps.navigableKeySet(), maxQps);
                writeEntry(e, 0, OP_DESTROY_QP, 0, qpn, 0, 0, 0, 0, token);
                if (!qps.containsKey(qpn)) {
                    return refused(STATUS_BAD_RESOURCE);
                }
                qps.remove(qpn);
                return refused(STATUS_OK);
            }
            return modifyQp(e, mb, mbAddr, token);
        }

        static int[] refused(int s) {
            return new int[] {s, 0, 0};
        }

        int[] malformed(byte[] e, byte[] mb, long mbAddr, int token) {
            switch (rnd.nextInt(4)) {
                case 0 -> {
                    int[] unknown = {0x123, 0x402, 0x506, 0x999, 0x000, 0xFFFF};
                    int op = unknown[rnd.nextInt(unknown.length)];
                    writeEntry(e, 0, op, 0, rnd.nextInt(8), 0, 0, mbAddr, rnd.nextInt(3) * 64, token);
                    return refused(STATUS_BAD_OPCODE);
                }
                case 1 -> {
                    writeEntry(e, 0, OP_MODIFY_CQ, 2 + rnd.nextInt(100), 0, 1, 0, mbAddr, rnd.nextBoolean() ? 0 : CqContext.SIZE, token);
                    return refused(STATUS_BAD_OPCODE);
                }
                default -> {
                    int[] ops = {OP_ALLOC_PD, OP_CREATE_CQ, OP_CREATE_MKEY, OP_CREATE_QP, OP_INIT2RTR_QP, OP_DESTROY_QP, OP_2ERR_QP};
                    int op = ops[rnd.nextInt(ops.length)];
                    int right = mailboxBytes(op, 0);
                    int[] wrong = {right + 16, right - 16, right == 0 ? 64 : 0, MAX_MAILBOX + 64, -INLINE_INPUT};
                    int len = wrong[rnd.nextInt(wrong.length)];
                    if (len == right || len < -INLINE_INPUT) {
                        len = right + 8;
                    }
                    // Valid-looking contents: only the length is wrong, and nothing may change.
                    mb[CqContext.OFF_LOG_SIZE] = 2;
                    writeEntry(e, 0, op, 0, pick(qps.navigableKeySet(), maxQps), 0, 0, mbAddr, len, token);
                    return refused(STATUS_BAD_INPUT_LENGTH);
                }
            }
        }

        int[] createMkey(byte[] e, byte[] mb, long mbAddr, int token) {
            int variant = rnd.nextInt(256);
            int pd = pick(pds, maxPds);
            int logPage = rnd.nextInt(8) == 0 ? 11 : 12 + rnd.nextInt(3);
            long start = (1L << 32) + rnd.nextLong(1L << 30);
            long length = rnd.nextInt(10) == 0 ? 0 : 1 + rnd.nextLong(1L << 20);
            long pages = length == 0 ? 0 : ((start + length - 1) >>> logPage) - (start >>> logPage) + 1;
            int fault = rnd.nextInt(8);
            long entries = fault == 0 && pages > 0 ? pages - 1 : pages + rnd.nextInt(3);
            long table = 0x3000_0000L + rnd.nextInt(1 << 16) * 64L + (fault == 1 ? 4 : 0);
            int access = rnd.nextInt(AccessFlags_ALL + 1);
            mb[MkeyContext.OFF_ACCESS] = (byte) access;
            mb[MkeyContext.OFF_LOG_PAGE_SIZE] = (byte) logPage;
            BigEndian.putI32(mb, MkeyContext.OFF_PD, pd);
            BigEndian.putI64(mb, MkeyContext.OFF_START, start);
            BigEndian.putI64(mb, MkeyContext.OFF_LENGTH, length);
            BigEndian.putI64(mb, MkeyContext.OFF_TRANSLATION_TABLE, table);
            BigEndian.putI32(mb, MkeyContext.OFF_TRANSLATION_COUNT, (int) entries);
            writeEntry(e, 0, OP_CREATE_MKEY, 0, variant, 0, 0, mbAddr, MkeyContext.SIZE, token);
            int index = lowest(keys.keySet(), 1, maxMrs);
            if (index >= 0 && !pds.contains(pd)) {
                return refused(STATUS_BAD_RESOURCE);
            }
            if (index >= 0 && (pages == 0 || entries < pages || (table & 7) != 0)) {
                return refused(STATUS_BAD_PARAM);
            }
            if (index < 0) {
                return refused(STATUS_NO_RESOURCES);
            }
            if (logPage < 12) {
                return refused(STATUS_BAD_PARAM);
            }
            int key = index << 8 | variant;
            keys.put(index, new int[] {key, pd});
            return new int[] {STATUS_OK, key, 0};
        }

        int[] createQp(byte[] e, byte[] mb, long mbAddr, int token) {
            int pd = pick(pds, maxPds);
            int scq = pick(cqs.navigableKeySet(), maxCqs);
            int rcq = rnd.nextInt(3) == 0 ? pick(cqs.navigableKeySet(), maxCqs) : scq;
            int fault = rnd.nextInt(10);
            int sqLog = rnd.nextInt(7);
            int rqLog = rnd.nextInt(5);
            int stride = fault == 0 ? 6 : rnd.nextInt(3);
            int recvSge = 1 + rnd.nextInt(1 << Math.min(stride, 2));
            int sendSge = fault == 1 ? 31 : 1 + rnd.nextInt(4);
            int inline = fault == 2 ? 477 : rnd.nextInt(128);
            BigEndian.putI32(mb, QpContext.OFF_PD, pd);
            BigEndian.putI32(mb, QpContext.OFF_SEND_CQN, scq);
            BigEndian.putI32(mb, QpContext.OFF_RECV_CQN, rcq);
            BigEndian.putI64(mb, QpContext.OFF_SQ_BASE, 0x4000_0000L + rnd.nextInt(1 << 16) * 4096L);
            mb[QpContext.OFF_SQ_LOG_BBS] = (byte) sqLog;
            mb[QpContext.OFF_SQ_MAX_SGE] = (byte) sendSge;
            BigEndian.putU16(mb, QpContext.OFF_MAX_INLINE, inline);
            BigEndian.putI64(mb, QpContext.OFF_RQ_BASE, 0x5000_0000L + rnd.nextInt(1 << 16) * 4096L);
            mb[QpContext.OFF_RQ_LOG_SIZE] = (byte) rqLog;
            mb[QpContext.OFF_RQ_LOG_STRIDE] = (byte) stride;
            mb[QpContext.OFF_RQ_MAX_SGE] = (byte) recvSge;
            BigEndian.putI64(mb, QpContext.OFF_DOORBELL_RECORD, mem.allocate(64, 64));
            writeEntry(e, 0, OP_CREATE_QP, 0, 0, 0, 0, mbAddr, QpContext.SIZE, token);
            int qpn = lowest(qps.keySet(), FirmwareTables.FIRST_DATA_QPN, maxQps);
            if (qpn >= 0 && !pds.contains(pd)) {
                return refused(STATUS_BAD_RESOURCE);
            }
            if (stride > 5) {
                return refused(STATUS_BAD_PARAM);
            }
            if (qpn < 0) {
                return refused(STATUS_NO_RESOURCES);
            }
            if (!cqs.containsKey(scq) || !cqs.containsKey(rcq)) {
                return refused(STATUS_BAD_RESOURCE);
            }
            if (fault == 1 || fault == 2) {
                return refused(STATUS_BAD_PARAM);
            }
            qps.put(qpn, new RefQp(pd, scq, rcq, sqLog));
            return new int[] {STATUS_OK, qpn, 0};
        }

        int[] modifyQp(byte[] e, byte[] mb, long mbAddr, int token) {
            int[] ops = {OP_RST2INIT_QP, OP_INIT2INIT_QP, OP_INIT2RTR_QP, OP_RTR2RTS_QP, OP_RTS2RTS_QP, OP_2ERR_QP, OP_2RST_QP};
            int qpn = pick(qps.navigableKeySet(), maxQps);
            int op = ops[rnd.nextInt(ops.length)];
            if (qps.containsKey(qpn) && rnd.nextBoolean()) {
                // Half the time the step the QP's state allows, so QPs walk the whole state machine.
                op = switch (qps.get(qpn).state) {
                    case RESET -> OP_RST2INIT_QP;
                    case INIT -> OP_INIT2RTR_QP;
                    case READY_TO_RECEIVE -> OP_RTR2RTS_QP;
                    case READY_TO_SEND -> rnd.nextBoolean() ? OP_RTS2RTS_QP : OP_2ERR_QP;
                    case ERROR -> OP_2RST_QP;
                };
            }
            int remote = rnd.nextInt(1 << 24);
            int expected = rnd.nextInt(1 << 24);
            int sendPsn = rnd.nextInt(1 << 24);
            int len = mailboxBytes(op, 0);
            if (len > 0) {
                BigEndian.putI32(mb, QpContext.OFF_REMOTE_QPN, remote);
                BigEndian.putI32(mb, QpContext.OFF_EXPECTED_PSN, expected);
                BigEndian.putI32(mb, QpContext.OFF_NEXT_SEND_PSN, sendPsn);
                putPeerMac(mb, 0, 0x02_00_00_00_00_02L);
                putPeerIpv4(mb, 0, 0x0A00_0002);
                mb[QpContext.OFF_RETRY_COUNT] = (byte) QpContext.RETRY_DEFAULT;
                mb[QpContext.OFF_RNR_RETRY] = (byte) QpContext.RETRY_DEFAULT;
                mb[QpContext.OFF_MAX_READS_IN] = (byte) QpContext.RETRY_DEFAULT;
                mb[QpContext.OFF_MAX_READS_OUT] = (byte) QpContext.RETRY_DEFAULT;
            }
            writeEntry(e, 0, op, 0, qpn, 0, 0, len > 0 ? mbAddr : 0, len, token);
            RefQp q = qps.get(qpn);
            if (q == null) {
                return refused(STATUS_BAD_RESOURCE);
            }
            QpState from = switch (op) {
                case OP_RST2INIT_QP -> QpState.RESET;
                case OP_INIT2INIT_QP, OP_INIT2RTR_QP -> QpState.INIT;
                case OP_RTR2RTS_QP -> QpState.READY_TO_RECEIVE;
                case OP_RTS2RTS_QP -> QpState.READY_TO_SEND;
                default -> null;
            };
            QpState to = switch (op) {
                case OP_RST2INIT_QP, OP_INIT2INIT_QP -> QpState.INIT;
                case OP_INIT2RTR_QP -> QpState.READY_TO_RECEIVE;
                case OP_RTR2RTS_QP, OP_RTS2RTS_QP -> QpState.READY_TO_SEND;
                case OP_2ERR_QP -> QpState.ERROR;
                default -> QpState.RESET;
            };
            if (from != null && q.state != from) {
                return refused(STATUS_BAD_RESOURCE_STATE);
            }
            if (op == OP_INIT2RTR_QP) {
                q.remoteQpn = remote;
                q.expectedPsn = expected;
                q.peered = true;
            }
            if (op == OP_RTR2RTS_QP) {
                q.sendPsn = sendPsn;
            }
            q.state = to;
            return refused(STATUS_OK);
        }

        void run() {
            driver.schedule(0);
            sim.run();
        }
    }

    private static final int AccessFlags_ALL = dev.rdmasim.adapter.format.AccessFlags.ALL;

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
    void answersEveryCommandOnceInOrderAsTheReferenceTablesPredict(long seed) {
        Run r = new Run(seed);
        r.run();

        assertThat(r.posted).as("the driver posted its whole workload").hasSize(r.total);
        assertThat(r.answered).as("one interrupt per command").isEqualTo(r.total);
        assertThat(r.hostOrder).as("answer, EQE, MSI-X, one command after another").isEqualTo(r.wanted);
        for (int i = 1; i < r.total; i++) {
            // The next entry is fetched only after the previous interrupt has left, then the firmware works.
            assertThat(r.answerPs[i] - r.answerPs[i - 1]).as("firmware time between answers %d and %d", i - 1, i)
                    .isGreaterThanOrEqualTo(r.latencyPs);
        }
        assertThat(BlockHarness.counter(r.unit, "commands")).isEqualTo(r.total);
        assertThat(BlockHarness.counter(r.unit, "failed")).isEqualTo(r.failures);
        assertThat(BlockHarness.counter(r.unit, "firmwareTime")).isEqualTo(r.total * r.latencyPs);
        assertThat(r.failures).as("the workload has refusals").isPositive().isLessThan(r.total);
        assertTablesMatch(r);
    }

    private static void assertTablesMatch(Run r) {
        FirmwareTables fw = r.fw;
        for (int pd = 0; pd < r.maxPds + 2; pd++) {
            assertThat(fw.pdAllocated(pd)).as("PD %d", pd).isEqualTo(r.pds.contains(pd));
        }
        for (int cqn = 0; cqn < r.maxCqs + 2; cqn++) {
            long[] ref = r.cqs.get(cqn);
            Cq cq = fw.cqOrNull(cqn);
            assertThat(cq != null).as("CQ %d exists", cqn).isEqualTo(ref != null);
            if (ref != null) {
                assertThat(new long[] {cq.ring, cq.logSize, cq.dbRecord, cq.moderationCount, cq.moderationPeriodPs})
                        .as("CQ %d ring, size, doorbell record, moderation", cqn).isEqualTo(ref);
            }
        }
        for (int index = 0; index < r.maxMrs + 2; index++) {
            int[] ref = r.keys.get(index);
            assertThat(fw.keyRegistered(index << 8)).as("key index %d", index).isEqualTo(ref != null);
        }
        for (int qpn = 0; qpn < r.maxQps + 2; qpn++) {
            RefQp ref = r.qps.get(qpn);
            Qp qp = fw.qpOrNull(qpn);
            assertThat(qp != null).as("QP %d exists", qpn).isEqualTo(ref != null);
            if (ref != null) {
                assertThat(qp.state()).as("QP %d state", qpn).isEqualTo(ref.state);
                assertThat(new int[] {qp.cfg.pd(), qp.cfg.sendCqn(), qp.cfg.recvCqn(), qp.cfg.sqLogBbs()})
                        .as("QP %d config", qpn).isEqualTo(new int[] {ref.pd, ref.sendCqn, ref.recvCqn, ref.sqLogBbs});
                if (ref.peered) {
                    assertThat(qp.remoteQpn).as("QP %d peer", qpn).isEqualTo(ref.remoteQpn);
                    assertThat(qp.peerMac).isEqualTo(0x02_00_00_00_00_02L);
                    assertThat(qp.peerIp).isEqualTo(0x0A00_0002);
                }
                if (ref.state == QpState.READY_TO_RECEIVE) {
                    assertThat(qp.resp.transport().expectedPsn()).as("QP %d expected PSN", qpn).isEqualTo(ref.expectedPsn);
                }
                if (ref.state == QpState.READY_TO_SEND) {
                    assertThat(qp.req.nextPsn()).as("QP %d send PSN", qpn).isEqualTo(ref.sendPsn);
                }
            }
        }
        assertThat(fw.freePd()).isEqualTo(Run.lowest(r.pds, 1, r.maxPds));
        assertThat(fw.freeCqn()).isEqualTo(Run.lowest(r.cqs.keySet(), 0, r.maxCqs));
        assertThat(fw.freeKeyIndex()).isEqualTo(Run.lowest(r.keys.keySet(), 1, r.maxMrs));
        assertThat(fw.freeQpn()).isEqualTo(Run.lowest(r.qps.keySet(), FirmwareTables.FIRST_DATA_QPN, r.maxQps));
    }

    /** A producer behind the consumer, or more than a ring ahead of it, cannot come from a correct driver. */
    @Test
    void doorbellOutsideTheRingIsAnInvariantViolation() {
        Run r = new Run(1);
        assertThatThrownBy(() -> r.unit.doorbell(-1)).isInstanceOf(InvariantViolation.class).hasMessageContaining("producer -1");
        int ahead = (1 << r.logSize) + 1;
        assertThatThrownBy(() -> r.unit.doorbell(ahead)).isInstanceOf(InvariantViolation.class)
                .hasMessageContaining("producer " + ahead);
    }

    /** The ring is checked when the unit is built: 2^0..2^12 entries, 64-byte aligned, a latency not negative. */
    @Test
    void refusesARingItCannotUse() {
        Simulator sim = new Simulator(1);
        HostMemory mem = new HostMemory("host");
        Adapter nic = new Adapter(sim, "nic", Profile.defaults(), mem, 2, 3);
        DmaPort port = new DmaPort(nic.pcie().dma().addChannel("command", 4), 0);
        assertThatThrownBy(() -> new CommandUnit(nic, nic.firmware, nic.eq, port, 0x1000, 13, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("2^13");
        assertThatThrownBy(() -> new CommandUnit(new Module(sim, "a") { }, nic.firmware, nic.eq, port, 0x1020, 2, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not 64-byte aligned");
        assertThatThrownBy(() -> new CommandUnit(new Module(sim, "b") { }, nic.firmware, nic.eq, port, 0x1000, 2, -1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(">= 0 ps");
    }

    /**
     * Three entries behind one doorbell: each is fetched only after the previous command's interrupt has left, so
     * with host-read latency R and firmware latency L the answers are at least L + a read round trip apart.
     */
    @Test
    void entriesBehindOneDoorbellRunOneAtATime() {
        Simulator sim = new Simulator(1);
        HostMemory mem = new HostMemory("host");
        long latency = 5_000_000;
        Adapter nic = new Adapter(sim, "nic", Profile.defaults().with("pcie.hostReadLatency", "1us"), mem, 2, 3);
        long eqRing = mem.allocate(Eqe.SIZE * 4, 4096);
        nic.createEq(eqRing, 2);
        long ring = mem.allocate(ENTRY_SIZE * 4, 4096);
        CommandUnit unit = new CommandUnit(nic, nic.firmware, nic.eq, new DmaPort(nic.pcie().dma().addChannel("command", 4), 0),
                ring, 2, latency);
        byte[] e = new byte[ENTRY_SIZE];
        for (int i = 0; i < 3; i++) {
            writeEntry(e, 0, OP_ALLOC_PD, 0, 0, 0, 0, 0, 0, 0x40 + i);
            mem.write(ring + (long) i * ENTRY_SIZE, e, 0, ENTRY_SIZE);
        }
        List<Long> answers = new ArrayList<>();
        List<Long> interrupts = new ArrayList<>();
        nic.host().setWriteObserver((addr, len) -> {
            if (addr >= ring && addr < ring + ENTRY_SIZE * 4) {
                answers.add(sim.now());
            }
        });
        nic.host().setInterruptHandler((v, d) -> interrupts.add(sim.now()));
        sim.event("bell", () -> unit.doorbell(3)).schedule(0);
        sim.run();

        assertThat(answers).hasSize(3);
        assertThat(interrupts).hasSize(3);
        for (int i = 0; i < 3; i++) {
            mem.read(ring + (long) i * ENTRY_SIZE, e, 0, ENTRY_SIZE);
            assertThat(status(e, 0)).isEqualTo(STATUS_OK);
            assertThat(out0(e, 0)).as("PDs lowest free, in ring order").isEqualTo(1 + i);
            assertThat(token(e, 0)).isEqualTo(0x40 + i);
        }
        assertThat(answers.get(0)).isGreaterThanOrEqualTo(latency + 1_000_000);
        for (int i = 1; i < 3; i++) {
            assertThat(answers.get(i) - interrupts.get(i - 1)).as("answer %d after interrupt %d", i, i - 1)
                    .isGreaterThanOrEqualTo(latency + 1_000_000);
        }
        assertThat(BlockHarness.counter(unit, "doorbells")).isEqualTo(1);
    }
}
