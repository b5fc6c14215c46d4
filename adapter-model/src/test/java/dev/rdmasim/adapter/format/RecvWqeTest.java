package dev.rdmasim.adapter.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RecvWqeTest {
    @Test
    void terminatorFollowsTheLastSgeWhenTheStrideIsNotFull() {
        byte[] rq = new byte[64];
        RecvWqe.writeSge(rq, 0, 0, 0x1122334455667788L, 1024, 0x42);
        RecvWqe.terminate(rq, 0, 1, 4);
        assertThat(SendWqeTest.bytes(rq, 0, 32)).containsExactly(
            0, 0, 4, 0, 0, 0, 0, 0x42, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
            0, 0, 0, 0, 0, 0, 0x01, 0x00, 0, 0, 0, 0, 0, 0, 0, 0);
        RecvWqe.Parser p = new RecvWqe.Parser(4);
        assertThat(p.parse(rq, 0, 4, 4)).isZero();
        assertThat(p.sges().count()).isEqualTo(1);
        assertThat(p.sges().totalLength()).isEqualTo(1024);
    }

    @Test
    void fullStrideNeedsNoTerminator() {
        byte[] rq = new byte[32 + 16];
        RecvWqe.writeSge(rq, 0, 0, 1, 10, 5);
        RecvWqe.writeSge(rq, 0, 1, 2, 20, 6);
        RecvWqe.terminate(rq, 0, 2, 2);
        DataSegments.writeData(rq, 32, 3, 30, 7); // the next WQE's first SGE is not read
        RecvWqe.Parser p = new RecvWqe.Parser(4);
        assertThat(p.parse(rq, 0, 2, 2)).isZero();
        assertThat(p.sges().count()).isEqualTo(2);
        assertThat(p.sges().totalLength()).isEqualTo(30);
    }

    @ParameterizedTest
    @ValueSource(longs = {7, 8, 9})
    void randomReceiveWqesRoundTrip(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        int logStride = 3;
        int stride = 1 << logStride;
        byte[] rq = new byte[16 * RecvWqe.strideBytes(logStride)];
        RecvWqe.Parser p = new RecvWqe.Parser(stride);
        for (int n = 0; n < 200; n++) {
            int slot = n & 15;
            int off = slot * RecvWqe.strideBytes(logStride);
            int count = r.nextInt(stride + 1);
            long[] addr = new long[count];
            int[] len = new int[count];
            int[] key = new int[count];
            for (int i = 0; i < count; i++) {
                addr[i] = r.nextLong();
                len[i] = 1 + r.nextInt(1 << 24);
                do {
                    key[i] = r.nextInt();
                } while (key[i] == DataSegments.INVALID_LKEY);
                RecvWqe.writeSge(rq, off, i, addr[i], len[i], key[i]);
            }
            RecvWqe.terminate(rq, off, count, stride);
            assertThat(p.parse(rq, off, stride, stride)).isZero();
            assertThat(p.sges().count()).isEqualTo(count);
            for (int i = 0; i < count; i++) {
                assertThat(p.sges().address(i)).isEqualTo(addr[i]);
                assertThat(p.sges().length(i)).isEqualTo(len[i]);
                assertThat(p.sges().lkey(i)).isEqualTo(key[i]);
            }
        }
    }

    @Test
    void badReceiveWqesReportSyndromes() {
        byte[] rq = new byte[64];
        RecvWqe.Parser p = new RecvWqe.Parser(4);
        for (int i = 0; i < 3; i++) {
            RecvWqe.writeSge(rq, 0, i, i, 8, 1);
        }
        RecvWqe.terminate(rq, 0, 3, 4);
        assertThat(p.parse(rq, 0, 4, 2)).isEqualTo(CqeSyndrome.LOCAL_LENGTH);
        assertThat(p.error()).isEqualTo(WqeError.TOO_MANY_SGE);
        RecvWqe.writeSge(rq, 0, 1, 0, 0, 1);
        assertThat(p.parse(rq, 0, 4, 4)).isEqualTo(CqeSyndrome.LOCAL_LENGTH);
        assertThat(p.error()).isEqualTo(WqeError.ZERO_LENGTH_SGE);
        DataSegments.writeInlineHeader(rq, 16, 4);
        assertThat(p.parse(rq, 0, 4, 4)).isEqualTo(CqeSyndrome.LOCAL_QP_OP);
        assertThat(p.error()).isEqualTo(WqeError.INLINE_NOT_ALLOWED);
        RecvWqe.writeSge(rq, 0, 1, 0, 0x7fff_ffff, 1);
        assertThat(p.parse(rq, 0, 4, 4)).isEqualTo(CqeSyndrome.LOCAL_LENGTH);
        assertThat(p.error()).isEqualTo(WqeError.MESSAGE_TOO_LONG);
    }
}
