package dev.rdmasim.adapter.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HostMemoryTest {

    @Test
    void unwrittenBytesReadAsZeroWithoutCreatingPages() {
        HostMemory m = new HostMemory("h");
        byte[] buf = {1, 2, 3, 4, 5, 6, 7, 8};
        m.read(0xdead_0000L, buf, 2, 4);
        assertThat(buf).containsExactly(1, 2, 0, 0, 0, 0, 7, 8);
        assertThat(m.getLongLE(0x1234_5678_9000L)).isZero();
        assertThat(m.digest(0, 10_000)).isEqualTo(new HostMemory("z").digest(0, 10_000));
        m.fill(0x5000, 8192, (byte) 0);
        assertThat(m.pagesInUse()).isZero();
    }

    @Test
    void aReadAcrossPagesGivesZerosForTheUnwrittenOnesOverWhateverTheBufferHeld() {
        HostMemory m = new HostMemory("h");
        long page = 0x40_0000L;
        // Written: the last 8 bytes of the first page and the first 8 of the third; the second is never written.
        m.write(page + HostMemory.PAGE_SIZE - 8, new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, 0, 8);
        m.write(page + 2L * HostMemory.PAGE_SIZE, new byte[] {9, 10, 11, 12, 13, 14, 15, 16}, 0, 8);
        byte[] buf = new byte[HostMemory.PAGE_SIZE + 16 + 4];
        java.util.Arrays.fill(buf, (byte) 0x5A);
        m.read(page + HostMemory.PAGE_SIZE - 8, buf, 2, HostMemory.PAGE_SIZE + 16);
        assertThat(buf[0]).isEqualTo((byte) 0x5A);
        assertThat(buf[1]).isEqualTo((byte) 0x5A);
        assertThat(java.util.Arrays.copyOfRange(buf, 2, 10)).containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
        for (int i = 10; i < 10 + HostMemory.PAGE_SIZE; i++) {
            assertThat(buf[i]).as("byte %d of the unwritten page", i - 10).isZero();
        }
        assertThat(java.util.Arrays.copyOfRange(buf, 10 + HostMemory.PAGE_SIZE, 18 + HostMemory.PAGE_SIZE))
                .containsExactly(9, 10, 11, 12, 13, 14, 15, 16);
        assertThat(buf[18 + HostMemory.PAGE_SIZE]).isEqualTo((byte) 0x5A);
        assertThat(m.pagesInUse()).isEqualTo(2);
    }

    @Test
    void pagesReadWhileAbsentShowLaterWrites() {
        // Reads of missing pages are remembered by the page cache; every way of creating the page must replace that.
        HostMemory m = new HostMemory("h");
        long a = 0x7000L;
        long b = a + 64L * HostMemory.PAGE_SIZE; // same cache slot as a
        assertThat(m.getIntBE(a)).isZero();
        assertThat(m.getByte(b)).isZero();
        m.putIntBE(a, 0x01020304);
        assertThat(m.getIntBE(a)).isEqualTo(0x01020304);
        assertThat(m.getByte(b)).isZero();
        m.write(b + 10, new byte[] {9, 8}, 0, 2);
        assertThat(m.getShortBE(b + 10)).isEqualTo((short) 0x0908);
        assertThat(m.getIntBE(a)).isEqualTo(0x01020304);
        long c = 0x90_0000L;
        assertThat(m.getLongLE(c)).isZero();
        m.fill(c, 3, (byte) 0x55);
        assertThat(m.getByte(c + 2)).isEqualTo((byte) 0x55);
        long d = 0xA0_0000L;
        assertThat(m.getByte(d)).isZero();
        m.putByte(d, (byte) 7);
        assertThat(m.getByte(d)).isEqualTo((byte) 7);
        byte[] empty = new byte[0];
        m.write(0xB0_0000L, empty, 0, 0);
        assertThat(m.pagesInUse()).isEqualTo(4);
    }

    @Test
    void byteRangesCrossPagesBothWays() {
        HostMemory m = new HostMemory("h");
        byte[] src = new byte[10_000];
        new SplittableRandom(7).nextBytes(src);
        long addr = 3 * 4096 - 17;
        m.write(addr, src, 0, src.length);
        assertThat(m.pagesInUse()).isEqualTo(4);
        byte[] dst = new byte[src.length + 2];
        m.read(addr, dst, 1, src.length);
        assertThat(Arrays.copyOfRange(dst, 1, src.length + 1)).isEqualTo(src);
        assertThat(dst[0]).isZero();
        assertThat(m.equalsRange(addr, src, 0, src.length)).isTrue();
        assertThat(m.getByte(addr - 1)).isZero();
        assertThat(m.getByte(addr + src.length)).isZero();
        src[9_999] ^= 1;
        assertThat(m.equalsRange(addr, src, 0, src.length)).isFalse();
    }

    @Test
    void fillAndDigest() {
        HostMemory m = new HostMemory("h");
        m.fill(4090, 20, (byte) 0x5a);
        assertThat(m.getByte(4089)).isZero();
        assertThat(m.getByte(4090)).isEqualTo((byte) 0x5a);
        assertThat(m.getByte(4109)).isEqualTo((byte) 0x5a);
        assertThat(m.getByte(4110)).isZero();
        long d = m.digest(4080, 40);
        m.putByte(4100, (byte) 1);
        assertThat(m.digest(4080, 40)).isNotEqualTo(d);
    }

    @ParameterizedTest
    @ValueSource(longs = {0x1000, 0x1ffd, 0x1ffe, 0x1fff, 0x2000 - 7})
    void scalarsInBothByteOrdersIncludingAcrossPages(long addr) {
        HostMemory m = new HostMemory("h");
        m.putLongLE(addr, 0x0102030405060708L);
        assertThat(m.getByte(addr)).isEqualTo((byte) 0x08);
        assertThat(m.getByte(addr + 7)).isEqualTo((byte) 0x01);
        assertThat(m.getLongLE(addr)).isEqualTo(0x0102030405060708L);
        assertThat(m.getLongBE(addr)).isEqualTo(0x0807060504030201L);
        m.putIntBE(addr, 0xa1b2c3d4);
        assertThat(m.getByte(addr)).isEqualTo((byte) 0xa1);
        assertThat(m.getIntBE(addr)).isEqualTo(0xa1b2c3d4);
        assertThat(m.getIntLE(addr)).isEqualTo(0xd4c3b2a1);
        m.putShortLE(addr, (short) 0xbeef);
        assertThat(m.getByte(addr)).isEqualTo((byte) 0xef);
        assertThat(m.getShortBE(addr)).isEqualTo((short) 0xefbe);
        m.putShortBE(addr + 2, (short) 0x1234);
        assertThat(m.getShortLE(addr + 2)).isEqualTo((short) 0x3412);
        m.putIntLE(addr, 0x11223344);
        m.putLongBE(addr + 8, 0x1122334455667788L);
        assertThat(m.getByte(addr + 8)).isEqualTo((byte) 0x11);
        assertThat(m.getLongLE(addr + 8)).isEqualTo(0x8877665544332211L);
    }

    @Test
    void allocatorAlignsAndNeverOverlaps() {
        HostMemory m = new HostMemory("h", 0x1001, 0x100000);
        long a = m.allocate(10, 1);
        assertThat(a).isEqualTo(0x1001);
        long b = m.allocate(100, 64);
        assertThat(b % 64).isZero();
        assertThat(b).isGreaterThanOrEqualTo(a + 10);
        long c = m.allocate(4096, 4096);
        assertThat(c % 4096).isZero();
        assertThat(c).isGreaterThanOrEqualTo(b + 100);
        assertThatThrownBy(() -> m.allocate(16, 3)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("power of two");
        assertThatThrownBy(() -> m.allocate(0, 8)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("positive");
        assertThatThrownBy(() -> m.allocate(0x100000, 8)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("out of heap");
    }

    @Test
    void accessesWrappingTheAddressSpaceAreRejected() {
        HostMemory m = new HostMemory("h");
        assertThatThrownBy(() -> m.getLongLE(-4L)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("wraps");
        m.putLongLE(-8L, 42);
        assertThat(m.getLongLE(-8L)).isEqualTo(42);
    }
}
