package dev.rdmasim.adapter.pcie;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.Stat;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * How the DMA engine cuts requests into TLPs: at MPS (writes) or MRRS (reads) and never across a 4 KiB page, each
 * TLP as long as those limits allow, in address order; the bytes land or arrive intact, the MSI-X window turns a
 * write into an interrupt carrying its little-endian data word, and the engine's and links' TLP counters agree with
 * the TLPs seen on the wire.
 */
class DmaSplitTest {

    /** A TLP as its receiver saw it. */
    private record Seen(TlpKind kind, long address, int length) {
    }

    /** Logs every TLP delivered to the wrapped link end. */
    private static final class Recorder {
        final List<Seen> seen = new ArrayList<>();
        final TlpTap tap;

        Recorder(LinkEnd inner) {
            tap = new TlpTap(inner, t -> seen.add(new Seen(t.kind, t.address, t.length)));
        }
    }

    private static long counter(dev.rdmasim.kernel.hw.Module m, String name) {
        for (Stat s : m.stats().stats()) {
            if (s.name().equals(name)) {
                return ((Counter) s).value();
            }
        }
        throw new AssertionError("no counter " + name + " in " + m.fullName());
    }

    /** The cuts of [addr, addr+len) at {@code max} bytes and 4 KiB pages, computed independently of the engine. */
    private static List<long[]> expectedCuts(long addr, int len, int max) {
        List<long[]> cuts = new ArrayList<>();
        long a = addr;
        long end = addr + len;
        while (a < end) {
            long pageEnd = (a / 4096 + 1) * 4096;
            long e = Math.min(end, Math.min(a + max, pageEnd));
            cuts.add(new long[] {a, e - a});
            a = e;
        }
        return cuts;
    }

    private static byte pattern(long addr) {
        return (byte) (addr * 0x9E3779B97F4A7C15L >>> 56);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6})
    void requestsAreCutAtTheLimitAndAtPageBoundaries(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        int[] sizes = {128, 256, 512, 1024, 4096};
        int mps = sizes[rnd.nextInt(sizes.length)];
        int mrrs = sizes[rnd.nextInt(sizes.length)];
        PcieConfig cfg = PcieConfig.defaults().withMps(mps).withMrrs(mrrs);
        Simulator sim = new Simulator(seed);
        HostMemory mem = new HostMemory("host");
        PcieLink link = new PcieLink(sim, "pcie", cfg, mem);
        Recorder atHost = new Recorder(link.host().linkEnd);
        Recorder atDevice = new Recorder(link.dma().linkEnd);
        link.up().connect(link.dma().linkEnd, atHost.tap);
        link.down().connect(link.host().linkEnd, atDevice.tap);
        DmaChannel ch = link.dma().addChannel("c", 1);

        // One request at a time, so the TLPs on the wire are this request's alone and in order.
        int requests = 12;
        List<String> done = new ArrayList<>();
        long base = 0x4_0000_0000L;
        long[] expectedMwr = {0};
        long[] expectedMrd = {0};
        long[] payload = {0};
        for (int i = 0; i < requests; i++) {
            boolean read = rnd.nextBoolean();
            // Start within a few bytes of a page end half the time, so most requests cross one.
            long page = base + 4096L * (2 * i);
            long addr = rnd.nextBoolean() ? page + 4096 - 1 - rnd.nextInt(64) : page + rnd.nextInt(4096);
            int len = 1 + rnd.nextInt(read ? 2 * mrrs + 4096 : 2 * mps + 4096);
            byte[] data = new byte[len];
            for (int k = 0; k < len; k++) {
                data[k] = read ? 0 : (byte) rnd.nextInt();
                if (read) {
                    mem.putByte(addr + k, pattern(addr + k));
                }
            }
            int before = atHost.seen.size();
            int n = i;
            DmaRequest r = new DmaRequest();
            boolean[] finished = {false};
            DmaCallback cb = new DmaCallback() {
                @Override
                public void readDone(DmaRequest q) {
                    for (int k = 0; k < q.length(); k++) {
                        assertThat(q.buffer()[q.offset() + k]).as("read byte %d of request %d", k, n).isEqualTo(pattern(addr + k));
                    }
                    finished[0] = true;
                }

                @Override
                public void writeSent(DmaRequest q) {
                }

                @Override
                public void writeApplied(DmaRequest q) {
                    byte[] back = new byte[q.length()];
                    mem.read(addr, back, 0, back.length);
                    assertThat(back).isEqualTo(data);
                    finished[0] = true;
                }
            };
            if (read) {
                r.read(addr, new byte[len + 3], 3, len, cb, i);
            } else {
                r.write(addr, data, 0, len, cb, i, true);
            }
            sim.event("submit" + i, () -> assertThat(ch.submit(r)).isTrue()).schedule(sim.now());
            sim.run();
            assertThat(finished[0]).as("request %d done", i).isTrue();
            List<long[]> cuts = expectedCuts(addr, len, read ? mrrs : mps);
            List<Seen> got = atHost.seen.subList(before, atHost.seen.size());
            assertThat(got).hasSize(cuts.size());
            for (int k = 0; k < cuts.size(); k++) {
                assertThat(got.get(k)).isEqualTo(new Seen(read ? TlpKind.MRD : TlpKind.MWR, cuts.get(k)[0],
                        (int) cuts.get(k)[1]));
            }
            if (read) {
                expectedMrd[0] += cuts.size();
            } else {
                expectedMwr[0] += cuts.size();
                payload[0] += len;
            }
            done.add("r" + i);
        }
        assertThat(done).hasSize(requests);
        long cplds = atDevice.seen.stream().filter(s -> s.kind() == TlpKind.CPLD).count();
        long readBytes = atDevice.seen.stream().filter(s -> s.kind() == TlpKind.CPLD).mapToLong(Seen::length).sum();
        DmaEngine dma = link.dma();
        assertThat(dma.readTlpsIssued()).isEqualTo(expectedMrd[0]);
        assertThat(dma.writeTlpsIssued()).isEqualTo(expectedMwr[0]);
        assertThat(dma.completionsReceived()).isEqualTo(cplds);
        assertThat(dma.tagsInUse()).isZero();
        assertThat(counter(dma, "mrds")).isEqualTo(expectedMrd[0]);
        assertThat(counter(dma, "mwrs")).isEqualTo(expectedMwr[0]);
        assertThat(counter(dma, "cplds")).isEqualTo(cplds);
        assertThat(counter(dma, "writeBytes")).isEqualTo(payload[0]);
        assertThat(counter(dma, "readBytes")).isEqualTo(readBytes);
        assertThat(counter(dma, "readRequests") + counter(dma, "writeRequests")).isEqualTo(requests);
        // The links' own counts of what they carried.
        int req = cfg.requestOverheadBytes();
        assertThat(counter(link.up(), "tlpsMWr")).isEqualTo(expectedMwr[0]);
        assertThat(counter(link.up(), "tlpsMRd")).isEqualTo(expectedMrd[0]);
        assertThat(counter(link.up(), "bytesMWr")).isEqualTo(expectedMwr[0] * req + payload[0]);
        assertThat(counter(link.up(), "bytesMRd")).isEqualTo(expectedMrd[0] * req);
        assertThat(counter(link.up(), "payloadBytes")).isEqualTo(payload[0]);
        assertThat(counter(link.down(), "tlpsCplD")).isEqualTo(cplds);
        assertThat(counter(link.down(), "bytesCplD")).isEqualTo(cplds * cfg.completionOverheadBytes() + readBytes);
        assertThat(counter(link.down(), "payloadBytes")).isEqualTo(readBytes);
        // The bridge counts served reads as their latency ends; asking for the pending ones brings it up to now.
        assertThat(link.host().pendingReads()).isZero();
        assertThat(counter(link.host(), "writesApplied")).isEqualTo(expectedMwr[0]);
        assertThat(counter(link.host(), "bytesApplied")).isEqualTo(payload[0]);
        assertThat(counter(link.host(), "completions")).isEqualTo(cplds);
        assertThat(counter(link.host(), "readsServed")).isEqualTo(expectedMrd[0]);
        assertThat(counter(link.host(), "interrupts")).isZero();
    }

    @ParameterizedTest(name = "{0} data bytes")
    @ValueSource(ints = {1, 2, 3, 4})
    void msixWriteRaisesItsVectorWithTheLittleEndianDataWord(int len) {
        PcieConfig cfg = PcieConfig.defaults();
        Simulator sim = new Simulator(1);
        HostMemory mem = new HostMemory("host");
        PcieLink link = new PcieLink(sim, "pcie", cfg, mem);
        List<String> irqs = new ArrayList<>();
        List<String> observed = new ArrayList<>();
        link.host().setInterruptHandler((vector, data) -> irqs.add(vector + ":" + Integer.toHexString(data)));
        link.host().setWriteObserver((addr, n) -> observed.add(Long.toHexString(addr) + "+" + n));
        DmaChannel ch = link.dma().addChannel("irq", 4);
        byte[] word = {(byte) 0x81, (byte) 0xA2, (byte) 0xC3, (byte) 0xF4};
        DmaCallback cb = new DmaCallback() {
            @Override
            public void writeSent(DmaRequest q) {
            }
        };
        DmaRequest a = new DmaRequest().write(cfg.msixAddress(7), word, 0, len, cb, 0, false);
        DmaRequest b = new DmaRequest().write(cfg.msixAddress(0), word, 4 - len, len, cb, 1, false);
        sim.event("raise", () -> {
            assertThat(ch.submit(a)).isTrue();
            assertThat(ch.submit(b)).isTrue();
        }).schedule(0);
        sim.run();
        String[] full = {"81", "a281", "c3a281", "f4c3a281"};
        String[] tail = {"f4", "f4c3", "f4c3a2", "f4c3a281"};
        assertThat(irqs).containsExactly("7:" + full[len - 1], "0:" + tail[len - 1]);
        assertThat(observed).containsExactly(Long.toHexString(cfg.msixAddress(7)) + "+" + len,
                Long.toHexString(cfg.msixAddress(0)) + "+" + len);
        assertThat(counter(link.host(), "interrupts")).isEqualTo(2);
        // The bridge counts served reads as their latency ends; asking for the pending ones brings it up to now.
        assertThat(link.host().pendingReads()).isZero();
        assertThat(counter(link.host(), "writesApplied")).as("an interrupt is not a memory write").isZero();
        byte[] back = new byte[4];
        mem.read(cfg.msixAddress(7), back, 0, 4);
        assertThat(back).as("host memory under the window is untouched").containsOnly(0);
    }
}
