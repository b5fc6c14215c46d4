package dev.rdmasim.adapter.nic;

import static dev.rdmasim.adapter.config.Parameters.*;

import dev.rdmasim.adapter.cache.SetAssocCache;
import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.adapter.format.BigEndian;
import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.adapter.pcie.DmaCallback;
import dev.rdmasim.adapter.pcie.DmaPort;
import dev.rdmasim.adapter.pcie.DmaRequest;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.stats.Counter;

/**
 * The adapter's context memory and its QP-context cache. Context memory is carved from host memory at reset, as a
 * driver gives firmware pages: {@code nic.maxQps} QP contexts of {@value #QP_CONTEXT_BYTES} bytes, then
 * {@code nic.maxCqs} CQ contexts of {@value #CQ_CONTEXT_BYTES} bytes, then the memory-key contexts the key unit
 * owns. The firmware writes a context when it creates an object and clears it when it destroys one.
 *
 * <p>The QP-context cache holds the contexts of the QPs the fetch engine works on. A miss is a DMA read of the
 * context into the line (issued by the fetch engine, which waits for it); the line a miss replaces held state that
 * changed on chip (PSNs, indices), so it is written back to context memory by DMA from one of a few write-back
 * buffers. When all of them are still sending, the write-back is counted as dropped rather than stalling the fetch.
 */
final class ContextMemory extends Module {
    static final int QP_CONTEXT_BYTES = 256;
    static final int CQ_CONTEXT_BYTES = 64;
    private static final int WRITE_BACK_BUFFERS = 16;

    /** What the block is built with, taken from the profile once. */
    record Params(int maxQps, int maxCqs, int maxKeys, int qpcEntries, int qpcWays, SetAssocCache.Policy policy) {
        static Params of(Profile p) {
            return new Params(p.getInt(NIC_MAX_QPS), p.getInt(NIC_MAX_CQS), p.getInt(NIC_MAX_MRS),
                    p.getInt(NIC_QPC_CACHE_ENTRIES), p.getInt(NIC_QPC_CACHE_WAYS),
                    SetAssocCache.Policy.of(p.getString(NIC_CACHE_REPLACEMENT)));
        }

        /** Where the key contexts start, from the base of context memory: after every QP and CQ context. */
        long keyContextOffset() {
            return (long) maxQps * QP_CONTEXT_BYTES + (long) maxCqs * CQ_CONTEXT_BYTES;
        }

        /** Bytes of context memory: every QP, CQ and key context. */
        long bytes() {
            return keyContextOffset() + (long) maxKeys * KeyUnit.CONTEXT_BYTES;
        }
    }

    private final Params params;
    private final HostMemory memory;
    private final long base;
    private final SetAssocCache qpcCache;
    private final DmaPort writeBackPort;
    private final DmaRequest[] writeBacks = new DmaRequest[WRITE_BACK_BUFFERS];
    private final byte[][] writeBackBufs = new byte[WRITE_BACK_BUFFERS][QP_CONTEXT_BYTES];
    private int nextWriteBack;
    private final Counter contextWriteBacks;
    private final Counter droppedWriteBacks;
    /** Write-backs need nothing once sent. */
    private static final DmaCallback SENT = new DmaCallback() {
        @Override
        public void writeSent(DmaRequest r) {
        }
    };

    /** Context memory at {@code base} in {@code memory}; write-backs go out through {@code writeBackPort}. */
    ContextMemory(Module parent, Params params, HostMemory memory, long base, DmaPort writeBackPort) {
        super(parent, "ctx");
        this.params = params;
        this.memory = memory;
        this.base = base;
        this.writeBackPort = writeBackPort;
        qpcCache = new SetAssocCache(this, "qpcCache", params.qpcEntries(), params.qpcWays(), QP_CONTEXT_BYTES,
                params.policy());
        qpcCache.keepEvictedLines();
        for (int i = 0; i < WRITE_BACK_BUFFERS; i++) {
            writeBacks[i] = new DmaRequest();
        }
        contextWriteBacks = stats().counter("contextWriteBacks", "lines", "QP contexts written back to context memory on eviction");
        droppedWriteBacks = stats().counter("droppedWriteBacks", "lines",
                "evictions whose write-back found every write-back buffer busy (traffic not modeled)");
    }

    long qpContextAddress(int qpn) {
        return base + (long) qpn * QP_CONTEXT_BYTES;
    }

    long cqContextAddress(int cqn) {
        return base + (long) params.maxQps() * QP_CONTEXT_BYTES + (long) cqn * CQ_CONTEXT_BYTES;
    }

    /** Where the key unit's contexts start. */
    long keyContextBase() {
        return base + params.keyContextOffset();
    }

    // ---------------------------------------------------------------- firmware side

    /** Writes a new QP's context (the static part: number, PD, rings, doorbell record). */
    void writeQpContext(int qpn, QpConfig cfg) {
        byte[] ctx = new byte[QP_CONTEXT_BYTES];
        BigEndian.putI32(ctx, 0, qpn);
        BigEndian.putI32(ctx, 4, cfg.pd());
        BigEndian.putI64(ctx, 8, cfg.sqBase());
        BigEndian.putI64(ctx, 16, cfg.rqBase());
        BigEndian.putI64(ctx, 24, cfg.dbRecord());
        memory.write(qpContextAddress(qpn), ctx, 0, ctx.length);
    }

    /** A destroyed QP: its cached line is dropped and its context cleared. */
    void clearQpContext(int qpn) {
        qpcCache.invalidate(qpn);
        memory.fill(qpContextAddress(qpn), QP_CONTEXT_BYTES, (byte) 0);
    }

    /** Writes a CQ's context: ring, size, doorbell record. */
    void writeCqContext(int cqn, long ring, int logSize, long dbRecord) {
        byte[] ctx = new byte[CQ_CONTEXT_BYTES];
        BigEndian.putI64(ctx, 0, ring);
        BigEndian.putI32(ctx, 8, logSize);
        BigEndian.putI64(ctx, 16, dbRecord);
        memory.write(cqContextAddress(cqn), ctx, 0, ctx.length);
    }

    void clearCqContext(int cqn) {
        memory.fill(cqContextAddress(cqn), CQ_CONTEXT_BYTES, (byte) 0);
    }

    // ---------------------------------------------------------------- QP-context cache (the fetch engine's side)

    /** Looks QP {@code qpn}'s context up: a slot (hit), or a {@link SetAssocCache} miss, pending or set-busy code. */
    int lookup(int qpn) {
        return qpcCache.lookup(qpn);
    }

    /** The line of a slot, where a fill lands. */
    byte[] line(int slot) {
        return qpcCache.line(slot);
    }

    /** The fill of a missed line arrived. */
    void fill(int slot) {
        qpcCache.fill(slot);
    }

    /**
     * A QP context line was just replaced: the QP's state changed while it was on chip (PSNs, indices), so its
     * line goes back to context memory by DMA write before it is forgotten.
     */
    void writeBackEvicted() {
        long victim = qpcCache.lastEvicted();
        if (victim < 0) {
            return;
        }
        int i = nextWriteBack;
        nextWriteBack = (nextWriteBack + 1) % writeBacks.length;
        if (writeBacks[i].inEngine()) {
            // Every write-back buffer is busy: the oldest's TLPs have not left yet. Rare; the line
            // is dropped from the model's traffic rather than stalling the fetch engine.
            droppedWriteBacks.inc();
            return;
        }
        System.arraycopy(qpcCache.evictedLine(), 0, writeBackBufs[i], 0, QP_CONTEXT_BYTES);
        writeBacks[i].write(qpContextAddress((int) victim), writeBackBufs[i], 0, QP_CONTEXT_BYTES, SENT, -1, false);
        if (!writeBackPort.offer(writeBacks[i])) {
            droppedWriteBacks.inc();
        } else {
            contextWriteBacks.inc();
        }
    }
}
