package dev.rdmasim.adapter.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rdmasim.kernel.Simulator;
import dev.rdmasim.kernel.testing.ExternalTool;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CmMadTest {
    private static byte[] pattern(long seed, int len) {
        byte[] b = new byte[len];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    private static int u8(byte[] b, int off) {
        return b[off] & 0xFF;
    }

    private static CmMad req(byte[] data) {
        CmMad m = new CmMad().clear();
        m.attributeId = CmMad.ATTR_REQ;
        m.transactionId = 0x0A00_0001_1234_5678L;
        m.localCommId = 0x1234_5678;
        m.serviceId = CmMad.tcpServiceId(445);
        m.localCaGuid = 0x0000_00FF_FE00_0001L;
        m.qpn = 0xABCDEF;
        m.startingPsn = 0x123456;
        m.responderResources = 16;
        m.initiatorDepth = 2;
        m.remoteCmResponseTimeout = 20;
        m.localCmResponseTimeout = 19;
        m.retryCount = 7;
        m.rnrRetryCount = 6;
        m.maxCmRetries = 15;
        m.pathMtuCode = CmMad.mtuCode(1024);
        m.localIp = 0x0A00_0001;
        m.remoteIp = 0x0A00_0002;
        m.localAckTimeout = 14;
        m.privateData(data, 0, data.length);
        return m;
    }

    @Test
    void reqFieldsSitAtTheirIbaOffsetsAndRoundTrip() {
        byte[] data = pattern(1, CmMad.REQ_PRIVATE_DATA_SIZE);
        byte[] b = new byte[CmMad.SIZE + 8];
        Arrays.fill(b, (byte) 0x5A);
        req(data).encode(b, 4);
        int o = 4;
        // Common MAD header: base version 1, class 0x07 CM, class version 2, method Send.
        assertThat(new int[] {u8(b, o), u8(b, o + 1), u8(b, o + 2), u8(b, o + 3)}).containsExactly(1, 7, 2, 3);
        assertThat(RoceLayout.u64(b, o + 8)).isEqualTo(0x0A00_0001_1234_5678L);
        assertThat(RoceLayout.u16(b, o + 16)).isEqualTo(0x0010);
        assertThat(RoceLayout.u32(b, o + 24)).isEqualTo(0x1234_5678);
        assertThat(RoceLayout.u64(b, o + 32)).isEqualTo(0x0000_0000_0106_01BDL);
        assertThat(RoceLayout.u64(b, o + 40)).isEqualTo(0x0000_00FF_FE00_0001L);
        assertThat(RoceLayout.u24(b, o + 56)).isEqualTo(0xABCDEF);
        assertThat(u8(b, o + 59)).isEqualTo(16);
        assertThat(u8(b, o + 63)).isEqualTo(2);
        assertThat(u8(b, o + 67)).isEqualTo(20 << 3); // RC: transport type 0, no end-to-end flow control
        assertThat(RoceLayout.u24(b, o + 68)).isEqualTo(0x123456);
        assertThat(u8(b, o + 71)).isEqualTo(19 << 3 | 7);
        assertThat(RoceLayout.u16(b, o + 72)).isEqualTo(0xFFFF);
        assertThat(u8(b, o + 74)).isEqualTo(3 << 4 | 6);
        assertThat(u8(b, o + 75)).isEqualTo(15 << 4);
        assertThat(RoceLayout.u16(b, o + 76)).isEqualTo(0xFFFF);
        assertThat(Arrays.copyOfRange(b, o + 80, o + 96)).containsExactly(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, -1, 10, 0, 0, 1);
        assertThat(Arrays.copyOfRange(b, o + 96, o + 112)).containsExactly(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, -1, 10, 0, 0, 2);
        assertThat(u8(b, o + 117)).isEqualTo(64);
        assertThat(u8(b, o + 119)).isEqualTo(14 << 3);
        assertThat(Arrays.copyOfRange(b, o + 164, o + 256)).isEqualTo(data);
        // Nothing outside the MAD is touched.
        assertThat(u8(b, 3)).isEqualTo(0x5A);
        assertThat(u8(b, o + 256)).isEqualTo(0x5A);

        CmMad d = new CmMad();
        assertThat(d.decode(b, o)).isTrue();
        CmMad e = req(data);
        assertThat(d).usingRecursiveComparison().isEqualTo(e);
    }

    @Test
    void repRejRtuDreqDrepRoundTripAtTheirOffsets() {
        byte[] b = new byte[CmMad.SIZE];
        CmMad m = new CmMad().clear();
        m.attributeId = CmMad.ATTR_REP;
        m.localCommId = 0x11;
        m.remoteCommId = 0x22;
        m.qpn = 0x000042;
        m.startingPsn = 0xFEDCBA;
        m.responderResources = 4;
        m.initiatorDepth = 8;
        m.rnrRetryCount = 7;
        m.localCaGuid = 0x0123_4567_89AB_CDEFL;
        byte[] rep = pattern(2, CmMad.REP_PRIVATE_DATA_SIZE);
        m.privateData(rep, 0, rep.length);
        m.encode(b, 0);
        assertThat(RoceLayout.u16(b, 16)).isEqualTo(0x0013);
        assertThat(RoceLayout.u32(b, 28)).isEqualTo(0x22);
        assertThat(RoceLayout.u24(b, 36)).isEqualTo(0x42);
        assertThat(RoceLayout.u24(b, 44)).isEqualTo(0xFEDCBA);
        assertThat(new int[] {u8(b, 48), u8(b, 49), u8(b, 51)}).containsExactly(4, 8, 7 << 5);
        assertThat(RoceLayout.u64(b, 52)).isEqualTo(0x0123_4567_89AB_CDEFL);
        assertThat(Arrays.copyOfRange(b, 60, 256)).isEqualTo(rep);
        CmMad d = new CmMad();
        assertThat(d.decode(b, 0)).isTrue();
        assertThat(d).usingRecursiveComparison().isEqualTo(m);

        m.clear();
        m.attributeId = CmMad.ATTR_REJ;
        m.localCommId = 5;
        m.remoteCommId = 6;
        m.rejectReason = CmMad.REJ_CONSUMER_DEFINED;
        m.messageRejected = CmMad.REJECTED_REQ;
        byte[] rej = pattern(3, CmMad.REJ_PRIVATE_DATA_SIZE);
        m.privateData(rej, 0, rej.length);
        m.encode(b, 0);
        assertThat(RoceLayout.u16(b, 16)).isEqualTo(0x0012);
        assertThat(u8(b, 32)).isZero();
        assertThat(RoceLayout.u16(b, 34)).isEqualTo(28);
        assertThat(Arrays.copyOfRange(b, 108, 256)).isEqualTo(rej);
        assertThat(d.decode(b, 0)).isTrue();
        assertThat(d).usingRecursiveComparison().isEqualTo(m);
        m.messageRejected = CmMad.REJECTED_OTHER;
        m.encode(b, 0);
        assertThat(u8(b, 32)).isEqualTo(0x80);

        m.clear();
        m.attributeId = CmMad.ATTR_DREQ;
        m.localCommId = 7;
        m.remoteCommId = 8;
        m.qpn = 0x00BEEF;
        byte[] dreq = pattern(4, CmMad.DREQ_PRIVATE_DATA_SIZE);
        m.privateData(dreq, 0, dreq.length);
        m.encode(b, 0);
        assertThat(RoceLayout.u24(b, 32)).isEqualTo(0xBEEF);
        assertThat(Arrays.copyOfRange(b, 36, 256)).isEqualTo(dreq);
        assertThat(d.decode(b, 0)).isTrue();
        assertThat(d).usingRecursiveComparison().isEqualTo(m);

        for (int attr : new int[] {CmMad.ATTR_RTU, CmMad.ATTR_DREP}) {
            m.clear();
            m.attributeId = attr;
            m.localCommId = 9;
            m.remoteCommId = 10;
            byte[] pd = pattern(attr, 224);
            m.privateData(pd, 0, pd.length);
            m.encode(b, 0);
            assertThat(RoceLayout.u16(b, 16)).isEqualTo(attr);
            assertThat(RoceLayout.u32(b, 24)).isEqualTo(9);
            assertThat(RoceLayout.u32(b, 28)).isEqualTo(10);
            assertThat(Arrays.copyOfRange(b, 32, 256)).isEqualTo(pd);
            assertThat(d.decode(b, 0)).isTrue();
            assertThat(d).usingRecursiveComparison().isEqualTo(m);
        }
    }

    @Test
    void everyPrivateDataFieldEndsTheMadAndHasTheIbaSize() {
        int[][] table = {
            {CmMad.ATTR_REQ, 92}, {CmMad.ATTR_MRA, 222}, {CmMad.ATTR_REJ, 148}, {CmMad.ATTR_REP, 196},
            {CmMad.ATTR_RTU, 224}, {CmMad.ATTR_DREQ, 220}, {CmMad.ATTR_DREP, 224},
        };
        for (int[] row : table) {
            assertThat(CmMad.privateDataSize(row[0])).isEqualTo(row[1]);
            assertThat(CmMad.privateDataOffset(row[0]) + row[1]).as(CmMad.attributeName(row[0])).isEqualTo(CmMad.SIZE);
        }
    }

    @Test
    void oversizedPrivateDataAndBadFieldsAreRefused() {
        CmMad m = new CmMad().clear();
        m.attributeId = CmMad.ATTR_REQ;
        assertThatThrownBy(() -> m.privateData(new byte[93], 0, 93)).hasMessageContaining("at most 92 B");
        m.privateData(new byte[92], 0, 92);
        m.qpn = 1 << 24;
        assertThatThrownBy(() -> m.encode(new byte[256], 0)).hasMessageContaining("qpn");
        assertThatThrownBy(() -> CmMad.mtuCode(1500)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CmMad.tcpServiceId(70000)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void decodeRefusesWhatIsNotACmSend() {
        byte[] b = new byte[CmMad.SIZE];
        req(new byte[0]).encode(b, 0);
        CmMad d = new CmMad();
        for (int[] change : new int[][] {{0, 2}, {1, 0x81}, {2, 1}, {3, 0x83}, {17, 0x19}}) {
            byte[] c = b.clone();
            c[change[0]] = (byte) change[1];
            assertThat(d.decode(c, 0)).as("byte %d = 0x%x", change[0], change[1]).isFalse();
        }
        assertThat(d.decode(b, 0)).isTrue();
    }

    /** A MAD in a UD SEND_ONLY frame to QP1, as the adapter builds it. */
    private static int udFrame(byte[] f, RoceWriter w, CmMad m, int psn) {
        byte[] mad = new byte[CmMad.SIZE];
        m.encode(mad, 0);
        w.bth(Opcode.UD_SEND_ONLY, 1, psn).deth(RoceLayout.GSI_QKEY, 1);
        return w.write(f, mad, 0, mad.length);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void udFramesCarryTheDethAndTheirIcrcChecks(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        RoceWriter w = new RoceWriter().macs(0x0200_0000_0002L, 0x0200_0000_0001L).ipv4(0x0A00_0001, 0x0A00_0002);
        byte[] f = new byte[RoceLayout.MAX_FRAME];
        byte[] payload = pattern(seed, 256);
        int qkey = rnd.nextInt();
        int src = rnd.nextInt(1 << 24);
        int dst = rnd.nextInt(1 << 24);
        int psn = rnd.nextInt(1 << 24);
        int len = w.bth(Opcode.UD_SEND_ONLY, dst, psn).deth(qkey, src).write(f, payload, 0, payload.length);
        assertThat(len).isEqualTo(14 + 20 + 8 + 12 + 8 + 256 + 4);
        RoceReader r = new RoceReader();
        assertThat(r.wrap(f, len)).isEqualTo(FrameCheck.VALID);
        assertThat(r.opcode()).isEqualTo(0x64);
        assertThat(r.destQp()).isEqualTo(dst);
        assertThat(r.psn()).isEqualTo(psn);
        assertThat(r.hasDeth()).isTrue();
        assertThat(r.dethQkey()).isEqualTo(qkey);
        assertThat(r.dethSourceQp()).isEqualTo(src);
        assertThat(r.payloadOffset()).isEqualTo(62);
        assertThat(r.payloadLength()).isEqualTo(256);
        assertThat(Arrays.copyOfRange(f, 62, 62 + 256)).isEqualTo(payload);
        assertThatThrownBy(r::rethRkey).isInstanceOf(IllegalStateException.class);
        // The DETH is covered by the ICRC.
        f[RoceLayout.EXT_OFFSET + 1] ^= 4;
        assertThat(r.wrap(f, len)).isEqualTo(FrameCheck.BAD_ICRC);
        // An RC frame carries no DETH.
        len = w.bth(Opcode.SEND_ONLY, dst, psn).write(f, payload, 0, 16);
        assertThat(r.wrap(f, len)).isEqualTo(FrameCheck.VALID);
        assertThat(r.hasDeth()).isFalse();
        assertThatThrownBy(r::dethQkey).isInstanceOf(IllegalStateException.class);
        assertThat(Opcode.name(Opcode.UD_SEND_ONLY)).isEqualTo("UD_SEND_ONLY");
        assertThat(Opcode.isValid(Opcode.UD_SEND_ONLY)).as("not an RC opcode").isFalse();
    }

    @Test
    void tsharkDecodesTheCmMessages(@TempDir Path dir) throws Exception {
        Path tshark = ExternalTool.tshark();
        Path file = dir.resolve("cm.pcap");
        Simulator sim = new Simulator(1);
        EthernetLink link = EthernetLink.cable(sim, "link", new EthernetLink.Config(100, 5_000, 8));
        List<CmMad> mads = new ArrayList<>();
        mads.add(req(pattern(1, 92)));
        CmMad rep = new CmMad().clear();
        rep.attributeId = CmMad.ATTR_REP;
        rep.localCommId = 0x99;
        rep.remoteCommId = 0x1234_5678;
        rep.qpn = 0x42;
        rep.startingPsn = 0x654321;
        rep.responderResources = 4;
        rep.initiatorDepth = 8;
        mads.add(rep);
        CmMad rej = new CmMad().clear();
        rej.attributeId = CmMad.ATTR_REJ;
        rej.remoteCommId = 0x1234_5678;
        rej.rejectReason = CmMad.REJ_INVALID_SERVICE_ID;
        mads.add(rej);
        for (int attr : new int[] {CmMad.ATTR_RTU, CmMad.ATTR_DREQ, CmMad.ATTR_DREP}) {
            CmMad m = new CmMad().clear();
            m.attributeId = attr;
            m.localCommId = 0x1234_5678;
            m.remoteCommId = 0x99;
            mads.add(m);
        }
        try (PcapWriter pcap = PcapWriter.open(file)) {
            link.addTap(pcap);
            link.b().connectReceiver(Pump::consume);
            RoceWriter w = new RoceWriter().macs(0x0200_0000_0002L, 0x0200_0000_0001L).ipv4(0x0A00_0001, 0x0A00_0002);
            for (int i = 0; i < mads.size(); i++) {
                Frame f = link.a().acquire();
                f.length(udFrame(f.data(), w, mads.get(i), i));
                link.a().send(f);
            }
            sim.run();
        }
        List<String> fields = List.of("infiniband.bth.opcode", "infiniband.bth.destqp", "infiniband.deth.q_key",
                "infiniband.deth.srcqp", "infiniband.mad.mgmtclass", "infiniband.mad.attributeid",
                "infiniband.mad.transactionid", "infiniband.cm.req.serviceid", "infiniband.cm.req.localqpn",
                "infiniband.cm.req.startpsn", "infiniband.cm.req.responderres", "infiniband.cm.req.initdepth",
                "infiniband.cm.req.prim_localgid_ipv4", "infiniband.cm.rep.localqpn", "infiniband.cm.rep.startpsn",
                "infiniband.cm.rej.reason", "infiniband.cm.rtu.remotecommid", "infiniband.cm.dreq.localcommid",
                "infiniband.cm.drsp.remotecommid");
        List<String> lines = TsharkDecodeTest.decode(tshark, dir, file, fields);
        assertThat(lines).as("tshark decoded the capture").isNotNull().hasSize(6);
        // Compared as numbers: dissector versions differ in how wide they print a hex field.
        long[][] rows = lines.stream().map(l -> Arrays.stream(l.split("\\|", -1)).mapToLong(CmMadTest::number).toArray())
                .toArray(long[][]::new);
        for (long[] row : rows) {
            assertThat(Arrays.copyOfRange(row, 0, 5)).containsExactly(0x64, 1, 0x8001_0000L, 1, 7);
        }
        long none = -1;
        assertThat(rows[0]).containsExactly(0x64, 1, 0x8001_0000L, 1, 7, 0x10, 0x0A00_0001_1234_5678L, 0x0106_01BDL,
                0xABCDEF, 0x123456, 16, 2, 0x0A00_0001L, none, none, none, none, none, none);
        assertThat(Arrays.copyOfRange(rows[1], 5, 19)).containsExactly(0x13, 0, none, none, none, none, none, none,
                0x42, 0x654321, none, none, none, none);
        assertThat(new long[] {rows[2][5], rows[2][15]}).containsExactly(0x12, 8);
        assertThat(new long[] {rows[3][5], rows[3][16]}).containsExactly(0x14, 0x99);
        assertThat(new long[] {rows[4][5], rows[4][17]}).containsExactly(0x15, 0x1234_5678);
        assertThat(new long[] {rows[5][5], rows[5][18]}).containsExactly(0x16, 0x99);
    }

    /** A tshark field as a number: hex, decimal or a dotted IPv4 address; -1 when empty. */
    private static long number(String s) {
        if (s.isEmpty()) {
            return -1;
        }
        if (s.chars().filter(ch -> ch == '.').count() == 3) {
            long v = 0;
            for (String part : s.split("\\.")) {
                v = v << 8 | Integer.parseInt(part);
            }
            return v;
        }
        return Long.decode(s);
    }
}
