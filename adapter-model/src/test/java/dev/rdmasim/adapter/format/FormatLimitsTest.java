package dev.rdmasim.adapter.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The edges of the formats: every range a record refuses, encodings that leave no stale byte behind when written over
 * old contents, every code's name, and the size and index limits of the builders, parsers and pollers.
 */
class FormatLimitsTest {

    /** Each component of {@code ok}, set to -1 in turn, is refused naming it, unless {@code free} lists it. */
    private static void everyCheckedComponentRefusesMinusOne(Record ok, Set<String> free) throws Exception {
        RecordComponent[] rc = ok.getClass().getRecordComponents();
        Class<?>[] types = Arrays.stream(rc).map(RecordComponent::getType).toArray(Class<?>[]::new);
        Constructor<?> ctor = ok.getClass().getDeclaredConstructor(types);
        int refused = 0;
        for (int i = 0; i < rc.length; i++) {
            Object[] args = new Object[rc.length];
            for (int j = 0; j < rc.length; j++) {
                args[j] = rc[j].getAccessor().invoke(ok);
            }
            args[i] = types[i] == long.class ? (Object) (-1L) : (Object) (-1);
            String name = rc[i].getName();
            if (free.contains(name)) {
                assertThat(ctor.newInstance(args)).as(name).isNotNull();
                continue;
            }
            assertThatThrownBy(() -> {
                try {
                    ctor.newInstance(args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            }).as(name).isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith(name + " must be ");
            refused++;
        }
        assertThat(refused).isEqualTo(rc.length - free.size());
    }

    @Test
    void contextRecordsRefuseEveryOutOfRangeFieldNamingIt() throws Exception {
        everyCheckedComponentRefusesMinusOne(ContextsTest.randomQp(new SplittableRandom(3)),
                Set.of("sqBase", "rqBase", "doorbellRecord", "peerIpHigh", "peerIpLow"));
        everyCheckedComponentRefusesMinusOne(new CqContext(0, 10, 0, 0, 5, 6, 7, 8, 0x1000, 0x2000, 1, 2),
                Set.of("producerIndex", "ringBase", "doorbellRecord"));
        everyCheckedComponentRefusesMinusOne(new MkeyContext(1, 3, 12, 0, 0x100, 4, 0x200, 0x1000, 4096, 0x3000, 1),
                Set.of("key", "parentKey", "start", "translationTable"));
    }

    /** Encodes with {@code write} over zeros and over 0xff bytes: the same bytes either way. */
    private static void sameOverOldBytes(int size, java.util.function.Consumer<byte[]> write) {
        byte[] clean = new byte[size + 16];
        byte[] dirty = new byte[size + 16];
        Arrays.fill(dirty, 8, 8 + size, (byte) 0xff);
        write.accept(clean);
        write.accept(dirty);
        assertThat(Arrays.copyOfRange(dirty, 8, 8 + size)).isEqualTo(Arrays.copyOfRange(clean, 8, 8 + size));
    }

    @Test
    void encodingsWrittenOverOldBytesLeaveNoneOfThem() {
        SplittableRandom r = new SplittableRandom(9);
        QpContext qp = ContextsTest.randomQp(r);
        sameOverOldBytes(QpContext.SIZE, b -> qp.encode(b, 8));
        CqContext cq = new CqContext(1, 12, 2, 3, 0x12345, 0x54321, 77, 66, 0x1000, 0x2000, 5, 6);
        sameOverOldBytes(CqContext.SIZE, b -> cq.encode(b, 8));
        MkeyContext mk = new MkeyContext(1, 3, 12, 1, 0x100, 4, 0x200, 0x1000, 4096, 0x3000, 1);
        sameOverOldBytes(MkeyContext.SIZE, b -> mk.encode(b, 8));
        sameOverOldBytes(2 * Cqe.SIZE, b -> Cqe.initRing(b, 8, 2));
        sameOverOldBytes(Cqe.SIZE, b -> Cqe.writeError(b, 8, Cqe.REQ_ERR, 0x77, WqeOpcode.SEND, 9,
                CqeSyndrome.LOCAL_LENGTH, WqeError.ZERO_LENGTH_SGE, 0));
        sameOverOldBytes(2 * Eqe.SIZE, b -> Eqe.initRing(b, 8, 2));
        sameOverOldBytes(Eqe.SIZE, b -> Eqe.writeCompletion(b, 8, 0x42, 0));
        sameOverOldBytes(Eqe.SIZE, b -> Eqe.writeQpEvent(b, 8, Eqe.TYPE_WQ_ACCESS_ERROR, 0x43, 0));
        sameOverOldBytes(Eqe.SIZE, b -> Eqe.writeCommand(b, 8, 5, 6, 0));
        sameOverOldBytes(DataSegments.SEGMENT, b -> DataSegments.writeRemoteAddress(b, 8, 0x1234_5678_9abcL, 0x55));
        // A command's answer: every output word rewritten, the ownership byte handed back, the inputs kept.
        byte[] entry = new byte[Command.ENTRY_SIZE];
        Arrays.fill(entry, (byte) 0xff);
        Command.writeOutput(entry, 0, 3, 0x99, 1, 2);
        byte[] expected = new byte[Command.ENTRY_SIZE];
        Arrays.fill(expected, (byte) 0xff);
        Arrays.fill(expected, Command.OFF_STATUS, Command.OFF_OUTPUT_MAILBOX, (byte) 0);
        expected[Command.OFF_STATUS] = 3;
        BigEndian.putI32(expected, Command.OFF_SYNDROME, 0x99);
        BigEndian.putI32(expected, Command.OFF_OUT0, 1);
        BigEndian.putI32(expected, Command.OFF_OUT1, 2);
        expected[Command.OFF_OWNERSHIP] = 0;
        assertThat(entry).isEqualTo(expected);
        // The IPv4-mapped form ::ffff:a.b.c.d in a QP-context mailbox's 16-byte peer address.
        sameOverOldBytes(16, b -> Command.putPeerIpv4(b, 8 - QpContext.OFF_PEER_IP, 0x0a000001));
    }

    @Test
    void initialisedRingsHandTheFirstPassToTheAdapter() {
        byte[] cq = new byte[3 * Cqe.SIZE];
        Arrays.fill(cq, (byte) 0x5a);
        Cqe.initRing(cq, 0, 3);
        for (int i = 0; i < 3; i++) {
            assertThat(Cqe.owner(cq, i * Cqe.SIZE)).isEqualTo(1);
            assertThat(Cqe.qpn(cq, i * Cqe.SIZE)).isZero();
        }
        byte[] eq = new byte[3 * Eqe.SIZE];
        Arrays.fill(eq, (byte) 0x5a);
        Eqe.initRing(eq, 0, 3);
        for (int i = 0; i < 3; i++) {
            assertThat(Eqe.owner(eq, i * Eqe.SIZE)).isEqualTo(1);
            assertThat(Eqe.type(eq, i * Eqe.SIZE)).isZero();
        }
    }

    @Test
    void theNextSendPsnIsStoredInTwentyFourBitsWithTheTopByteClear() {
        byte[] b = new byte[QpContext.SIZE];
        Arrays.fill(b, (byte) 0xff);
        QpContext.putNextSendPsn(b, 0, 0x0300_0005);
        assertThat(QpContext.nextSendPsn(b, 0)).isEqualTo(5);
        assertThat(BigEndian.i32(b, QpContext.OFF_NEXT_SEND_PSN)).isEqualTo(5);
    }

    @Test
    void eventEntriesKeepTheOwnerBitGiven() {
        byte[] b = new byte[Eqe.SIZE];
        Eqe.writeQpEvent(b, 0, Eqe.TYPE_WQ_ACCESS_ERROR, 0x43, 0);
        assertThat(Eqe.owner(b, 0)).isZero();
        assertThat(Eqe.type(b, 0)).isEqualTo(Eqe.TYPE_WQ_ACCESS_ERROR);
        assertThat(Eqe.subType(b, 0)).isZero();
        Eqe.writeCommand(b, 0, 5, 6, 0);
        assertThat(Eqe.owner(b, 0)).isZero();
        Eqe.writeCommand(b, 0, 5, 6, 3);
        assertThat(Eqe.owner(b, 0)).isEqualTo(1);
        b[Eqe.OFF_SUB_TYPE] = (byte) 0xa7;
        assertThat(Eqe.subType(b, 0)).isEqualTo(0xa7);
    }

    /** Every public int constant of {@code c} whose name passes {@code take}, with its value. */
    private static void namesAreTheConstants(Class<?> c, java.util.function.Predicate<String> take,
            java.util.function.IntFunction<String> name) throws Exception {
        int n = 0;
        for (var f : c.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers()) && Modifier.isPublic(f.getModifiers()) && f.getType() == int.class
                    && take.test(f.getName())) {
                assertThat(name.apply(f.getInt(null))).isEqualTo(f.getName());
                n++;
            }
        }
        assertThat(n).isPositive();
    }

    @Test
    void everyCodeHasItsOwnName() throws Exception {
        namesAreTheConstants(WqeError.class, f -> true, WqeError::name);
        assertThat(WqeError.name(99)).isEqualTo("UNKNOWN(99)");
        namesAreTheConstants(CqeSyndrome.class, f -> true, CqeSyndrome::name);
        assertThat(CqeSyndrome.name(0x7f)).isEqualTo("UNKNOWN(0x7f)");
        namesAreTheConstants(WqeOpcode.class, f -> !f.startsWith("UMR_"), WqeOpcode::name);
        assertThat(WqeOpcode.name(0x7e)).isEqualTo("UNKNOWN(0x7e)");
        for (String op : new String[] {"REQ", "RESP_WR_IMM", "RESP_SEND", "RESP_SEND_IMM", "RESP_SEND_INV", "REQ_ERR",
            "RESP_ERR", "INVALID"}) {
            assertThat(Cqe.opcodeName(Cqe.class.getField(op).getInt(null))).isEqualTo(op);
        }
        assertThat(Cqe.opcodeName(7)).isEqualTo("UNKNOWN(7)");
    }

    @Test
    void opcodesThatCarryDataAndErrorCqes() {
        for (int op : new int[] {WqeOpcode.SEND_INVAL, WqeOpcode.RDMA_WRITE, WqeOpcode.RDMA_WRITE_IMM, WqeOpcode.SEND,
            WqeOpcode.SEND_IMM, WqeOpcode.RDMA_READ}) {
            assertThat(WqeOpcode.carriesData(op)).as(WqeOpcode.name(op)).isTrue();
        }
        for (int op : new int[] {WqeOpcode.NOP, WqeOpcode.LOCAL_INVAL, WqeOpcode.UMR}) {
            assertThat(WqeOpcode.carriesData(op)).as(WqeOpcode.name(op)).isFalse();
        }
        assertThat(Cqe.isError(Cqe.REQ_ERR)).isTrue();
        assertThat(Cqe.isError(Cqe.RESP_ERR)).isTrue();
        assertThat(Cqe.isError(Cqe.REQ)).isFalse();
        assertThat(Cqe.isError(Cqe.RESP_SEND)).isFalse();
    }

    @Test
    void signatureBytesAreReadWhereTheyLie() {
        byte[] b = new byte[64];
        ControlSegment.write(b, 0, 0, 1, WqeOpcode.SEND, 2, 3, 0x0c, 0);
        assertThat(ControlSegment.signature(b, 0)).isZero();
        b[ControlSegment.OFF_SIGNATURE] = (byte) 0xa5;
        assertThat(ControlSegment.signature(b, 0)).isEqualTo(0xa5);
        assertThat(ControlSegment.flags(b, 0)).isEqualTo(0x0c);
        b[Cqe.OFF_SIGNATURE] = (byte) 0x96;
        assertThat(Cqe.signature(b, 0)).isEqualTo(0x96);
    }

    @Test
    void limitsOfTheSendParser() {
        SendWqeParser p = new SendWqeParser(8);
        p.setLimits(1, 0, 1);
        p.setLimits(8, 0, ControlSegment.MAX_DS);
        assertThatThrownBy(() -> p.setLimits(0, 0, 4)).hasMessageContaining("maxSge");
        assertThatThrownBy(() -> p.setLimits(9, 0, 4)).hasMessageContaining("maxSge");
        assertThatThrownBy(() -> p.setLimits(4, -1, 4)).hasMessageContaining("maxInline");
        assertThatThrownBy(() -> p.setLimits(4, 0, 0)).hasMessageContaining("maxDs");
        assertThatThrownBy(() -> p.setLimits(4, 0, ControlSegment.MAX_DS + 1)).hasMessageContaining("maxDs");

        byte[] ring = new byte[256];
        new SendWqeBuilder(ring, 0, 2).begin(3, WqeOpcode.NOP, 7, 0, 0).finish();
        assertThat(p.parse(ring, 0, 256, 192, 7, 3)).isZero();
        assertThatThrownBy(() -> p.parse(ring, 0, 256, 256, -1, -1)).hasMessageContaining("power of two");
        assertThatThrownBy(() -> p.parse(ring, 0, 256, -1, -1, -1)).hasMessageContaining("power of two");
        assertThatThrownBy(() -> p.parse(ring, 0, 192, 0, -1, -1)).hasMessageContaining("power of two");
        // The checks of what the doorbell promised: qpn and 16-bit WQE counter (a running counter past 2^16 too).
        assertThat(p.parse(ring, 0, 256, 192, 8, -1)).isNotZero();
        assertThat(p.error()).isEqualTo(WqeError.QPN_MISMATCH);
        assertThat(p.parse(ring, 0, 256, 192, 0, -1)).isNotZero();
        assertThat(p.parse(ring, 0, 256, 192, -1, 0x1_0003)).isZero();
        assertThat(p.parse(ring, 0, 256, 192, -1, 4)).isNotZero();
        assertThat(p.error()).isEqualTo(WqeError.INDEX_MISMATCH);
        assertThat(p.parse(ring, 0, 256, 192, -1, 0)).isNotZero();
    }

    @Test
    void aWqeExactlyAsLongAsItsBufferOrRingIsRead() {
        SendWqeParser p = new SendWqeParser(4);
        // A linear copy (BlueFlame) holding exactly the WQE's bytes, then one byte short.
        byte[] exact = new byte[32];
        new SendWqeBuilder(new byte[64], 0, 0);
        ControlSegment.write(exact, 0, 0, 0, WqeOpcode.RDMA_READ, 1, 2, 0, 0);
        assertThat(WqeError.name(errorOf(p, exact, 0, 0))).isNotEqualTo("DS_OVER_LIMIT");
        ControlSegment.write(exact, 0, 0, 0, WqeOpcode.RDMA_READ, 1, 3, 0, 0);
        assertThat(errorOf(p, exact, 0, 0)).isEqualTo(WqeError.DS_OVER_LIMIT);
        // In a ring: a WQE as large as the ring is read; one segment more is refused.
        byte[] ring = new byte[64];
        ControlSegment.write(ring, 0, 0, 0, WqeOpcode.NOP, 1, 4, 0, 0);
        assertThat(p.parse(ring, 0, 64, 0, -1, -1)).isZero();
        ControlSegment.write(ring, 0, 0, 0, WqeOpcode.NOP, 1, 5, 0, 0);
        p.parse(ring, 0, 64, 0, -1, -1);
        assertThat(p.error()).isEqualTo(WqeError.DS_OVER_LIMIT);
        // The QP's limit: exactly maxDs is read.
        byte[] big = new byte[1024];
        p.setLimits(4, 0, 5);
        ControlSegment.write(big, 0, 0, 0, WqeOpcode.NOP, 1, 5, 0, 0);
        assertThat(p.parse(big, 0, 1024, 0, -1, -1)).isZero();
        ControlSegment.write(big, 0, 0, 0, WqeOpcode.NOP, 1, 6, 0, 0);
        p.parse(big, 0, 1024, 0, -1, -1);
        assertThat(p.error()).isEqualTo(WqeError.DS_OVER_LIMIT);
    }

    private static int errorOf(SendWqeParser p, byte[] b, int base, int ringBytes) {
        p.parse(b, base, ringBytes, 0, -1, -1);
        return p.error();
    }

    @Test
    void limitsOfTheSendBuilder() {
        assertThatThrownBy(() -> new SendWqeBuilder(new byte[64], 0, -1)).hasMessageContaining("logBbs");
        // The largest ring size passes the size check and meets the array's (cheaper than a 4 MiB array).
        assertThatThrownBy(() -> new SendWqeBuilder(new byte[64], 0, 17)).hasMessageContaining("logBbs");
        assertThatThrownBy(() -> new SendWqeBuilder(new byte[64], 0, 16)).hasMessageContaining("does not fit");
        assertThat(new SendWqeBuilder(new byte[256], 0, 2).ringBbs()).isEqualTo(4);
        assertThat(new SendWqeBuilder(new byte[320], 64, 2).ringBbs()).isEqualTo(4);
        assertThatThrownBy(() -> new SendWqeBuilder(new byte[319], 64, 2))
                .hasMessage("ring of 256 bytes at base 64 does not fit an array of 319");
        assertThatThrownBy(() -> new SendWqeBuilder(new byte[256], -1, 2)).hasMessageContaining("does not fit");

        SendWqeBuilder b = new SendWqeBuilder(new byte[4096], 0, 6);
        assertThatThrownBy(() -> b.remoteAddress(0, 0)).hasMessageContaining("begin()");
        assertThatThrownBy(() -> b.data(0, 1, 0)).hasMessageContaining("begin()");
        assertThatThrownBy(() -> b.inlineData(new byte[1], 0, 1)).hasMessageContaining("begin()");
        assertThatThrownBy(() -> b.umr(0, 0, 0, 0, 12, 0, 0)).hasMessageContaining("begin()");
        assertThatThrownBy(b::finish).hasMessageContaining("begin()");

        // 62 data segments after the control segment fill the 63-segment maximum; one more is refused.
        b.begin(0, WqeOpcode.SEND, 1, 0, 0);
        for (int i = 0; i < ControlSegment.MAX_DS - 1; i++) {
            b.data(0x1000L * i, 8, 1);
        }
        assertThatThrownBy(() -> b.data(0, 8, 1)).hasMessageContaining("63 segments");
        assertThat(b.finish()).isEqualTo(16);
        assertThat(b.lastDs()).isEqualTo(ControlSegment.MAX_DS);
        assertThat(b.lastBbs()).isEqualTo(16);
        assertThat(SendWqeBuilder.wqeBytes(WqeOpcode.SEND, 62)).isEqualTo(ControlSegment.MAX_DS * 16);
        assertThat(SendWqeBuilder.wqeBytes(WqeOpcode.RDMA_WRITE, 2)).isEqualTo(64);

        // Inline data up to exactly the ring's bytes, and not one byte more.
        SendWqeBuilder small = new SendWqeBuilder(new byte[128], 0, 1);
        small.begin(0, WqeOpcode.SEND, 1, 0, 0);
        small.inlineData(new byte[200], 0, 128 - 16 - 4);
        assertThat(small.finish()).isEqualTo(2);
        small.begin(0, WqeOpcode.SEND, 1, 0, 0);
        assertThatThrownBy(() -> small.inlineData(new byte[200], 0, 128 - 16 - 3))
                .hasMessage("WQE of 144 B exceeds the ring of 128 B");
        small.begin(0, WqeOpcode.SEND, 1, 0, 0);
        assertThatThrownBy(() -> small.inlineData(new byte[4], 1, 4)).hasMessageContaining("outside 4");
        small.inlineData(new byte[4], 0, 4);
        small.inlineData(new byte[4], 4, 0);
        assertThatThrownBy(() -> small.inlineData(new byte[4], -1, 1)).hasMessageContaining("outside");
        assertThatThrownBy(() -> small.inlineData(new byte[4], 0, -1)).hasMessageContaining("outside");
    }

    @Test
    void aUmrKeySegmentDirectlyFollowsTheControlSegment() {
        SendWqeBuilder b = new SendWqeBuilder(new byte[4096], 0, 6);
        b.begin(0, WqeOpcode.UMR, 1, 0, 0).data(0, 8, 1);
        assertThatThrownBy(() -> b.umr(0, 4096, 0, 0, 12, 0, 0)).hasMessageContaining("directly follow");
        b.begin(1, WqeOpcode.RDMA_WRITE, 1, 0, 0).data(0, 8, 1);
        assertThatThrownBy(() -> b.remoteAddress(0, 0)).hasMessageContaining("directly follow");
    }

    @Test
    void limitsOfScatterListsRingsAndBlueFlame() {
        assertThatThrownBy(() -> new ScatterList(0)).hasMessageContaining("capacity");
        assertThatThrownBy(() -> new ScatterList(ControlSegment.MAX_DS + 1)).hasMessageContaining("capacity");
        assertThat(new ScatterList(1).capacity()).isEqualTo(1);
        assertThat(new ScatterList(ControlSegment.MAX_DS).capacity()).isEqualTo(ControlSegment.MAX_DS);
        ScatterList s = new ScatterList(2);
        s.add(0x100, 5, 7);
        assertThat(s.address(0)).isEqualTo(0x100);
        assertThatThrownBy(() -> s.address(1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> s.length(1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> s.lkey(1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> s.lkey(-1)).isInstanceOf(IndexOutOfBoundsException.class);

        assertThatThrownBy(() -> OwnedRingPoller.forCq(new byte[64], 0, -1)).hasMessageContaining("logSize");
        assertThatThrownBy(() -> OwnedRingPoller.forCq(new byte[64], 0, 25)).hasMessageContaining("logSize");
        // 2^24 entries pass the size check and meet the array's (a 1 GiB ring would be needed to hold them).
        assertThatThrownBy(() -> OwnedRingPoller.forEq(new byte[64], 0, 24)).hasMessageContaining("does not fit");
        OwnedRingPoller p = OwnedRingPoller.forCq(new byte[64 * 4 + 8], 8, 2);
        assertThat(p.logSize()).isEqualTo(2);
        assertThat(p.entryOffset()).isEqualTo(8);
        assertThat(p.ring()).hasSize(64 * 4 + 8);
        assertThatThrownBy(() -> OwnedRingPoller.forCq(new byte[64 * 4 + 7], 8, 2))
                .hasMessage("ring of 4 entries at base 8 does not fit an array of 263");
        assertThatThrownBy(() -> OwnedRingPoller.forCq(new byte[64 * 4], -1, 2)).hasMessageContaining("does not fit");

        assertThat(new BlueFlame(64).bfSize()).isEqualTo(64);
        assertThatThrownBy(() -> new BlueFlame(32)).hasMessageContaining("bfSize");
        assertThatThrownBy(() -> new BlueFlame(96)).hasMessageContaining("bfSize");
    }

    @Test
    void anEventQueuePollerIgnoresTheCqOpcode() {
        byte[] eq = new byte[64 * 2];
        Eqe.initRing(eq, 0, 2);
        OwnedRingPoller p = OwnedRingPoller.forEq(eq, 0, 1);
        assertThat(p.poll()).isFalse();
        Eqe.writeCompletion(eq, 0, 5, 0);
        assertThat(p.poll()).isTrue();
        byte[] cq = new byte[64 * 2];
        Cqe.initRing(cq, 0, 2);
        OwnedRingPoller c = OwnedRingPoller.forCq(cq, 0, 1);
        cq[Cqe.OFF_OP_OWN] = (byte) (Cqe.INVALID << 4); // owner 0 but still INVALID: not a completion
        assertThat(c.poll()).isFalse();
    }

    @Test
    void receiveWqeTerminatorAndLimits() {
        byte[] b = new byte[64];
        RecvWqe.writeSge(b, 0, 0, 0x1000, 8, 3);
        RecvWqe.terminate(b, 0, 1, 4);
        assertThat(DataSegments.lkey(b, 16)).isEqualTo(DataSegments.INVALID_LKEY);
        byte[] full = new byte[32];
        Arrays.fill(full, (byte) 0x11);
        RecvWqe.terminate(full, 0, 2, 2); // a full stride has no terminator: nothing written
        assertThat(full).containsOnly((byte) 0x11);
        assertThatThrownBy(() -> RecvWqe.terminate(b, 0, 5, 4)).hasMessageContaining("0..4");
        assertThatThrownBy(() -> RecvWqe.terminate(b, 0, -1, 4)).hasMessageContaining("0..4");
        RecvWqe.Parser p = new RecvWqe.Parser(4);
        RecvWqe.terminate(b, 0, 1, 4);
        assertThat(p.parse(b, 0, 4, 4)).isZero();
        assertThat(p.parse(b, 0, 4, 1)).isZero();
        assertThatThrownBy(() -> p.parse(b, 0, 4, 0)).hasMessageContaining("maxSge");
        assertThatThrownBy(() -> p.parse(b, 0, 4, 5)).hasMessageContaining("maxSge");
    }

    @Test
    void umrWqesOfTheWrongSizeAreRefused() {
        byte[] ring = new byte[64];
        SendWqeBuilder b = new SendWqeBuilder(ring, 0, 0);
        SendWqeParser p = new SendWqeParser(4);
        // A bind: three segments; stale bytes after them are not a translation list.
        Arrays.fill(ring, (byte) 0xff);
        b.begin(0, WqeOpcode.UMR_OPMOD_BIND_MW, WqeOpcode.UMR, 9, 0, 0).umr(0x1000, 0x100, 0, 0x44, 0, 0, 0).finish();
        assertThat(p.parse(ring, 0)).isZero();
        assertThat(p.umrListAddress()).isZero();
        ControlSegment.putDs(ring, 0, 2);
        assertThat(p.parse(ring, 0)).isEqualTo(CqeSyndrome.LOCAL_QP_OP);
        assertThat(p.error()).isEqualTo(WqeError.DS_TOO_SMALL);
        assertThat(p.syndrome()).isEqualTo(CqeSyndrome.LOCAL_QP_OP);
        ControlSegment.putDs(ring, 0, 4);
        p.parse(ring, 0);
        assertThat(p.error()).isEqualTo(WqeError.DS_MISMATCH);
        // A fast-register of two pages: four segments, the last a 16-byte list pointer.
        b.begin(1, WqeOpcode.UMR_OPMOD_FAST_REGISTER, WqeOpcode.UMR, 9, 0, 0).umr(0x1000, 0x2000, 0, 0, 12, 2, 0x9000)
                .finish();
        assertThat(p.parse(ring, 0)).isZero();
        assertThat(p.umrListAddress()).isEqualTo(0x9000);
        ControlSegment.putDs(ring, 0, 3);
        p.parse(ring, 0);
        assertThat(p.error()).isEqualTo(WqeError.DS_MISMATCH);
    }

    @Test
    void aLinearWqeAtAnOffsetMustEndInsideItsBuffer() {
        byte[] buf = new byte[64];
        ControlSegment.write(buf, 32, 0, 0, WqeOpcode.NOP, 1, 2, 0, 0);
        SendWqeParser p = new SendWqeParser(4);
        assertThat(p.parse(buf, 0, 0, 32, -1, -1)).isZero();
        ControlSegment.putDs(buf, 32, 3);
        p.parse(buf, 0, 0, 32, -1, -1);
        assertThat(p.error()).isEqualTo(WqeError.DS_OVER_LIMIT);
    }

    @Test
    void aReceiveWqeOfExactlyTwoGibibytesIsTooLong() {
        byte[] b = new byte[64];
        RecvWqe.writeSge(b, 0, 0, 0x1000, Integer.MAX_VALUE, 3);
        RecvWqe.writeSge(b, 0, 1, 0x1000, 1, 3);
        RecvWqe.terminate(b, 0, 2, 4);
        RecvWqe.Parser p = new RecvWqe.Parser(4);
        assertThat(p.parse(b, 0, 4, 4)).isEqualTo(CqeSyndrome.LOCAL_LENGTH);
        assertThat(p.error()).isEqualTo(WqeError.MESSAGE_TOO_LONG);
        RecvWqe.writeSge(b, 0, 0, 0x1000, Integer.MAX_VALUE - 1, 3);
        assertThat(p.parse(b, 0, 4, 4)).isZero();
        assertThat(p.sges().totalLength()).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void qpContextFieldsReadInPlace() {
        QpContext qp = ContextsTest.randomQp(new SplittableRandom(21));
        byte[] b = new byte[QpContext.SIZE + 32];
        qp.encode(b, 32);
        assertThat(QpContext.recvCqn(b, 32)).isEqualTo(qp.recvCqn());
        assertThat(QpContext.remoteAccess(b, 32)).isEqualTo(qp.remoteAccess());
        assertThat(QpContext.state(b, 32)).isEqualTo(qp.state());
        assertThat(OwnedRingPoller.forCq(new byte[64], 0, 0).logSize()).isZero();
    }
}
