package dev.rdmasim.adapter.nic;

import java.util.Arrays;

/**
 * One send-queue work request as the adapter holds it on chip after parsing its WQE: what to send,
 * where its packets are in the PSN space, how far transmission and acknowledgement have got, and
 * the times it reached each {@link Stage}. Entries live in a per-QP ring and are reused.
 */
final class Wr implements dev.rdmasim.adapter.wire.FrameOrigin {
    int wqeIndex;
    int bbs;
    int opcode;
    boolean signaled;
    boolean solicited;
    boolean fence;
    int immediate;
    long remoteAddress;
    int rkey;
    /** Message length in bytes (sum of SGEs or inline length). */
    long length;
    int sgeCount;
    final long[] sgeAddr;
    final int[] sgeLen;
    final int[] sgeKey;
    boolean inline;
    /** The WQE came whole by BlueFlame with the doorbell (no fetch): its {@link Stage#WQE_FETCHED} stays empty. */
    boolean blueFlame;
    /** Inline payload, held in the adapter's inline buffer until the request is acknowledged. */
    final byte[] inlineData;
    int firstPsn;
    /** When the parser is done with it: nothing of the request may go out (payload read, packet) before. */
    long readyPs;
    int packets;
    /** Packets handed to the transmitter (reset to the retransmit point on go-back-N). */
    int packetsQueued;
    /** Read responses received (READ only). */
    int responses;
    /** Bytes of a READ response still being written to host memory. */
    int pendingWrites;
    /** Error syndrome to complete with, or 0. */
    int syndrome;
    final long[] stamps = new long[Stage.values().length];

    Wr(int maxSge, int maxInline) {
        sgeAddr = new long[maxSge];
        sgeLen = new int[maxSge];
        sgeKey = new int[maxSge];
        inlineData = new byte[Math.max(maxInline, 1)];
    }

    /** Bumped on every reuse, so late observers can tell a reused record from the one they saw. */
    long generation;

    @Override
    public long generation() {
        return generation;
    }

    @Override
    public void placed(long ps) {
        stamp(Stage.REMOTE_PLACED, ps);
    }

    void clear() {
        generation++;
        sgeCount = 0;
        inline = false;
        length = 0;
        packetsQueued = 0;
        responses = 0;
        pendingWrites = 0;
        syndrome = 0;
        readyPs = 0;
        Arrays.fill(stamps, Stage.NOT_REACHED);
    }

    void stamp(Stage s, long t) {
        if (stamps[s.ordinal()] == Stage.NOT_REACHED) {
            stamps[s.ordinal()] = t;
        }
    }

    int lastPsn() {
        return (firstPsn + packets - 1) & 0xFF_FFFF;
    }
}
