package dev.rdmasim.adapter.nic;

import static dev.rdmasim.adapter.config.Parameters.*;

import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.format.BigEndian;
import dev.rdmasim.adapter.format.ControlSegment;
import dev.rdmasim.adapter.format.Doorbells;
import dev.rdmasim.adapter.format.SendWqeBuilder;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.stats.Counter;

/**
 * The doorbell unit: MMIO writes to a QP's doorbell page. An 8-byte write at the start of a BlueFlame half is a
 * plain doorbell (the first 8 bytes of the control segment: WQE index and size), which announces the send ring's
 * new producer index to the fetch engine. Longer writes are BlueFlame chunks carrying the WQE itself; they are
 * collected per QP, and the chunk holding the WQE's last byte completes it: if the fetch engine can place it
 * (nothing older missing, room in staging and WQE cache) it goes straight to the parser with no ring read,
 * otherwise it counts as a doorbell and the WQE is fetched from the ring.
 */
final class DoorbellUnit extends Module {
    /** What the block is built with, taken from the profile once. */
    record Params(int blueFlameBytes) {
        static Params of(Profile p) {
            return new Params(p.getInt(NIC_BLUEFLAME_BYTES));
        }
    }

    private final Params params;
    /** Where a rung QP's producer index or a whole BlueFlame WQE goes: the WQE fetch engine. */
    interface Output {
        /** The send ring's producer index (16 bits) is now {@code pi}. */
        void ring(Qp qp, int pi);

        /** A whole WQE came by BlueFlame: true if it was placed as if fetched, false to ring instead. */
        boolean takeBlueFlame(Qp qp, byte[] wqe, int index, int bbs);
    }

    /** One QP's doorbell page as the unit holds it: written by this block only. */
    static final class QpDoorbell {
        /** The BlueFlame WQE being collected, and how many of its bytes have come. */
        private final byte[] bf;
        private int fill;
        /** When the last doorbell (or BlueFlame write) reached the adapter. */
        private long lastPs = Stage.NOT_REACHED;

        QpDoorbell(int blueFlameBytes) {
            bf = new byte[Math.max(blueFlameBytes, 64)];
        }

        long lastDoorbellPs() {
            return lastPs;
        }
    }

    private Output fetch;
    private WqeFetchEngine.Output parser;
    private final Counter doorbells;
    private final Counter blueflames;

    DoorbellUnit(Module parent, Params params) {
        super(parent, "db");
        this.params = params;
        doorbells = stats().counter("doorbells", "MMIOs", "8-byte send doorbells received");
        blueflames = stats().counter("blueflames", "WQEs", "WQEs received whole by BlueFlame (no fetch)");
    }

    /** Doorbells go to the fetch engine; a BlueFlame WQE it places goes straight to the parser. */
    void connect(Output fetchEngine, WqeFetchEngine.Output wqeParser) {
        this.fetch = fetchEngine;
        this.parser = wqeParser;
    }

    /** Bytes of one BlueFlame half: the doorbell page holds two, from {@link Doorbells#PAGE_BLUEFLAME}. */
    int blueFlameBytes() {
        return params.blueFlameBytes();
    }

    /** Whether offset {@code inPage} of a QP's page lies in its two BlueFlame halves. */
    boolean decodes(int inPage) {
        return inPage >= Doorbells.PAGE_BLUEFLAME && inPage < Doorbells.PAGE_BLUEFLAME + 2 * params.blueFlameBytes();
    }

    /** A write of {@code len} bytes at offset {@code inPage} of QP {@code qp}'s doorbell page. */
    void write(Qp qp, int inPage, byte[] data, int off, int len) {
        int bf = params.blueFlameBytes();
        int half = Doorbells.PAGE_BLUEFLAME + ((inPage - Doorbells.PAGE_BLUEFLAME) / bf) * bf;
        int chunkOff = inPage - half;
        if (len == Doorbells.MMIO_DOORBELL_SIZE && chunkOff == 0) {
            long v = BigEndian.i64(data, off);
            doorbells.inc();
            ring(qp, (Doorbells.sqDoorbellWqeIndex(v) + SendWqeBuilder.bbsForDs(Doorbells.sqDoorbellDs(v))) & 0xFFFF);
            return;
        }
        // BlueFlame chunk: collect the WQE; the chunk holding its last byte completes it.
        QpDoorbell page = qp.db;
        System.arraycopy(data, off, page.bf, chunkOff, len);
        if (chunkOff == 0) {
            page.fill = 0;
        }
        page.fill += len;
        int ds = ControlSegment.ds(page.bf, 0);
        int bytes = SendWqeBuilder.bbsForDs(ds) * SendWqeBuilder.BB;
        if (ds > 0 && page.fill >= bytes) {
            int index = ControlSegment.wqeIndex(page.bf, 0);
            int bbs = bytes / SendWqeBuilder.BB;
            if (fetch.takeBlueFlame(qp, page.bf, index, bbs)) {
                // Nothing older is missing: the WQE is on chip as if fetched, without the DMA read.
                blueflames.inc();
                page.lastPs = now();
                parser.staged(qp, (index + bbs) & 0xFFFF);
            } else {
                doorbells.inc();
                ring(qp, (index + bbs) & 0xFFFF);
            }
            page.fill = 0;
        }
    }

    private void ring(Qp qp, int pi) {
        qp.db.lastPs = now();
        fetch.ring(qp, pi);
    }
}
