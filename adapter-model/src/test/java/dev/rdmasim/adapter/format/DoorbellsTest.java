package dev.rdmasim.adapter.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DoorbellsTest {
    @Test
    void qpRecordHoldsReceiveThenSendCounterBigEndian() {
        byte[] rec = new byte[8];
        Doorbells.putRecvCounter(rec, 0, 0x1_0203);
        Doorbells.putSendCounter(rec, 0, 0xa0b0);
        assertThat(SendWqeTest.bytes(rec, 0, 8)).containsExactly(0, 0, 0x02, 0x03, 0, 0, 0xa0, 0xb0);
        assertThat(Doorbells.recvCounter(rec, 0)).isEqualTo(0x0203);
        assertThat(Doorbells.sendCounter(rec, 0)).isEqualTo(0xa0b0);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 0x1000, 0xff_ffff})
    void barOffsetsAreTheRegistersOfPageN(int n) {
        // Page n starts at n * 4 KiB, computed in 64 bits: QP numbers are 24-bit, the BAR spans 2^36 bytes.
        assertThat(Doorbells.sqDoorbellOffset(n)).isEqualTo(n * 4096L + 0x800);
        assertThat(Doorbells.cqArmOffset(n)).isEqualTo(n * 4096L + 0x20);
        assertThat(Doorbells.sqDoorbellOffset(n) / Doorbells.PAGE_SIZE).isEqualTo(n);
        assertThat(Doorbells.cqArmOffset(n) % Doorbells.PAGE_SIZE).isEqualTo(Doorbells.PAGE_CQ_ARM);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 64, 1024, 0xff_ffff})
    void gsiDoorbellsAreInThePageAfterTheQpsPages(int maxQps) {
        // QP1's page follows QPs 0..maxQps-1; its two doorbells sit at in-page offsets 0 and 8.
        assertThat(Doorbells.gsiPage(maxQps)).isEqualTo(maxQps);
        assertThat(Doorbells.gsiSendDoorbellOffset(maxQps)).isEqualTo(maxQps * 4096L);
        assertThat(Doorbells.gsiRecvDoorbellOffset(maxQps)).isEqualTo(maxQps * 4096L + 8);
        // Neither collides with the last QP's registers nor with this page's CQ arm register.
        assertThat(Doorbells.gsiSendDoorbellOffset(maxQps)).isGreaterThan(Doorbells.sqDoorbellOffset(maxQps - 1));
        assertThat(Doorbells.gsiRecvDoorbellOffset(maxQps) % Doorbells.PAGE_SIZE)
            .isNotEqualTo(Doorbells.PAGE_CQ_ARM).isLessThan(Doorbells.PAGE_CQ_ARM);
    }

    @Test
    void cqRecordAndArmWords() {
        byte[] rec = new byte[8];
        Doorbells.putCqConsumerIndex(rec, 0, 0x1234_5678);
        int arm = Doorbells.armWord(3, Doorbells.ARM_CMD_SOLICITED, 0x345678);
        Doorbells.putCqArmWord(rec, 0, arm);
        assertThat(SendWqeTest.bytes(rec, 0, 8)).containsExactly(0, 0x34, 0x56, 0x78, 0x31, 0x34, 0x56, 0x78);
        assertThat(Doorbells.cqConsumerIndex(rec, 0)).isEqualTo(0x345678);
        assertThat(Doorbells.armSequence(Doorbells.cqArmWord(rec, 0))).isEqualTo(3);
        assertThat(Doorbells.armCmd(arm)).isEqualTo(Doorbells.ARM_CMD_SOLICITED);
        assertThat(Doorbells.armConsumerIndex(arm)).isEqualTo(0x345678);
        long mmio = Doorbells.cqArmDoorbell(arm, 0x00ab_cdef);
        assertThat(mmio).isEqualTo(0x31345678_00abcdefL);
        assertThat(Doorbells.cqArmDoorbellWord(mmio)).isEqualTo(arm);
        assertThat(Doorbells.cqArmDoorbellCqn(mmio)).isEqualTo(0xabcdef);
        assertThat(Doorbells.armCmd(Doorbells.armWord(0, Doorbells.ARM_CMD_ANY, 1))).isZero();
    }

    @ParameterizedTest
    @ValueSource(longs = {11, 12, 13})
    void randomDoorbellValuesRoundTrip(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        byte[] ctrl = new byte[16];
        for (int n = 0; n < 500; n++) {
            int idx = r.nextInt(1 << 16);
            int op = r.nextInt(256);
            int qpn = r.nextInt(1 << 24);
            int ds = 1 + r.nextInt(63);
            ControlSegment.write(ctrl, 0, 0, idx, op, qpn, ds, r.nextInt(256), r.nextInt());
            long v = Doorbells.sqDoorbell(ctrl, 0);
            assertThat(Doorbells.sqDoorbellWqeIndex(v)).isEqualTo(idx);
            assertThat(Doorbells.sqDoorbellOpcode(v)).isEqualTo(op);
            assertThat(Doorbells.sqDoorbellQpn(v)).isEqualTo(qpn);
            assertThat(Doorbells.sqDoorbellDs(v)).isEqualTo(ds);
            int sn = r.nextInt(4);
            int cmd = r.nextInt(2);
            int ci = r.nextInt(1 << 24);
            int cqn = r.nextInt(1 << 24);
            long arm = Doorbells.cqArmDoorbell(Doorbells.armWord(sn, cmd, ci), cqn);
            int w = Doorbells.cqArmDoorbellWord(arm);
            assertThat(new int[] {Doorbells.armSequence(w), Doorbells.armCmd(w), Doorbells.armConsumerIndex(w),
                Doorbells.cqArmDoorbellCqn(arm)}).containsExactly(sn, cmd, ci, cqn);
        }
    }

    @Test
    void blueFlameAlternatesHalvesAndCopiesWqeChunksAcrossTheRingWrap() {
        BlueFlame bf = new BlueFlame(256);
        assertThat(bf.currentOffset()).isZero();
        assertThat(bf.currentPageOffset()).isEqualTo(0x800);
        bf.toggle();
        assertThat(bf.currentOffset()).isEqualTo(256);
        assertThat(bf.currentPageOffset()).isEqualTo(0x900);
        bf.toggle();
        assertThat(bf.currentOffset()).isZero();
        assertThat(bf.fits(4)).isTrue();
        assertThat(bf.fits(5)).isFalse();

        byte[] ring = new byte[4 * 64];
        SendWqeBuilder b = new SendWqeBuilder(ring, 0, 2);
        byte[] payload = new byte[150];
        for (int i = 0; i < payload.length; i++) {
            payload[i] = (byte) (i * 7);
        }
        int bbs = b.begin(6, WqeOpcode.RDMA_WRITE, 77, ControlSegment.FLAG_CQ_UPDATE, 0).remoteAddress(64, 3)
            .inlineData(payload, 0, payload.length).finish();
        assertThat(bbs).isEqualTo(3); // BBs 2, 3, 0
        byte[] page = new byte[0x1000];
        for (int k = 0; k < bbs; k++) {
            BlueFlame.copyChunk(ring, 0, 2, 6, k, page, bf.currentPageOffset() + k * BlueFlame.CHUNK);
        }
        assertThat(BlueFlame.chunksOf(page, 0x800)).isEqualTo(3);
        SendWqeParser p = new SendWqeParser(4);
        assertThat(p.parse(page, 0x800)).isZero();
        byte[] out = new byte[150];
        p.copyInline(out, 0);
        assertThat(out).isEqualTo(payload);
        assertThat(p.qpn()).isEqualTo(77);
        assertThatThrownBy(() -> new BlueFlame(100)).hasMessageContaining("bfSize");
    }
}
