package dev.rdmasim.adapter.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ContextsTest {
    static QpContext randomQp(SplittableRandom r) {
        return new QpContext(r.nextInt(7), 0, 1 + r.nextInt(5), r.nextInt(1 << 24), r.nextInt(1 << 24),
            r.nextInt(1 << 24), r.nextInt(1 << 24), r.nextInt(1 << 24), r.nextLong(), r.nextInt(17),
            r.nextInt(64), r.nextInt(64), r.nextInt(1 << 16), r.nextLong(), r.nextInt(17), r.nextInt(7),
            r.nextInt(65), r.nextLong(), r.nextInt(1 << 24), r.nextInt(1 << 24), r.nextInt(256), r.nextInt(256),
            r.nextInt(8), r.nextInt(8), r.nextInt(32), r.nextInt(32), r.nextInt(AccessFlags.ALL + 1),
            r.nextInt(Integer.MAX_VALUE), r.nextInt(1 << 16), r.nextInt(1 << 16), r.nextInt(1 << 16),
            r.nextInt(1 << 24), r.nextInt(1 << 24), r.nextLong(1L << 48), r.nextInt(1 << 16), r.nextLong(),
            r.nextLong(), r.nextInt(256), r.nextInt(256), r.nextInt(1 << 20));
    }

    @ParameterizedTest
    @ValueSource(longs = {51, 52, 53})
    void contextsRoundTripAtAnyOffset(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        byte[] mem = new byte[1024];
        for (int n = 0; n < 200; n++) {
            int off = r.nextInt(512);
            QpContext qp = randomQp(r);
            qp.encode(mem, off);
            assertThat(QpContext.decode(mem, off)).isEqualTo(qp);
            assertThat(QpContext.nextSendPsn(mem, off)).isEqualTo(qp.nextSendPsn());
            assertThat(QpContext.sendCqn(mem, off)).isEqualTo(qp.sendCqn());

            CqContext cq = new CqContext(r.nextInt(3), r.nextInt(25), r.nextInt(3), r.nextInt(4), r.nextInt(1 << 24),
                r.nextInt(1 << 24), r.nextInt(), r.nextInt(1 << 24), r.nextLong(), r.nextLong(), r.nextInt(1 << 16),
                r.nextInt(1 << 16));
            cq.encode(mem, off);
            assertThat(CqContext.decode(mem, off)).isEqualTo(cq);

            MkeyContext mk = new MkeyContext(r.nextInt(2), r.nextInt(AccessFlags.ALL + 1), r.nextInt(64), r.nextInt(2),
                r.nextInt(), r.nextInt(1 << 24), r.nextInt(), r.nextLong(), r.nextLong(Long.MAX_VALUE), r.nextLong(),
                r.nextInt(Integer.MAX_VALUE));
            mk.encode(mem, off);
            assertThat(MkeyContext.decode(mem, off)).isEqualTo(mk);
        }
    }

    @Test
    void keyQpContextFieldsSitAtTheirBytesAndUpdateInPlace() {
        byte[] b = new byte[QpContext.SIZE];
        QpContext qp = randomQp(new SplittableRandom(5));
        qp.encode(b, 0);
        assertThat(b[0]).isEqualTo((byte) qp.state());
        assertThat(BigEndian.i32(b, 4)).isEqualTo(qp.qpn());
        assertThat(BigEndian.i64(b, 24)).isEqualTo(qp.sqBase());
        assertThat(BigEndian.i64(b, 56)).isEqualTo(qp.doorbellRecord());
        assertThat(BigEndian.i32(b, 64)).isEqualTo(qp.nextSendPsn());
        assertThat(BigEndian.u16(b, 128)).isEqualTo((int) (qp.peerMac() >>> 32));
        assertThat(BigEndian.i64(b, 144)).isEqualTo(qp.peerIpLow());
        for (int i = 160; i < 256; i++) {
            assertThat(b[i]).as("reserved byte %d", i).isZero();
        }
        QpContext.putNextSendPsn(b, 0, 0x1ff_ffff); // PSNs wrap at 24 bits
        QpContext.putExpectedPsn(b, 0, 17);
        QpContext.putSqFetchCounter(b, 0, 0x1_0005);
        QpContext.putSqCompletedCounter(b, 0, 4);
        QpContext.putRqCounter(b, 0, 9);
        QpContext.putMsn(b, 0, 33);
        QpContext.putUnackedPsn(b, 0, 44);
        QpContext.putState(b, 0, QpContext.STATE_ERR);
        QpContext d = QpContext.decode(b, 0);
        assertThat(new int[] {d.nextSendPsn(), d.expectedPsn(), d.sqFetchCounter(), d.sqCompletedCounter(),
            d.rqCounter(), d.msn(), d.unackedPsn(), d.state()})
            .containsExactly(0xff_ffff, 17, 5, 4, 9, 33, 44, QpContext.STATE_ERR);
        assertThat(d.sqBase()).isEqualTo(qp.sqBase());
    }

    @Test
    void cqContextArmAndProducerFieldsUpdateInPlace() {
        byte[] b = new byte[CqContext.SIZE];
        new CqContext(0, 10, CqContext.ARM_DISARMED, 0, 0x123, 7, 0, 0, 0x10000, 0x20000, 32, 16).encode(b, 0);
        assertThat(BigEndian.i32(b, 4)).isEqualTo(0x123);
        assertThat(BigEndian.u16(b, 40)).isEqualTo(32);
        assertThat(BigEndian.u16(b, 42)).isEqualTo(16);
        CqContext.putArmState(b, 0, CqContext.armStateFor(Doorbells.ARM_CMD_SOLICITED));
        CqContext.putArmSequence(b, 0, 5);
        CqContext.putProducerIndex(b, 0, -1);
        CqContext.putConsumerIndex(b, 0, 0x1_000002);
        CqContext.putStatus(b, 0, CqContext.STATUS_OVERRUN);
        CqContext d = CqContext.decode(b, 0);
        assertThat(d.armState()).isEqualTo(CqContext.ARM_SOLICITED);
        assertThat(d.armSequence()).isEqualTo(1);
        assertThat(d.producerIndex()).isEqualTo(-1);
        assertThat(d.consumerIndex()).isEqualTo(2);
        assertThat(d.status()).isEqualTo(CqContext.STATUS_OVERRUN);
        assertThat(CqContext.armStateFor(Doorbells.ARM_CMD_ANY)).isEqualTo(CqContext.ARM_ANY);
    }

    @Test
    void mkeyBoundsAndTranslation() {
        byte[] b = new byte[MkeyContext.SIZE + 4 * TranslationEntry.SIZE];
        long start = 0x7f00_0000_1800L; // not page aligned: starts half way into its first 4 KiB page
        new MkeyContext(MkeyContext.STATE_VALID, AccessFlags.REMOTE_READ, 12, MkeyContext.TYPE_MR, 0xab12, 3, 0,
            start, 3 * 4096, 0x5000, 4).encode(b, 0);
        assertThat(BigEndian.i32(b, 4)).isEqualTo(0xab12);
        assertThat(BigEndian.i64(b, 16)).isEqualTo(start);
        assertThat(MkeyContext.covers(b, 0, start, 3 * 4096)).isTrue();
        assertThat(MkeyContext.covers(b, 0, start + 1, 3 * 4096)).isFalse();
        assertThat(MkeyContext.covers(b, 0, start - 1, 1)).isFalse();
        assertThat(MkeyContext.covers(b, 0, start + 3 * 4096, 0)).isTrue();
        assertThat(MkeyContext.covers(b, 0, Long.MAX_VALUE, 2)).isFalse();
        assertThat(MkeyContext.covers(b, 0, start, -1)).isFalse();
        for (int i = 0; i < 4; i++) {
            TranslationEntry.put(b, MkeyContext.SIZE, i, 0x100_0000L * (i + 1));
        }
        long va = start + 0x1000; // second page of the span, offset 0x800 into page 1
        long idx = TranslationEntry.indexOf(MkeyContext.start(b, 0), MkeyContext.logPageSize(b, 0), va);
        assertThat(idx).isEqualTo(1);
        assertThat(TranslationEntry.translate(TranslationEntry.get(b, MkeyContext.SIZE, (int) idx), 12, va))
            .isEqualTo(0x200_0800L);
        assertThat(BigEndian.i64(b, MkeyContext.SIZE + 8)).isEqualTo(0x200_0000L);
    }

    @Test
    void recordsRejectOutOfRangeFieldsNamingThem() {
        assertThatThrownBy(() -> new CqContext(0, 25, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)).hasMessageContaining("logSize");
        assertThatThrownBy(() -> new MkeyContext(0, 0, 12, 0, 0, 1 << 24, 0, 0, 0, 0, 0)).hasMessageContaining("pd");
        QpContext ok = randomQp(new SplittableRandom(1));
        assertThatThrownBy(() -> new QpContext(ok.state(), ok.type(), ok.pmtu(), 1 << 24, ok.pd(), ok.sendCqn(),
            ok.recvCqn(), ok.remoteQpn(), ok.sqBase(), ok.sqLogBbs(), ok.sqMaxDs(), ok.sqMaxSge(), ok.maxInline(),
            ok.rqBase(), ok.rqLogSize(), ok.rqLogStride(), ok.rqMaxSge(), ok.doorbellRecord(), ok.nextSendPsn(),
            ok.expectedPsn(), ok.maxReadsOut(), ok.maxReadsIn(), ok.retryCount(), ok.rnrRetry(), ok.ackTimeout(),
            ok.minRnrTimer(), ok.remoteAccess(), ok.maxUnacked(), ok.sqFetchCounter(), ok.sqCompletedCounter(),
            ok.rqCounter(), ok.msn(), ok.unackedPsn(), ok.peerMac(), ok.udpSourcePort(), ok.peerIpHigh(),
            ok.peerIpLow(), ok.hopLimit(), ok.trafficClass(), ok.flowLabel())).hasMessageContaining("qpn");
    }
}
