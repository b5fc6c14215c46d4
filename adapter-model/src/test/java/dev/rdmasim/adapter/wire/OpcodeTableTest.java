package dev.rdmasim.adapter.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;

/**
 * Every opcode's row of IBA table 38 as docs/wire.md gives it (extension headers, payload, place in the message,
 * requester or responder), the edges of the supported range, and the AETH syndrome's fields and limits.
 */
class OpcodeTableTest {

    /** One row: name, RETH, AETH, ImmDt, DETH, payload, request, position (F, M, L or O). */
    private record Row(int op, String name, boolean reth, boolean aeth, boolean imm, boolean deth, boolean payload,
            boolean request, char position) {
    }

    private static final Row[] ROWS = {
        new Row(0x00, "SEND_FIRST", false, false, false, false, true, true, 'F'),
        new Row(0x01, "SEND_MIDDLE", false, false, false, false, true, true, 'M'),
        new Row(0x02, "SEND_LAST", false, false, false, false, true, true, 'L'),
        new Row(0x03, "SEND_LAST_IMM", false, false, true, false, true, true, 'L'),
        new Row(0x04, "SEND_ONLY", false, false, false, false, true, true, 'O'),
        new Row(0x05, "SEND_ONLY_IMM", false, false, true, false, true, true, 'O'),
        new Row(0x06, "RDMA_WRITE_FIRST", true, false, false, false, true, true, 'F'),
        new Row(0x07, "RDMA_WRITE_MIDDLE", false, false, false, false, true, true, 'M'),
        new Row(0x08, "RDMA_WRITE_LAST", false, false, false, false, true, true, 'L'),
        new Row(0x09, "RDMA_WRITE_LAST_IMM", false, false, true, false, true, true, 'L'),
        new Row(0x0A, "RDMA_WRITE_ONLY", true, false, false, false, true, true, 'O'),
        new Row(0x0B, "RDMA_WRITE_ONLY_IMM", true, false, true, false, true, true, 'O'),
        new Row(0x0C, "RDMA_READ_REQUEST", true, false, false, false, false, true, 'O'),
        new Row(0x0D, "RDMA_READ_RESPONSE_FIRST", false, true, false, false, true, false, 'F'),
        new Row(0x0E, "RDMA_READ_RESPONSE_MIDDLE", false, false, false, false, true, false, 'M'),
        new Row(0x0F, "RDMA_READ_RESPONSE_LAST", false, true, false, false, true, false, 'L'),
        new Row(0x10, "RDMA_READ_RESPONSE_ONLY", false, true, false, false, true, false, 'O'),
        new Row(0x11, "ACKNOWLEDGE", false, true, false, false, false, false, 'O'),
        new Row(0x64, "UD_SEND_ONLY", false, false, false, true, true, true, 'O'),
    };

    @Test
    void everyOpcodeHasItsRowOfTheTable() {
        for (Row r : ROWS) {
            int op = r.op();
            String ctx = r.name();
            assertThat(Opcode.name(op)).isEqualTo(r.name());
            assertThat(Opcode.isSupported(op)).as(ctx).isTrue();
            assertThat(Opcode.isValid(op)).as(ctx).isEqualTo(op < 0x12);
            assertThat(Opcode.isUd(op)).as(ctx).isEqualTo(op == 0x64);
            assertThat(Opcode.hasReth(op)).as(ctx).isEqualTo(r.reth());
            assertThat(Opcode.hasAeth(op)).as(ctx).isEqualTo(r.aeth());
            assertThat(Opcode.hasImmediate(op)).as(ctx).isEqualTo(r.imm());
            assertThat(Opcode.hasDeth(op)).as(ctx).isEqualTo(r.deth());
            assertThat(Opcode.hasPayload(op)).as(ctx).isEqualTo(r.payload());
            assertThat(Opcode.isRequest(op)).as(ctx).isEqualTo(r.request());
            assertThat(Opcode.isFirst(op)).as(ctx).isEqualTo(r.position() == 'F');
            assertThat(Opcode.isMiddle(op)).as(ctx).isEqualTo(r.position() == 'M');
            assertThat(Opcode.isLast(op)).as(ctx).isEqualTo(r.position() == 'L');
            assertThat(Opcode.isOnly(op)).as(ctx).isEqualTo(r.position() == 'O');
            int ext = (r.deth() ? 8 : 0) + (r.reth() ? 16 : 0) + (r.aeth() ? 4 : 0) + (r.imm() ? 4 : 0);
            assertThat(Opcode.extensionBytes(op)).as(ctx).isEqualTo(ext);
            assertThat(Opcode.payloadOffset(op)).as(ctx).isEqualTo(14 + 20 + 8 + 12 + ext);
        }
        assertThat(Opcode.COUNT).isEqualTo(0x12);
    }

    @Test
    void opcodesOutsideTheTableAreRefusedByEveryHelper() {
        for (int op : new int[] {-1, 0x12, 0x63, 0x65, 0xFF}) {
            assertThat(Opcode.isValid(op)).as("0x%x", op).isFalse();
            assertThat(Opcode.isSupported(op)).as("0x%x", op).isFalse();
            assertThat(Opcode.isUd(op)).as("0x%x", op).isFalse();
            assertThat(Opcode.name(op)).isEqualTo("UNKNOWN_0x" + Integer.toHexString(op));
            IntPredicate[] helpers = {Opcode::hasReth, Opcode::hasAeth, Opcode::hasDeth, Opcode::hasImmediate,
                Opcode::hasPayload, Opcode::isFirst, Opcode::isMiddle, Opcode::isLast, Opcode::isOnly,
                Opcode::isRequest};
            for (IntPredicate h : helpers) {
                assertThatThrownBy(() -> h.test(op)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessage("opcode 0x" + Integer.toHexString(op) + " is not an opcode this model supports");
            }
            assertThatThrownBy(() -> Opcode.extensionBytes(op)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> Opcode.payloadOffset(op)).isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(Opcode.name(0x12)).isEqualTo("UNKNOWN_0x12");
    }

    @Test
    void aethSyndromesCarryTheKindInBits6To5AndTheValueInBits4To0() {
        for (int v = 0; v <= 31; v++) {
            assertThat(Aeth.ack(v)).isEqualTo(v);
            assertThat(Aeth.rnrNak(v)).isEqualTo(0x20 | v);
            assertThat(Aeth.nak(v)).isEqualTo(0x60 | v);
            assertThat(Aeth.kind(Aeth.ack(v))).isEqualTo(Aeth.KIND_ACK);
            assertThat(Aeth.kind(Aeth.rnrNak(v))).isEqualTo(Aeth.KIND_RNR_NAK);
            assertThat(Aeth.kind(Aeth.nak(v))).isEqualTo(Aeth.KIND_NAK);
            assertThat(Aeth.value(Aeth.ack(v))).isEqualTo(v);
            assertThat(Aeth.value(Aeth.rnrNak(v))).isEqualTo(v);
            assertThat(Aeth.value(Aeth.nak(v))).isEqualTo(v);
            assertThat(Aeth.isAck(Aeth.ack(v))).isTrue();
            assertThat(Aeth.isAck(Aeth.rnrNak(v))).isFalse();
            assertThat(Aeth.isAck(Aeth.nak(v))).isFalse();
        }
        // The reserved bit 7 is neither kind nor value.
        assertThat(Aeth.kind(0x80 | 0x40 | 5)).isEqualTo(2);
        assertThat(Aeth.value(0xFF)).isEqualTo(31);
        assertThat(Aeth.isAck(0x80)).isTrue();
        assertThat(Aeth.nak(0)).isEqualTo(Aeth.NAK_PSN_SEQUENCE_ERROR);
        assertThat(Aeth.nak(3)).isEqualTo(Aeth.NAK_REMOTE_OPERATIONAL_ERROR);
        assertThat(Aeth.ack(Aeth.CREDITS_INVALID)).isEqualTo(0x1F);
    }

    @Test
    void aethFieldsOutside0To31AreRefused() {
        assertThatThrownBy(() -> Aeth.ack(32)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("AETH credits must be 0..31, got 32");
        assertThatThrownBy(() -> Aeth.ack(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("AETH credits must be 0..31, got -1");
        assertThatThrownBy(() -> Aeth.rnrNak(32)).hasMessage("AETH timerCode must be 0..31, got 32");
        assertThatThrownBy(() -> Aeth.rnrNak(-1)).hasMessage("AETH timerCode must be 0..31, got -1");
        assertThatThrownBy(() -> Aeth.nak(32)).hasMessage("AETH code must be 0..31, got 32");
        assertThatThrownBy(() -> Aeth.nak(-1)).hasMessage("AETH code must be 0..31, got -1");
    }
}
