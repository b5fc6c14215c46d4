package dev.rdmasim.adapter.pcie;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.kernel.Event;
import dev.rdmasim.kernel.Simulator;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PcieOrderingTest {
    private static final long REGION = 0x4000_0000L;
    private static final int REGION_SIZE = 64 * 1024;

    static PcieConfig randomConfig(SplittableRandom rnd) {
        int[] mps = {128, 256, 512};
        return PcieConfig.defaults().withMps(mps[rnd.nextInt(3)]).withMrrs(128 << rnd.nextInt(4))
                .withRcb(rnd.nextBoolean() ? 64 : 128, rnd.nextBoolean()).withReadTags(1 + rnd.nextInt(32))
                .withQueues(1 + rnd.nextInt(4), 16);
    }

    /** One reusable request with its buffer and what its read must return. */
    private static final class Op implements DmaCallback {
        final DmaRequest req = new DmaRequest();
        final byte[] buf = new byte[4096];
        byte[] expected;
        boolean busy;
        int done;
        java.util.function.Consumer<DmaRequest> onDone = r -> { };

        @Override
        public void readDone(DmaRequest r) {
            if (!Arrays.equals(buf, 0, r.length(), expected, 0, expected.length)) {
                throw new AssertionError("read " + r + " returned stale or wrong bytes");
            }
            busy = false;
            done++;
            onDone.accept(r);
        }

        @Override
        public void writeSent(DmaRequest r) {
            busy = false;
            done++;
            onDone.accept(r);
        }
    }

    /** Random generator of reads and writes on one channel, with a shadow of what memory must hold. */
    private static final class Mix {
        final SplittableRandom rnd;
        final DmaChannel ch;
        final Event next;
        final byte[] shadow = new byte[REGION_SIZE];
        final List<Op> ops = new ArrayList<>();
        final int total;
        int submitted;
        int readBacks;
        int refusals;
        int lastWriteOff;
        int lastWriteLen = 1;
        Op blocked;

        Mix(Simulator sim, SplittableRandom rnd, DmaChannel ch, int total) {
            this.rnd = rnd;
            this.ch = ch;
            this.total = total;
            for (int i = 0; i < 12; i++) {
                ops.add(new Op());
            }
            next = sim.event("gen", this::tick);
            ch.setRetry(() -> {
                Op op = blocked;
                blocked = null;
                assertThat(accept(op)).as("a retry finds room").isTrue();
                if (!next.scheduled()) {
                    next.scheduleIn(0);
                }
            });
        }

        void tick() {
            if (blocked != null || submitted >= total) {
                return;
            }
            Op op = ops.stream().filter(o -> !o.busy).findFirst().orElse(null);
            if (op != null) {
                int len = 1 + rnd.nextInt(rnd.nextBoolean() ? 64 : 4096);
                int off = rnd.nextInt(REGION_SIZE - len + 1);
                if (rnd.nextBoolean() && !overlapsOutstandingRead(off, len)) {
                    rnd.nextBytes(op.buf);
                    op.req.write(REGION + off, op.buf, 0, len, op, off, false);
                    lastWriteOff = off;
                    lastWriteLen = len;
                } else {
                    if (rnd.nextInt(3) == 0) {
                        // Read straight back what the latest write covered.
                        off = lastWriteOff;
                        len = lastWriteLen;
                        readBacks++;
                    }
                    op.req.read(REGION + off, op.buf, 0, len, op, off);
                }
                op.busy = true;
                if (!accept(op)) {
                    blocked = op;
                    refusals++;
                    return;
                }
            }
            next.scheduleIn(rnd.nextInt(3) == 0 ? 0 : rnd.nextLong(200_000));
        }

        /** On acceptance the shadow advances (writes) or the expected bytes are frozen (reads). */
        boolean accept(Op op) {
            if (!ch.submit(op.req)) {
                return false;
            }
            DmaRequest r = op.req;
            int off = (int) (r.hostAddress() - REGION);
            if (r.kind() == DmaRequest.Kind.WRITE) {
                System.arraycopy(r.buffer(), 0, shadow, off, r.length());
            } else {
                op.expected = Arrays.copyOfRange(shadow, off, off + r.length());
            }
            submitted++;
            return true;
        }

        // A later write may legally overtake an earlier read (posted requests pass non-posted ones), so the
        // generator keeps writes off ranges that outstanding reads still cover.
        boolean overlapsOutstandingRead(int off, int len) {
            for (Op o : ops) {
                DmaRequest r = o.req;
                if (o.busy && r.kind() == DmaRequest.Kind.READ) {
                    long rOff = r.hostAddress() - REGION;
                    if (rOff < off + len && off < rOff + r.length()) {
                        return true;
                    }
                }
            }
            return false;
        }
    }

    /** Reads and writes of random sizes on one channel: every read sees every write submitted before it. */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 42})
    void readsSeeEveryEarlierWriteAndEveryByteLands(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        Simulator sim = new Simulator(seed);
        HostMemory mem = new HostMemory("host");
        PcieLink link = new PcieLink(sim, "pcie", randomConfig(rnd), mem);
        Mix mix = new Mix(sim, rnd, link.dma().addChannel("mix", 6), 400);
        mix.next.schedule(0);
        sim.run();

        assertThat(mix.submitted).isEqualTo(400);
        assertThat(mix.ops.stream().mapToInt(o -> o.done).sum()).isEqualTo(400);
        assertThat(mix.ops).allSatisfy(o -> assertThat(o.busy).isFalse());
        assertThat(mem.equalsRange(REGION, mix.shadow, 0, REGION_SIZE)).isTrue();
        assertThat(mix.readBacks).isPositive();
        assertThat(mix.refusals).as("the small queue refused some submissions").isPositive();
        assertThat(link.dma().tagsInUse()).isZero();
    }

    /** What a run of {@link Mix} shows the host and the device. */
    private record Seen(List<String> samples, List<String> completions, List<String> observed, long endPs,
            String stats, long events) {
    }

    private static Seen mixRun(long seed, boolean eventPerTlp) {
        SplittableRandom rnd = new SplittableRandom(seed);
        Simulator sim = new Simulator(seed);
        HostMemory mem = new HostMemory("host");
        // A commit latency of none, a typical one and a long one, so late writes wait to be applied.
        long[] writeLatency = {0, 180_000, 1_000_000};
        PcieConfig cfg = randomConfig(rnd).withHostWriteLatency(writeLatency[(int) (seed % 3)]);
        PcieLink link = new PcieLink(sim, "pcie", cfg, mem);
        link.setEventPerTlp(eventPerTlp);
        // The region's first 4 KiB is watched (as a driver watches its completion rings): writes there are applied
        // by event, in the same commit queue as the late ones around them.
        List<String> observed = new ArrayList<>();
        link.host().setWriteObserver(new HostWriteObserver() {
            @Override
            public void written(long address, int length) {
                // What it watches, as its answer promises: a write elsewhere does nothing here.
                if (watches(address, length)) {
                    observed.add(sim.now() + " " + address + " " + length + " " + mem.digest(address, length));
                }
            }

            @Override
            public boolean watches(long address, int length) {
                return address < REGION + 4096;
            }
        });
        Mix mix = new Mix(sim, rnd, link.dma().addChannel("mix", 6), 300);
        List<String> completions = new ArrayList<>();
        for (Op op : mix.ops) {
            op.onDone = r -> completions.add(sim.now() + " " + r.kind() + " " + r.cookie());
        }
        // A host core that reads a random 4 KiB of the region at random instants, while the mix runs.
        SplittableRandom cpu = new SplittableRandom(seed * 31);
        List<String> samples = new ArrayList<>();
        Event[] sampler = new Event[1];
        sampler[0] = sim.event("cpu", () -> {
            long off = cpu.nextInt(REGION_SIZE - 4096);
            samples.add(sim.now() + " " + off + " " + mem.digest(REGION + off, 4096));
            if (mix.submitted < mix.total || mix.ops.stream().anyMatch(o -> o.busy)) {
                sampler[0].scheduleIn(1 + cpu.nextLong(150_000));
            }
        });
        sampler[0].schedule(1);
        mix.next.schedule(0);
        sim.run();
        assertThat(mix.ops.stream().mapToInt(o -> o.done).sum()).isEqualTo(300);
        assertThat(mem.equalsRange(REGION, mix.shadow, 0, REGION_SIZE)).as("every byte landed").isTrue();
        return new Seen(samples, completions, observed, sim.now(), sim.stats().toText(), sim.eventsExecuted());
    }

    /**
     * Handing over late the TLPs nothing waits for (writes nobody watches, completions before a read's last) changes
     * nothing a host core or the device can see: the same bytes at every instant the host reads memory, the same
     * callbacks at the same instants, the same end of the run and the same statistics, with fewer events than the
     * reference that delivers every TLP and commits every write in an event of its own.
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 42})
    void tlpsHandedOverLateChangeNothingTheHostOrTheDeviceSees(long seed) {
        Seen reference = mixRun(seed, true);
        Seen late = mixRun(seed, false);
        assertThat(late.samples).as("host reads").hasSizeGreaterThan(100).isEqualTo(reference.samples);
        // Two callbacks of independent blocks at the same picosecond run in the order their events were scheduled,
        // which the hand-over may change: compare each instant's callbacks as a set.
        assertThat(sortedWithinInstants(late.completions)).as("callbacks").hasSize(300)
                .isEqualTo(sortedWithinInstants(reference.completions));
        assertThat(late.observed).as("watched writes").isNotEmpty().isEqualTo(reference.observed);
        assertThat(late.endPs).as("end of the run").isEqualTo(reference.endPs);
        assertThat(late.stats).as("statistics").isEqualTo(reference.stats);
        assertThat(late.events).as("events").isLessThan(reference.events);
    }

    private static List<String> sortedWithinInstants(List<String> lines) {
        List<String> sorted = new ArrayList<>(lines);
        sorted.sort(java.util.Comparator.comparingLong((String l) -> Long.parseLong(l.substring(0, l.indexOf(' '))))
                .thenComparing(l -> l));
        return sorted;
    }

    private static final long DATA = 0x5000_0000L;
    private static final long CQ = 0x6000_0000L;
    private static final int CQE_BYTES = 64;
    private static final int VECTOR = 3;

    /** A receive-path-like client: payload write, then a CQE saying where it is, sometimes an MSI-X after it. */
    private static final class Completer implements DmaCallback {
        final SplittableRandom rnd;
        final DmaChannel dataCh;
        final DmaChannel cqeCh;
        final PcieConfig cfg;
        final Event next;
        final int total;
        final byte[][] payloads;
        final boolean[] msixWanted;
        final DmaRequest[] dataReq;
        final DmaRequest[] cqeReq;
        final DmaRequest[] msixReq;
        final byte[][] cqes;
        final byte[][] msixData;
        final boolean[] cqeSubmitted;
        int issued;
        int inFlight;

        Completer(Simulator sim, SplittableRandom rnd, PcieLink link, int total) {
            this.rnd = rnd;
            this.cfg = link.config();
            this.dataCh = link.dma().addChannel("data", 64);
            this.cqeCh = link.dma().addChannel("cqe", 64);
            this.total = total;
            this.next = sim.event("completer", this::tick);
            payloads = new byte[total][];
            msixWanted = new boolean[total];
            dataReq = new DmaRequest[total];
            cqeReq = new DmaRequest[total];
            msixReq = new DmaRequest[total];
            cqes = new byte[total][CQE_BYTES];
            msixData = new byte[total][4];
            cqeSubmitted = new boolean[total];
        }

        void tick() {
            if (issued == total) {
                return;
            }
            if (inFlight < 16) {
                int i = issued++;
                inFlight++;
                payloads[i] = new byte[1 + rnd.nextInt(rnd.nextBoolean() ? 256 : 8192)];
                rnd.nextBytes(payloads[i]);
                msixWanted[i] = rnd.nextInt(3) == 0;
                // Data of distinct completions never share memory, so a late byte cannot hide behind a reuse.
                long dataAddr = DATA + (long) i * 16384 + rnd.nextInt(64);
                dataReq[i] = new DmaRequest().write(dataAddr, payloads[i], 0, payloads[i].length, this, i, false);
                long le = java.nio.ByteBuffer.wrap(cqes[i]).order(java.nio.ByteOrder.LITTLE_ENDIAN)
                        .putLong(i).putLong(dataAddr).putInt(payloads[i].length).position();
                assertThat(le).isEqualTo(20);
                cqeReq[i] = new DmaRequest().write(CQ + (long) i * CQE_BYTES, cqes[i], 0, CQE_BYTES, this, i, false);
                msixData[i] = new byte[] {(byte) i, (byte) (i >> 8), 0, 0};
                msixReq[i] = new DmaRequest().write(cfg.msixAddress(VECTOR), msixData[i], 0, 4, this, i, false);
                assertThat(dataCh.submit(dataReq[i])).isTrue();
                if (rnd.nextBoolean()) {
                    // Same channel, right behind the data: channel order alone must keep the CQE second.
                    submitCqe(dataCh, i);
                }
            }
            next.scheduleIn(rnd.nextLong(100_000));
        }

        void submitCqe(DmaChannel ch, int i) {
            cqeSubmitted[i] = true;
            assertThat(ch.submit(cqeReq[i])).isTrue();
            if (msixWanted[i]) {
                assertThat(ch.submit(msixReq[i])).isTrue();
            }
        }

        @Override
        public void writeSent(DmaRequest r) {
            int i = (int) r.cookie();
            if (r == dataReq[i] && !cqeSubmitted[i]) {
                // Other channel, only once the data's last TLP has left the device.
                submitCqe(cqeCh, i);
            }
            if (r == cqeReq[i] && !msixWanted[i] || r == msixReq[i]) {
                inFlight--;
            }
        }
    }

    /** Host-side check at the moment each CQE or interrupt lands: everything it announces is already there. */
    @ParameterizedTest
    @ValueSource(longs = {5, 6, 7, 8})
    void aCqeIsNeverVisibleBeforeItsDataNorAnInterruptBeforeItsCqe(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        Simulator sim = new Simulator(seed);
        HostMemory mem = new HostMemory("host");
        PcieLink link = new PcieLink(sim, "pcie", randomConfig(rnd), mem);
        Completer c = new Completer(sim, rnd, link, 200);
        boolean[] cqeSeen = new boolean[200];
        int[] interrupts = {0};
        link.host().setWriteObserver((addr, len) -> {
            if (addr >= CQ && addr < CQ + 200L * CQE_BYTES) {
                int i = (int) mem.getLongLE(addr);
                long dataAddr = mem.getLongLE(addr + 8);
                int dataLen = mem.getIntLE(addr + 16);
                if (len != CQE_BYTES || addr != CQ + (long) i * CQE_BYTES || dataLen != c.payloads[i].length
                        || !mem.equalsRange(dataAddr, c.payloads[i], 0, dataLen)) {
                    throw new AssertionError("CQE " + i + " visible before its data");
                }
                cqeSeen[i] = true;
            }
        });
        link.host().setInterruptHandler((vector, data) -> {
            assertThat(vector).isEqualTo(VECTOR);
            if (!cqeSeen[data]) {
                throw new AssertionError("interrupt for completion " + data + " before its CQE");
            }
            interrupts[0]++;
        });
        c.next.schedule(0);
        sim.run();

        assertThat(cqeSeen).doesNotContain(false);
        int wanted = 0;
        for (boolean w : c.msixWanted) {
            wanted += w ? 1 : 0;
        }
        assertThat(interrupts[0]).isEqualTo(wanted).isPositive();
        assertThat(c.inFlight).isZero();
    }
}
