package dev.rdmasim.kernel.random;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * Factory of named random streams derived from a single run seed.
 *
 * <p>A stream's seed depends only on the run seed and the stream's name, never on how many streams were
 * created before it or in which order. That keeps a run reproducible when blocks are added to or removed
 * from a model: only the streams of the changed blocks see different numbers.
 */
public final class RandomStreams {

    private static final long FNV_OFFSET_BASIS = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;
    private static final long GOLDEN_GAMMA = 0x9e3779b97f4a7c15L;

    private final long runSeed;

    public RandomStreams(long runSeed) {
        this.runSeed = runSeed;
    }

    public long runSeed() {
        return runSeed;
    }

    /** Returns a new generator for {@code name}; each call starts the same sequence again. */
    public SplittableRandom stream(String name) {
        return new SplittableRandom(seedFor(runSeed, name));
    }

    /**
     * The seed of the stream called {@code name} in a run seeded with {@code runSeed}: the 64-bit FNV-1a
     * hash of the name's UTF-8 bytes, xor-ed with the scrambled run seed, through the SplitMix64 finalizer.
     */
    public static long seedFor(long runSeed, String name) {
        Objects.requireNonNull(name, "name");
        // Scrambling the run seed first keeps neighbouring run seeds (1, 2, 3...) from giving streams whose
        // seeds differ only in their low bits before the final mix.
        return mix64(fnv1a64(name.getBytes(StandardCharsets.UTF_8)) ^ mix64(runSeed + GOLDEN_GAMMA));
    }

    private static long fnv1a64(byte[] bytes) {
        long hash = FNV_OFFSET_BASIS;
        for (byte b : bytes) {
            hash ^= b & 0xffL;
            hash *= FNV_PRIME;
        }
        return hash;
    }

    /** The SplitMix64 output finalizer (Stafford's variant 13). */
    private static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
