package dev.rdmasim.ndk;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rdmasim.adapter.config.Parameters;
import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.wire.RoceLayout;
import dev.rdmasim.ndk.NdkScenarioPeer.Remote;
import dev.rdmasim.ndk.NdkScenarioPeer.Wait;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The NetworkDirect example programs (ndping, ndpingpong, ndrping, ndrpingpong) written against the
 * NDK calls: two hosts connect through a listener and a connector, then run the example's loop. Every
 * payload is a seeded pattern checked byte for byte where it lands, and every completion is checked
 * to be the next one posted on its queue. The ping-pongs print their half-round-trip latency and
 * check it against bounds computed from the profile.
 */
class NdkScenarioTest {
    private static final int MIB = 1 << 20;

    /** ndping: the client sends N messages one way; the server has posted a receive for each. */
    @ParameterizedTest
    @ValueSource(longs = {1, 0x5EED, 20240613})
    void ndping(long seed) {
        final int n = 200;
        final int slot = 4096;
        final int window = 32;
        NdkTestBed bed = new NdkTestBed();
        NdkScenarioPeer client = new NdkScenarioPeer(bed, bed.a, "client", Wait.POLL, (long) window * slot, 4, window);
        NdkScenarioPeer server = new NdkScenarioPeer(bed, bed.b, "server", Wait.POLL, (long) n * slot, n, 4);
        // Receive buffers start as 0xEE so a guard byte after each message shows nothing more was written.
        server.mem.fill(server.buf, (long) n * slot, (byte) 0xEE);
        for (int i = 0; i < n; i++) {
            server.postReceive((long) i * slot, slot);
        }
        bed.connect(client.qp, server.qp);

        SplittableRandom sizes = new SplittableRandom(seed);
        int[] size = new int[n];
        for (int i = 0; i < n; i++) {
            // Mostly small, some up to a full slot, and the edge sizes 1 and slot; never all inline or all not.
            size[i] = i == 0 ? 1 : i == 1 ? slot : sizes.nextInt(8) == 0 ? 1 + sizes.nextInt(slot) : 1 + sizes.nextInt(600);
        }
        // The client keeps at most `window` sends in flight, reusing a send slot once its send has completed.
        for (int i = 0; i < n; i++) {
            if (client.initiatorOutstanding() == window) {
                client.expectInitiator();
            }
            client.fill((long) (i % window) * slot, NdkScenarioPeer.pattern(seed, i, size[i]), size[i]);
            client.send("ping" + i, (long) (i % window) * slot, size[i], 0);
        }
        client.reapInitiator();
        for (int i = 0; i < n; i++) {
            long at = server.expectReceive(NdkScenarioPeer.pattern(seed, i, size[i]), size[i]);
            assertThat(at).isEqualTo((long) i * slot);
            if (size[i] < slot) {
                assertThat(server.mem.getByte(server.buf + at + size[i])).as("guard after message %d", i)
                        .isEqualTo((byte) 0xEE);
            }
        }
        assertThat(server.qp.receiveOutstanding()).isZero();
        assertThat(bed.drain(server.recv.cq)).isEmpty();
        client.assertQuiet();
        server.assertQuiet();
    }

    /** One row of a latency table: a size, how many round trips were timed, and their half-round-trip time. */
    record Latency(long bytes, int iterations, long halfRoundTripPs, long lowerBoundPs) {
        String row() {
            double us = halfRoundTripPs / 1e6;
            double gbps = bytes * 8.0 / (halfRoundTripPs / 1e12) / 1e9;
            return String.format(Locale.ROOT, "%9d B  x%-3d  %10.3f us  %8.2f Gb/s  (bound %.3f us)", bytes,
                    iterations, us, gbps, lowerBoundPs / 1e6);
        }
    }

    /**
     * ndpingpong: SEND/RECEIVE ping-pong with pre-posted receives, sizes 1 B to 4 MiB doubling, INLINE
     * up to the QP's inline size; once polling the CQs, once waiting for armed notifications.
     */
    @ParameterizedTest
    @EnumSource(Wait.class)
    void ndpingpong(Wait mode) {
        final int max = 4 * MIB;
        final int slots = 2;
        final long seed = 0xB1B0;
        NdkTestBed bed = new NdkTestBed();
        // Buffer: the send area [0, max), then `slots` receive areas of max bytes each.
        NdkScenarioPeer client = new NdkScenarioPeer(bed, bed.a, "client", mode, (long) (1 + slots) * max, slots, 2);
        NdkScenarioPeer server = new NdkScenarioPeer(bed, bed.b, "server", mode, (long) (1 + slots) * max, slots, 2);
        for (int k = 0; k < slots; k++) {
            client.postReceive((long) (1 + k) * max, max);
            server.postReceive((long) (1 + k) * max, max);
        }
        bed.connect(client.qp, server.qp);

        List<Latency> table = new ArrayList<>();
        for (int size = 1; size <= max; size *= 2) {
            int iterations = iterations(size);
            long start = bed.sim.now();
            for (int i = 0; i < iterations; i++) {
                byte[] ping = NdkScenarioPeer.pattern(seed, 2L * (size + i), size);
                byte[] pong = NdkScenarioPeer.pattern(seed, 2L * (size + i) + 1, size);
                client.fill(0, ping, size);
                client.send("ping" + size + "." + i, 0, size, 0);
                // The server: the ping lands, the receive goes back, the previous pong's completion is taken, pong.
                long at = server.expectReceive(ping, size);
                server.postReceive(at, max);
                server.reapInitiator();
                server.fill(0, pong, size);
                server.send("pong" + size + "." + i, 0, size, 0);
                at = client.expectReceive(pong, size);
                client.postReceive(at, max);
                client.reapInitiator();
            }
            long half = (bed.sim.now() - start) / (2L * iterations);
            table.add(new Latency(size, iterations, half, halfRoundTripLowerBound(bed.profile, size)));
        }
        server.reapInitiator();
        printAndCheck("ndpingpong (" + mode + ") half round trip, " + bed.profile.getLong(Parameters.LINK_RATE)
                / 1_000_000_000L + " Gb/s link, inline <= " + client.inline + " B:", table);
        client.assertQuiet();
        server.assertQuiet();
        if (mode == Wait.ARMED) {
            assertThat(client.recv.arms).isGreaterThanOrEqualTo(table.stream().mapToInt(Latency::iterations).sum());
        }
    }

    /**
     * Prints the table for readers and checks each figure between the lower bound and a sane ceiling: at
     * least half the wire's rate for big messages (twice the bound), plus a fixed 5 us for the host's work,
     * the DMA reads of WQEs and payload, and (armed) the interrupt path.
     */
    private static void printAndCheck(String title, List<Latency> table) {
        System.out.println(title);
        table.forEach(r -> System.out.println("  " + r.row()));
        for (Latency r : table) {
            assertThat(r.halfRoundTripPs()).as("half round trip of %d B above what the wire and PCIe need", r.bytes())
                    .isGreaterThanOrEqualTo(r.lowerBoundPs());
            assertThat(r.halfRoundTripPs()).as("half round trip of %d B", r.bytes())
                    .isLessThanOrEqualTo(2 * r.lowerBoundPs() + 5_000_000L);
        }
    }

    /** Round trips timed per size: many for small messages, fewer as they grow, so the run stays short. */
    private static int iterations(int size) {
        return size <= 4096 ? 16 : Math.max(2, 16 * 4096 / size);
    }

    /**
     * What a one-way message of {@code bytes} needs at least: the doorbell's (or BlueFlame write's) PCIe
     * hop at the sender, every frame serialized on the wire (headers, FCS, preamble, gap; one frame per
     * MTU), the propagation delay, and the PCIe hop of the payload into the receiver's memory.
     */
    static long halfRoundTripLowerBound(Profile p, long bytes) {
        long mtu = p.getLong(Parameters.LINK_MTU);
        long wireBytes = 0;
        long left = bytes;
        do {
            long chunk = Math.min(left, mtu);
            wireBytes += RoceLayout.wireBytes((int) (RoceLayout.EXT_OFFSET + chunk + RoceLayout.ICRC));
            left -= chunk;
        } while (left > 0);
        // bits * 1e12 / rate, in two steps so that 4 MiB of frames does not overflow a long.
        long serializePs = wireBytes * 8 * 1_000_000L / (p.getLong(Parameters.LINK_RATE) / 1_000_000L);
        return 2 * p.getLong(Parameters.PCIE_LINK_LATENCY) + p.getLong(Parameters.LINK_PROPAGATION_DELAY) + serializePs;
    }

    /**
     * ndrping: the server advertises {address, token} of its buffer in a SEND; the client RDMA-writes
     * into one half and RDMA-reads the other, for sizes 1 B to 256 KiB, and ends with a 0-byte send.
     */
    @ParameterizedTest
    @EnumSource(Wait.class)
    void ndrping(Wait mode) {
        final int max = 256 * 1024;
        final long seed = 0xAD5;
        NdkTestBed bed = new NdkTestBed();
        // Server buffer: [0, 2max) written by the client (size s at offset s), [2max, 4max) read by it.
        NdkScenarioPeer client = new NdkScenarioPeer(bed, bed.a, "client", mode, 4L * max, 2, 64);
        NdkScenarioPeer server = new NdkScenarioPeer(bed, bed.b, "server", mode, 4L * max + 4096, 2, 2);
        client.postReceive(0, 64);
        server.postReceive(4L * max, 64);
        bed.connect(client.qp, server.qp);

        byte[] readable = NdkScenarioPeer.pattern(seed, -1, 2 * max);
        server.fill(2L * max, readable, 2 * max);
        server.advertise(4L * max, server.buf, 4L * max);
        long advert = client.expectReceive(null, NdkScenarioPeer.ADVERT_BYTES);
        server.reapInitiator();
        Remote peer = client.parseAdvert(advert);
        assertThat(peer.address()).isEqualTo(server.buf);
        assertThat(peer.token()).isEqualTo(server.mr.getRemoteToken());
        assertThat(peer.length()).isEqualTo(4L * max);

        // Client buffer: the bytes to write at [0, 2max) (size s at offset s), read-back at [2max, 4max).
        client.mem.fill(client.buf + 2L * max, 2L * max, (byte) 0xEE);
        for (int s = 1; s <= max; s *= 2) {
            client.fill(s, NdkScenarioPeer.pattern(seed, s, s), s);
            client.write("write" + s, s, s, peer.address() + s, peer.token());
            client.read("read" + s, 2L * max + s, s, peer.address() + 2L * max + s, peer.token());
            client.expectInitiator();
            client.expectInitiator();
            assertThat(client.mem.equalsRange(client.buf + 2L * max + s, readable, s, s))
                    .as("the %d bytes read back", s).isTrue();
        }
        client.send("done", 0, 0, 0);
        client.expectInitiator();
        server.expectReceive(null, 0);
        // The 0-byte send came after every write on the same connection: all of them are in place.
        for (int s = 1; s <= max; s *= 2) {
            assertThat(server.mem.equalsRange(server.buf + s, NdkScenarioPeer.pattern(seed, s, s), 0, s))
                    .as("the %d bytes written", s).isTrue();
        }
        assertThat(server.mem.getByte(server.buf)).as("byte 0 was never a target").isZero();
        // Reads never disturb the region they read.
        assertThat(server.mem.equalsRange(server.buf + 2L * max, readable, 0, 2 * max)).isTrue();
        client.assertQuiet();
        server.assertQuiet();
    }

    /** How the side an RDMA WRITE went to learns that it has arrived. */
    enum Arrival {
        /** It polls the last byte of its buffer in host memory, as ndrpingpong does (the adapter places in order). */
        LAST_BYTE,
        /** The writer follows the WRITE with a 0-byte SEND; the target waits for that receive. */
        SEND_AFTER_WRITE
    }

    /**
     * ndrpingpong: both sides advertise a buffer; each RDMA-writes into the other's, which notices the
     * arrival, checks every byte and writes back. Several sizes, several iterations each.
     */
    @ParameterizedTest
    @EnumSource(Arrival.class)
    void ndrpingpong(Arrival arrival) {
        final int max = MIB;
        final long seed = 0x5EA;
        final int[] sizes = {1, 2, 63, 64, 476, 1000, 4096, 65536, MIB};
        NdkTestBed bed = new NdkTestBed();
        // Buffer: [0, max) the peer writes into (advertised), [max, 2max) what this side writes from,
        // [2max, 2max + 64) advertisement and 0-byte receives.
        NdkScenarioPeer client = new NdkScenarioPeer(bed, bed.a, "client", Wait.POLL, 2L * max + 64, 4, 4);
        NdkScenarioPeer server = new NdkScenarioPeer(bed, bed.b, "server", Wait.POLL, 2L * max + 64, 4, 4);
        NdkScenarioPeer[] sides = {client, server};
        for (NdkScenarioPeer p : sides) {
            p.postReceive(2L * max, 64);
        }
        bed.connect(client.qp, server.qp);
        client.advertise(2L * max + 32, client.buf, max);
        server.advertise(2L * max + 32, server.buf, max);
        Remote[] peerOf = new Remote[2];
        for (int k = 0; k < 2; k++) {
            peerOf[k] = sides[k].parseAdvert(sides[k].expectReceive(null, NdkScenarioPeer.ADVERT_BYTES));
            sides[k].reapInitiator();
            if (arrival == Arrival.SEND_AFTER_WRITE) {
                sides[k].postReceive(2L * max, 0);
                sides[k].postReceive(2L * max, 0);
            }
        }
        assertThat(peerOf[0].address()).isEqualTo(server.buf);
        assertThat(peerOf[1].address()).isEqualTo(client.buf);

        List<Latency> table = new ArrayList<>();
        for (int size : sizes) {
            int iterations = Math.max(2, Math.min(16, 16 * 4096 / size));
            long start = bed.sim.now();
            for (int i = 0; i < iterations; i++) {
                for (int k = 0; k < 2; k++) {
                    NdkScenarioPeer from = sides[k];
                    NdkScenarioPeer to = sides[1 - k];
                    byte[] data = NdkScenarioPeer.pattern(seed, 4L * (size + i) + k, size);
                    // The last byte is the arrival flag: never 0, the value the target clears it to.
                    byte flag = (byte) (1 + (size + 2 * i + k) % 255);
                    data[size - 1] = flag;
                    // Take the completions of this side's previous write before reusing its source buffer.
                    from.reapInitiator();
                    from.fill(max, data, size);
                    from.write(from.name + "-write" + size + "." + i, max, size, peerOf[k].address(), peerOf[k].token());
                    if (arrival == Arrival.SEND_AFTER_WRITE) {
                        from.send(from.name + "-arrived" + size + "." + i, 0, 0, 0);
                        long at = to.expectReceive(null, 0);
                        to.postReceive(at, 0);
                    } else {
                        long last = to.buf + size - 1;
                        bed.runUntil(() -> to.mem.getByte(last) == flag);
                        assertThat(to.mem.getByte(last)).as("%s sees the flag of write %d.%d", to.name, size, i)
                                .isEqualTo(flag);
                        to.mem.putByte(last, (byte) 0);
                        data[size - 1] = 0;
                    }
                    assertThat(to.mem.equalsRange(to.buf, data, 0, size))
                            .as("%s holds the %d bytes of write %d", to.name, size, i).isTrue();
                }
            }
            long half = (bed.sim.now() - start) / (2L * iterations);
            table.add(new Latency(size, iterations, half, halfRoundTripLowerBound(bed.profile, size)));
        }
        for (NdkScenarioPeer p : sides) {
            p.reapInitiator();
        }
        printAndCheck("ndrpingpong (" + arrival + ") half round trip:", table);
        client.assertQuiet();
        server.assertQuiet();
    }
}
