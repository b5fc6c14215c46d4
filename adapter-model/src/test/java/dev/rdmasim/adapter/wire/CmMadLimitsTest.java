package dev.rdmasim.adapter.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The CM MAD's limits and less travelled paths: every path MTU code, the ends of the service ID port range, the
 * attribute range decode accepts, private data at its ends, fields one past their width, and what clear() resets.
 */
class CmMadLimitsTest {

    @Test
    void pathMtuCodesAndTcpServiceIds() {
        int[][] codes = {{256, 1}, {512, 2}, {1024, 3}, {2048, 4}, {4096, 5}};
        for (int[] c : codes) {
            assertThat(CmMad.mtuCode(c[0])).isEqualTo(c[1]);
        }
        assertThatThrownBy(() -> CmMad.mtuCode(8192)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("path MTU must be 256..4096 B, a power of two; got 8192");
        assertThat(CmMad.tcpServiceId(0)).isEqualTo(0x0106_0000L);
        assertThat(CmMad.tcpServiceId(0xFFFF)).isEqualTo(0x0106_FFFFL);
        assertThatThrownBy(() -> CmMad.tcpServiceId(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("port must be 0..65535, got -1");
        assertThatThrownBy(() -> CmMad.tcpServiceId(0x10000)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("port must be 0..65535, got 65536");
    }

    @Test
    void attributesOutsideTheCmMessagesHaveNoPrivateDataAndDoNotDecode() {
        String[] names = {"REQ", "MRA", "REJ", "REP", "RTU", "DREQ", "DREP"};
        for (int attr = CmMad.ATTR_REQ; attr <= CmMad.ATTR_DREP; attr++) {
            assertThat(CmMad.attributeName(attr)).isEqualTo(names[attr - CmMad.ATTR_REQ]);
        }
        for (int attr : new int[] {0x000F, 0x0017, 0x0110}) {
            String hex = Integer.toHexString(attr);
            assertThat(CmMad.attributeName(attr)).isEqualTo("attribute 0x" + hex);
            assertThatThrownBy(() -> CmMad.privateDataSize(attr)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("attribute 0x" + hex + " is not a CM message");
            assertThatThrownBy(() -> CmMad.privateDataOffset(attr)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("attribute 0x" + hex + " is not a CM message");
            CmMad m = new CmMad().clear();
            m.attributeId = attr;
            assertThatThrownBy(() -> m.encode(new byte[CmMad.SIZE], 0)).isInstanceOf(IllegalArgumentException.class);

            // A valid REQ with its attribute changed to this one is not decoded.
            byte[] b = new byte[CmMad.SIZE];
            CmMad req = new CmMad().clear();
            req.attributeId = CmMad.ATTR_REQ;
            req.encode(b, 0);
            RoceLayout.put16(b, CmMad.OFF_ATTRIBUTE_ID, attr);
            assertThat(new CmMad().decode(b, 0)).as(hex).isFalse();
        }
    }

    /** MRA, which the model never sends, encodes and decodes its IDs and private data like the others. */
    @Test
    void theFirstAndLastAttributesDecodeWithTheirWholePrivateDataField() {
        byte[] pd = new byte[CmMad.MRA_PRIVATE_DATA_SIZE];
        for (int i = 0; i < pd.length; i++) {
            pd[i] = (byte) (i + 1);
        }
        CmMad m = new CmMad().clear();
        m.attributeId = CmMad.ATTR_MRA;
        m.localCommId = 0x0102_0304;
        m.remoteCommId = 0x0506_0708;
        m.privateData(pd, 0, 10);
        byte[] b = new byte[CmMad.SIZE];
        m.encode(b, 0);
        assertThat(RoceLayout.u32(b, 28)).isEqualTo(0x0506_0708);
        assertThat(Arrays.copyOfRange(b, 34, 44)).isEqualTo(Arrays.copyOf(pd, 10));
        CmMad d = new CmMad();
        assertThat(d.decode(b, 0)).isTrue();
        assertThat(d.attributeId).isEqualTo(CmMad.ATTR_MRA);
        assertThat(d.remoteCommId).isEqualTo(0x0506_0708);
        assertThat(d.privateDataLength).as("the wire carries no length: the whole field").isEqualTo(222);
        assertThat(Arrays.copyOf(d.privateData, 10)).isEqualTo(Arrays.copyOf(pd, 10));

        // A REQ carries no remote ID: the word after its local ID is reserved and is not read as one.
        CmMad req = new CmMad().clear();
        req.attributeId = CmMad.ATTR_REQ;
        req.serviceId = 0x1122_3344_5566_7788L;
        req.encode(b, 0);
        RoceLayout.put32(b, CmMad.OFF_REMOTE_COMM_ID, 0x7777_7777);
        assertThat(d.decode(b, 0)).isTrue();
        assertThat(d.remoteCommId).isZero();
        assertThat(d.serviceId).isEqualTo(0x1122_3344_5566_7788L);
        assertThat(d.privateDataLength).isEqualTo(92);
        RoceLayout.put16(b, CmMad.OFF_ATTRIBUTE_ID, CmMad.ATTR_DREP);
        assertThat(d.decode(b, 0)).isTrue();
        assertThat(d.privateDataLength).isEqualTo(224);
    }

    @Test
    void privateDataHoldsFrom0ToItsSizeAndClearsWhatWasThere() {
        CmMad m = new CmMad().clear();
        m.attributeId = CmMad.ATTR_REQ;
        byte[] full = new byte[92];
        Arrays.fill(full, (byte) 7);
        assertThat(m.privateData(full, 0, 92)).isSameAs(m);
        assertThat(m.privateDataLength).isEqualTo(92);
        m.privateData(new byte[] {1, 2, 3, 4}, 1, 2);
        assertThat(m.privateDataLength).isEqualTo(2);
        assertThat(Arrays.copyOf(m.privateData, 4)).containsExactly(2, 3, 0, 0);
        m.privateData(null, 0, 0);
        assertThat(m.privateDataLength).isZero();
        assertThat(m.privateData).containsOnly(0);
        assertThatThrownBy(() -> m.privateData(new byte[1], 0, -1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("private data of -1 B does not fit a REQ (at most 92 B)");
        assertThatThrownBy(() -> m.privateData(new byte[93], 0, 93)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("private data of 93 B does not fit a REQ (at most 92 B)");

        // Data set for a roomier message does not fit once the message kind changes.
        m.attributeId = CmMad.ATTR_RTU;
        m.privateData(new byte[224], 0, 224);
        m.attributeId = CmMad.ATTR_REQ;
        assertThatThrownBy(() -> m.encode(new byte[CmMad.SIZE], 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("private data of 224 B does not fit a REQ (at most 92 B)");
        m.privateDataLength = 92;
        m.encode(new byte[CmMad.SIZE], 0);
    }

    @Test
    void fieldsHoldTheirWidthAndNoMore() {
        CmMad m = new CmMad().clear();
        m.attributeId = CmMad.ATTR_REQ;
        m.qpn = (1 << 24) - 1;
        m.responderResources = 255;
        m.remoteCmResponseTimeout = 31;
        m.retryCount = 7;
        m.pkey = 0xFFFF;
        m.pathMtuCode = 15;
        byte[] b = new byte[CmMad.SIZE];
        m.encode(b, 0);
        assertThat(RoceLayout.u24(b, CmMad.REQ_LOCAL_QPN)).isEqualTo(0xFFFFFF);
        assertThat(b[CmMad.REQ_BYTE_43] & 0xFF).isEqualTo(31 << 3);
        m.qpn = -1;
        assertThatThrownBy(() -> m.encode(b, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("qpn must fit in 24 unsigned bits, got -1");
        m.qpn = 0;
        m.responderResources = 256;
        assertThatThrownBy(() -> m.encode(b, 0)).hasMessage("responderResources must fit in 8 unsigned bits, got 256");
        m.responderResources = 0;
        m.remoteCmResponseTimeout = 32;
        assertThatThrownBy(() -> m.encode(b, 0)).hasMessage("remoteCmResponseTimeout must fit in 5 unsigned bits, got 32");
        m.remoteCmResponseTimeout = 0;
        m.retryCount = 8;
        assertThatThrownBy(() -> m.encode(b, 0)).hasMessage("retryCount must fit in 3 unsigned bits, got 8");
    }

    @Test
    void clearGivesTheDefaultsOfANewMessage() {
        CmMad m = new CmMad();
        m.attributeId = CmMad.ATTR_REP;
        m.transactionId = 1;
        m.localCommId = 2;
        m.remoteCommId = 3;
        m.serviceId = 4;
        m.localCaGuid = 5;
        m.qpn = 6;
        m.startingPsn = 7;
        m.responderResources = 8;
        m.initiatorDepth = 9;
        m.remoteCmResponseTimeout = 10;
        m.localCmResponseTimeout = 11;
        m.retryCount = 1;
        m.rnrRetryCount = 2;
        m.maxCmRetries = 3;
        m.pathMtuCode = 5;
        m.localAckTimeout = 12;
        m.pkey = 0x8001;
        m.localIp = 13;
        m.remoteIp = 14;
        m.trafficClass = 15;
        m.hopLimit = 1;
        m.targetAckDelay = 16;
        m.rejectReason = 17;
        m.messageRejected = 1;
        m.privateData(new byte[] {9, 9, 9}, 0, 3);
        assertThat(m.clear()).isSameAs(m);
        assertThat(m).usingRecursiveComparison().isEqualTo(new CmMad());
        assertThat(m.privateData).containsOnly(0);
        assertThat(m.pathMtuCode).isEqualTo(3);
        assertThat(m.pkey).isEqualTo(0xFFFF);
        assertThat(m.hopLimit).isEqualTo(64);
    }

    /** What earlier tests leave at zero: REP's target ACK delay, a REJ of another message, both LIDs, reserved bytes. */
    @Test
    void bitFieldsBothLidsAndReservedBytes() {
        byte[] b = new byte[CmMad.SIZE + 2];
        Arrays.fill(b, (byte) 0x5A);
        CmMad m = new CmMad().clear();
        m.attributeId = CmMad.ATTR_REQ;
        m.encode(b, 1);
        assertThat(RoceLayout.u16(b, 1 + CmMad.REQ_PRIMARY_LOCAL_LID)).isEqualTo(0xFFFF);
        assertThat(RoceLayout.u16(b, 1 + CmMad.REQ_PRIMARY_REMOTE_LID)).isEqualTo(0xFFFF);
        // Status, the reserved word after the local ID and the attribute modifier: zero, whatever was there.
        assertThat(RoceLayout.u32(b, 1 + CmMad.OFF_STATUS)).isZero();
        assertThat(RoceLayout.u32(b, 1 + CmMad.OFF_REMOTE_COMM_ID)).isZero();
        assertThat(RoceLayout.u32(b, 1 + CmMad.OFF_ATTRIBUTE_MODIFIER)).isZero();
        assertThat(b[0]).isEqualTo((byte) 0x5A);
        assertThat(b[CmMad.SIZE + 1]).isEqualTo((byte) 0x5A);

        m.clear();
        m.attributeId = CmMad.ATTR_REP;
        m.targetAckDelay = 17;
        m.rnrRetryCount = 5;
        m.encode(b, 0);
        assertThat(b[CmMad.REP_BYTE_26] & 0xFF).isEqualTo(17 << 3);
        assertThat(b[CmMad.REP_BYTE_27] & 0xFF).isEqualTo(5 << 5);
        CmMad d = new CmMad();
        assertThat(d.decode(b, 0)).isTrue();
        assertThat(d.targetAckDelay).isEqualTo(17);
        assertThat(d.rnrRetryCount).isEqualTo(5);

        m.clear();
        m.attributeId = CmMad.ATTR_REJ;
        m.messageRejected = CmMad.REJECTED_OTHER;
        m.rejectReason = CmMad.REJ_STALE_CONNECTION;
        m.encode(b, 0);
        assertThat(d.decode(b, 0)).isTrue();
        assertThat(d.messageRejected).isEqualTo(CmMad.REJECTED_OTHER);
        assertThat(d.rejectReason).isEqualTo(10);
        m.messageRejected = CmMad.REJECTED_REP;
        m.encode(b, 0);
        assertThat(d.decode(b, 0)).isTrue();
        assertThat(d.messageRejected).isEqualTo(CmMad.REJECTED_REP);
    }

    @Test
    void aMappedGidIsTenZeroBytesThenFfffThenTheAddress() {
        byte[] b = new byte[20];
        Arrays.fill(b, (byte) 0x5A);
        CmMad.putMappedGid(b, 2, 0xC0A8_0102);
        assertThat(b).containsExactly(0x5A, 0x5A, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xC0, 0xA8, 1, 2, 0x5A, 0x5A);
    }

    @Test
    void toStringNamesTheMessageAndItsIds() {
        CmMad m = new CmMad().clear();
        m.attributeId = CmMad.ATTR_DREQ;
        m.transactionId = 0xABCL;
        m.localCommId = 0x12;
        m.remoteCommId = 0x34;
        assertThat(m).hasToString("DREQ[tid=0xabc local=0x12 remote=0x34]");
    }
}
