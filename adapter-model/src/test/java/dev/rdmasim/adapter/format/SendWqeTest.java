package dev.rdmasim.adapter.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class SendWqeTest {
    private static final int QPN = 0xabcdef;

    @Test
    void controlRemoteAddressAndDataSegmentsSitAtTheirBytes() {
        byte[] ring = new byte[4 * 64];
        SendWqeBuilder b = new SendWqeBuilder(ring, 0, 2);
        int bbs = b.begin(0x1234, WqeOpcode.RDMA_WRITE_IMM, QPN,
                ControlSegment.FLAG_CQ_UPDATE | ControlSegment.FLAG_SOLICITED | ControlSegment.FENCE_READ, 0xcafebabe)
            .remoteAddress(0x1122334455667788L, 0x99aabbcc)
            .data(0x0102030405060708L, 0x1000, 0x0badf00d)
            .finish();
        assertThat(bbs).isEqualTo(1);
        assertThat(b.lastDs()).isEqualTo(3);
        // 0x1234 mod 4 BBs = BB 0
        assertThat(bytes(ring, 0, 16)).containsExactly(
            0x00, 0x12, 0x34, 0x09, 0xab, 0xcd, 0xef, 0x03, 0x00, 0x00, 0x00, 0x8a, 0xca, 0xfe, 0xba, 0xbe);
        assertThat(bytes(ring, 16, 16)).containsExactly(
            0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0, 0, 0, 0);
        assertThat(bytes(ring, 32, 16)).containsExactly(
            0x00, 0x00, 0x10, 0x00, 0x0b, 0xad, 0xf0, 0x0d, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08);
        assertThat(Doorbells.sqDoorbell(ring, b.lastCtrlOffset())).isEqualTo(0x00123409_abcdef03L);
    }

    @Test
    void inlineHeaderIsLengthOrHighBitAndPaddingIsZero() {
        byte[] ring = new byte[2 * 64];
        java.util.Arrays.fill(ring, (byte) 0x5a);
        SendWqeBuilder b = new SendWqeBuilder(ring, 0, 1);
        byte[] payload = {1, 2, 3, 4, 5};
        b.begin(0, WqeOpcode.SEND, 7, 0, 0).inlineData(payload, 0, 5).finish();
        assertThat(b.lastDs()).isEqualTo(2);
        assertThat(bytes(ring, 16, 16)).containsExactly(0x80, 0, 0, 5, 1, 2, 3, 4, 5, 0, 0, 0, 0, 0, 0, 0);
        assertThat(ring[32]).isEqualTo((byte) 0x5a); // nothing written past ds
    }

    /** The worked example of docs/formats.md, byte for byte. */
    @Test
    void documentedInlineWriteExample() {
        byte[] ring = new byte[8 * 64];
        SendWqeBuilder b = new SendWqeBuilder(ring, 0, 3);
        byte[] payload = {1, 2, 3, 4, 5, 6, 7, 8};
        assertThat(b.begin(5, WqeOpcode.RDMA_WRITE, 0x123, ControlSegment.flagsForNdk(false, false, false), 0)
            .remoteAddress(0x00007f0000001000L, 0x1234).inlineData(payload, 0, 8).finish()).isEqualTo(1);
        assertThat(bytes(ring, 5 * 64, 48)).containsExactly(
            0x00, 0x00, 0x05, 0x08, 0x00, 0x01, 0x23, 0x03, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00,
            0x00, 0x00, 0x7f, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x12, 0x34, 0x00, 0x00, 0x00, 0x00,
            0x80, 0x00, 0x00, 0x08, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x00, 0x00, 0x00, 0x00);
        assertThat(Doorbells.sqDoorbell(ring, b.lastCtrlOffset())).isEqualTo(0x0000050800012303L);
        assertThat(ControlSegment.flagsForNdk(true, true, true))
            .isEqualTo(ControlSegment.FENCE_READ | ControlSegment.FLAG_SOLICITED);
    }

    @ParameterizedTest
    @CsvSource({"0,1", "28,1", "29,2", "92,2", "93,3", "156,3", "157,4", "220,4", "221,5"})
    void inlineWriteSizeGivesTheBasicBlockCountOfHardwareMd(int inlineBytes, int expectedBbs) {
        byte[] ring = new byte[16 * 64];
        SendWqeBuilder b = new SendWqeBuilder(ring, 0, 4);
        int bbs = b.begin(0, WqeOpcode.RDMA_WRITE, 1, 0, 0).remoteAddress(0, 0)
            .inlineData(new byte[inlineBytes], 0, inlineBytes).finish();
        assertThat(bbs).isEqualTo(expectedBbs);
        int bytes = 32 + ((4 + inlineBytes + 15) & ~15);
        assertThat(SendWqeBuilder.inlineWqeBytes(WqeOpcode.RDMA_WRITE, inlineBytes)).isEqualTo(bytes);
        assertThat(b.lastDs() * 16).isEqualTo(bytes);
    }

    @Test
    void maxInlinePerBasicBlockCountMatchesTheTable() {
        assertThat(SendWqeBuilder.maxInlineForBbs(WqeOpcode.RDMA_WRITE, 1)).isEqualTo(28);
        assertThat(SendWqeBuilder.maxInlineForBbs(WqeOpcode.RDMA_WRITE, 2)).isEqualTo(92);
        assertThat(SendWqeBuilder.maxInlineForBbs(WqeOpcode.RDMA_WRITE, 3)).isEqualTo(156);
        assertThat(SendWqeBuilder.maxInlineForBbs(WqeOpcode.RDMA_WRITE, 4)).isEqualTo(220);
        assertThat(SendWqeBuilder.maxInlineForBbs(WqeOpcode.SEND, 1)).isEqualTo(44);
    }

    @Test
    void inlineWqeWrapsAroundTheRingEndAndParsesBack() {
        byte[] ring = new byte[4 * 64];
        SendWqeBuilder b = new SendWqeBuilder(ring, 0, 2);
        byte[] payload = new byte[100];
        for (int i = 0; i < payload.length; i++) {
            payload[i] = (byte) (i + 1);
        }
        // index 7 -> BB 3 (the last); 32 + align16(104) = 144 B = 3 BBs: BBs 3, 0, 1
        int bbs = b.begin(7, WqeOpcode.RDMA_WRITE, QPN, 0, 0).remoteAddress(0x1000, 5)
            .inlineData(payload, 0, 40).inlineData(payload, 40, 60).finish();
        assertThat(bbs).isEqualTo(3);
        assertThat(ring[3 * 64 + 3]).isEqualTo((byte) WqeOpcode.RDMA_WRITE);
        // payload bytes 0..27 fill the last BB after ctrl, raddr and header; byte 28 lands at ring offset 0
        assertThat(ring[3 * 64 + 36]).isEqualTo((byte) 1);
        assertThat(ring[0]).isEqualTo((byte) 29);
        SendWqeParser p = new SendWqeParser(4);
        assertThat(p.parse(ring, 0, ring.length, 3 * 64, QPN, 7)).isZero();
        assertThat(p.isInline()).isTrue();
        assertThat(p.inlineLength()).isEqualTo(100);
        assertThat(p.inlineOffset()).isEqualTo(3 * 64 + 36);
        assertThat(p.inlineContiguousLength()).isEqualTo(28);
        byte[] out = new byte[100];
        p.copyInline(out, 0);
        assertThat(out).isEqualTo(payload);
        assertThat(p.remoteAddress()).isEqualTo(0x1000);
        assertThat(p.bbs()).isEqualTo(3);
    }

    @Test
    void pointerWqeWrapsBetweenSegments() {
        byte[] ring = new byte[2 * 64];
        SendWqeBuilder b = new SendWqeBuilder(ring, 0, 1);
        b.begin(1, WqeOpcode.SEND, 3, 0, 0);
        for (int i = 0; i < 5; i++) {
            b.data(0x1000L * (i + 1), 10 + i, 100 + i);
        }
        assertThat(b.finish()).isEqualTo(2);
        assertThat(BigEndian.i32(ring, 0)).isEqualTo(13); // SGE 3 is the first segment of BB 0
        SendWqeParser p = new SendWqeParser(8);
        assertThat(p.parse(ring, 0, ring.length, 64, 3, 1)).isZero();
        assertThat(p.sges().count()).isEqualTo(5);
        for (int i = 0; i < 5; i++) {
            assertThat(p.sges().address(i)).isEqualTo(0x1000L * (i + 1));
            assertThat(p.sges().length(i)).isEqualTo(10 + i);
            assertThat(p.sges().lkey(i)).isEqualTo(100 + i);
        }
        assertThat(p.totalLength()).isEqualTo(10 + 11 + 12 + 13 + 14);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 42, 0xfeedL})
    void randomWqesRoundTripThroughARingWithWrap(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        int logBbs = 4;
        byte[] mem = new byte[64 + (64 << logBbs)];
        int base = 64; // the ring does not start at array offset 0
        SendWqeBuilder b = new SendWqeBuilder(mem, base, logBbs);
        SendWqeParser p = new SendWqeParser(16);
        p.setLimits(16, 256, 63);
        int[] opcodes = {WqeOpcode.SEND, WqeOpcode.SEND_IMM, WqeOpcode.SEND_INVAL, WqeOpcode.RDMA_WRITE,
            WqeOpcode.RDMA_WRITE_IMM, WqeOpcode.RDMA_READ};
        int[] fences = {ControlSegment.FENCE_NONE, ControlSegment.FENCE_INITIATOR_SMALL,
            ControlSegment.FENCE_STRONG_ORDERING, ControlSegment.FENCE_READ};
        int index = r.nextInt(1 << 16);
        for (int n = 0; n < 300; n++) {
            int opcode = opcodes[r.nextInt(opcodes.length)];
            int flags = fences[r.nextInt(4)] | (r.nextBoolean() ? ControlSegment.FLAG_CQ_UPDATE : 0)
                | (r.nextBoolean() ? ControlSegment.FLAG_SOLICITED : 0);
            int qpn = r.nextInt(1 << 24);
            int imm = r.nextInt();
            long raddr = r.nextLong();
            int rkey = r.nextInt();
            boolean inline = opcode != WqeOpcode.RDMA_READ && r.nextInt(3) == 0;
            b.begin(index, opcode, qpn, flags, imm);
            if (WqeOpcode.hasRemoteAddress(opcode)) {
                b.remoteAddress(raddr, rkey);
            }
            byte[] payload = new byte[r.nextInt(257)];
            r.nextBytes(payload);
            int nSge = r.nextInt(17);
            long[] addr = new long[nSge];
            int[] len = new int[nSge];
            int[] key = new int[nSge];
            if (inline) {
                int cut = r.nextInt(payload.length + 1);
                b.inlineData(payload, 0, cut).inlineData(payload, cut, payload.length - cut);
            } else {
                for (int i = 0; i < nSge; i++) {
                    addr[i] = r.nextLong();
                    len[i] = 1 + r.nextInt(1 << 20);
                    key[i] = r.nextInt();
                    b.data(addr[i], len[i], key[i]);
                }
            }
            int bbs = b.finish();
            int start = (index & ((1 << logBbs) - 1)) * 64;
            assertThat(p.parse(mem, base, 64 << logBbs, start, qpn, index)).as("WQE %d", n).isZero();
            assertThat(p.opcode()).isEqualTo(opcode);
            assertThat(p.wqeIndex()).isEqualTo(index & 0xffff);
            assertThat(p.qpn()).isEqualTo(qpn);
            assertThat(p.flags()).isEqualTo(flags);
            assertThat(p.signaled()).isEqualTo((flags & ControlSegment.FLAG_CQ_UPDATE) != 0);
            assertThat(p.solicited()).isEqualTo((flags & ControlSegment.FLAG_SOLICITED) != 0);
            assertThat(p.fenceMode()).isEqualTo(flags & ControlSegment.FENCE_MASK);
            assertThat(p.immediate()).isEqualTo(imm);
            assertThat(p.bbs()).isEqualTo(bbs);
            assertThat(p.hasRemoteAddress()).isEqualTo(WqeOpcode.hasRemoteAddress(opcode));
            if (p.hasRemoteAddress()) {
                assertThat(p.remoteAddress()).isEqualTo(raddr);
                assertThat(p.rkey()).isEqualTo(rkey);
            }
            assertThat(p.isInline()).isEqualTo(inline); // an empty inline segment still occupies 16 B
            if (inline) {
                assertThat(p.totalLength()).isEqualTo(payload.length);
                byte[] out = new byte[payload.length];
                p.copyInline(out, 0);
                assertThat(out).isEqualTo(payload);
            } else {
                assertThat(p.sges().count()).isEqualTo(nSge);
                long total = 0;
                for (int i = 0; i < nSge; i++) {
                    assertThat(p.sges().address(i)).isEqualTo(addr[i]);
                    assertThat(p.sges().length(i)).isEqualTo(len[i]);
                    assertThat(p.sges().lkey(i)).isEqualTo(key[i]);
                    total += len[i];
                }
                assertThat(p.totalLength()).isEqualTo(total);
            }
            index = (index + bbs) & 0xffff;
        }
    }

    @Test
    void umrWqesCarryKeySegmentAndTranslationPointer() {
        byte[] ring = new byte[4 * 64];
        SendWqeBuilder b = new SendWqeBuilder(ring, 0, 2);
        int access = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ;
        assertThat(b.begin(2, WqeOpcode.UMR_OPMOD_FAST_REGISTER, WqeOpcode.UMR, 9, 0, 0x4400)
            .umr(0x7000_0000L, 0x5000, access, 0, 12, 5, 0x9000).finish()).isEqualTo(1);
        assertThat(b.lastDs()).isEqualTo(UmrSegment.DS_FAST_REGISTER);
        SendWqeParser p = new SendWqeParser(4);
        assertThat(p.parse(ring, 0, ring.length, 128, 9, 2)).isZero();
        assertThat(p.immediate()).isEqualTo(0x4400);
        assertThat(p.umrStart()).isEqualTo(0x7000_0000L);
        assertThat(p.umrLength()).isEqualTo(0x5000);
        assertThat(p.umrAccess()).isEqualTo(access);
        assertThat(p.umrLogPageSize()).isEqualTo(12);
        assertThat(p.umrPageCount()).isEqualTo(5);
        assertThat(p.umrListAddress()).isEqualTo(0x9000);
        assertThat(BigEndian.i32(ring, 128 + 48)).isEqualTo(40); // 5 entries of 8 B

        b.begin(3, WqeOpcode.UMR_OPMOD_BIND_MW, WqeOpcode.UMR, 9, 0, 0x5501)
            .umr(0x7000_1000L, 0x100, AccessFlags.REMOTE_WRITE, 0x4400, 0, 0, 0).finish();
        assertThat(b.lastDs()).isEqualTo(UmrSegment.DS_BIND);
        assertThat(p.parse(ring, 0, ring.length, 192, 9, 3)).isZero();
        assertThat(p.opmod()).isEqualTo(WqeOpcode.UMR_OPMOD_BIND_MW);
        assertThat(p.umrParentKey()).isEqualTo(0x4400);
        assertThat(p.umrPageCount()).isZero();
    }

    @Test
    void zeroLengthMessagesAndControlOnlyOpcodesAreValid() {
        byte[] ring = new byte[64];
        SendWqeBuilder b = new SendWqeBuilder(ring, 0, 0);
        SendWqeParser p = new SendWqeParser(2);
        b.begin(0, WqeOpcode.RDMA_WRITE, 1, 0, 0).remoteAddress(8, 9).finish();
        assertThat(p.parse(ring, 0)).isZero();
        assertThat(p.totalLength()).isZero();
        b.begin(1, WqeOpcode.SEND, 1, 0, 0).finish();
        assertThat(p.parse(ring, 0)).isZero();
        assertThat(p.ds()).isEqualTo(1);
        b.begin(2, WqeOpcode.LOCAL_INVAL, 1, ControlSegment.FENCE_INITIATOR_SMALL, 0x77).finish();
        assertThat(p.parse(ring, 0)).isZero();
        assertThat(p.immediate()).isEqualTo(0x77);
        b.begin(3, WqeOpcode.NOP, 1, ControlSegment.FLAG_CQ_UPDATE, 0).finish();
        assertThat(p.parse(ring, 0)).isZero();
    }

    // ---- validation: every bad-WQE case reports its syndrome and keeps the control fields readable

    private final byte[] ring = new byte[2 * 64];
    private final SendWqeBuilder builder = new SendWqeBuilder(ring, 0, 1);
    private final SendWqeParser parser = new SendWqeParser(4);

    private void expect(int syndrome, int detail) {
        parser.setLimits(4, 60, 8);
        assertThat(parser.parse(ring, 0, ring.length, 0, QPN, 0)).isEqualTo(syndrome);
        assertThat(parser.error()).as(WqeError.name(parser.error())).isEqualTo(detail);
        assertThat(parser.wqeIndex()).isZero();
        assertThat(parser.qpn()).isEqualTo(QPN);
    }

    private void sendWithSges(int n) {
        builder.begin(0, WqeOpcode.SEND, QPN, 0, 0);
        for (int i = 0; i < n; i++) {
            builder.data(0x100 * i, 64, 1);
        }
        builder.finish();
    }

    @Test
    void validWqePassesTheSameChecks() {
        sendWithSges(4);
        expect(0, WqeError.OK);
    }

    @Test
    void unknownOpcode() {
        sendWithSges(1);
        ring[ControlSegment.OFF_OPCODE] = 0x33;
        expect(CqeSyndrome.LOCAL_QP_OP, WqeError.UNKNOWN_OPCODE);
    }

    @Test
    void undefinedFenceMode() {
        sendWithSges(1);
        ring[ControlSegment.OFF_FLAGS] = 0x40;
        expect(CqeSyndrome.LOCAL_QP_OP, WqeError.BAD_FENCE);
    }

    @Test
    void wrongQpnOrIndex() {
        sendWithSges(1);
        parser.setLimits(4, 60, 8);
        assertThat(parser.parse(ring, 0, ring.length, 0, QPN + 1, 0)).isEqualTo(CqeSyndrome.LOCAL_QP_OP);
        assertThat(parser.error()).isEqualTo(WqeError.QPN_MISMATCH);
        assertThat(parser.parse(ring, 0, ring.length, 0, QPN, 2)).isEqualTo(CqeSyndrome.LOCAL_QP_OP);
        assertThat(parser.error()).isEqualTo(WqeError.INDEX_MISMATCH);
        assertThat(parser.parse(ring, 0, ring.length, 0, QPN, 0x10000)).isZero(); // 16-bit counter compare
    }

    @Test
    void dsZeroOrBelowTheOpcodeMinimum() {
        sendWithSges(1);
        ControlSegment.putDs(ring, 0, 0);
        expect(CqeSyndrome.LOCAL_QP_OP, WqeError.DS_TOO_SMALL);
        builder.begin(0, WqeOpcode.RDMA_READ, QPN, 0, 0).finish(); // no remote-address segment
        expect(CqeSyndrome.LOCAL_QP_OP, WqeError.DS_TOO_SMALL);
    }

    @Test
    void dsOverTheQpLimit() {
        sendWithSges(1);
        ControlSegment.putDs(ring, 0, 9);
        expect(CqeSyndrome.LOCAL_QP_OP, WqeError.DS_OVER_LIMIT);
    }

    @Test
    void dsReachingPastTheBufferOrRingIsOverLimitNotAnException() {
        byte[] bf = new byte[64];
        new SendWqeBuilder(bf, 0, 0).begin(0, WqeOpcode.SEND, 1, 0, 0).data(0, 1, 1).finish();
        ControlSegment.putDs(bf, 0, 63);
        SendWqeParser p = new SendWqeParser(63);
        assertThat(p.parse(bf, 0)).isEqualTo(CqeSyndrome.LOCAL_QP_OP);
        assertThat(p.error()).isEqualTo(WqeError.DS_OVER_LIMIT);
        assertThat(p.parse(bf, 0, 64, 0, -1, -1)).isEqualTo(CqeSyndrome.LOCAL_QP_OP);
        assertThat(p.error()).isEqualTo(WqeError.DS_OVER_LIMIT);
        ControlSegment.putDs(bf, 0, 4); // exactly the buffer
        DataSegments.writeData(bf, 32, 0, 1, 1);
        DataSegments.writeData(bf, 48, 0, 1, 1);
        assertThat(p.parse(bf, 0)).isZero();
    }

    @Test
    void inlineLengthInconsistentWithDs() {
        builder.begin(0, WqeOpcode.SEND, QPN, 0, 0).inlineData(new byte[20], 0, 20).finish(); // ds 3
        DataSegments.writeInlineHeader(ring, 16, 12); // needs ds 2
        expect(CqeSyndrome.LOCAL_QP_OP, WqeError.DS_MISMATCH);
        ControlSegment.putDs(ring, 0, 4); // the header says 20 again but ds grew
        DataSegments.writeInlineHeader(ring, 16, 20);
        expect(CqeSyndrome.LOCAL_QP_OP, WqeError.DS_MISMATCH);
    }

    @Test
    void inlineOnRead() {
        builder.begin(0, WqeOpcode.RDMA_READ, QPN, 0, 0).remoteAddress(0, 0).inlineData(new byte[8], 0, 8).finish();
        expect(CqeSyndrome.LOCAL_QP_OP, WqeError.INLINE_NOT_ALLOWED);
    }

    @Test
    void inlineMixedWithPointers() {
        sendWithSges(2);
        DataSegments.writeInlineHeader(ring, 32, 4);
        expect(CqeSyndrome.LOCAL_QP_OP, WqeError.MIXED_SEGMENTS);
    }

    @Test
    void tooManySges() {
        sendWithSges(5);
        expect(CqeSyndrome.LOCAL_LENGTH, WqeError.TOO_MANY_SGE);
    }

    @Test
    void inlineOverTheLimit() {
        builder.begin(0, WqeOpcode.SEND, QPN, 0, 0).inlineData(new byte[61], 0, 61).finish();
        expect(CqeSyndrome.LOCAL_LENGTH, WqeError.INLINE_TOO_LONG);
    }

    @Test
    void zeroLengthSge() {
        builder.begin(0, WqeOpcode.SEND, QPN, 0, 0).data(0, 8, 1).data(0, 0, 1).finish();
        expect(CqeSyndrome.LOCAL_LENGTH, WqeError.ZERO_LENGTH_SGE);
    }

    @Test
    void messageOf2GiBOrMore() {
        builder.begin(0, WqeOpcode.SEND, QPN, 0, 0).data(0, 0x4000_0000, 1).data(0, 0x4000_0000, 1).finish();
        expect(CqeSyndrome.LOCAL_LENGTH, WqeError.MESSAGE_TOO_LONG);
    }

    @Test
    void malformedUmrAndLocalInvalidate() {
        builder.begin(0, 7, WqeOpcode.UMR, QPN, 0, 0).umr(0, 0, 0, 0, 12, 0, 0).finish();
        expect(CqeSyndrome.LOCAL_QP_OP, WqeError.UNKNOWN_OPCODE);
        builder.begin(0, WqeOpcode.UMR_OPMOD_FAST_REGISTER, WqeOpcode.UMR, QPN, 0, 0).umr(0, 0, 0, 0, 12, 3, 64).finish();
        BigEndian.putI32(ring, 48, 16); // list size disagrees with 3 pages
        expect(CqeSyndrome.LOCAL_QP_OP, WqeError.DS_MISMATCH);
        builder.begin(0, WqeOpcode.UMR_OPMOD_BIND_MW, WqeOpcode.UMR, QPN, 0, 0).umr(0, 0, 0, 0, 12, 3, 64).finish();
        expect(CqeSyndrome.LOCAL_QP_OP, WqeError.DS_MISMATCH); // a bind has no translation list
        builder.begin(0, WqeOpcode.LOCAL_INVAL, QPN, 0, 0).data(0, 1, 1).finish();
        expect(CqeSyndrome.LOCAL_QP_OP, WqeError.DS_MISMATCH);
    }

    @Test
    void builderRejectsWhatTheFormatCannotHold() {
        assertThatThrownBy(() -> builder.data(0, 1, 1)).isInstanceOf(IllegalStateException.class);
        builder.begin(0, WqeOpcode.SEND, 1, 0, 0).data(0, 1, 1);
        assertThatThrownBy(() -> builder.inlineData(new byte[1], 0, 1)).hasMessageContaining("mix");
        assertThatThrownBy(() -> builder.remoteAddress(0, 0)).hasMessageContaining("directly follow");
        builder.begin(0, WqeOpcode.SEND, 1, 0, 0).inlineData(new byte[1], 0, 1);
        assertThatThrownBy(() -> builder.data(0, 1, 1)).hasMessageContaining("mix");
        builder.begin(0, WqeOpcode.SEND, 1, 0, 0);
        assertThatThrownBy(() -> builder.inlineData(new byte[200], 0, 200)).hasMessageContaining("ring");
        SendWqeBuilder big = new SendWqeBuilder(new byte[64 * 64], 0, 6).begin(0, WqeOpcode.SEND, 1, 0, 0);
        for (int i = 0; i < 62; i++) {
            big.data(0, 1, 1);
        }
        assertThatThrownBy(() -> big.data(0, 1, 1)).hasMessageContaining("63 segments");
        assertThatThrownBy(() -> new SendWqeBuilder(new byte[100], 0, 1)).hasMessageContaining("does not fit");
    }

    static int[] bytes(byte[] b, int off, int len) {
        int[] out = new int[len];
        for (int i = 0; i < len; i++) {
            out[i] = b[off + i] & 0xff;
        }
        return out;
    }
}
