package dev.rdmasim.adapter.nic;

import static dev.rdmasim.adapter.config.Parameters.*;

import dev.rdmasim.adapter.config.Profile;
import dev.rdmasim.kernel.InvariantViolation;
import dev.rdmasim.kernel.hw.Module;
import dev.rdmasim.kernel.stats.Bound;
import dev.rdmasim.kernel.stats.TimeAverage;
import dev.rdmasim.kernel.wave.Signal;

/**
 * The two shared on-chip buffers of the send path, kept as credits: the WQE cache (64-byte basic blocks reserved
 * by a fetch when it is issued and freed as the parser consumes them; a BlueFlame WQE takes its blocks as it
 * lands) and the inline buffer (bytes of inline payload, taken when a WQE is parsed and given back when its
 * request is acknowledged or flushed). A block that finds no credit waits; the credit coming back is the named
 * upstream signal ({@link #onWqeCacheFreed}, {@link #onInlineFreed}) that wakes it.
 */
final class WqeCredits extends Module {
    /** What the block is built with, taken from the profile once. */
    record Params(int wqeCacheBbs, long inlineBytes) {
        static Params of(Profile p) {
            return new Params(p.getInt(NIC_WQE_CACHE_ENTRIES), p.getLong(NIC_INLINE_BUFFER_BYTES));
        }
    }

    private final Params params;
    private int wqeCacheFree;
    private long inlineFree;
    private final TimeAverage wqeCacheUsed;
    private final TimeAverage inlineUsed;
    private final Bound wqeCacheFull;
    private final Bound inlineFull;
    private final Signal inlineSignal;
    private final Signal wqeCacheSignal;
    private Runnable wqeCacheFreed = () -> { };
    private Runnable inlineFreed = () -> { };

    WqeCredits(Module parent, Params params) {
        super(parent, "credits");
        this.params = params;
        wqeCacheFree = params.wqeCacheBbs();
        inlineFree = params.inlineBytes();
        wqeCacheUsed = stats().timeAverage("wqeCacheUsed", "BBs", "WQE cache blocks reserved by fetches or holding unparsed WQEs");
        inlineUsed = stats().timeAverage("inlineUsed", "bytes", "inline buffer bytes holding payload of unacknowledged requests");
        wqeCacheFull = stats().bound("wqeCache", "WQE cache", "no block free", "nic.wqeCacheEntries");
        inlineFull = stats().bound("inline", "inline buffer", "a parsed WQE waits for room for its inline payload",
                "nic.inlineBufferBytes");
        inlineSignal = signal("inlineUsed", 32);
        wqeCacheSignal = signal("wqeCacheUsed", 24);
    }

    /** Who waits for WQE cache blocks (the fetch engine). */
    void onWqeCacheFreed(Runnable r) {
        wqeCacheFreed = r;
    }

    /** Who waits for inline buffer bytes (the parser). */
    void onInlineFreed(Runnable r) {
        inlineFreed = r;
    }

    int wqeCacheFree() {
        return wqeCacheFree;
    }

    void reserveWqeCache(int bbs) {
        if (bbs > wqeCacheFree) {
            throw new InvariantViolation(fullName() + ": " + bbs + " WQE cache blocks reserved with " + wqeCacheFree + " free");
        }
        wqeCacheFree -= bbs;
        showWqeCache();
    }

    /** The parser consumed {@code bbs} blocks: the fetch engine may fetch into them. */
    void releaseWqeCache(int bbs) {
        wqeCacheFree += bbs;
        if (wqeCacheFree > params.wqeCacheBbs()) {
            throw new InvariantViolation("WQE cache released more blocks than it holds");
        }
        showWqeCache();
        wqeCacheFreed.run();
    }

    private void showWqeCache() {
        wqeCacheFull.set(wqeCacheFree == 0);
        wqeCacheUsed.set(params.wqeCacheBbs() - wqeCacheFree);
        wqeCacheSignal.set(params.wqeCacheBbs() - wqeCacheFree);
    }

    boolean inlineFits(long bytes) {
        return bytes <= inlineFree;
    }

    /**
     * The parser stalls on ({@code true}) or resumes after ({@code false}) a WQE whose inline payload does not fit:
     * the time between is the time the inline buffer is at its limit.
     */
    void inlineWaiting(boolean waiting) {
        inlineFull.set(waiting);
    }

    long inlineFree() {
        return inlineFree;
    }

    void takeInline(long bytes) {
        if (bytes > inlineFree) {
            throw new InvariantViolation(fullName() + ": " + bytes + " inline bytes taken with " + inlineFree + " free");
        }
        inlineFree -= bytes;
        showInline();
    }

    /** An inline request was acknowledged (or flushed): its payload leaves the inline buffer. */
    void releaseInline(long bytes) {
        inlineFree += bytes;
        if (inlineFree > params.inlineBytes()) {
            throw new InvariantViolation("inline buffer released more bytes than it holds");
        }
        showInline();
        inlineFreed.run();
    }

    private void showInline() {
        inlineUsed.set(params.inlineBytes() - inlineFree);
        inlineSignal.set(params.inlineBytes() - inlineFree);
    }
}
