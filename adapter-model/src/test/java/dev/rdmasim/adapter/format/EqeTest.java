package dev.rdmasim.adapter.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class EqeTest {
    @Test
    void eventFieldsSitAtTheirBytes() {
        byte[] e = new byte[64];
        Eqe.writeCompletion(e, 0, 0x0a0b0c, 1);
        assertThat(e[1]).isEqualTo((byte) Eqe.TYPE_COMPLETION);
        assertThat(SendWqeTest.bytes(e, 56, 8)).containsExactly(0, 0x0a, 0x0b, 0x0c, 0, 0, 0, 1);
        Eqe.writeCqError(e, 0, 0x000102, Eqe.CQ_ERROR_OVERRUN, 0);
        assertThat(e[1]).isEqualTo((byte) 0x04);
        assertThat(SendWqeTest.bytes(e, 32, 4)).containsExactly(0, 0, 0x01, 0x02);
        assertThat(e[43]).isEqualTo((byte) 1);
        assertThat(e[63]).isZero();
        assertThat(Eqe.cqErrorCqn(e, 0)).isEqualTo(0x102);
        assertThat(Eqe.cqErrorSyndrome(e, 0)).isEqualTo(Eqe.CQ_ERROR_OVERRUN);
        Eqe.writeQpEvent(e, 0, Eqe.TYPE_WQ_ACCESS_ERROR, 0x654321, 1);
        assertThat(Eqe.type(e, 0)).isEqualTo(0x11);
        assertThat(Eqe.resource(e, 0)).isEqualTo(0x654321);
        assertThat(Eqe.subType(e, 0)).isZero();
    }

    @ParameterizedTest
    @ValueSource(longs = {41, 42})
    void eqPollerFollowsOwnerParityAcrossWraps(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        int log = 2;
        byte[] ring = new byte[4 * 64];
        Eqe.initRing(ring, 0, 4);
        OwnedRingPoller poller = OwnedRingPoller.forEq(ring, 0, log);
        assertThat(poller.poll()).isFalse();
        long producer = 0;
        int[] cqns = new int[40];
        for (int i = 0; i < cqns.length; i++) {
            cqns[i] = r.nextInt(1 << 24);
        }
        while (poller.consumerIndex() < cqns.length) {
            int burst = (int) Math.min(1 + r.nextInt(4), Math.min(cqns.length - producer,
                4 - (producer - poller.consumerIndex())));
            for (int i = 0; i < burst; i++, producer++) {
                Eqe.writeCompletion(ring, Cqe.entryOffset(producer, log), cqns[(int) producer],
                    Cqe.ownerBit(producer, log));
            }
            while (poller.poll()) {
                assertThat(Eqe.resource(ring, poller.entryOffset())).isEqualTo(cqns[(int) poller.consumerIndex()]);
                poller.advance();
            }
            assertThat(poller.consumerIndex()).isEqualTo(producer);
        }
    }
}
