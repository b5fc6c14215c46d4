package dev.rdmasim.adapter.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.stats.Counter;
import dev.rdmasim.kernel.stats.Stat;
import dev.rdmasim.kernel.stats.StatsGroup;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RoceCodecTest {

    /**
     * A CNP captured from a Mellanox ConnectX-4 Lx (published with scapy's RoCE tests): real hardware
     * computed its IPv4 checksum (0x9161) and its ICRC (bytes 82 fd 00 2a at the end).
     */
    static final byte[] CONNECTX_CNP = HexFormat.of().parseHex(
            "e41d2dab2bc27cfe90643b32080045c2003c718c400040119161"
            + "0a0011010a0012010000" + "12b700280000" + "8100ffff40000118"
            + "00000000" + "00000000000000000000000000000000" + "82fd002a");

    /** The unrolled checksum against a plain RFC 1071 loop with end-around carry after every word. */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void ipv4ChecksumMatchesWordByWordSum(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        byte[] b = new byte[40];
        for (int round = 0; round < 2000; round++) {
            rnd.nextBytes(b);
            if (round % 7 == 0) {
                Arrays.fill(b, (byte) 0xFF); // the largest sums, where the folds matter
            }
            int off = rnd.nextInt(21);
            int sum = 0;
            for (int i = 0; i < 20; i += 2) {
                if (i != 10) {
                    sum += ((b[off + i] & 0xFF) << 8) | (b[off + i + 1] & 0xFF);
                    sum = (sum & 0xFFFF) + (sum >>> 16);
                }
            }
            assertThat(RoceLayout.ipv4Checksum(b, off)).isEqualTo(~sum & 0xFFFF);
        }
    }

    @Test
    void ipv4ChecksumMatchesKnownHeaders() {
        assertThat(RoceLayout.ipv4Checksum(CONNECTX_CNP, RoceLayout.IP_OFFSET)).isEqualTo(0x9161);
        byte[] textbook = HexFormat.of().parseHex("450000730000400040110000c0a80001c0a800c7");
        assertThat(RoceLayout.ipv4Checksum(textbook, 0)).isEqualTo(0xb861);
    }

    @Test
    void icrcMatchesAFrameComputedByHardware() {
        assertThat(CONNECTX_CNP).hasSize(74);
        int ipLen = RoceLayout.u16(CONNECTX_CNP, RoceLayout.IP_OFFSET + 2);
        int computed = new Icrc().compute(CONNECTX_CNP, RoceLayout.IP_OFFSET, ipLen);
        assertThat(computed).isEqualTo(0x2a00fd82);
        assertThat(Icrc.load(CONNECTX_CNP, 70)).isEqualTo(computed);
        // The reader gets past the ICRC and only objects to the CNP opcode (0x81), which RC does not use.
        assertThat(new RoceReader().wrap(CONNECTX_CNP, CONNECTX_CNP.length)).isEqualTo(FrameCheck.UNSUPPORTED_OPCODE);
    }

    @Test
    void icrcAgreesWithABitwiseReferenceOverAnExplicitlyMaskedCopy() {
        SplittableRandom rnd = new SplittableRandom(7);
        RoceWriter w = new RoceWriter();
        byte[] f = new byte[RoceLayout.MAX_FRAME];
        byte[] payload = new byte[RoceLayout.MAX_PAYLOAD];
        rnd.nextBytes(payload);
        for (int i = 0; i < 50; i++) {
            randomize(w, rnd, Opcode.SEND_ONLY);
            int len = w.write(f, payload, 0, rnd.nextInt(300));
            int ipLen = RoceLayout.u16(f, 16);
            int expected = referenceIcrc(f);
            assertThat(Icrc.load(f, 14 + ipLen - 4)).as("frame %d (%d bytes)", i, len).isEqualTo(expected);
        }
    }

    /**
     * Wherever the IPv4 header starts (after an Ethernet header, or 0 to 7 bytes into a buffer), one Icrc, whose
     * scratch buffer grows with the frames, gives the bitwise reference's value for every opcode and size and
     * leaves the frame's bytes as they were.
     */
    @Test
    void icrcAgreesAtEveryOffsetAndSizeAndLeavesTheFrameIntact() {
        SplittableRandom rnd = new SplittableRandom(8);
        RoceWriter w = new RoceWriter();
        Icrc icrc = new Icrc();
        byte[] f = new byte[RoceLayout.MAX_FRAME];
        byte[] payload = new byte[RoceLayout.MAX_PAYLOAD];
        rnd.nextBytes(payload);
        for (int i = 0; i < 200; i++) {
            int op = rnd.nextInt(Opcode.COUNT);
            randomize(w, rnd, op);
            w.write(f, payload, 0, Opcode.hasPayload(op) ? rnd.nextInt(i % 10 == 0 ? 4097 : 200) : 0);
            int ipLen = RoceLayout.u16(f, 16);
            int expected = referenceIcrc(f);
            byte[] before = f.clone();
            assertThat(icrc.compute(f, 14, ipLen)).as("in place, frame %d", i).isEqualTo(expected);
            assertThat(f).as("bytes after the in-place pass").isEqualTo(before);
            int off = rnd.nextInt(8);
            byte[] bare = new byte[off + ipLen];
            System.arraycopy(f, 14, bare, off, ipLen);
            assertThat(icrc.compute(bare, off, ipLen)).as("copying, frame %d at offset %d", i, off).isEqualTo(expected);
            assertThat(Icrc.load(f, 14 + ipLen - 4)).as("as written").isEqualTo(expected);
        }
    }

    /** A packet whose length runs past its buffer, even by only the ICRC's last byte, is refused up front. */
    @Test
    void icrcRefusesAPacketThatDoesNotFitItsBuffer() {
        RoceWriter w = new RoceWriter();
        byte[] f = new byte[RoceLayout.MAX_FRAME];
        randomize(w, new SplittableRandom(3), Opcode.SEND_ONLY);
        w.write(f, new byte[64], 0, 64);
        int ipLen = RoceLayout.u16(f, 16);
        Icrc icrc = new Icrc();
        int expected = icrc.compute(f, 14, ipLen);
        byte[] exact = java.util.Arrays.copyOf(f, 14 + ipLen);
        assertThat(icrc.compute(exact, 14, ipLen)).as("a buffer that ends with the ICRC").isEqualTo(expected);
        byte[] short1 = java.util.Arrays.copyOf(f, 14 + ipLen - 1);
        assertThatThrownBy(() -> icrc.compute(short1, 14, ipLen)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("within a " + (14 + ipLen - 1) + "-byte buffer").hasMessageContaining("at offset 14");
        assertThatThrownBy(() -> icrc.compute(f, -1, ipLen)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> icrc.compute(f, 14, RoceLayout.IP_HEADER + RoceLayout.UDP_HEADER + RoceLayout.BTH + 3))
                .as("no room for the ICRC after the headers").isInstanceOf(IllegalArgumentException.class);
    }

    /** CRC-32 (IEEE 802.3, reflected, init and final XOR all ones), one bit at a time. */
    /** The ICRC by the book: 8 bytes of 0xFF, then IPv4 header to end of payload with the variant fields set to 1s. */
    private static int referenceIcrc(byte[] f) {
        int ipLen = RoceLayout.u16(f, 16);
        byte[] pseudo = new byte[8 + ipLen - 4];
        Arrays.fill(pseudo, 0, 8, (byte) 0xFF);
        System.arraycopy(f, 14, pseudo, 8, ipLen - 4);
        for (int masked : new int[] {1, 8, 10, 11, 26, 27, 32}) {
            pseudo[8 + masked] = (byte) 0xFF;
        }
        return bitwiseCrc32(pseudo);
    }

    static int bitwiseCrc32(byte[] data) {
        int crc = 0xFFFFFFFF;
        for (byte d : data) {
            crc ^= d & 0xFF;
            for (int k = 0; k < 8; k++) {
                crc = (crc & 1) != 0 ? (crc >>> 1) ^ 0xEDB88320 : crc >>> 1;
            }
        }
        return ~crc;
    }

    static void randomize(RoceWriter w, SplittableRandom rnd, int opcode) {
        w.macs(rnd.nextLong() >>> 16, rnd.nextLong() >>> 16)
                .ipv4(rnd.nextInt(), rnd.nextInt())
                .trafficClass(rnd.nextInt(64), rnd.nextInt(4))
                .ttl(rnd.nextInt(256))
                .identification(rnd.nextInt(65536))
                .udpSourcePort(RoceWriter.entropyPort(rnd.nextInt(1 << 24), rnd.nextInt(1 << 24)))
                .bth(opcode, rnd.nextInt(1 << 24), rnd.nextInt(1 << 24))
                .ackRequest(rnd.nextBoolean())
                .solicited(rnd.nextBoolean())
                .migReq(rnd.nextBoolean())
                .pkey(rnd.nextInt(65536))
                .reth(rnd.nextLong(), rnd.nextInt(), rnd.nextInt())
                .aeth(rnd.nextInt(256), rnd.nextInt(1 << 24))
                .immediate(rnd.nextInt());
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 0xC0FFEE})
    void everyOpcodeRoundTripsWithRandomFields(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        RoceWriter w = new RoceWriter();
        RoceReader r = new RoceReader();
        byte[] f = new byte[RoceLayout.MAX_FRAME];
        byte[] payload = new byte[RoceLayout.MAX_PAYLOAD];
        for (int op = 0; op < Opcode.COUNT; op++) {
            for (int rep = 0; rep < 8; rep++) {
                long dst = rnd.nextLong() >>> 16;
                long src = rnd.nextLong() >>> 16;
                int sip = rnd.nextInt(), dip = rnd.nextInt(), dscp = rnd.nextInt(64), ecn = rnd.nextInt(4);
                int ttl = rnd.nextInt(256), id = rnd.nextInt(65536), sport = rnd.nextInt(65536);
                int qp = rnd.nextInt(1 << 24), psn = rnd.nextInt(1 << 24), pkey = rnd.nextInt(65536);
                boolean ack = rnd.nextBoolean(), se = rnd.nextBoolean(), mig = rnd.nextBoolean();
                long va = rnd.nextLong();
                int rkey = rnd.nextInt(), dma = rnd.nextInt(), syn = rnd.nextInt(256), msn = rnd.nextInt(1 << 24);
                int imm = rnd.nextInt();
                int plen = !Opcode.hasPayload(op) ? 0
                        : switch (rep) {
                            case 0 -> 0;
                            case 1 -> RoceLayout.MAX_PAYLOAD;
                            case 2 -> 1 + rnd.nextInt(3);
                            default -> rnd.nextInt(RoceLayout.MAX_PAYLOAD + 1);
                        };
                rnd.nextBytes(payload);
                w.macs(dst, src).ipv4(sip, dip).trafficClass(dscp, ecn).ttl(ttl).identification(id).udpSourcePort(sport)
                        .bth(op, qp, psn).ackRequest(ack).solicited(se).migReq(mig).pkey(pkey)
                        .reth(va, rkey, dma).aeth(syn, msn).immediate(imm);
                Arrays.fill(f, (byte) 0x5A); // stale bytes from an earlier frame must not leak
                int len = w.write(f, payload, 0, plen);

                int pad = -plen & 3;
                int expectedLen = Math.max(RoceLayout.ETH_MIN_FRAME,
                        RoceLayout.EXT_OFFSET + Opcode.extensionBytes(op) + plen + pad + RoceLayout.ICRC);
                assertThat(len).isEqualTo(expectedLen);
                String ctx = Opcode.name(op) + " payload " + plen;
                assertThat(r.wrap(f, len)).as(ctx).isEqualTo(FrameCheck.VALID);
                assertThat(r.dstMac()).isEqualTo(dst);
                assertThat(r.srcMac()).isEqualTo(src);
                assertThat(r.srcIp()).isEqualTo(sip);
                assertThat(r.dstIp()).isEqualTo(dip);
                assertThat(r.dscp()).isEqualTo(dscp);
                assertThat(r.ecn()).isEqualTo(ecn);
                assertThat(r.ttl()).isEqualTo(ttl);
                assertThat(r.identification()).isEqualTo(id);
                assertThat(r.dontFragment()).isTrue();
                assertThat(r.udpSourcePort()).isEqualTo(sport);
                assertThat(r.udpDestinationPort()).isEqualTo(4791);
                assertThat(r.udpChecksum()).isZero();
                assertThat(r.ipTotalLength()).isEqualTo(r.udpLength() + 20);
                assertThat(r.opcode()).isEqualTo(op);
                assertThat(r.destQp()).isEqualTo(qp);
                assertThat(r.psn()).isEqualTo(psn);
                assertThat(r.pkey()).isEqualTo(pkey);
                assertThat(r.ackRequest()).isEqualTo(ack);
                assertThat(r.solicited()).isEqualTo(se);
                assertThat(r.migReq()).isEqualTo(mig);
                assertThat(r.padCount()).isEqualTo(pad);
                assertThat(r.transportVersion()).isZero();
                assertThat(r.hasReth()).isEqualTo(Opcode.hasReth(op));
                assertThat(r.hasAeth()).isEqualTo(Opcode.hasAeth(op));
                assertThat(r.hasImmediate()).isEqualTo(Opcode.hasImmediate(op));
                if (r.hasReth()) {
                    assertThat(r.rethVirtualAddress()).isEqualTo(va);
                    assertThat(r.rethRkey()).isEqualTo(rkey);
                    assertThat(r.rethDmaLength()).isEqualTo(dma);
                } else {
                    assertThatThrownBy(r::rethRkey).isInstanceOf(IllegalStateException.class);
                }
                if (r.hasAeth()) {
                    assertThat(r.aethSyndrome()).isEqualTo(syn);
                    assertThat(r.aethMsn()).isEqualTo(msn);
                }
                if (r.hasImmediate()) {
                    assertThat(r.immediate()).isEqualTo(imm);
                }
                assertThat(r.payloadLength()).as(ctx).isEqualTo(plen);
                assertThat(Arrays.copyOfRange(f, r.payloadOffset(), r.payloadOffset() + plen))
                        .isEqualTo(Arrays.copyOf(payload, plen));
                for (int i = RoceLayout.EXT_OFFSET + Opcode.extensionBytes(op) + plen + pad + 4; i < len; i++) {
                    assertThat(f[i]).as("Ethernet padding byte %d", i).isZero();
                }
            }
        }
    }

    @Test
    void everySingleBitFlipInTheCoveredBytesIsCaught() {
        RoceWriter w = new RoceWriter();
        RoceReader r = new RoceReader();
        byte[] f = new byte[RoceLayout.MAX_FRAME];
        byte[] payload = new byte[61];
        new SplittableRandom(3).nextBytes(payload);
        randomize(w, new SplittableRandom(4), Opcode.RDMA_WRITE_FIRST);
        int[] lengths = {w.write(f, payload, 0, payload.length), 0};
        byte[][] frames = {f.clone(), null};
        w.bth(Opcode.ACKNOWLEDGE, 17, 99).aeth(Aeth.nak(2), 5);
        lengths[1] = w.write(f, 0);
        frames[1] = f.clone();
        for (int k = 0; k < 2; k++) {
            byte[] good = frames[k];
            int len = lengths[k];
            int end = 14 + RoceLayout.u16(good, 16);
            int flips = 0;
            for (int bit = RoceLayout.IP_OFFSET * 8; bit < end * 8; bit++) {
                int at = bit >>> 3;
                byte[] bad = good.clone();
                bad[at] ^= (byte) (1 << (bit & 7));
                FrameCheck v = r.wrap(bad, len);
                boolean maskedOnly = at == 40 || at == 41 || at == RoceLayout.BTH_OFFSET + 4;
                if (maskedOnly) {
                    // UDP checksum and BTH resv8a are outside both the IPv4 checksum and the ICRC.
                    assertThat(v).as("flip of masked byte %d", at).isEqualTo(FrameCheck.VALID);
                } else {
                    assertThat(v).as("flip of bit %d (byte %d)", bit, at).isNotEqualTo(FrameCheck.VALID);
                    flips++;
                }
                if (at >= RoceLayout.BTH_OFFSET && !maskedOnly) {
                    assertThat(v).as("flip at byte %d", at).isEqualTo(FrameCheck.BAD_ICRC);
                }
            }
            assertThat(flips).isGreaterThan((end - 14 - 3) * 8 - 1);
        }
    }

    @Test
    void routerRewritesOfMaskedFieldsKeepTheIcrcValid() {
        RoceWriter w = new RoceWriter();
        byte[] f = new byte[RoceLayout.MAX_FRAME];
        randomize(w, new SplittableRandom(9), Opcode.SEND_ONLY);
        int len = w.write(f, new byte[100], 0, 100);
        f[14 + 8]--; // a router decrements TTL,
        f[14 + 1] |= 3; // marks congestion (ECN CE),
        RoceLayout.put16(f, 24, RoceLayout.ipv4Checksum(f, 14)); // and fixes the IPv4 checksum
        f[RoceLayout.BTH_OFFSET + 4] = (byte) 0x80; // FECN
        assertThat(new RoceReader().wrap(f, len)).isEqualTo(FrameCheck.VALID);
    }

    @Test
    void malformedFramesAreRejectedWithTheirReason() {
        RoceWriter w = new RoceWriter();
        RoceReader r = new RoceReader();
        byte[] good = new byte[RoceLayout.MAX_FRAME];
        randomize(w, new SplittableRandom(5), Opcode.SEND_ONLY);
        int len = w.write(good, new byte[40], 0, 40);
        assertThat(r.wrap(good, len)).isEqualTo(FrameCheck.VALID);
        assertThat(r.wrap(good, 57)).isEqualTo(FrameCheck.TRUNCATED);
        assertThat(r.wrap(good, len - 1)).isEqualTo(FrameCheck.BAD_LENGTH);
        assertThat(r.wrap(good, len + 4)).isEqualTo(FrameCheck.BAD_LENGTH);

        byte[] f = good.clone();
        f[12] = (byte) 0x86;
        f[13] = (byte) 0xDD;
        assertThat(r.wrap(f, len)).isEqualTo(FrameCheck.NOT_IPV4);
        assertThatThrownBy(r::payloadLength).isInstanceOf(IllegalStateException.class);

        f = withIpField(good, 9, 6);
        assertThat(r.wrap(f, len)).isEqualTo(FrameCheck.NOT_UDP);
        f = withIpField(good, 6, 0x20);
        assertThat(r.wrap(f, len)).isEqualTo(FrameCheck.FRAGMENTED);
        f = withIpField(good, 0, 0x46);
        assertThat(r.wrap(f, len)).isEqualTo(FrameCheck.BAD_IP_HEADER);

        f = good.clone();
        RoceLayout.put16(f, 36, 4792);
        assertThat(r.wrap(f, len)).isEqualTo(FrameCheck.NOT_ROCEV2);

        // A header that claims version 1 or an unknown opcode, with a recomputed ICRC, is still refused.
        f = withBth(good, 1, (byte) (good[RoceLayout.BTH_OFFSET + 1] | 1));
        assertThat(r.wrap(f, len)).isEqualTo(FrameCheck.BAD_TRANSPORT_VERSION);
        f = withBth(good, 0, (byte) 0x65);
        assertThat(r.wrap(f, len)).isEqualTo(FrameCheck.UNSUPPORTED_OPCODE);
        // A pad count is legitimate (a 39-byte payload), but a transport length off the 4-byte grid is not.
        f = withBth(good, 1, (byte) (good[RoceLayout.BTH_OFFSET + 1] ^ 0x10));
        assertThat(r.wrap(f, len)).isEqualTo(FrameCheck.VALID);
        assertThat(r.payloadLength()).isEqualTo(39);
        f = good.clone();
        int ipLen = RoceLayout.u16(f, 16) - 1;
        RoceLayout.put16(f, 16, ipLen);
        RoceLayout.put16(f, 38, ipLen - 20);
        RoceLayout.put16(f, 24, RoceLayout.ipv4Checksum(f, 14));
        Icrc.store(f, 14 + ipLen - 4, new Icrc().compute(f, 14, ipLen));
        assertThat(r.wrap(f, len - 1)).isEqualTo(FrameCheck.BAD_PAD);
        // An ACK must not carry payload: relabel the 40-byte SEND ONLY as one.
        f = withBth(good, 0, (byte) Opcode.ACKNOWLEDGE);
        assertThat(r.wrap(f, len)).isEqualTo(FrameCheck.BAD_LENGTH);
    }

    /**
     * A reader given statistics counts every verdict under its own counter (rxValid, rxBadIcrc, ...); the
     * header-presence queries refuse to answer for a frame that failed a check; the IPv4 flags, checksum and the BTH
     * version are read from the frame as it is, including a frame without don't-fragment or one refused for its version.
     */
    @Test
    void readerCountsEachVerdictAndReadsTheFieldsAsTheyAre() {
        Simulator sim = new Simulator(1);
        StatsGroup stats = new StatsGroup("rx", sim);
        RoceReader r = new RoceReader(stats);
        RoceWriter w = new RoceWriter();
        byte[] good = new byte[RoceLayout.MAX_FRAME];
        randomize(w, new SplittableRandom(11), Opcode.RDMA_WRITE_ONLY);
        int len = w.write(good, new byte[64], 0, 64);

        assertThat(r.wrap(good, len)).isEqualTo(FrameCheck.VALID);
        assertThat(r.verdict()).isEqualTo(FrameCheck.VALID);
        assertThat(r.dontFragment()).isTrue();
        assertThat(r.ipChecksum()).isEqualTo(RoceLayout.ipv4Checksum(good, RoceLayout.IP_OFFSET)).isNotZero();
        assertThat(r.icrc()).isEqualTo(new Icrc().compute(good, RoceLayout.IP_OFFSET, r.ipTotalLength()));
        assertThat(r.bytes()).isSameAs(good);
        assertThatThrownBy(r::immediate).hasMessage("RDMA_WRITE_ONLY carries no ImmDt");
        assertThatThrownBy(r::aethSyndrome).hasMessage("RDMA_WRITE_ONLY carries no AETH");
        // The UDP checksum and BTH byte 4 (FECN, BECN) are outside both checks: read as carried, the frame still valid.
        byte[] marked = good.clone();
        RoceLayout.put16(marked, RoceLayout.UDP_OFFSET + 6, 0xBEEF);
        marked[RoceLayout.BTH_OFFSET + 4] = (byte) 0xC0;
        assertThat(r.wrap(marked, len)).isEqualTo(FrameCheck.VALID);
        assertThat(r.udpChecksum()).isEqualTo(0xBEEF);
        assertThat(r.bthResv8a()).isEqualTo(0xC0);
        byte[] badSum = good.clone();
        badSum[RoceLayout.IP_OFFSET + 11] ^= 1;
        assertThat(r.wrap(badSum, len)).isEqualTo(FrameCheck.BAD_IP_CHECKSUM);
        assertThat(r.wrap(good, good.length + 1)).as("a length past the buffer").isEqualTo(FrameCheck.TRUNCATED);
        assertThatThrownBy(r::payloadOffset).isInstanceOf(IllegalStateException.class);
        // Without don't-fragment (with the IPv4 checksum and the ICRC to match) the packet is still whole: valid.
        byte[] mayFragment = withIpField(good, 6, 0x00);
        int ipLen = RoceLayout.u16(mayFragment, 16);
        Icrc.store(mayFragment, 14 + ipLen - 4, new Icrc().compute(mayFragment, 14, ipLen));
        assertThat(r.wrap(mayFragment, len)).isEqualTo(FrameCheck.VALID);
        assertThat(r.dontFragment()).isFalse();
        assertThat(r.ipChecksum()).isEqualTo(RoceLayout.ipv4Checksum(mayFragment, RoceLayout.IP_OFFSET))
                .isNotEqualTo(RoceLayout.u16(good, RoceLayout.IP_OFFSET + 10));
        // A version-1 BTH is refused, and the reader still says which version it carried.
        byte[] v1 = withBth(good, 1, (byte) (good[RoceLayout.BTH_OFFSET + 1] | 1));
        assertThat(r.wrap(v1, len)).isEqualTo(FrameCheck.BAD_TRANSPORT_VERSION);
        assertThat(r.verdict()).isEqualTo(FrameCheck.BAD_TRANSPORT_VERSION);
        assertThat(r.transportVersion()).isEqualTo(1);
        assertThatThrownBy(r::hasReth).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("last verdict BAD_TRANSPORT_VERSION");
        assertThatThrownBy(r::hasAeth).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(r::hasImmediate).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(r::hasDeth).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(r::icrc).isInstanceOf(IllegalStateException.class);
        assertThat(r.wrap(good, len - 1)).isEqualTo(FrameCheck.BAD_LENGTH);
        assertThat(r.wrap(good, 57)).isEqualTo(FrameCheck.TRUNCATED);
        assertThat(r.wrap(good, 57)).isEqualTo(FrameCheck.TRUNCATED);

        Map<String, Long> counts = new TreeMap<>();
        for (Stat s : stats.stats()) {
            counts.put(s.name(), ((Counter) s).value());
        }
        Map<String, Long> expected = new TreeMap<>();
        for (FrameCheck c : FrameCheck.values()) {
            expected.put(c.statName(), 0L);
        }
        expected.put("rxValid", 3L);
        expected.put("rxBadIpChecksum", 1L);
        expected.put("rxBadTransportVersion", 1L);
        expected.put("rxBadLength", 1L);
        expected.put("rxTruncated", 3L);
        assertThat(counts).isEqualTo(expected);
    }

    private static byte[] withIpField(byte[] good, int off, int value) {
        byte[] f = good.clone();
        f[14 + off] = (byte) value;
        RoceLayout.put16(f, 24, RoceLayout.ipv4Checksum(f, 14));
        return f;
    }

    private static byte[] withBth(byte[] good, int off, byte value) {
        byte[] f = good.clone();
        f[RoceLayout.BTH_OFFSET + off] = value;
        int ipLen = RoceLayout.u16(f, 16);
        Icrc.store(f, 14 + ipLen - 4, new Icrc().compute(f, 14, ipLen));
        return f;
    }

    @Test
    void writerRejectsImpossibleFields() {
        RoceWriter w = new RoceWriter();
        assertThatThrownBy(() -> w.bth(0x12, 0, 0)).hasMessageContaining("opcode 0x12");
        assertThatThrownBy(() -> w.bth(0, 1 << 24, 0)).hasMessageContaining("destQp");
        assertThatThrownBy(() -> w.macs(1L << 48, 0)).hasMessageContaining("dstMac");
        assertThatThrownBy(() -> w.trafficClass(64, 0)).hasMessageContaining("dscp");
        w.bth(Opcode.ACKNOWLEDGE, 1, 1);
        assertThatThrownBy(() -> w.write(new byte[RoceLayout.MAX_FRAME], 8)).hasMessageContaining("carries no payload");
        w.bth(Opcode.SEND_ONLY, 1, 1);
        assertThatThrownBy(() -> w.write(new byte[RoceLayout.MAX_FRAME], 4097)).hasMessageContaining("payload length");
        assertThatThrownBy(() -> w.write(new byte[100], 64)).hasMessageContaining("too small");
    }

    @Test
    void opcodeTableFollowsTheIbaHeaderRules() {
        assertThat(Opcode.extensionBytes(Opcode.RDMA_WRITE_ONLY_IMM)).isEqualTo(20);
        assertThat(Opcode.extensionBytes(Opcode.RDMA_READ_REQUEST)).isEqualTo(16);
        assertThat(Opcode.extensionBytes(Opcode.ACKNOWLEDGE)).isEqualTo(4);
        assertThat(Opcode.extensionBytes(Opcode.RDMA_READ_RESPONSE_MIDDLE)).isZero();
        assertThat(Opcode.extensionBytes(Opcode.SEND_LAST_IMM)).isEqualTo(4);
        int firsts = 0, middles = 0, lasts = 0, onlys = 0;
        for (int op = 0; op < Opcode.COUNT; op++) {
            int roles = (Opcode.isFirst(op) ? 1 : 0) + (Opcode.isMiddle(op) ? 1 : 0) + (Opcode.isLast(op) ? 1 : 0)
                    + (Opcode.isOnly(op) ? 1 : 0);
            assertThat(roles).as(Opcode.name(op)).isEqualTo(1);
            firsts += Opcode.isFirst(op) ? 1 : 0;
            middles += Opcode.isMiddle(op) ? 1 : 0;
            lasts += Opcode.isLast(op) ? 1 : 0;
            onlys += Opcode.isOnly(op) ? 1 : 0;
            assertThat(Opcode.hasReth(op) && Opcode.hasAeth(op)).isFalse();
        }
        assertThat(new int[] {firsts, middles, lasts, onlys}).containsExactly(3, 3, 5, 7);
        assertThat(Opcode.isRequest(Opcode.RDMA_READ_REQUEST)).isTrue();
        assertThat(Opcode.isRequest(Opcode.RDMA_READ_RESPONSE_ONLY)).isFalse();
        assertThat(Opcode.name(0x42)).isEqualTo("UNKNOWN_0x42");
        assertThatThrownBy(() -> Opcode.hasReth(0x42)).isInstanceOf(IllegalArgumentException.class);
        assertThat(Aeth.nak(0)).isEqualTo(Aeth.NAK_PSN_SEQUENCE_ERROR);
        assertThat(Aeth.nak(3)).isEqualTo(Aeth.NAK_REMOTE_OPERATIONAL_ERROR);
        assertThat(Aeth.kind(Aeth.rnrNak(14))).isEqualTo(Aeth.KIND_RNR_NAK);
        assertThat(Aeth.value(Aeth.ack(Aeth.CREDITS_INVALID))).isEqualTo(31);
    }

    @Test
    void writingAndReadingAllocateNothing() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        RoceWriter w = new RoceWriter();
        RoceReader r = new RoceReader();
        byte[] f = new byte[RoceLayout.MAX_FRAME];
        byte[] payload = new byte[RoceLayout.MAX_PAYLOAD];
        long sum = 0;
        for (int round = 0; round < 2; round++) {
            long before = mx.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 20_000; i++) {
                w.bth(i % Opcode.COUNT, i, i);
                int len = w.write(f, Opcode.hasPayload(i % Opcode.COUNT) ? i & 1023 : 0);
                sum += r.wrap(f, len).ordinal() + r.psn();
            }
            long allocated = mx.getCurrentThreadAllocatedBytes() - before;
            if (round == 1) {
                assertThat(allocated).as("bytes allocated over 20,000 frames").isLessThan(4_096);
            }
        }
        assertThat(sum).isPositive();
    }
}
