package dev.rdmasim.adapter.host;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** Fills made on first touch give the bytes an eager fill gives, and cost only the pages touched. */
class HostMemoryLazyFillTest {

    /** The bytes an eager pattern fill writes: SplittableRandom(seed)'s stream in 64 KiB chunks. */
    private static byte[] eagerPattern(long seed, int size) {
        byte[] all = new byte[size];
        byte[] chunk = new byte[Math.min(size, 1 << 16)];
        SplittableRandom r = new SplittableRandom(seed);
        for (int off = 0; off < size; off += chunk.length) {
            r.nextBytes(chunk);
            System.arraycopy(chunk, 0, all, off, Math.min(chunk.length, size - off));
        }
        return all;
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 42, -7, 0x5eed_1234_5678L})
    void patternFillMatchesSplittableRandomByteForByte(long seed) {
        SplittableRandom pick = new SplittableRandom(seed ^ 0x77);
        for (int round = 0; round < 6; round++) {
            int size = 1 + pick.nextInt(300_000);
            long addr = 0x1_0000_0000L + pick.nextInt(1 << 20);
            HostMemory m = new HostMemory("h");
            m.fillPattern(addr, size, seed);
            byte[] expected = eagerPattern(seed, size);
            // Read in scattered pieces (first touches at odd offsets), then the whole.
            for (int i = 0; i < 20; i++) {
                int off = pick.nextInt(size);
                int len = 1 + pick.nextInt(Math.min(9000, size - off));
                byte[] got = new byte[len];
                m.read(addr + off, got, 0, len);
                assertThat(got).as("seed %d size %d at +%d", seed, size, off)
                        .isEqualTo(java.util.Arrays.copyOfRange(expected, off, off + len));
            }
            byte[] all = new byte[size];
            m.read(addr, all, 0, size);
            assertThat(all).isEqualTo(expected);
            assertThat(m.getByte(addr - 1)).isZero();
            assertThat(m.getByte(addr + size)).isZero();
        }
    }

    @Test
    void aTerabyteFilledRegionCostsThePagesTouched() {
        HostMemory m = new HostMemory("h");
        long base = 0x10_0000_0000L;
        long size = 1L << 40;
        long start = System.nanoTime();
        m.fillPattern(base, size, 9);
        m.fill(base + size, size, (byte) 0x5A);
        m.fillLongsBE(base + 2 * size, size / 4096, base, 4096);
        byte[] page = new byte[4096];
        m.write(base + (size >> 1), page, 0, 4096);
        assertThat(m.getByte(base + size + 12345)).isEqualTo((byte) 0x5A);
        assertThat(m.getLongBE(base + 2 * size + 8 * 1000)).isEqualTo(base + 1000L * 4096);
        assertThat(m.pagesInUse()).isEqualTo(3);
        assertThat((System.nanoTime() - start) / 1e9).isLessThan(2.0);
    }

    @Test
    void aTerabyteOfZerosClearsOnlyThePagesThatExist() {
        HostMemory m = new HostMemory("h");
        long base = 0x10_0000_0000L;
        m.putLongLE(base + (1L << 39), -1L);
        long start = System.nanoTime();
        m.fill(base, 1L << 40, (byte) 0);
        assertThat((System.nanoTime() - start) / 1e9).isLessThan(2.0);
        assertThat(m.getLongLE(base + (1L << 39))).isZero();
        assertThat(m.pagesInUse()).isEqualTo(1);
    }

    @Test
    void laterFillsAndWritesWinOverEarlierOnesInOrder() {
        long a = 0x4000_0000L;
        int size = 200_000;
        HostMemory lazy = new HostMemory("lazy");
        lazy.fillPattern(a, size, 3);
        lazy.putIntBE(a + 70_000, 0x01020304); // materializes one page, then writes
        lazy.fill(a + 100_000, 80_000, (byte) 0); // zeros over the pattern, lazily
        lazy.fill(a + 10, 100, (byte) 0x11); // small: at once
        lazy.fillLongsBE(a + 150_000, 10_000, 5, 3);
        byte[] expected = eagerPattern(3, size);
        expected[70_000] = 1;
        expected[70_001] = 2;
        expected[70_002] = 3;
        expected[70_003] = 4;
        java.util.Arrays.fill(expected, 100_000, 180_000, (byte) 0);
        java.util.Arrays.fill(expected, 10, 110, (byte) 0x11);
        for (int i = 0; i < 10_000 && 150_000 + 8 * i + 8 <= size; i++) {
            long v = 5 + 3L * i;
            for (int b = 0; b < 8; b++) {
                expected[150_000 + 8 * i + b] = (byte) (v >>> (56 - 8 * b));
            }
        }
        byte[] got = new byte[size];
        lazy.read(a, got, 0, size);
        assertThat(got).isEqualTo(expected);
    }
}
