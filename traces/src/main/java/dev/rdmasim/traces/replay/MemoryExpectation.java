package dev.rdmasim.traces.replay;

import dev.rdmasim.adapter.host.HostMemory;
import dev.rdmasim.traces.format.Buffer;
import dev.rdmasim.traces.format.Fill;
import dev.rdmasim.traces.format.Remote;
import dev.rdmasim.traces.format.TraceError;
import dev.rdmasim.traces.format.TraceLine;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The bytes a {@code check} line expects in its range, produced a chunk at a time (a range may be gigabytes):
 * the line's {@code data=}, the bytes a region filled with {@code fill=} holds at the range's offsets, or the bytes
 * of another range ({@code same=}) as they are now.
 */
abstract class MemoryExpectation {
    /** Where {@code same=} points: a host's memory and an address in it. */
    record Range(HostMemory memory, long address) {
    }

    /** Resolves a {@code same=} value to memory (the replay knows where regions lie). */
    interface Ranges {
        Range of(TraceLine l, Remote r);
    }

    /**
     * Compares the {@code length} bytes of {@code b} at {@code address} in {@code memory} with what the {@code check}
     * line {@code l} expects, a chunk at a time; a difference is a {@link TraceError} at the line naming the first
     * differing byte and how many differ.
     */
    static void check(TraceLine l, Buffer b, HostMemory memory, long address, long regionSize, Ranges ranges) {
        MemoryExpectation want = of(l, b, regionSize, ranges);
        byte[] got = new byte[(int) Math.min(b.length(), PatternBytes.CHUNK)];
        byte[] expected = new byte[got.length];
        long differing = 0;
        long first = -1;
        byte firstGot = 0;
        byte firstWant = 0;
        for (long off = 0; off < b.length(); off += got.length) {
            int n = (int) Math.min(got.length, b.length() - off);
            memory.read(address + off, got, 0, n);
            want.next(expected, n);
            for (int i = 0; i < n; i++) {
                if (got[i] != expected[i] && differing++ == 0) {
                    first = off + i;
                    firstGot = got[i];
                    firstWant = expected[i];
                }
            }
        }
        if (differing > 0) {
            throw new TraceError(l.position(), "memory check failed: " + b.mr() + "+" + (b.offset() + first) + " holds "
                    + String.format(java.util.Locale.US, "0x%02x", firstGot & 0xFF) + ", expected " + String.format(java.util.Locale.US, "0x%02x", firstWant & 0xFF)
                    + " (" + differing + " of " + b.length() + " bytes differ)");
        }
    }

    /** Writes the next {@code n} expected bytes into {@code dst[0..n)}. */
    abstract void next(byte[] dst, int n);

    static MemoryExpectation of(TraceLine l, Buffer b, long regionSize, Ranges ranges) {
        if (l.has("data")) {
            byte[] data = l.bytes("data");
            return new MemoryExpectation() {
                private int at;

                @Override
                void next(byte[] dst, int n) {
                    System.arraycopy(data, at, dst, 0, n);
                    at += n;
                }
            };
        }
        if (l.has("same")) {
            Range r = ranges.of(l, l.remote("same"));
            return new MemoryExpectation() {
                private long at = r.address();

                @Override
                void next(byte[] dst, int n) {
                    r.memory().read(at, dst, 0, n);
                    at += n;
                }
            };
        }
        Fill f = l.fill("fill");
        return switch (f.kind()) {
            case ZERO -> constant((byte) 0);
            case BYTE -> constant((byte) f.value());
            case PATTERN -> new PatternBytes(f.value(), regionSize, b.offset());
        };
    }

    private static MemoryExpectation constant(byte v) {
        return new MemoryExpectation() {
            @Override
            void next(byte[] dst, int n) {
                Arrays.fill(dst, 0, n, v);
            }
        };
    }

    /**
     * The seeded byte stream of {@code fill=pattern:SEED} from a region offset: the replay fills a region in chunks
     * of {@link #CHUNK} bytes (or the region's size, if smaller), each one call of {@link SplittableRandom#nextBytes},
     * so the same chunks are made again here and the ones before the offset skipped.
     */
    static final class PatternBytes extends MemoryExpectation {
        static final int CHUNK = 1 << 16;
        private final SplittableRandom random;
        private final byte[] chunk;
        private int pos;

        PatternBytes(long seed, long regionSize, long offset) {
            random = new SplittableRandom(seed);
            chunk = new byte[(int) Math.min(regionSize, CHUNK)];
            for (long skip = offset / chunk.length; skip > 0; skip--) {
                random.nextBytes(chunk);
            }
            random.nextBytes(chunk);
            pos = (int) (offset % chunk.length);
        }

        @Override
        void next(byte[] dst, int n) {
            int done = 0;
            while (done < n) {
                if (pos == chunk.length) {
                    random.nextBytes(chunk);
                    pos = 0;
                }
                int k = Math.min(n - done, chunk.length - pos);
                System.arraycopy(chunk, pos, dst, done, k);
                pos += k;
                done += k;
            }
        }
    }
}
