package dev.rdmasim.adapter.format;

import java.util.Arrays;

/**
 * The firmware command interface: 64-byte command queue entries in a host-memory ring, optional
 * input mailboxes, opcodes and statuses (mlx5 command-queue shape, see {@code docs/commands.md}).
 *
 * <pre>
 * entry, 64 B (big-endian):
 * 0      type (7: PCIe command)           | 1-3 reserved
 * 4-7    input length: 16 inline bytes + the mailbox bytes
 * 8-15   input mailbox address (0: none)
 * 16-31  inline input:  16-17 opcode | 18-19 op_mod | 20-23 arg0 | 24-27 arg1 | 28-31 arg2
 * 32-47  inline output: 32 status | 33-35 reserved | 36-39 syndrome | 40-43 out0 | 44-47 out1
 * 48-55  output mailbox address (0: none; no command here needs one)
 * 56-59  output length (16)
 * 60     token (echoed in the completion EQE) | 61-62 reserved
 * 63     ownership (bit 0): 1 while the adapter owns the entry, 0 once its outputs are written
 * </pre>
 *
 * Mailboxes carry the context layouts of {@link CqContext} (CREATE_CQ, resize), {@link MkeyContext}
 * (CREATE_MKEY) and {@link QpContext} (CREATE_QP and the QP transitions); only the fields named in
 * {@code docs/commands.md} are read, the rest must be zero. A mailbox is one contiguous buffer of at
 * most {@link #MAX_MAILBOX} bytes (mlx5 chains 512-byte blocks; one block is all these commands need).
 *
 * <p>The command doorbell is an 8-byte MMIO of the new producer counter (running count of entries
 * posted) to {@link #DOORBELL_OFFSET} in doorbell page 0, which belongs to no QP (QP numbers start at 1).
 */
public final class Command {
    public static final int ENTRY_SIZE = 64;
    /** Largest input mailbox, one mlx5 mailbox block. */
    public static final int MAX_MAILBOX = 512;
    public static final int INLINE_INPUT = 16;
    public static final int INLINE_OUTPUT = 16;
    /** BAR offset of the command doorbell (page 0; the mlx5 initialization segment's cmd_dbell offset). */
    public static final int DOORBELL_OFFSET = 0x18;
    public static final int TYPE_PCIE = 7;

    public static final int OFF_TYPE = 0;
    public static final int OFF_INPUT_LENGTH = 4;
    public static final int OFF_INPUT_MAILBOX = 8;
    public static final int OFF_OPCODE = 16;
    public static final int OFF_OP_MOD = 18;
    public static final int OFF_ARG0 = 20;
    public static final int OFF_ARG1 = 24;
    public static final int OFF_ARG2 = 28;
    public static final int OFF_STATUS = 32;
    public static final int OFF_SYNDROME = 36;
    public static final int OFF_OUT0 = 40;
    public static final int OFF_OUT1 = 44;
    public static final int OFF_OUTPUT_MAILBOX = 48;
    public static final int OFF_OUTPUT_LENGTH = 56;
    public static final int OFF_TOKEN = 60;
    public static final int OFF_OWNERSHIP = 63;
    /** The part of the entry the adapter writes back: inline output through the ownership byte. */
    public static final int OUTPUT_START = OFF_STATUS;

    // ---- opcodes (mlx5 values)
    public static final int OP_CREATE_MKEY = 0x200;
    public static final int OP_DESTROY_MKEY = 0x202;
    public static final int OP_CREATE_CQ = 0x400;
    public static final int OP_DESTROY_CQ = 0x401;
    /** op_mod {@link #CQ_MODERATION} or {@link #CQ_RESIZE}. */
    public static final int OP_MODIFY_CQ = 0x403;
    public static final int OP_CREATE_QP = 0x500;
    public static final int OP_DESTROY_QP = 0x501;
    public static final int OP_RST2INIT_QP = 0x502;
    public static final int OP_INIT2RTR_QP = 0x503;
    public static final int OP_RTR2RTS_QP = 0x504;
    public static final int OP_RTS2RTS_QP = 0x505;
    public static final int OP_2ERR_QP = 0x507;
    public static final int OP_2RST_QP = 0x50A;
    public static final int OP_INIT2INIT_QP = 0x50E;
    public static final int OP_ALLOC_PD = 0x800;
    public static final int OP_DEALLOC_PD = 0x801;

    public static final int CQ_MODERATION = 0;
    public static final int CQ_RESIZE = 1;

    // ---- statuses (inline output byte 32; mlx5 values)
    public static final int STATUS_OK = 0x00;
    /** Unknown opcode or op_mod. */
    public static final int STATUS_BAD_OPCODE = 0x02;
    /** A field out of range or inconsistent (ring size, SGE or inline limit, moderation, PSN...). */
    public static final int STATUS_BAD_PARAM = 0x03;
    /** The named CQ, QP, key or PD does not exist. */
    public static final int STATUS_BAD_RESOURCE = 0x05;
    /** The object is still in use (a CQ by a QP or a pending CQE, a PD by a QP or key, a QP with work in flight). */
    public static final int STATUS_RESOURCE_BUSY = 0x06;
    /** The object's state does not allow the command (an invalid QP transition). */
    public static final int STATUS_BAD_RESOURCE_STATE = 0x09;
    /** Every number of that kind is in use (nic.maxQps, nic.maxCqs, nic.maxMrs, nic.maxPds). */
    public static final int STATUS_NO_RESOURCES = 0x0F;
    /** The input length does not match the opcode's mailbox, or exceeds {@link #MAX_MAILBOX}. */
    public static final int STATUS_BAD_INPUT_LENGTH = 0x50;

    private Command() {
    }

    /** Mailbox bytes an opcode (with its op_mod) takes; -1 for an unknown opcode. */
    public static int mailboxBytes(int opcode, int opMod) {
        return switch (opcode) {
            case OP_CREATE_CQ -> CqContext.SIZE;
            case OP_MODIFY_CQ -> opMod == CQ_RESIZE ? CqContext.SIZE : 0;
            case OP_CREATE_MKEY -> MkeyContext.SIZE;
            case OP_CREATE_QP, OP_INIT2RTR_QP, OP_RTR2RTS_QP -> QpContext.SIZE;
            case OP_DESTROY_MKEY, OP_DESTROY_CQ, OP_DESTROY_QP, OP_RST2INIT_QP, OP_RTS2RTS_QP, OP_2ERR_QP, OP_2RST_QP,
                    OP_INIT2INIT_QP, OP_ALLOC_PD, OP_DEALLOC_PD -> 0;
            default -> -1;
        };
    }

    /** A name for statistics and messages. */
    public static String statusName(int status) {
        return switch (status) {
            case STATUS_OK -> "OK";
            case STATUS_BAD_OPCODE -> "BAD_OPCODE";
            case STATUS_BAD_PARAM -> "BAD_PARAM";
            case STATUS_BAD_RESOURCE -> "BAD_RESOURCE";
            case STATUS_RESOURCE_BUSY -> "RESOURCE_BUSY";
            case STATUS_BAD_RESOURCE_STATE -> "BAD_RESOURCE_STATE";
            case STATUS_NO_RESOURCES -> "NO_RESOURCES";
            case STATUS_BAD_INPUT_LENGTH -> "BAD_INPUT_LENGTH";
            default -> "STATUS_0x" + Integer.toHexString(status);
        };
    }

    /** Writes a whole entry as the driver posts it: inputs set, outputs zero, owned by the adapter. */
    public static void writeEntry(byte[] b, int off, int opcode, int opMod, int arg0, int arg1, int arg2,
            long mailbox, int mailboxLength, int token) {
        Arrays.fill(b, off, off + ENTRY_SIZE, (byte) 0);
        b[off + OFF_TYPE] = (byte) TYPE_PCIE;
        BigEndian.putI32(b, off + OFF_INPUT_LENGTH, INLINE_INPUT + mailboxLength);
        BigEndian.putI64(b, off + OFF_INPUT_MAILBOX, mailbox);
        BigEndian.putU16(b, off + OFF_OPCODE, opcode);
        BigEndian.putU16(b, off + OFF_OP_MOD, opMod);
        BigEndian.putI32(b, off + OFF_ARG0, arg0);
        BigEndian.putI32(b, off + OFF_ARG1, arg1);
        BigEndian.putI32(b, off + OFF_ARG2, arg2);
        BigEndian.putI32(b, off + OFF_OUTPUT_LENGTH, INLINE_OUTPUT);
        b[off + OFF_TOKEN] = (byte) token;
        b[off + OFF_OWNERSHIP] = 1;
    }

    /** Writes the adapter's answer into the entry and hands it back to software. */
    public static void writeOutput(byte[] b, int off, int status, int syndrome, int out0, int out1) {
        Arrays.fill(b, off + OFF_STATUS, off + OFF_OUTPUT_MAILBOX, (byte) 0);
        b[off + OFF_STATUS] = (byte) status;
        BigEndian.putI32(b, off + OFF_SYNDROME, syndrome);
        BigEndian.putI32(b, off + OFF_OUT0, out0);
        BigEndian.putI32(b, off + OFF_OUT1, out1);
        b[off + OFF_OWNERSHIP] = 0;
    }

    public static int inputLength(byte[] b, int off) {
        return BigEndian.i32(b, off + OFF_INPUT_LENGTH);
    }

    public static long inputMailbox(byte[] b, int off) {
        return BigEndian.i64(b, off + OFF_INPUT_MAILBOX);
    }

    public static int opcode(byte[] b, int off) {
        return BigEndian.u16(b, off + OFF_OPCODE);
    }

    public static int opMod(byte[] b, int off) {
        return BigEndian.u16(b, off + OFF_OP_MOD);
    }

    public static int arg0(byte[] b, int off) {
        return BigEndian.i32(b, off + OFF_ARG0);
    }

    public static int arg1(byte[] b, int off) {
        return BigEndian.i32(b, off + OFF_ARG1);
    }

    public static int arg2(byte[] b, int off) {
        return BigEndian.i32(b, off + OFF_ARG2);
    }

    public static int status(byte[] b, int off) {
        return BigEndian.u8(b, off + OFF_STATUS);
    }

    public static int syndrome(byte[] b, int off) {
        return BigEndian.i32(b, off + OFF_SYNDROME);
    }

    public static int out0(byte[] b, int off) {
        return BigEndian.i32(b, off + OFF_OUT0);
    }

    public static int out1(byte[] b, int off) {
        return BigEndian.i32(b, off + OFF_OUT1);
    }

    public static int token(byte[] b, int off) {
        return BigEndian.u8(b, off + OFF_TOKEN);
    }

    /** Whether the adapter still owns the entry (its outputs are not written yet). */
    public static boolean adapterOwned(byte[] b, int off) {
        return (b[off + OFF_OWNERSHIP] & 1) != 0;
    }

    /** The 8-byte command doorbell value: the new producer counter. */
    public static long doorbell(int producer) {
        return producer & 0xFFFF_FFFFL;
    }

    public static int doorbellProducer(long value) {
        return (int) value;
    }

    // ---- mailbox fields not covered by the context records' accessors

    /** Peer IPv4 address in a QP-context mailbox: the low 4 bytes of the IPv4-mapped IPv6 field. */
    public static final int OFF_QPC_PEER_IPV4 = QpContext.OFF_PEER_IP + 12;

    /** Writes an IPv4 address as the IPv4-mapped IPv6 address {@code ::ffff:a.b.c.d}. */
    public static void putPeerIpv4(byte[] b, int off, int ip) {
        Arrays.fill(b, off + QpContext.OFF_PEER_IP, off + QpContext.OFF_PEER_IP + 10, (byte) 0);
        BigEndian.putU16(b, off + QpContext.OFF_PEER_IP + 10, 0xFFFF);
        BigEndian.putI32(b, off + OFF_QPC_PEER_IPV4, ip);
    }

    public static int peerIpv4(byte[] b, int off) {
        return BigEndian.i32(b, off + OFF_QPC_PEER_IPV4);
    }

    public static void putPeerMac(byte[] b, int off, long mac) {
        BigEndian.putU16(b, off + QpContext.OFF_PEER_MAC, (int) (mac >>> 32));
        BigEndian.putI32(b, off + QpContext.OFF_PEER_MAC + 2, (int) mac);
    }

    public static long peerMac(byte[] b, int off) {
        return (long) BigEndian.u16(b, off + QpContext.OFF_PEER_MAC) << 32 | BigEndian.u32(b, off + QpContext.OFF_PEER_MAC + 2);
    }
}
