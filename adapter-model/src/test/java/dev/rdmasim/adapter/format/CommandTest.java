package dev.rdmasim.adapter.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class CommandTest {
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 42})
    void entryInputsAndOutputsRoundTrip(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        int off = r.nextInt(64);
        byte[] b = new byte[off + Command.ENTRY_SIZE + 8];
        r.nextBytes(b);
        int opcode = r.nextInt(0x10000);
        int opMod = r.nextInt(0x10000);
        int a0 = r.nextInt();
        int a1 = r.nextInt();
        int a2 = r.nextInt();
        long mailbox = r.nextLong();
        int len = r.nextInt(Command.MAX_MAILBOX + 1);
        int token = r.nextInt(256);
        Command.writeEntry(b, off, opcode, opMod, a0, a1, a2, mailbox, len, token);
        assertThat(Command.opcode(b, off)).isEqualTo(opcode);
        assertThat(Command.opMod(b, off)).isEqualTo(opMod);
        assertThat(Command.arg0(b, off)).isEqualTo(a0);
        assertThat(Command.arg1(b, off)).isEqualTo(a1);
        assertThat(Command.arg2(b, off)).isEqualTo(a2);
        assertThat(Command.inputMailbox(b, off)).isEqualTo(mailbox);
        assertThat(Command.inputLength(b, off)).isEqualTo(16 + len);
        assertThat(Command.token(b, off)).isEqualTo(token);
        assertThat(Command.adapterOwned(b, off)).isTrue();
        assertThat(Command.status(b, off)).isZero();
        assertThat(b[off + Command.OFF_TYPE]).isEqualTo((byte) 7);

        int status = r.nextInt(256);
        int syndrome = r.nextInt();
        int o0 = r.nextInt();
        int o1 = r.nextInt();
        Command.writeOutput(b, off, status, syndrome, o0, o1);
        assertThat(Command.adapterOwned(b, off)).isFalse();
        assertThat(Command.status(b, off)).isEqualTo(status);
        assertThat(Command.syndrome(b, off)).isEqualTo(syndrome);
        assertThat(Command.out0(b, off)).isEqualTo(o0);
        assertThat(Command.out1(b, off)).isEqualTo(o1);
        // The output leaves the inputs alone.
        assertThat(Command.opcode(b, off)).isEqualTo(opcode);
        assertThat(Command.arg2(b, off)).isEqualTo(a2);
        assertThat(Command.inputMailbox(b, off)).isEqualTo(mailbox);
        assertThat(Command.token(b, off)).isEqualTo(token);
    }

    @Test
    void fieldsSitAtTheirDocumentedBytes() {
        byte[] b = new byte[64];
        Command.writeEntry(b, 0, 0x0500, 0x0001, 0x01020304, 0, 0, 0x1122334455667788L, 256, 0x9A);
        assertThat(b[4] & 0xFF).isZero();
        assertThat(b[7] & 0xFF).isEqualTo(0x10); // 16 + 256 = 0x110
        assertThat(b[6] & 0xFF).isEqualTo(1);
        assertThat(b[8] & 0xFF).isEqualTo(0x11);
        assertThat(b[15] & 0xFF).isEqualTo(0x88);
        assertThat(b[16] & 0xFF).isEqualTo(0x05);
        assertThat(b[17] & 0xFF).isZero();
        assertThat(b[19] & 0xFF).isEqualTo(1);
        assertThat(b[20] & 0xFF).isEqualTo(1);
        assertThat(b[23] & 0xFF).isEqualTo(4);
        assertThat(b[59] & 0xFF).isEqualTo(16);
        assertThat(b[60] & 0xFF).isEqualTo(0x9A);
        assertThat(b[63] & 0xFF).isEqualTo(1);
        Command.writeOutput(b, 0, Command.STATUS_NO_RESOURCES, 0, 0x00ABCDEF, 0);
        assertThat(b[32] & 0xFF).isEqualTo(0x0F);
        assertThat(b[41] & 0xFF).isEqualTo(0xAB);
        assertThat(b[63] & 0xFF).isZero();
    }

    @Test
    void statusesAreDistinctAndNamed() {
        List<Integer> all = List.of(Command.STATUS_OK, Command.STATUS_BAD_OPCODE, Command.STATUS_BAD_PARAM,
                Command.STATUS_BAD_RESOURCE, Command.STATUS_RESOURCE_BUSY, Command.STATUS_BAD_RESOURCE_STATE,
                Command.STATUS_NO_RESOURCES, Command.STATUS_BAD_INPUT_LENGTH);
        Set<String> names = new HashSet<>();
        for (int s : all) {
            assertThat(names.add(Command.statusName(s))).isTrue();
            assertThat(Command.statusName(s)).doesNotStartWith("STATUS_0x");
        }
        assertThat(Set.copyOf(all)).hasSize(all.size());
    }

    @Test
    void mailboxSizesFollowTheContexts() {
        assertThat(Command.mailboxBytes(Command.OP_CREATE_CQ, 0)).isEqualTo(CqContext.SIZE);
        assertThat(Command.mailboxBytes(Command.OP_MODIFY_CQ, Command.CQ_RESIZE)).isEqualTo(CqContext.SIZE);
        assertThat(Command.mailboxBytes(Command.OP_MODIFY_CQ, Command.CQ_MODERATION)).isZero();
        assertThat(Command.mailboxBytes(Command.OP_CREATE_MKEY, 0)).isEqualTo(MkeyContext.SIZE);
        assertThat(Command.mailboxBytes(Command.OP_CREATE_QP, 0)).isEqualTo(QpContext.SIZE);
        assertThat(Command.mailboxBytes(Command.OP_INIT2RTR_QP, 0)).isEqualTo(QpContext.SIZE);
        assertThat(Command.mailboxBytes(Command.OP_2ERR_QP, 0)).isZero();
        assertThat(Command.mailboxBytes(0x7FF, 0)).isEqualTo(-1);
    }

    @Test
    void peerAddressesAndDoorbellRoundTrip() {
        byte[] m = new byte[QpContext.SIZE];
        Command.putPeerMac(m, 0, 0x0A0B_0C0D_0E0FL);
        Command.putPeerIpv4(m, 0, 0xC0A8_0102);
        assertThat(Command.peerMac(m, 0)).isEqualTo(0x0A0B_0C0D_0E0FL);
        assertThat(Command.peerIpv4(m, 0)).isEqualTo(0xC0A8_0102);
        assertThat(m[QpContext.OFF_PEER_IP + 10] & 0xFF).isEqualTo(0xFF);
        assertThat(m[QpContext.OFF_PEER_IP + 11] & 0xFF).isEqualTo(0xFF);
        assertThat(Command.doorbellProducer(Command.doorbell(-5))).isEqualTo(-5);
        byte[] e = new byte[Eqe.SIZE];
        Eqe.writeCommand(e, 0, 123456, 17, 1);
        assertThat(Eqe.type(e, 0)).isEqualTo(Eqe.TYPE_COMMAND);
        assertThat(Eqe.commandIndex(e, 0)).isEqualTo(123456);
        assertThat(Eqe.commandToken(e, 0)).isEqualTo(17);
        assertThat(Eqe.owner(e, 0)).isEqualTo(1);
    }
}
