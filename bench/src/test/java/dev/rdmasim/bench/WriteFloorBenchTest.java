package dev.rdmasim.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The floor benchmark really moves each WRITE's payload to the peer and reads back the CQE it wrote. */
class WriteFloorBenchTest {
    @Test
    void payloadsLandAndCqesCarryTheWqeCounter() {
        WriteFloorBench b = new WriteFloorBench();
        b.setUp();
        byte[] expected = new byte[64];
        Arrays.fill(expected, (byte) 0x5A);
        for (int i = 0; i < 300; i++) {
            assertThat(b.hostB().equalsRange(b.destination(i), expected, 0, 64)).isFalse();
            int r = b.write();
            // The CQE's WQE counter plus the ACK's MSN, both i.
            assertThat(r).isEqualTo(2 * i);
            assertThat(b.hostB().equalsRange(b.destination(i), expected, 0, 64)).isTrue();
        }
        // Nothing lands past the last WRITE.
        assertThat(b.hostB().equalsRange(b.destination(300), expected, 0, 64)).isFalse();
    }
}
