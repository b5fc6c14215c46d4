package dev.rdmasim.adapter.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CqeTest {
    @Test
    void successCqeFieldsSitAtTheirBytes() {
        byte[] cqe = new byte[64];
        java.util.Arrays.fill(cqe, (byte) 0x77);
        Cqe.writeSuccess(cqe, 0, Cqe.RESP_SEND_IMM, 0x123456, 0, 0xbeef, 0x1000, 0xdeadbeef, true, 1);
        assertThat(SendWqeTest.bytes(cqe, 36, 4)).containsExactly(0xde, 0xad, 0xbe, 0xef);
        assertThat(SendWqeTest.bytes(cqe, 44, 4)).containsExactly(0, 0, 0x10, 0);
        assertThat(SendWqeTest.bytes(cqe, 56, 8)).containsExactly(0, 0x12, 0x34, 0x56, 0xbe, 0xef, 0, 0x33);
        for (int i : new int[] {0, 20, 35, 40, 43, 48, 55}) {
            assertThat(cqe[i]).as("byte %d", i).isZero();
        }
        Cqe.writeSuccess(cqe, 0, Cqe.REQ, 5, WqeOpcode.RDMA_READ, 3, 0, 0, false, 0);
        assertThat(cqe[56]).isEqualTo((byte) 0x10);
        assertThat(cqe[63]).isEqualTo((byte) 0x00);
    }

    @Test
    void errorCqeCarriesSyndromesAndTheFailedWqe() {
        byte[] cqe = new byte[64];
        Cqe.writeError(cqe, 0, Cqe.REQ_ERR, 0x42, WqeOpcode.SEND, 0x0102, CqeSyndrome.LOCAL_LENGTH,
            WqeError.INLINE_TOO_LONG, 1);
        assertThat(cqe[54]).isEqualTo((byte) WqeError.INLINE_TOO_LONG);
        assertThat(cqe[55]).isEqualTo((byte) 0x01);
        assertThat(SendWqeTest.bytes(cqe, 56, 8)).containsExactly(0x0a, 0, 0, 0x42, 0x01, 0x02, 0, 0xd1);
        assertThat(Cqe.isError(Cqe.opcode(cqe, 0))).isTrue();
        assertThat(Cqe.syndrome(cqe, 0)).isEqualTo(CqeSyndrome.LOCAL_LENGTH);
        assertThat(Cqe.vendorSyndrome(cqe, 0)).isEqualTo(WqeError.INLINE_TOO_LONG);
        assertThat(Cqe.wqeOpcode(cqe, 0)).isEqualTo(WqeOpcode.SEND);
        assertThat(Cqe.wqeCounter(cqe, 0)).isEqualTo(0x0102);
    }

    @ParameterizedTest
    @ValueSource(longs = {21, 22, 23})
    void randomCqesRoundTrip(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        byte[] cqe = new byte[128];
        int[] okOps = {Cqe.REQ, Cqe.RESP_WR_IMM, Cqe.RESP_SEND, Cqe.RESP_SEND_IMM, Cqe.RESP_SEND_INV};
        for (int n = 0; n < 500; n++) {
            int off = r.nextInt(65);
            int qpn = r.nextInt(1 << 24);
            int wop = r.nextInt(256);
            int ctr = r.nextInt(1 << 16);
            int owner = r.nextInt(2);
            if (r.nextBoolean()) {
                int op = okOps[r.nextInt(okOps.length)];
                int bc = r.nextInt();
                int imm = r.nextInt();
                boolean se = r.nextBoolean();
                Cqe.writeSuccess(cqe, off, op, qpn, wop, ctr, bc, imm, se, owner);
                assertThat(Cqe.opcode(cqe, off)).isEqualTo(op);
                assertThat(Cqe.byteCount(cqe, off)).isEqualTo(bc);
                assertThat(Cqe.immediate(cqe, off)).isEqualTo(imm);
                assertThat(Cqe.solicited(cqe, off)).isEqualTo(se);
            } else {
                int op = r.nextBoolean() ? Cqe.REQ_ERR : Cqe.RESP_ERR;
                int syn = r.nextInt(256);
                int vs = r.nextInt(256);
                Cqe.writeError(cqe, off, op, qpn, wop, ctr, syn, vs, owner);
                assertThat(Cqe.opcode(cqe, off)).isEqualTo(op);
                assertThat(Cqe.syndrome(cqe, off)).isEqualTo(syn);
                assertThat(Cqe.vendorSyndrome(cqe, off)).isEqualTo(vs);
                assertThat(Cqe.solicited(cqe, off)).isFalse();
            }
            assertThat(Cqe.qpn(cqe, off)).isEqualTo(qpn);
            assertThat(Cqe.wqeOpcode(cqe, off)).isEqualTo(wop);
            assertThat(Cqe.wqeCounter(cqe, off)).isEqualTo(ctr);
            assertThat(Cqe.owner(cqe, off)).isEqualTo(owner);
        }
    }

    @Test
    void freshRingIsNeverSoftwareOwned() {
        byte[] ring = new byte[4 * 64];
        Cqe.initRing(ring, 0, 4);
        for (int i = 0; i < 4; i++) {
            assertThat(ring[i * 64 + 63]).isEqualTo((byte) 0xf1);
        }
        for (long ci = 0; ci < 16; ci++) {
            assertThat(Cqe.isSoftwareOwned(ring, Cqe.entryOffset(ci, 2), ci, 2)).as("ci %d", ci).isFalse();
        }
    }

    /**
     * The adapter produces CQEs in bursts, the driver polls between bursts; across more than two wraps
     * of an 8-entry ring the driver sees exactly the CQEs written, in order, and never a stale one.
     */
    @ParameterizedTest
    @ValueSource(longs = {31, 32, 33})
    void ownerBitPollingAcrossWraps(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        int log = 3;
        int size = 1 << log;
        int base = 128;
        byte[] mem = new byte[base + size * 64];
        Cqe.initRing(mem, base, size);
        OwnedRingPoller poller = OwnedRingPoller.forCq(mem, base, log);
        long producer = 0;
        long consumed = 0;
        int total = 5 * size + 3; // more than two full wraps
        while (consumed < total) {
            // The adapter may run ahead of the consumer by at most the ring size.
            int burst = (int) Math.min(r.nextInt(size + 1), Math.min(total - producer, size - (producer - consumed)));
            for (int i = 0; i < burst; i++, producer++) {
                Cqe.writeSuccess(mem, base + Cqe.entryOffset(producer, log), Cqe.REQ, 1, WqeOpcode.SEND,
                    (int) producer & 0xffff, (int) producer, 0, false, Cqe.ownerBit(producer, log));
            }
            int take = r.nextInt(size + 1);
            for (int i = 0; i < take; i++) {
                if (!poller.poll()) {
                    assertThat(poller.consumerIndex()).isEqualTo(producer);
                    break;
                }
                assertThat(Cqe.byteCount(mem, poller.entryOffset())).isEqualTo((int) consumed);
                assertThat(Cqe.wqeCounter(mem, poller.entryOffset())).isEqualTo((int) consumed & 0xffff);
                poller.advance();
                consumed++;
            }
            assertThat(poller.consumerIndex()).isEqualTo(consumed);
        }
        assertThat(poller.poll()).isFalse();
        assertThat(producer).isEqualTo(total);
    }
}
